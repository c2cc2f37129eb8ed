#!/usr/bin/env python3
"""compare.py must be able to fail.  For each "FILE FN" given, outputs that
PyTorch itself saved (torch_save.py) must pass compare.py, and the same with
out0's values, shape or dtype changed must be reported as mismatches.

    python3 tests/torch/selftest.py TMPDIR FILE:FN...

Prints "ok compare_self_FN_..." or "FAIL ..." lines."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
import torch_save  # noqa: E402


def main():
    tmp = sys.argv[1]
    for case in sys.argv[2:]:
        path, fn = case.split(":")
        for corrupt in (None, "value", "shape", "dtype"):
            name = f"compare_self_{fn}_" + (f"rejects_{corrupt}" if corrupt else "accepts_torch")
            d = os.path.join(tmp, f"{fn}.{corrupt}")
            try:
                torch_save.save_reference(path, d, fn, corrupt=corrupt)
            except Exception as e:
                print(f"FAIL {name}: torch_save: {type(e).__name__}: {e}")
                continue
            try:
                compare.compare(path, d, fn)
                verdict = None if corrupt is None else "compare.py accepted it"
            except compare.Mismatch as e:
                verdict = f"compare.py rejected it: {e}" if corrupt is None else None
            except Exception as e:
                verdict = f"compare.py raised {type(e).__name__}: {e}"
            print(f"ok {name}" if verdict is None else f"FAIL {name}: {verdict}")


if __name__ == "__main__":
    main()
