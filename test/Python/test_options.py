"""PyPTO's option setters and getters: every documented option round-trips
with its type, a wrong type or a misspelt name is an error at the caller's
line, options steer kernels compiled afterwards, and docs/python.md lists
every option of the table."""

import os
import re

import numpy as np
import pytest

import pypto
from pypto import _options

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, "..", "..", "docs", "python.md")

SETTERS = {
    "host_options": (pypto.set_host_options, pypto.get_host_options),
    "codegen_options": (pypto.set_codegen_options, pypto.get_codegen_options),
    "pass_options": (pypto.set_pass_options, pypto.get_pass_options),
    "runtime_options": (pypto.set_runtime_options, pypto.get_runtime_options),
    "verify_options": (pypto.set_verify_options, pypto.get_verify_options),
    "debug_options": (pypto.set_debug_options, pypto.get_debug_options),
    "operation_options": (pypto.experimental.set_operation_options,
                          pypto.experimental.get_operation_options),
}

# a value of the right type, other than the default, for every option
SAMPLES = {
    "compile_stage": pypto.CompStage.TILE_GRAPH, "compile_monitor_enable": 2,
    "compile_timeout": 120, "compile_timeout_stage": 30,
    "compile_monitor_print_interval": 20, "only_codegen": True,
    "support_dynamic_aligned": True, "enable_pmu_trace": True,
    "vec_nbuffer_setting": {"DEFAULT": 4, "func8_0": 1, "V1": 2},
    "cube_l1_reuse_setting": {"MM1": 4}, "cube_nbuffer_setting": {"DEFAULT": 2},
    "sg_set_scope": (1, True, False), "auto_mix_partition": 1, "sg_set_ooo_scope": 10,
    "ooo_sched_mode": "HLF", "sg_set_tunevf_mode": 2, "pg_skip_partition": True,
    "pg_upper_bound": 4096, "pg_lower_bound": 7, "pg_parallel_lower_bound": 3,
    "mg_vec_parallel_lb": 4, "vec_nbuffer_mode": 1, "cube_l1_reuse_mode": 4,
    "cube_nbuffer_mode": 2, "mg_copyin_upper_bound": 9,
    "run_mode": pypto.RunMode.SIM, "device_sched_mode": 1, "stitch_function_max_num": 8,
    "valid_shape_optimize": 1, "ready_on_host_tensors": ["x"], "device_sched_parallelism": 2,
    "enable_pass_verify": True, "pass_verify_save_tensor": True,
    "pass_verify_save_tensor_dir": "/tmp/v", "pass_verify_pass_filter": ["tile-expand"],
    "pass_verify_error_tol": [1e-2, 1e-3], "compile_debug_mode": 2, "runtime_debug_mode": 3,
    "dump_pass_graph": ["cse"], "dump_dir": "/tmp/d", "combine_axis": True,
}

# a value of the wrong type for every option
WRONG = {name: ("yes" if not isinstance(v, str) else 3) for name, v in SAMPLES.items()}
WRONG["ready_on_host_tensors"] = 5


# every test starts and ends with the default options
pytestmark = pytest.mark.usefixtures("clean_options")


def all_options():
    return [(g, n) for g, opts in _options.OPTIONS.items() for n in opts]


def test_every_option_has_samples():
    names = {n for _, n in all_options()}
    assert names == set(SAMPLES) == set(WRONG)


@pytest.mark.parametrize("group,name", all_options())
def test_round_trip(group, name):
    setter, getter = SETTERS[group]
    before = getter()
    assert name in before and before[name] == _options.OPTIONS[group][name][1]
    setter(**{name: SAMPLES[name]})
    assert getter()[name] == SAMPLES[name]
    pypto.reset_options()
    assert getter()[name] == before[name]


@pytest.mark.parametrize("group,name", all_options())
def test_wrong_type(group, name):
    setter, getter = SETTERS[group]
    with pytest.raises(TypeError) as e:
        setter(**{name: WRONG[name]})
    assert "test_options.py" in str(e.value)
    assert name in str(e.value)
    assert getter()[name] == _options.OPTIONS[group][name][1]


