#!/usr/bin/env python3
"""`coil emit --target triton-gpu --autotune`, under Triton's interpreter.

    python3 tests/triton_interp/autotune.py COIL

A module emitted with --autotune offers each kernel a few tiles around the
model's (COIL_TUNE) and chooses among them on its first call, caching the
choice beside itself.  This checks, on the CPU:

  candidates/  every candidate of every tuned kernel gives what eager PyTorch
               gives (the harness's coil_check, the same tolerances as the
               model's tiles): a row reduction, a column reduction, the seed
               scaled down (a split reduction), a column variance whose loop
               the model unrolls, a softmax and an RMSNorm that run as chains;
  cache/       the first load times every candidate once (an injected timer
               counts the calls and makes one candidate the fastest), runs it,
               and writes <module>.autotune.json; a second load of the module
               (a new module object, as another process would) times nothing
               and runs the cached choice; a corrupt cache is ignored with a
               logged warning and rewritten; a stale entry (another source) is
               ignored and replaced; COIL_AUTOTUNE=0 times nothing and runs the
               model's; COIL_AUTOTUNE=redo times again; no temp file is left;
  control/     a candidate broken on purpose (a grid of one block fewer) must
               fail the candidates' check, so that the check can fail.

Prints "ok NAME" or "FAIL NAME: why" per case."""
import glob
import json
import logging
import os
import re
import subprocess
import sys
import tempfile

os.environ["TRITON_INTERPRET"] = "1"
from run import load  # noqa: E402  (tests/triton_interp/run.py, beside this file)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

SOURCE = '''import torch


def row_sum(x: "f32[37, 1500]"):
    return x.sum(1)


def col_sum(x: "f32[300, 67]"):
    return x.sum(0)
'''


def seed_args(b, s, h, d):
    return ["--arg", f"grad_out_base=f32[{b},{h},{s},{d}]", "--arg", f"q=bf16[{b},{s},{h},{d}]",
            "--arg", f"q_square_sum=f32[{b},{s},{h}] uniform(1,2)"]


class Counter(logging.Handler):
    """The coil.autotune logger's records."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)

    def warnings(self):
        return [r.getMessage() for r in self.records if r.levelno >= logging.WARNING]


def emit(coil, tmp, name, args):
    path = os.path.join(tmp, name + ".py")
    r = subprocess.run([coil, "emit", "--target", "triton-gpu", "--autotune", "--harness"] + args,
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"coil emit: {r.stderr.strip()[:300]}")
    with open(path, "w") as f:
        f.write(r.stdout)
    return path


def check_candidates(path, modname):
    """Problems of any candidate: each tuned kernel runs each of its candidates, the others the
    model's, and the outputs are checked against eager PyTorch."""
    mod = load(path, modname)
    if not mod.COIL_TUNE:
        return ["no kernel has candidates"], 0
    problems, n = [], 0
    for u, tune in enumerate(mod.COIL_TUNE):
        for c, cand in enumerate(tune["candidates"]):
            mod.coil_tuned.clear()
            mod.coil_tuned.update({v: 0 for v in range(len(mod.COIL_TUNE))})
            mod.coil_tuned[u] = c
            n += 1
            for p in mod.coil_check("cpu"):
                problems.append(f"{tune['kernel']} candidate {c} ({cand['label']}): {p}")
    return problems, n


