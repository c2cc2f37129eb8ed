#!/usr/bin/env python3
"""The package's metadata beside the build tree's copy of it:
    python3 tools/dist_info.py pyproject.toml build/python
writes build/python/coil-VERSION.dist-info (METADATA and entry_points.txt,
from pyproject.toml), so that with PYTHONPATH=build/python,
torch.compile(backend="coil") finds the backend through the same
torch_dynamo_backends entry point that `pip install .` registers, with no
import of coil first.  Older coil-*.dist-info folders there are removed.
The folder is written under a temporary name and renamed into place."""
import os
import shutil
import sys
import tempfile

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = None


def main():
    pyproject, out = sys.argv[1], sys.argv[2]
    if tomllib is None:  # the package still works; backend="coil" then needs `import coil.backend`
        print("dist_info.py: no tomllib (Python 3.11) to read pyproject.toml: no entry points in the build tree",
              file=sys.stderr)
        return
    with open(pyproject, "rb") as f:
        project = tomllib.load(f)["project"]
    name, version = project["name"], project["version"]
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".metadata-", dir=out)
    with open(os.path.join(tmp, "METADATA"), "w") as f:
        f.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {project.get('description', '')}\n")
    with open(os.path.join(tmp, "entry_points.txt"), "w") as f:
        for group, entries in project.get("entry-points", {}).items():
            f.write(f"[{group}]\n")
            for key, value in entries.items():
                f.write(f"{key} = {value}\n")
            f.write("\n")
    for old in os.listdir(out):
        if old.startswith(f"{name}-") and old.endswith(".dist-info"):
            shutil.rmtree(os.path.join(out, old))
    os.rename(tmp, os.path.join(out, f"{name}-{version}.dist-info"))


if __name__ == "__main__":
    main()
