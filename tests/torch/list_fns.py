#!/usr/bin/env python3
"""Print the annotated functions of each FILE.py (one "FILE NAME" a line):
the top-level functions whose parameters all carry string annotations, the
ones `coil run FILE --fn NAME` accepts.  Reads the files with ast only, so it
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
        args = node.args.args
        if args and all(isinstance(a.annotation, ast.Constant) and
                        isinstance(a.annotation.value, str) for a in args):
            print(path, node.name)
