"""pip wheel . gives a wheel that installs into a clean environment, where
torch.compile(backend="coil") finds the backend through the
torch_dynamo_backends entry point with no import of coil."""
import os
import shutil
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHECK = textwrap.dedent("""
    import torch
    assert "coil" in torch._dynamo.list_backends(), torch._dynamo.list_backends()
    f = torch.compile(lambda x: torch.softmax(x * 2.0, -1).sum(0), backend="coil")
    x = torch.randn(6, 10)
    torch.testing.assert_close(f(x), torch.softmax(x * 2.0, -1).sum(0))
    import coil
    assert coil.__file__.startswith(%r), coil.__file__
    print("ok")
""")


def test_wheel_installs_and_registers_the_backend(tmp_path):
    # Build from a copy, so the wheel's build writes nothing into the checkout.
    src = tmp_path / "src"
    os.makedirs(src / "docs")
    for name in ("pyproject.toml", "setup.py"):
        shutil.copy(os.path.join(ROOT, name), src / name)
    shutil.copy(os.path.join(ROOT, "docs", "python.md"), src / "docs" / "python.md")
    for d in ("src", "include", "python"):
        shutil.copytree(os.path.join(ROOT, d), src / d, ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["MAX_JOBS"] = "2"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "-w", str(tmp_path / "dist"), str(src)], check=True, env=env, cwd=tmp_path)
    wheels = list((tmp_path / "dist").glob("coil-*.whl"))
    assert len(wheels) == 1, wheels
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, env=env)
    py = str(venv / "bin" / "python")
    subprocess.run([py, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheels[0])], check=True,
                   env=env)
    out = subprocess.run([py, "-c", CHECK % str(venv)], check=True, env=env, cwd=tmp_path, capture_output=True,
                         text=True)
    assert out.stdout.strip().endswith("ok"), out.stdout + out.stderr


def test_build_tree_registers_the_backend_with_no_import():
    """With PYTHONPATH at the build tree (as these tests run), backend="coil"
    is found by the entry point of the metadata that `make` writes there,
    as after `pip install .`: no import of coil first."""
    tree = os.path.dirname(os.path.dirname(os.path.abspath(__import__("coil").__file__)))
    env = dict(os.environ, PYTHONPATH=tree)
    code = textwrap.dedent("""
        import sys, torch
        f = torch.compile(lambda x: (x * 3.0).sum(-1), backend="coil")
        x = torch.randn(4, 5)
        torch.testing.assert_close(f(x), (x * 3.0).sum(-1))
        import coil
        assert coil.__file__.startswith(%r), coil.__file__
        print("ok")
    """) % tree
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd="/", capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stdout + out.stderr