def candidates(coil, tmp):
    src = os.path.join(tmp, "sums.py")
    with open(src, "w") as f:
        f.write(SOURCE)
    cases = [
        ("row_sum", [src, "--fn", "row_sum"]),
        ("col_sum", [src, "--fn", "col_sum"]),
        # the seed scaled down, still split (few outputs, long rows)
        ("seed", [os.path.join(ROOT, "tests/triton_golden/seed.py")] + seed_args(2, 64, 24, 24)),
        # a variance's f64 sums over columns: the model unrolls its split
        # loop (21 steps a part, the last part masked); a candidate does not
        ("col_var_unrolled", [os.path.join(ROOT, "tests/triton_golden/f64_columns.py"), "--arg", "x=f32[4001,64]",
                              "--gpu-sms", "4"]),
        # normalisations: with 2 multiprocessors their rows form chains
        ("softmax_chain", [os.path.join(ROOT, "examples/softmax.py"), "--arg", "x=f32[7,1031]", "--gpu-sms", "2"]),
        ("rms_norm_chain", [os.path.join(ROOT, "examples/rms_norm.py"), "--arg", "x=bf16[3,5,96]",
                            "--arg", "weight=f32[96]", "--gpu-sms", "2"]),
    ]
    for name, args in cases:
        label = f"triton/autotune/candidates/{name}"
        try:
            path = emit(coil, tmp, name, args)
            with open(path) as f:
                text = f.read()
            if name == "seed" and "RSPLIT_CHUNK" not in text:
                print(f"FAIL {label}: the scaled-down seed is no longer split: pick another shape")
                continue
            if name == "col_var_unrolled" and "loop_unroll_factor=2" not in text:
                print(f"FAIL {label}: the model no longer unrolls this loop: pick another shape")
                continue
            if name.endswith("_chain") and "_chain(" not in text:
                print(f"FAIL {label}: no chain: the normalisation is not tuned as one")
                continue
            problems, n = check_candidates(path, f"cand_{name}")
            if problems:
                print(f"FAIL {label}: {len(problems)} of {n} runs: " + " | ".join(problems)[:600])
            else:
                print(f"ok {label} ({n} candidates)")
        except Exception as e:
            print(f"FAIL {label}: {type(e).__name__}: {str(e)[:300]}")


def control(coil, tmp):
    """A candidate that leaves the last block of rows out must fail the check."""
    label = "triton/autotune/control/grid_short"
    src = os.path.join(tmp, "sums.py")
    path = emit(coil, tmp, "control", [src, "--fn", "row_sum"])
    with open(path) as f:
        text = f.read()
    head, tune = text.split("COIL_TUNE = [", 1)
    # the first candidate after the model's: its grid one block shorter along x
    m = list(re.finditer(r"'grid': \((\d+), ", tune))
    if len(m) < 2 or int(m[1].group(1)) < 2:
        print(f"FAIL {label}: no candidate with two blocks or more to break")
        return
    g = m[1]
    tune = tune[:g.start(1)] + str(int(g.group(1)) - 1) + tune[g.end(1):]
    broken = os.path.join(tmp, "control_broken.py")
    with open(broken, "w") as f:
        f.write(head + "COIL_TUNE = [" + tune)
    problems, _ = check_candidates(broken, "control_broken")
    print(f"ok {label} # fails as it must: {problems[0][:120]}" if problems
          else f"FAIL {label}: the check passed a candidate broken on purpose")


