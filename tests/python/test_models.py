"""Model code no one here wrote: the census's models (transformers' Llama,
GPT-2 and BERT, timm's ViT), built from configs with random weights
(nothing is downloaded), forward and backward under
torch.compile(backend="coil") against eager."""
import copy

import pytest
import torch

import coil

transformers = pytest.importorskip("transformers")


def llama():
    cfg = transformers.LlamaConfig(hidden_size=64, intermediate_size=172, num_hidden_layers=2, num_attention_heads=4,
                                   num_key_value_heads=2, vocab_size=128, max_position_embeddings=64)
    return transformers.LlamaForCausalLM(cfg)


def gpt2():
    cfg = transformers.GPT2Config(n_embd=64, n_layer=2, n_head=4, vocab_size=128, n_positions=64,
                                  resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    return transformers.GPT2LMHeadModel(cfg)


def bert():
    cfg = transformers.BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                                  vocab_size=128, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    return transformers.BertForMaskedLM(cfg)


def vit():
    import timm
    return timm.create_model("vit_tiny_patch16_224", pretrained=False, num_classes=10, img_size=32, patch_size=8)


def logits(out):
    return out.logits if hasattr(out, "logits") else out


@pytest.mark.parametrize("make", [llama, gpt2, bert, vit], ids=["llama", "gpt2", "bert", "vit"])
def test_forward_and_backward_match_eager(make):
    torch.manual_seed(0)
    eager = make().eval()
    model = copy.deepcopy(eager)
    x = torch.randn(2, 3, 32, 32) if make is vit else torch.randint(0, 128, (2, 24))
    want = logits(eager(x))
    want.float().pow(2).mean().backward()
    compiled = torch.compile(model, backend="coil")
    got = logits(compiled(x))
    got.float().pow(2).mean().backward()
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    for (name, w), g in zip(eager.named_parameters(), model.parameters()):
        if w.grad is None:
            assert g.grad is None, name
            continue
        torch.testing.assert_close(g.grad, w.grad, rtol=1e-3, atol=1e-5, msg=name)


def test_llama_report_runs_norms_in_coil():
    report = coil.explain(llama().eval(), torch.randint(0, 128, (2, 16)))
    assert report.kernels, report
    ops = {op for k in report.kernels for op in k.ops}
    assert "aten.rsqrt.default" in ops, report
