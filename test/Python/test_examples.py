"""The Python examples (examples/python) run and meet their tolerance; the
softmax example is the docs' quick start as written."""

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

EXAMPLES = os.path.join(ROOT, "examples", "python")
NAMES = sorted(f[:-3] for f in os.listdir(EXAMPLES) if f.endswith(".py"))


def test_every_example_is_listed():
    assert NAMES == ["dynamic_batch", "elementwise", "ffn", "layer_norm", "matmul", "moe_gate",
                     "reductions", "softmax"]


@pytest.mark.parametrize("name", NAMES)
def test_example(name):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name + ".py")], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(rf"^{name}: max error ([0-9.eE+-]+)", r.stdout, re.M)
    assert m, r.stdout
    assert float(m.group(1)) < 1e-3


def test_docs_quick_start_runs():
    with open(os.path.join(ROOT, "docs", "python.md")) as f:
        text = f.read()
    quick = re.search(r"## Quick start\n\n```python\n(.*?)```", text, re.S).group(1)
    ns = {}
    exec(compile(quick, "python.md", "exec"), ns)
    x, y = ns["x"], ns["y"]
    e = ns["numpy"].exp(x - x.max(-1, keepdims=True))
    assert abs(y - e / e.sum(-1, keepdims=True)).max() < 1e-6
    with open(os.path.join(EXAMPLES, "softmax.py")) as f:
        assert quick.replace("import numpy\nimport pypto\n", "").strip() in f.read()
