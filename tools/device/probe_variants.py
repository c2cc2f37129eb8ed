#!/usr/bin/env python3
"""Variants of an emitted GPU module, for probing a case by hand:
    python3 tools/device/probe_variants.py MODULE.py OUTDIR NAME:EDIT[;;EDIT...] ...
Each EDIT is OLD=>NEW, a literal text replacement (\\n in either is a
newline) that must match at least once: a probe that silently changes
nothing measures nothing.  The variant is written to
OUTDIR/<module stem>.<NAME>.py and its LABEL=PATH printed, for
tools/device/gpu_bench.py (tools/device/probe_14_15.sh uses it)."""
import os
import sys


def main():
    src_path, out = sys.argv[1], sys.argv[2]
    src = open(src_path).read()
    stem = os.path.splitext(os.path.basename(src_path))[0]
    os.makedirs(out, exist_ok=True)
    for spec in sys.argv[3:]:
        name, _, edits = spec.partition(":")
        text = src
        for edit in edits.split(";;"):
            old, sep, new = (part.replace("\\n", "\n") for part in edit.partition("=>"))
            if not sep or old not in text:
                sys.exit(f"probe_variants: {name}: {old!r} not found in {src_path}")
            text = text.replace(old, new)
        path = os.path.join(out, f"{stem}.{name}.py")
        with open(path, "w") as f:
            f.write(text)
        print(f"{name}={path}")


if __name__ == "__main__":
    main()
