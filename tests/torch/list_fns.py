#!/usr/bin/env python3
"""Print the annotated functions of each FILE.py (one "FILE NAME" a line):
the top-level functions whose parameters all carry string annotations (or,
for Python values, defaults) and at least one an annotation, the ones `coil
run FILE --fn NAME` accepts.  Reads the files with ast only, so it
needs neither torch nor the files' imports.  With --skip-unreadable, files
that are missing (an unmatched glob) or do not parse are passed over instead
of stopping the listing."""
import ast
import sys

args = sys.argv[1:]
skip = "--skip-unreadable" in args
for path in [a for a in args if a != "--skip-unreadable"]:
    try:
        with open(path) as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError):
        if skip:
            continue
        raise
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        # Parameters with defaults that are not annotated are Python values
        # (eps=1e-6): coil and PyTorch both take the default.
        a = node.args
        pos = a.args
        with_default = set(p.arg for p in pos[len(pos) - len(a.defaults):])
        with_default |= {p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None}
        params = pos + a.kwonlyargs

        def annotated(p):
            return isinstance(p.annotation, ast.Constant) and isinstance(p.annotation.value, str)
        if any(annotated(p) for p in params) and \
                all(annotated(p) or p.arg in with_default for p in params):
            print(path, node.name)
