"""Shared by the pytest files: the helpers of tests/torch (inputs from
annotations, tolerances), a fixed seed per test, and Dynamo reset between
tests so each compiles afresh."""
import os
import sys

import pytest
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "torch"))


@pytest.fixture(autouse=True)
def fresh():
    torch.manual_seed(0)
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


# backend="coil" by name: installed, the entry point gives it; from the
# build tree, importing coil.backend registers it (test_package checks the
# entry point itself).
import coil.backend  # noqa: E402,F401
