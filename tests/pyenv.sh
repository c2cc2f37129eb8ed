#!/bin/sh
# The Python the tests run with: python3 itself when it has every test
# requirement, else a virtual environment under BUILD/venv with the pinned
# requirements (tests/requirements.txt) installed.  Prints the directory
# to put first on PATH ("" for python3's own).
BUILD=${1:-build}
need='import torch, numpy, pytest, triton, transformers, timm, setuptools'
if python3 -c "$need" 2>/dev/null; then echo ""; exit 0; fi
venv=$BUILD/venv
if ! "$venv/bin/python3" -c "$need" 2>/dev/null; then
  echo "python3 lacks the test requirements: installing tests/requirements.txt into $venv" >&2
  python3 -m venv "$venv" >&2 || { echo "pyenv: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
  "$venv/bin/python3" -m pip install --quiet -r tests/requirements.txt >&2 ||
    { echo "pyenv: pip install -r tests/requirements.txt failed" >&2; exit 1; }
fi
(cd "$venv/bin" && pwd)