@pytest.mark.parametrize("group", list(SETTERS))
def test_misspelt_name_suggests(group):
    setter, _ = SETTERS[group]
    name = next(iter(_options.OPTIONS[group]))
    with pytest.raises(TypeError, match=f"did you mean '{name}'"):
        setter(**{name[:-1] + "x": 1})


@pytest.mark.parametrize("kw,msg", [
    ({"sg_set_scope": (-1, True, False)}, "scope -1"),
    ({"sg_set_scope": (1, 1, False)}, "scope id or"),
    ({"sg_set_scope": -2}, r"\[-1, 2147483647\]"),
    ({"sg_set_ooo_scope": 0}, r"-1 or an int in \[1, 100000\]"),
    ({"ooo_sched_mode": "FAST"}, "one of '', 'GAPMIN', 'HLF'"),
    ({"sg_set_tunevf_mode": 3}, r"\[0, 2\]"),
    ({"vec_nbuffer_setting": {"Func8_0": 2}}, "func<magic>_<order>"),
    ({"vec_nbuffer_setting": {"func8": 2}}, "func<magic>_<order>"),
    ({"vec_nbuffer_setting": {"DEFAULT": -1}}, "non-negative int"),
    ({"cube_l1_reuse_setting": [1]}, "a dict of merge counts"),
])
def test_pass_option_values(kw, msg):
    with pytest.raises(TypeError, match=msg):
        pypto.set_pass_options(**kw)


def test_other_value_checks():
    with pytest.raises(TypeError, match=r"must be in \[0, 4\]"):
        pypto.set_debug_options(runtime_debug_mode=5)
    with pytest.raises(TypeError, match="rtol, atol"):
        pypto.set_verify_options(pass_verify_error_tol=[1e-3])
    with pytest.raises(TypeError, match="CompStage"):
        pypto.set_host_options(compile_stage=9)
    with pytest.raises(TypeError, match="a bool"):
        pypto.set_codegen_options(support_dynamic_aligned=1)
    pypto.set_host_options(compile_stage=3)
    assert pypto.get_host_options()["compile_stage"] == 3


def test_getters_return_copies():
    pypto.set_pass_options(vec_nbuffer_setting={"DEFAULT": 2})
    got = pypto.get_pass_options()
    got["vec_nbuffer_setting"]["DEFAULT"] = 9
    assert pypto.get_pass_options()["vec_nbuffer_setting"] == {"DEFAULT": 2}


def _copy_kernel():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        y[:] = x + 1.0
    return k


def test_global_pass_options_reach_the_ir():
    k = _copy_kernel()
    x = np.ones((4, 8), np.float32)
    y = np.zeros_like(x)
    pypto.set_pass_options(sg_set_scope=(2, False, True), ooo_sched_mode="GAPMIN",
                           vec_nbuffer_setting={"DEFAULT": 2, "V1": 1})
    k(x, y)
    ir = k.ir()
    assert 'ooo_sched_mode = "GAPMIN"' in ir
    assert "sg_set_scope = [2, false, true]" in ir
    assert "vec_nbuffer_setting = {DEFAULT = 2, V1 = 1}" in ir
    np.testing.assert_array_equal(y, x + 1)


def test_options_are_part_of_the_cache_key():
    k = _copy_kernel()
    x = np.ones((4, 8), np.float32)
    y = np.zeros_like(x)
    k(x, y)
    k(x, y)
    assert k.num_compiles == 1
    pypto.set_pass_options(auto_mix_partition=1)
    k(x, y)
    assert k.num_compiles == 2
    assert "auto_mix_partition = 1" in k.ir()
    pypto.reset_options()
    k(x, y)
    assert "auto_mix_partition" not in k.ir()


def test_global_verify_options_take_effect():
    k = _copy_kernel()
    x = np.ones((4, 8), np.float32)
    y = np.zeros_like(x)
    pypto.set_verify_options(enable_pass_verify=True, pass_verify_error_tol=[1e-4, 1e-4])
    k(x, y)  # the per-stage check runs (and passes)
    np.testing.assert_array_equal(y, x + 1)


