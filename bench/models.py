#!/usr/bin/env python3
# The backend's table for whole models, run by hand: python3 bench/models.py [--steps N] [--reps N] [--layers N] [--json OUT]
"""torch.compile(backend="coil") against Inductor and eager on whole models,
in one process, on the same inputs:

  - first call: the first forward + backward of each model (what a user
    waits for), each compiler with an empty disk cache of its own, beside
    aot_eager's: Dynamo and aot_autograd alone, the floor under any
    backend built on them (Dynamo's one-time start-up is paid first, on a
    tiny function, so that it lands on none of them);
  - steady state: the median of --steps training steps (forward, backward),
    the three backends taking steps in turn (the same load for each on a
    shared machine), and the median of the per-step ratios coil/Inductor;
  - per-call overhead: a tiny pointwise graph called 2000 times, --reps
    times, the backends taking turns.

On a machine with other jobs, run it with OMP_WAIT_POLICY=passive (OpenMP
threads that spin while waiting take the cores the other jobs need).

Models: transformers' Llama (--layers, 2 by default; hidden 256, from a config with random
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


def llama(layers=2):
    import transformers
    cfg = transformers.LlamaConfig(hidden_size=256, intermediate_size=688, num_hidden_layers=layers, num_attention_heads=4,
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


def warm_up_dynamo():
    """Dynamo's and aot_autograd's one-time start-up (imports, first
    tracing), on a tiny function, so that no backend's first call pays it."""
    x = torch.randn(4, requires_grad=True)
    torch.compile(lambda t: (t * 2).sum(), backend="aot_eager")(x).backward()
    torch._dynamo.reset()


def time_models(make, steps, backends=("eager", "coil", "inductor"), first_only=("aot_eager",)):
    """Each backend's first step (after torch._dynamo.reset(), so each
    compiles from nothing), then steps taken in turn, one per backend at a
    time, so that all three see the same load on a shared machine.  The
    backends of first_only take their first step only."""
    runs, first = {}, {}
    for backend in first_only + backends:
        torch._dynamo.reset()
        torch.manual_seed(0)
        model, args, loss_of = make()
        run = model if backend == "eager" else torch.compile(model, backend=backend)
        t0 = time.perf_counter()
        step(run, args, loss_of)
        first[backend] = time.perf_counter() - t0
        if backend not in first_only:
            runs[backend] = (run, args, loss_of)
    times = {b: [] for b in backends}
    for i in range(steps + 2):  # two warm-up steps each (a reset made the others' code compile again)
        for backend, (run, args, loss_of) in runs.items():
            t0 = time.perf_counter()
            step(run, args, loss_of)
            if i >= 2:
                times[backend].append(time.perf_counter() - t0)
    return first, times


def tiny(x):
    return x * 2.0 + 1.0


def tiny_coil(x):
    return x * 2.0 + 1.0


def tiny_inductor(x):
    return x * 2.0 + 1.0


def overhead(reps, calls=2000):
    """Seconds per call of each backend, one list entry per repetition,
    the backends taking turns (each its own function, so that Dynamo keeps
    one compiled entry for each)."""
    torch._dynamo.reset()
    fns = {"eager": tiny, "coil": torch.compile(tiny_coil, backend="coil"),
           "inductor": torch.compile(tiny_inductor, backend="inductor")}
    x = torch.randn(8)
    for f in fns.values():
        for _ in range(50):
            f(x)
    out = {b: [] for b in fns}
    for _ in range(reps):
        for b, f in fns.items():
            t0 = time.perf_counter()
            for _ in range(calls):
                f(x)
            out[b].append((time.perf_counter() - t0) / calls)
    return out


def ratios(a, b):
    return [x / y for x, y in zip(a, b)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--reps", type=int, default=7, help="repetitions of the tiny graph's 2000 calls")
    ap.add_argument("--layers", type=int, default=2, help="Llama's layers (a deeper graph: partitioning, repeated programs)")
    ap.add_argument("--json")
    a = ap.parse_args()
    med = statistics.median
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, OMP_WAIT_POLICY="
          f"{os.environ.get('OMP_WAIT_POLICY', '(unset)')}; caches: {os.environ['COIL_CACHE_DIR']}, "
          f"{os.environ['TORCHINDUCTOR_CACHE_DIR']}", flush=True)
    rows = []
    warm_up_dynamo()
    for name, make in (("rms_mlp_block", rms_mlp), (f"llama_{a.layers}_layers", lambda: llama(a.layers))):
        first, times = time_models(make, a.steps)
        row = {"model": name}
        for backend in first:
            if backend not in times:
                row[backend] = {"first_s": first[backend]}
                print(f"  {name:16s} {backend:9s} first call {first[backend]:7.2f} s", flush=True)
                continue
            row[backend] = {"first_s": first[backend], "step_ms": med(times[backend]) * 1e3,
                            "steps_ms": [t * 1e3 for t in times[backend]]}
            print(f"  {name:16s} {backend:9s} first call {first[backend]:7.2f} s   step {med(times[backend]) * 1e3:8.2f} ms",
                  flush=True)
        row["step_coil_over_inductor"] = med(ratios(times["coil"], times["inductor"]))
        rows.append(row)
    calls = overhead(a.reps)
    tiny_row = {"model": "tiny_pointwise"}
    for backend, ts in calls.items():
        tiny_row[backend] = {"call_us": med(ts) * 1e6, "calls_us": [t * 1e6 for t in ts]}
        print(f"  tiny pointwise   {backend:9s} per call {med(ts) * 1e6:7.1f} us  ({' '.join(f'{t * 1e6:.1f}' for t in ts)})",
              flush=True)
    r = ratios(calls["coil"], calls["inductor"])
    tiny_row["call_coil_over_inductor"] = med(r)
    print()
    print("| model | eager step ms | aot_eager first s | coil first s | coil step ms | Inductor first s | "
          "Inductor step ms | first call, Inductor/coil | Inductor/aot_eager | step, coil/Inductor "
          "(median of per-step ratios) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        e, f, c, i = row["eager"], row["aot_eager"], row["coil"], row["inductor"]
        print(f"| {row['model']} | {e['step_ms']:.1f} | {f['first_s']:.2f} | {c['first_s']:.2f} | {c['step_ms']:.1f} | "
              f"{i['first_s']:.2f} | {i['step_ms']:.1f} | {i['first_s'] / c['first_s']:.1f}x | "
              f"{i['first_s'] / f['first_s']:.1f}x | {row['step_coil_over_inductor']:.2f} |")
    t = tiny_row
    print(f"\nper call, x * 2 + 1 on 8 floats (median of {a.reps} x 2000 calls): eager {t['eager']['call_us']:.1f} us, "
          f"coil {t['coil']['call_us']:.1f} us, Inductor {t['inductor']['call_us']:.1f} us; coil/Inductor per "
          f"repetition {' '.join(f'{x:.2f}' for x in r)} (median {med(r):.2f})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows + [tiny_row], f, indent=1)


if __name__ == "__main__":
    main()