def cache(coil, tmp):
    src = os.path.join(tmp, "sums.py")
    path = emit(coil, tmp, "cached", [src, "--fn", "row_sum"])
    cache_file = os.path.splitext(path)[0] + ".autotune.json"
    log = logging.getLogger("coil.autotune")
    handler = Counter()
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    calls = []

    def timer(run, device, kernel, candidate):
        run()
        calls.append((kernel, candidate))
        return 1.0 if candidate == 2 else 5.0 + candidate  # candidate 2 the fastest

    loads = [0]

    def fresh():
        loads[0] += 1
        mod = load(path, f"cached_{loads[0]}")
        mod.coil_tune_timer = timer
        return mod

    def case(name, ok, why):
        print(f"ok triton/autotune/cache/{name}" if ok else f"FAIL triton/autotune/cache/{name}: {why}")

    os.environ.pop("COIL_AUTOTUNE", None)
    os.environ.pop("COIL_AUTOTUNE_CACHE", None)
    mod = fresh()
    ncand = len(mod.COIL_TUNE[0]["candidates"])
    problems = mod.coil_check("cpu")
    case("first_call_times_each_candidate", not problems and len(calls) == ncand and mod.coil_tuned == {0: 2},
         f"problems {problems}, {len(calls)} timings of {ncand} candidates, choice {mod.coil_tuned}")
    try:
        with open(cache_file) as f:
            data = json.load(f)
        entries = list(data["entries"].values())
        ok = len(entries) == 1 and entries[0]["choice"] == 2 and entries[0]["kernel"] == mod.COIL_TUNE[0]["kernel"]
        case("written", ok, f"entries {entries}")
    except (OSError, ValueError, KeyError) as e:
        case("written", False, f"{type(e).__name__}: {e}")
    calls.clear()
    mod.coil_check("cpu")
    case("second_call_times_nothing", not calls, f"{len(calls)} timings")

    calls.clear()
    mod = fresh()
    problems = mod.coil_check("cpu")
    case("second_load_uses_the_cache", not problems and not calls and mod.coil_tuned == {0: 2},
         f"problems {problems}, {len(calls)} timings, choice {mod.coil_tuned}")
    chosen = mod.COIL_TUNE[0]["candidates"][2]["launches"][0]
    (kernel, args, warps), = mod.coil_bind(mod.coil_alloc(mod.coil_make_inputs("cpu")))
    consts = [v for _, kind, v in chosen["args"] if kind == "constexpr"]
    case("bind_runs_the_choice", warps == chosen["num_warps"] and args[-len(consts):] == consts,
         f"bound {args[-len(consts):]} num_warps {warps}, want {chosen}")

    with open(cache_file, "w") as f:
        f.write('{"version": 1, "entries": {"half a fi')
    calls.clear()
    handler.records.clear()
    mod = fresh()
    problems = mod.coil_check("cpu")
    warned = [w for w in handler.warnings() if "corrupt" in w]
    try:
        with open(cache_file) as f:
            rewritten = json.load(f)["entries"]
    except (OSError, ValueError, KeyError):
        rewritten = None
    case("corrupt_ignored_and_rewritten", not problems and warned and len(calls) == ncand and rewritten and
         len(rewritten) == 1, f"warnings {handler.warnings()}, {len(calls)} timings, cache {rewritten}")

    with open(cache_file) as f:
        data = json.load(f)
    (key, entry), = data["entries"].items()
    entry["source"] = "0123456789abcdef"
    data["entries"] = {key.replace(key.split(" | ")[1], entry["source"]): entry}
    with open(cache_file, "w") as f:
        json.dump(data, f)
    calls.clear()
    handler.records.clear()
    mod = fresh()
    mod.coil_check("cpu")
    with open(cache_file) as f:
        after = json.load(f)["entries"]
    case("stale_ignored_and_replaced", any("stale" in w for w in handler.warnings()) and len(calls) == ncand and
         len(after) == 1 and next(iter(after.values()))["source"] != "0123456789abcdef",
         f"warnings {handler.warnings()}, {len(calls)} timings, cache {after}")

    calls.clear()
    os.environ["COIL_AUTOTUNE"] = "0"
    mod = fresh()
    problems = mod.coil_check("cpu")
    case("off_runs_the_model", not problems and not calls and mod.coil_tuned == {0: 0},
         f"problems {problems}, {len(calls)} timings, choice {mod.coil_tuned}")
    os.environ["COIL_AUTOTUNE"] = "redo"
    mod = fresh()
    mod.coil_check("cpu")
    case("redo_times_again", len(calls) == ncand, f"{len(calls)} timings")
    os.environ.pop("COIL_AUTOTUNE")

    left = [p for p in glob.glob(os.path.join(tmp, "*")) if p.endswith(".tmp")]
    case("no_temp_files", not left, f"left {left}")
    log.removeHandler(handler)


def main():
    coil = sys.argv[1]
    tmp = tempfile.mkdtemp()
    logging.getLogger("coil.autotune").propagate = False  # the counter reads them; nothing on stderr
    candidates(coil, tmp)
    try:
        control(coil, tmp)
    except Exception as e:
        print(f"FAIL triton/autotune/control: {type(e).__name__}: {str(e)[:300]}")
    try:
        cache(coil, tmp)
    except Exception as e:
        print(f"FAIL triton/autotune/cache: {type(e).__name__}: {str(e)[:300]}")


if __name__ == "__main__":
    main()
