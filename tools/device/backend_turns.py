# coil against Inductor on CUDA, the two taking turns in one process: one line of results per process.
"""Run on the lent H200 after building the package (tools/device/backend_cuda.sh builds it).
To compare a setting read at start-up, run processes with it on and off in
alternation, as docs/gpu.md's table of native launches was made:

    for i in 1 2 3; do for n in 1 0; do
      COIL_NATIVE_LAUNCH=$n COIL_CACHE_DIR=/tmp/coil-cache python3 tools/device/backend_turns.py
    done; done

Cases: a softmax * 2 over [64, 1000] and (x * 2).sum() over [1024] (50 calls
a turn: their time is the host's), and Llama's training step
(tools/device/backend_cuda.py's; 10 steps a turn).  Each prints coil's and
Inductor's medians and the median of the per-round ratios; last, how many
of the live Plans' launches call the CUDA driver themselves."""
import gc
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "build", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import coil  # noqa: E402
import coil.backend  # noqa: E402
from backend_cuda import _llama, _training_step, dev, in_turn  # noqa: E402


def ratio(turns):
    return statistics.median(c / i for c, i in zip(turns["coil"], turns["inductor"]))


def main():
    s = torch.randn(64, 1000, device=dev)
    t = torch.randn(1024, device=dev)
    row = [f"native_launch={coil.config.native_launch}"]
    for name, fn, args in (("softmax", lambda a: torch.softmax(a, -1) * 2, (s,)),
                           ("tiny", lambda a: (a * 2).sum(), (t,))):
        steps = {}
        for b in ("inductor", "coil"):
            torch._dynamo.reset()
            f = torch.compile(fn, backend=b)
            steps[b] = (lambda f=f: [f(*args) for _ in range(50)])
            steps[b]()
        turns = in_turn(steps, rounds=15)
        c, i = (statistics.median(turns[k]) / 50 * 1e6 for k in ("coil", "inductor"))
        row.append(f"{name}: coil {c:.2f} us, inductor {i:.2f} us, ratio {ratio(turns):.3f}")
    steps = {}
    for b in ("inductor", "coil"):
        torch._dynamo.reset()
        torch.manual_seed(0)
        model, args, loss_of = _llama()
        steps[b] = _training_step(model, torch.compile(model, backend=b), args, loss_of)
        steps[b]()
    turns = in_turn(steps, rounds=21)
    c, i = (statistics.median(turns[k]) * 1e3 for k in ("coil", "inductor"))
    row.append(f"llama: coil {c:.3f} ms, inductor {i:.3f} ms, ratio {ratio(turns):.3f}")
    plans = [g.runner.plan for g in gc.get_objects()
             if type(g) is coil.backend.CoilGroup and g.runner.plan is not None]
    row.append(f"plans {len(plans)}, native launches {sum(p.native for p in plans)}")
    print(" | ".join(row), flush=True)


if __name__ == "__main__":
    main()