def test_kernel_scope_pass_options_in_get():
    seen = {}

    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        pypto.set_pass_options(sg_set_tunevf_mode=1)
        seen.update(pypto.get_pass_options())
        y[:] = x
    pypto.set_pass_options(auto_mix_partition=1)
    k(np.ones((4, 8), np.float32), np.zeros((4, 8), np.float32))
    assert seen["sg_set_tunevf_mode"] == 1 and seen["auto_mix_partition"] == 1
    assert pypto.get_pass_options()["sg_set_tunevf_mode"] == 0


def test_pass_configs():
    key = pypto.PassConfigKey.KEY_DUMP_GRAPH
    assert pypto.get_pass_config("PVC2_OOO", "ExpandFunction", key, False) is False
    pypto.set_pass_default_config(key, True)
    assert pypto.get_pass_default_config(key, False) is True
    assert pypto.get_pass_config("PVC2_OOO", "ExpandFunction", key, False) is True
    pypto.set_pass_config("PVC2_OOO", "ExpandFunction", key, False)
    assert pypto.get_pass_config("PVC2_OOO", "ExpandFunction", key, True) is False
    cfg = pypto.get_pass_configs("PVC2_OOO", "ExpandFunction")
    assert cfg.dumpGraph is False and cfg.disablePass is False
    with pytest.raises(AttributeError):
        cfg.dumpGraph = True
    with pytest.raises(TypeError, match="PassConfigKey"):
        pypto.set_pass_config("PVC2_OOO", "ExpandFunction", "KEY_DUMP_GRAPH", True)
    with pytest.raises(TypeError, match="must be a bool"):
        pypto.set_pass_default_config(key, 1)
    with pytest.raises(TypeError, match="strategy must be"):
        pypto.get_pass_configs("", "ExpandFunction")
    pypto.reset_options()
    assert pypto.get_pass_default_config(key, False) is False


def test_tile_getters_outside_a_kernel():
    assert pypto.get_vec_tile_shapes() == []
    assert pypto.get_cube_tile_shapes() == []
    l1, l0, on = pypto.get_conv_tile_shapes()
    assert isinstance(l1, pypto.TileL1Info) and isinstance(l0, pypto.TileL0Info) and not on


def test_conv_tiles_and_matrix_size_in_a_kernel():
    seen = {}

    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        l1 = pypto.TileL1Info(tileHin=4, tileHout=4, tileWin=8, tileWout=16, tileCinFmap=16,
                              tileCinWeight=32, tileN=16, tileBatch=1)
        pypto.set_conv_tile_shapes(l1, pypto.TileL0Info(tileH=2, tileW=16, tileK=32, tileN=16))
        seen["conv"] = pypto.get_conv_tile_shapes()
        pypto.set_matrix_size([4, 8, 8])
        y[:] = x
    k(np.ones((4, 8), np.float32), np.zeros((4, 8), np.float32))
    l1, l0, on = seen["conv"]
    assert on and l1.tileHout == 4 and l0.tileH == 2


def test_conv_tile_errors():
    with pytest.raises(TypeError, match="tileN must be a positive int"):
        pypto.TileL0Info(tileN=0)
    with pytest.raises(ValueError, match="tileBatch must be 1"):
        pypto.TileL1Info(tileBatch=2)
    with pytest.raises(pypto.TraceError, match="set_conv_tile_shapes can only be used"):
        pypto.set_conv_tile_shapes(pypto.TileL1Info())
    with pytest.raises(ValueError, match="must divide TileL1Info.tileHout"):
        pypto.set_conv_tile_shapes(pypto.TileL1Info(tileHout=3), pypto.TileL0Info(tileH=2))
    with pytest.raises(TypeError, match=r"\[m, k, n\]"):
        pypto.set_matrix_size([4, 8])


def test_docs_list_every_option():
    with open(DOCS) as f:
        text = f.read()
    table = text[text.index("<!-- options table -->"):]
    table = table[:table.index("\n\n")]
    rows = {}
    for line in table.splitlines()[3:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[(cells[0].strip("`"), cells[1].strip("`"))] = cells
    assert set(rows) == set(all_options())
    for (group, name), cells in rows.items():
        effect = _options.OPTIONS[group][name][2]
        assert ("no effect here" in cells[-1]) == (effect == "recorded"), (group, name)
