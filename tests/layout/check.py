"""The house rules, read from the objects of a build: which file calls which.

usage: python3 tests/layout/check.py BUILD/obj SRC_DIR
       python3 tests/layout/check.py --selftest

A file's calls are the symbols its object leaves undefined (nm's U) that
another object of the same build defines.  Two rules (docs/architecture.md):
  - between folders, calls go one way: commands (src/cmd/), then the
    API (src/api/, libcoil's public face and the table of targets), then the
    targets (src/cpu/, src/triton/), then the executor (src/tx/), then the
    compiler's stages (src/*.c), then the base (util.c, dtype.c); a target
    never calls another target;
  - no two files call each other, directly or around a loop, except inside
    the executor (an interpreter's evaluator and its builtins may).
Prints one line per violation, "ok" lines for the rules that hold, and
exits 1 if any rule is broken."""
import collections
import glob
import os
import subprocess
import sys

RANK = {"cmd": 6, "api": 5, "cpu": 4, "triton": 4, "tx": 3, "": 2}
BASE = {"util.c", "dtype.c"}


def folder(f):
    return os.path.dirname(f)


def rank(f):
    return 1 if f in BASE else RANK[folder(f)]


def call_graph(objdir, srcdir):
    defs, uses = {}, collections.defaultdict(set)
    for src in glob.glob(os.path.join(srcdir, "*.c")) + glob.glob(os.path.join(srcdir, "*", "*.c")):
        f = os.path.relpath(src, srcdir)
        obj = os.path.join(objdir, f[:-2] + ".o")
        if not os.path.exists(obj):
            sys.exit(f"no object {obj} for {src}: build first (make)")
        for line in subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBRC":
                defs[p[2]] = f
            elif len(p) == 2 and p[0] == "U":
                uses[f].add(p[1])
    edges = collections.defaultdict(set)
    for f, syms in uses.items():
        for s in syms:
            if s in defs and defs[s] != f:
                edges[f].add(defs[s])
    return edges


def loops(edges):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(set(edges) | {w for ws in edges.values() for w in ws}):
        if v not in index:
            visit(v)
    return out


def judge(edges):
    bad = 0
    for f in sorted(edges):
        for g in sorted(edges[f]):
            same = folder(f) == folder(g) and (f in BASE) == (g in BASE)
            if not same and rank(f) <= rank(g):
                print(f"FAIL layout/direction: {f} calls {g}")
                bad += 1
    if not bad:
        print("ok layout/direction")
    cyc = [c for c in loops(edges) if not all(folder(f) == "tx" for f in c)]
    for c in cyc:
        print("FAIL layout/loop: " + " <-> ".join(c))
    if not cyc:
        print("ok layout/no_loops")
    return 1 if bad or cyc else 0


def selftest():
    """The rules catch what they are for: a stage calling a target, a
    target calling another, util calling a stage, a loop of two stages;
    and let through what is allowed."""
    import contextlib
    import io

    def failures(edges):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            judge(edges)
        return [l for l in out.getvalue().splitlines() if l.startswith("FAIL")]

    cases = [
        ({"graph.c": {"cpu/sched.c"}}, 1),
        ({"cpu/target.c": {"triton/plan.c"}}, 1),
        ({"util.c": {"graph.c"}}, 1),
        ({"fuse.c": {"lower.c"}, "lower.c": {"fuse.c"}}, 1),
        ({"tx/eval.c": {"tx/builtin.c"}, "tx/builtin.c": {"tx/eval.c"}, "tx/parse.c": {"lex.c"}}, 0),
        ({"cmd/run.c": {"cpu/target.c", "compile.c"}, "cpu/target.c": {"kernel.c", "util.c"}, "kernel.c": {"dtype.c"}}, 0),
    ]
    wrong = 0
    for edges, want in cases:
        got = len(failures(edges))
        if got != want:
            print(f"FAIL layout/selftest: {edges}: {got} failures, expected {want}")
            wrong += 1
    if not wrong:
        print("ok layout/selftest")
    return 1 if wrong else 0


def main():
    sys.setrecursionlimit(10000)
    if sys.argv[1:] == ["--selftest"]:
        return selftest()
    return judge(call_graph(sys.argv[1], sys.argv[2]))


if __name__ == "__main__":
    sys.exit(main())
