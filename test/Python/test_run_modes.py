"""PyPTO's run modes on the compiled path: NPU runs the JIT-compiled PTO
kernels on the host runtime, SIM those and the simulator; both give the
numbers (checked against numpy here), runtime_debug_mode writes the trace,
SVG swimlane and health report under ./output, compiled modules are cached
by their text, and PTO_BACKEND=interp keeps the reference interpreter."""

import json
import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import pypto
from pypto import _lib
from conftest import ROOT, assert_close, rand

SCHEMA = os.path.join(ROOT, "runtime", "schema", "trace-event.schema.json")


def _scaled_exp(mode, debug=None):
    @pypto.frontend.jit(runtime_options={"run_mode": mode}, debug_options=debug)
    def scaled_exp(x: pypto.Tensor([64, 64], pypto.DT_FP32),
                   y: pypto.Tensor([64, 64], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(32, 32)
        pypto.set_semantic_label("scaled_exp")
        y[:] = pypto.exp(x) * 2.0
    return scaled_exp


def _ffn(run_mode=pypto.RunMode.SIM, level=1):
    @pypto.frontend.jit(runtime_options={"run_mode": run_mode},
                        debug_options={"runtime_debug_mode": level})
    def ffn(x: pypto.Tensor([64, 64], pypto.DT_FP32), w: pypto.Tensor([64, 32], pypto.DT_FP32),
            y: pypto.Tensor([64, 32], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(32, 32)
        pypto.set_semantic_label("relu")
        h = pypto.relu(x)
        pypto.set_semantic_label("matmul")
        y[:] = pypto.matmul(h, w, pypto.DT_FP32)
    return ffn


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PTO_BACKEND", raising=False)
    return tmp_path


@pytest.mark.parametrize("mode,backend", [(pypto.RunMode.NPU, "host"),
                                          (pypto.RunMode.SIM, "sim")])
def test_modes_run_compiled_with_real_numbers(in_tmp, mode, backend):
    k = _scaled_exp(mode)
    x = rand((64, 64))
    y = np.zeros_like(x)
    k(x, y)
    assert k.backend == backend
    assert_close(y, np.exp(x) * 2.0)
    # no swimlane was asked for: nothing written
    assert not os.path.exists(in_tmp / "output")


def test_a_second_compile_of_the_same_kernel_is_a_cache_hit(in_tmp):
    x = rand((64, 64), seed=3)
    first = _scaled_exp(pypto.RunMode.NPU)
    first(x, np.zeros_like(x))
    compiled, hits, _ = _lib.engine_stats()
    # another kernel object traced from the same function: the same module
    # text, so the JIT answers from its cache
    again = _scaled_exp(pypto.RunMode.NPU)
    y = np.zeros_like(x)
    again(x, y)
    assert again.num_compiles == 1 and again.backend == "host"
    assert _lib.engine_stats()[:2] == (compiled, hits + 1)
    assert_close(y, np.exp(x) * 2.0)
    # and a second call of a kernel neither traces nor compiles again
    again(x, y)
    assert again.num_compiles == 1 and _lib.engine_stats()[:2] == (compiled, hits + 1)


def _lanes(svg_path):
    root = ET.parse(svg_path).getroot()
    texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
    return [t for t in texts if t.startswith(("AIV ", "AIC "))], texts


def test_sim_swimlanes_under_output(in_tmp):
    jsonschema = pytest.importorskip("jsonschema")
    k = _ffn()
    x, w = rand((64, 64), seed=1), rand((64, 32), seed=2)
    y = np.zeros((64, 32), np.float32)
    k(x, w, y)
    assert k.backend == "sim"
    assert_close(y, np.maximum(x, 0) @ w, rtol=1e-4, atol=1e-4)
    out = k.output_dir
    assert os.path.dirname(out) == str(in_tmp / "output")
    assert os.path.basename(out).startswith("output_")
    names = sorted(os.listdir(out))
    assert names == ["ffn_health_report.json", "ffn_health_report.txt",
                     "ffn_swimlane.json", "ffn_swimlane.svg"]
    with open(os.path.join(out, "ffn_swimlane.json")) as f:
        trace = json.load(f)
    with open(SCHEMA) as f:
        jsonschema.validate(trace, json.load(f))
    tasks = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    labels = {e["args"].get("semanticLabel") for e in tasks}
    assert {"relu", "matmul"} <= labels, labels
    lanes, texts = _lanes(os.path.join(out, "ffn_swimlane.svg"))
    assert any(t.startswith("AIV ") for t in lanes) and any(t.startswith("AIC ") for t in lanes)
    with open(os.path.join(out, "ffn_health_report.json")) as f:
        report = json.load(f)
    assert report["backend"] == "sim" and report["makespan_us"] > 0
    with open(os.path.join(out, "ffn_health_report.txt")) as f:
        assert f.read().startswith("health report (sim, platform a2a3)")
    # every run writes a folder of its own
    k(x, w, y)
    assert k.output_dir != out and len(os.listdir(in_tmp / "output")) == 2


def test_npu_swimlane_is_the_host_run(in_tmp):
    k = _scaled_exp(pypto.RunMode.NPU, {"runtime_debug_mode": 1})
    x = rand((64, 64))
    y = np.zeros_like(x)
    k(x, y)
    assert_close(y, np.exp(x) * 2.0)
    with open(os.path.join(k.output_dir, "scaled_exp_health_report.json")) as f:
        assert json.load(f)["backend"] == "host"
    lanes, _ = _lanes(os.path.join(k.output_dir, "scaled_exp_swimlane.svg"))
    assert lanes


def test_runtime_debug_mode_2_simulates(in_tmp):
    # PyPTO's level 2 runs the simulated core model: an NPU kernel then
    # gets the simulator's timeline, and still the host run's numbers
    k = _scaled_exp(pypto.RunMode.NPU, {"runtime_debug_mode": 2})
    x = rand((64, 64))
    y = np.zeros_like(x)
    k(x, y)
    assert k.backend == "sim"
    assert_close(y, np.exp(x) * 2.0)
    with open(os.path.join(k.output_dir, "scaled_exp_health_report.json")) as f:
        assert json.load(f)["backend"] == "sim"
    for level in (1, 3, 4):
        k = _scaled_exp(pypto.RunMode.NPU, {"runtime_debug_mode": level})
        k(x, y)
        assert k.backend == "host"
        assert os.path.isfile(os.path.join(k.output_dir, "scaled_exp_swimlane.svg"))


def _run_ffn(level):
    k = _ffn(pypto.RunMode.NPU, level)
    x, w = rand((64, 64), seed=5), rand((64, 32), seed=6)
    y = np.zeros((64, 32), np.float32)
    k(x, w, y)
    assert k.backend == "host"
    assert_close(y, np.maximum(x, 0) @ w, rtol=1e-4, atol=1e-4)
    return k


def test_runtime_debug_mode_3_dumps_the_dependencies(in_tmp):
    k = _run_ffn(3)
    with open(os.path.join(k.output_dir, "ffn_dependencies.json")) as f:
        dump = json.load(f)
    assert os.path.isfile(os.path.join(k.output_dir, "ffn_swimlane.json"))
    assert dump["timeline"] == "host" and dump["gm_check"] is None
    assert dump["order_violations"] == 0
    tasks = dump["tasks"]
    assert [t["id"] for t in tasks] == list(range(len(tasks)))
    nbuf = len(dump["buffers"])
    assert [b["bytes"] for b in dump["buffers"][:3]] == [64 * 64 * 4, 64 * 32 * 4, 64 * 32 * 4]
    relu = [t for t in tasks if t["label"] == "relu"]
    mm = [t for t in tasks if t["label"] == "matmul"]
    assert relu and mm and len(relu) + len(mm) == len(tasks)
    # relu reads x (buffer 0) and waits for nothing; every matmul waits
    # for the relu tasks that wrote the rows of h it reads, and started
    # after they ended
    for t in relu:
        assert t["waits_for"] == []
        assert any(r["buffer"] == 0 and r["access"] == "read" for r in t["regions"])
    by_id = {t["id"]: t for t in tasks}
    for t in mm:
        assert t["waits_for"] and all(by_id[p]["label"] == "relu" for p in t["waits_for"])
        assert all(by_id[p]["end_us"] <= t["start_us"] for p in t["waits_for"])
        assert not t["started_before_a_predecessor_ended"]
        written = {(r["buffer"], r["offset"]) for p in t["waits_for"]
                   for r in by_id[p]["regions"] if r["access"] != "read"}
        assert any((r["buffer"], r["offset"]) in written for r in t["regions"]
                   if r["access"] == "read")
        assert all(0 <= r["buffer"] < nbuf for r in t["regions"])
    # level 1 writes no dump
    k1 = _run_ffn(1)
    assert not os.path.exists(os.path.join(k1.output_dir, "ffn_dependencies.json"))


def test_runtime_debug_mode_4_checks_gm(in_tmp):
    k = _run_ffn(4)
    with open(os.path.join(k.output_dir, "ffn_dependencies.json")) as f:
        dump = json.load(f)
    assert dump["gm_check"] == "clean" and dump["order_violations"] == 0
    # the checked run works on guarded copies: the outputs come back
    x, w = rand((64, 64), seed=7), rand((64, 32), seed=8)
    y = np.full((64, 32), 3.0, np.float32)
    k(x, w, y)
    assert_close(y, np.maximum(x, 0) @ w, rtol=1e-4, atol=1e-4)


def test_set_debug_options_asks_for_swimlanes(in_tmp, clean_options):
    pypto.set_debug_options(runtime_debug_mode=1)
    k = _scaled_exp(pypto.RunMode.SIM)
    x = rand((64, 64))
    k(x, np.zeros_like(x))
    assert os.path.isfile(os.path.join(k.output_dir, "scaled_exp_swimlane.svg"))


def test_interp_backend_is_the_oracle(in_tmp, monkeypatch):
    monkeypatch.setenv("PTO_BACKEND", "interp")
    k = _scaled_exp(pypto.RunMode.NPU)
    x = rand((64, 64))
    y = np.zeros_like(x)
    k(x, y)
    assert k.backend == "interp" and k.num_ops_executed > 0
    assert_close(y, np.exp(x) * 2.0)
    # swimlanes need a task graph, which the interpreter does not run
    s = _scaled_exp(pypto.RunMode.SIM, {"runtime_debug_mode": 1})
    with pytest.warns(UserWarning, match="PTO_BACKEND=interp: the reference interpreter runs "
                                         "no task graph"):
        s(x, np.zeros_like(x))
    assert s.output_dir is None and not os.path.exists(in_tmp / "output")


def test_bad_backend_setting(in_tmp, monkeypatch):
    monkeypatch.setenv("PTO_BACKEND", "gpu")
    k = _scaled_exp(pypto.RunMode.NPU)
    x = rand((64, 64))
    with pytest.raises(pypto.CompileError, match="PTO_BACKEND='gpu': expected one of "
                                                 "interp, compiled, auto"):
        k(x, np.zeros_like(x))


def test_dynamic_batch_on_the_compiled_path(in_tmp):
    @pypto.frontend.jit
    def double_rows(x: pypto.Tensor([pypto.DYNAMIC, 64], pypto.DT_FP32),
                    y: pypto.Tensor([pypto.DYNAMIC, 64], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(1, 64)
        for i in pypto.loop(0, x.shape[0], 1, name="rows", idx_name="i"):
            y[i:i + 1, :] = x[i:i + 1, :] * 2.0
    for n in (3, 10):
        x = rand((n, 64), seed=n)
        y = np.zeros_like(x)
        double_rows(x, y)
        assert double_rows.backend == "host"
        assert_close(y, x * 2.0)
    assert double_rows.num_compiles == 1


def test_a_kernel_the_compiled_path_cannot_take(in_tmp, monkeypatch):
    # a vector tile larger than a vector core's UB: the interpreter takes
    # any tile, cv-partition none that does not fit the platform's buffers
    def make():
        @pypto.frontend.jit
        def k(x: pypto.Tensor([256, 256], pypto.DT_FP32), y: pypto.Tensor([256, 256], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(256, 256)
            y[:] = x * 3.0
        return k
    x = rand((256, 256), seed=44)
    want = x * 3
    # auto: the interpreter runs it, and a warning says why; with
    # PTO_FALLBACK_LOG the reason is also a line of that file
    monkeypatch.setenv("PTO_FALLBACK_LOG", "fallbacks.log")
    k = make()
    y = np.zeros_like(x)
    with pytest.warns(UserWarning, match="k runs in the reference interpreter: the compiled "
                                         "back end cannot take it yet") as warned:
        k(x, y)
    assert k.backend == "interp"
    assert_close(y, want)
    with open("fallbacks.log", encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert len(lines) == 1 and lines[0].startswith("k\t") and "error:" in lines[0], lines
    assert f"({lines[0].split(chr(9))[1]})" in str(warned[0].message)
    # compiled: an error
    monkeypatch.setenv("PTO_BACKEND", "compiled")
    with pytest.raises(pypto.CompileError, match="the compiled back end cannot run this kernel"):
        make()(x, np.zeros_like(x))


_OPT_LEVEL_SCRIPT = """
import numpy as np, pypto
from pypto import _lib
@pypto.frontend.jit(runtime_options={"run_mode": pypto.RunMode.NPU})
def k(x: pypto.Tensor([64, 64], pypto.DT_FP32), y: pypto.Tensor([64, 64], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(32, 32)
    y[:] = pypto.exp(x) * 2.0
x = np.linspace(-2, 2, 64 * 64, dtype=np.float32).reshape(64, 64)
y = np.zeros_like(x)
k(x, y)
assert k.backend == "host", k.backend
np.testing.assert_allclose(y, np.exp(x) * 2.0, rtol=1e-5)
print("compiled", _lib.engine_stats()[0])
"""


@pytest.mark.parametrize("level,ok", [("0", True), ("3", True), ("4", False), ("fast", False)])
def test_jit_opt_level_setting(in_tmp, level, ok):
    # the engine is made once per process: each level gets its own process,
    # which must compile (not load an earlier run's object from the disk
    # cache) for the count to be 1
    import subprocess
    import sys
    # the child imports the pypto this process runs, from any directory
    # (a relative PYTHONPATH would not reach it from in_tmp)
    path = os.path.dirname(os.path.dirname(os.path.abspath(pypto.__file__)))
    env = dict(os.environ, PTO_JIT_OPT_LEVEL=level, PTO_JIT_CACHE="0",
               PYTHONPATH=os.pathsep.join(
                   [path] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    script = in_tmp / "opt_level.py"
    script.write_text(_OPT_LEVEL_SCRIPT)
    r = subprocess.run([sys.executable, str(script)], env=env,
                       capture_output=True, text=True, timeout=600)
    if ok:
        assert r.returncode == 0, r.stderr
        assert "compiled 1" in r.stdout
    else:
        assert r.returncode != 0
        assert f"PTO_JIT_OPT_LEVEL='{level}': expected 0, 1, 2 or 3" in r.stderr


def test_npu_runs_scalar_reads_compiled(in_tmp, monkeypatch):
    # a sequence length read from an input bounds a loop; a row index read
    # from a tensor an earlier kernel computes offsets a view: the host
    # program reads it after that kernel ran
    monkeypatch.setenv("PTO_BACKEND", "compiled")

    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8, 16], pypto.DT_FP32),
          lens: pypto.Tensor([1, 4], pypto.DT_INT32),
          y: pypto.Tensor([4, 16], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(1, 16)
        rows = lens * 2
        for b in pypto.loop(4):
            n = lens[0, b]
            r = rows[0, b]
            y[b:b + 1, :] = pypto.reshape(x[b:b + 1, r:r + 1, :], [1, 16])
            for j in pypto.loop(n):
                y[b:b + 1, :] = y[b:b + 1, :] + pypto.reshape(x[b:b + 1, j:j + 1, :], [1, 16])

    x = rand((4, 8, 16), seed=9)
    for lens in ([[3, 0, 2, 1]], [[1, 2, 0, 3]]):
        lens = np.array(lens, np.int32)
        y = np.zeros((4, 16), np.float32)
        k(x, lens, y)
        assert k.backend == "host"
        want = np.stack([x[b, 2 * lens[0, b]] + x[b, :lens[0, b]].sum(0) for b in range(4)])
        assert_close(y, want)
    assert k.num_compiles == 1
