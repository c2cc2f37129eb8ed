#!/usr/bin/env python3
# Each coil group of a model's step against Inductor, run by hand:
#   python3 bench/groups.py [--model llama|rms_mlp] [--rounds N] [--write DIR]
"""Where a model's step loses to Inductor, group by group: each coil group
of the model's first training step (forward and backward graphs) is written
out as the graph API's source (coil's subset: the ATen calls with their
shapes and strides, what `coil dump` and `coil bench` take), then compiled
alone as a function with backend="coil" and with backend="inductor" on
inputs of those shapes and strides, the two called in turn, the least of
--rounds calls each.  Both sides pay Dynamo's call, so a group's ratio is
its kernels' (and a few microseconds of calls).

On a machine with other jobs, run it with OMP_WAIT_POLICY=passive, as
bench/models.py.  A group that fails to compile or run under either
backend is skipped, with the reason."""
import argparse
import os
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "build", "python"))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import coil.backend as backend  # noqa: E402
import models  # noqa: E402

DTYPES = {"f32": torch.float32, "f64": torch.float64, "bf16": torch.bfloat16, "f16": torch.float16,
          "i64": torch.int64, "i32": torch.int32, "bool": torch.bool}


def group_sources(make):
    """(graph/group name, source) of every coil group of one training step."""
    groups = []
    init = backend.CoilGroup.__init__

    def record(self, *args, **kwargs):
        init(self, *args, **kwargs)
        groups.append(self)
    backend.CoilGroup.__init__ = record
    try:
        torch._dynamo.reset()
        torch.manual_seed(0)
        model, args, loss_of = make()
        models.step(torch.compile(model, backend="coil"), args, loss_of)
    finally:
        backend.CoilGroup.__init__ = init
    out = []
    for g in groups:
        values = [backend._example(n) for n in g.placeholders]
        if any(v is None for v in values):
            continue  # symbolic shapes: no one source
        perms = [backend._layout(n)[1] for n in g.outputs]
        out.append((f"{g.graph_name}_{g.name}", backend._build(g.name, g.nodes, g.placeholders, values, g.outputs,
                                                               perms).g.source()))
    return out


def inputs(source):
    """Tensors for the annotations of the source's function: index tensors
    small (ids of an embedding, positions), floats in [0.5, 1.5)."""
    head = re.search(r"^def \w+\((.*)\):", source, re.M).group(1)
    out = []
    for m in re.finditer(r'\w+: "(\w+)\[([\d, ]*)\]( stride\(([\d, ]*)\))?"', head):
        dtype, shape = DTYPES[m.group(1)], [int(s) for s in m.group(2).split(",") if s.strip()]
        strides = [int(s) for s in m.group(4).split(",")] if m.group(4) else None
        if dtype in (torch.int64, torch.int32):
            t = torch.randint(0, 32, shape, dtype=dtype)
        elif dtype == torch.bool:
            t = torch.rand(shape) < 0.5
        else:
            t = (torch.rand(shape) + 0.5).to(dtype)
        if strides:
            span = 1 + sum((n - 1) * s for n, s in zip(shape, strides))
            t = torch.empty(span, dtype=dtype).as_strided(shape, strides).copy_(t)
        out.append(t)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", choices=("llama", "rms_mlp"), default="llama")
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--write", help="a folder for each group's source (for coil dump / coil bench)")
    a = ap.parse_args()
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="inductor-groups-"))
    sources = group_sources(models.llama if a.model == "llama" else models.rms_mlp)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, OMP_WAIT_POLICY="
          f"{os.environ.get('OMP_WAIT_POLICY', '(unset)')}; {a.model}: {len(sources)} groups", flush=True)
    total = {"coil": 0.0, "inductor": 0.0}
    for name, source in sources:
        if a.write:
            os.makedirs(a.write, exist_ok=True)
            with open(os.path.join(a.write, f"{name}.py"), "w") as f:
                f.write(source)
        scope = {}
        exec(compile(source, f"<{name}>", "exec"), scope)
        fn = next(v for k, v in scope.items() if k.startswith("coil_"))
        args = inputs(source)
        shapes = " ".join(f"{list(t.shape)}" for t in args)
        runs = {}
        try:
            for b in ("coil", "inductor"):
                torch._dynamo.reset()
                runs[b] = torch.compile(fn, backend=b)
                for _ in range(3):
                    runs[b](*args)
        except Exception as e:  # one group's failure does not end the survey (see the docstring)
            print(f"  {name:20s} skipped: {str(e).splitlines()[0][:100]}", flush=True)
            continue
        best = {b: float("inf") for b in runs}
        for _ in range(a.rounds):
            for b, run in runs.items():
                t0 = time.perf_counter()
                run(*args)
                best[b] = min(best[b], time.perf_counter() - t0)
        for b in best:
            total[b] += best[b]
        print(f"  {name:20s} coil {best['coil'] * 1e6:9.1f} us  Inductor {best['inductor'] * 1e6:9.1f} us  "
              f"coil/Inductor {best['coil'] / best['inductor']:5.2f}   inputs {shapes}", flush=True)
    print(f"all groups: coil {total['coil'] * 1e6:.0f} us, Inductor {total['inductor'] * 1e6:.0f} us, "
          f"coil/Inductor {total['coil'] / max(total['inductor'], 1e-12):.2f}")


if __name__ == "__main__":
    main()
