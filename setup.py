"""Builds coil._C, the CPython extension over libcoil (include/coil.h),
from the library's own C sources; pyproject.toml holds everything else.
Needs a C11 compiler with OpenMP, OpenSSL's libcrypto and DLPack's header
(Debian: build-essential libssl-dev libdlpack-dev)."""
import glob
import os

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def rel(paths):
    return sorted(os.path.relpath(p, HERE) for p in paths)


# libcoil is every source under src/ except the commands (src/cmd/).
LIBCOIL = rel(p for p in glob.glob(os.path.join(HERE, "src", "**", "*.c"), recursive=True)
              if os.sep + "cmd" + os.sep not in p)

FLAGS = ["-std=gnu11", "-fopenmp", "-O2", "-fwrapv", "-fPIC"]

# libcoil as a static library built from src/ (its sources name their own
# headers from there), then the extension, which sees only the public
# header, as any user of the C API does.
setup(
    libraries=[("coil", {"sources": LIBCOIL, "include_dirs": ["src"], "cflags": FLAGS})],
    ext_modules=[Extension(
        "coil._C",
        sources=["python/coil/_C.c"],
        include_dirs=["include"],
        extra_compile_args=FLAGS,
        extra_link_args=["-fopenmp"],
        libraries=["coil", "crypto", "dl", "m"],
    )],
)
