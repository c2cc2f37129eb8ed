#!/usr/bin/env python3
# The backend's table for whole models, run by hand: python3 bench/models.py [--steps N] [--json OUT]
"""torch.compile(backend="coil") against Inductor and eager on whole models,
in one process, on the same inputs:

  - first call: the first forward + backward of each model (what a user
    waits for), each compiler with an empty disk cache of its own;
  - steady state: the median of --steps training steps (forward, backward);
  - per-call overhead: a tiny pointwise graph called many times.

Models: transformers' Llama (2 layers, hidden 256, from a config with random
weights: nothing is downloaded), and the RMSNorm + MLP block of
tests/python/test_backend.py.  Needs torch, transformers and the coil
package (make builds it into build/python)."""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "build", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "python"))

# Each compiler starts from an empty disk cache: the first call is a compile.
os.environ.setdefault("COIL_CACHE_DIR", tempfile.mkdtemp(prefix="coil-bench-"))
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="inductor-bench-"))

import torch  # noqa: E402

import coil.backend  # noqa: E402,F401  (backend="coil" by name from the build tree)


def llama():
    import transformers
    cfg = transformers.LlamaConfig(hidden_size=256, intermediate_size=688, num_hidden_layers=2, num_attention_heads=4,
                                   num_key_value_heads=2, vocab_size=1000, max_position_embeddings=256)
    model = transformers.LlamaForCausalLM(cfg)
    ids = torch.randint(0, 1000, (2, 64))
    return model, (ids,), lambda out: out.logits.float().pow(2).mean()


def rms_mlp():
    from test_backend import RMSMLPBlock
    return RMSMLPBlock(256), (torch.randn(8, 64, 256),), lambda out: out.pow(2).mean()


def step(model, args, loss_of):
    model.zero_grad(set_to_none=True)
    loss = loss_of(model(*args))
    loss.backward()
    return loss


def time_model(make, backend, steps):
    torch.manual_seed(0)
    model, args, loss_of = make()
    run = model if backend == "eager" else torch.compile(model, backend=backend)
    t0 = time.perf_counter()
    step(run, args, loss_of)
    first = time.perf_counter() - t0
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step(run, args, loss_of)
        times.append(time.perf_counter() - t0)
    return first, statistics.median(times)


def tiny(x):
    return x * 2.0 + 1.0


def overhead(backend, calls=2000):
    f = tiny if backend == "eager" else torch.compile(tiny, backend=backend)
    x = torch.randn(8)
    for _ in range(20):
        f(x)
    t0 = time.perf_counter()
    for _ in range(calls):
        f(x)
    return (time.perf_counter() - t0) / calls


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--json")
    a = ap.parse_args()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; caches: {os.environ['COIL_CACHE_DIR']}, "
          f"{os.environ['TORCHINDUCTOR_CACHE_DIR']}", flush=True)
    rows = []
    for name, make in (("rms_mlp_block", rms_mlp), ("llama_2_layers", llama)):
        row = {"model": name}
        for backend in ("eager", "coil", "inductor"):
            torch._dynamo.reset()
            first, steady = time_model(make, backend, a.steps)
            row[backend] = {"first_s": first, "step_ms": steady * 1e3}
            print(f"  {name:16s} {backend:9s} first call {first:7.2f} s   step {steady * 1e3:8.2f} ms", flush=True)
        rows.append(row)
    tiny_row = {"model": "tiny_pointwise"}
    for backend in ("eager", "coil", "inductor"):
        torch._dynamo.reset()
        tiny_row[backend] = {"call_us": overhead(backend) * 1e6}
        print(f"  tiny pointwise   {backend:9s} per call {tiny_row[backend]['call_us']:7.1f} us", flush=True)
    print()
    print("| model | eager step ms | coil first s | coil step ms | Inductor first s | Inductor step ms | "
          "first call, Inductor/coil | step, Inductor/coil |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        e, c, i = r["eager"], r["coil"], r["inductor"]
        print(f"| {r['model']} | {e['step_ms']:.1f} | {c['first_s']:.2f} | {c['step_ms']:.1f} | {i['first_s']:.2f} | "
              f"{i['step_ms']:.1f} | {i['first_s'] / c['first_s']:.1f}x | {i['step_ms'] / c['step_ms']:.2f}x |")
    t = tiny_row
    print(f"\nper call, x * 2 + 1 on 8 floats: eager {t['eager']['call_us']:.1f} us, coil {t['coil']['call_us']:.1f} us, "
          f"Inductor {t['inductor']['call_us']:.1f} us")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows + [tiny_row], f, indent=1)


if __name__ == "__main__":
    main()
