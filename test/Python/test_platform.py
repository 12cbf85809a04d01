"""pypto.set_platform: the machine description whose buffer capacities a
kernel's tiles are checked against, by name or by file."""

import os

import numpy as np
import pytest

import pypto
from conftest import ROOT, rand

FILE = os.path.abspath(__file__)
A2A3_XML = os.path.join(ROOT, "platforms", "a2a3.xml")


@pytest.fixture(autouse=True)
def default_platform():
    yield
    pypto._config._platform = None


def wide_matmul():
    # 256 x 256 f32 accumulators need 256 KiB of L0C: more than a2a3's
    # 128 KiB, exactly a3's 256 KiB; the other buffers fit both.
    @pypto.frontend.jit
    def k(a: pypto.Tensor([256, 16], pypto.DT_FP32),
          b: pypto.Tensor([16, 256], pypto.DT_FP32),
          c: pypto.Tensor([256, 256], pypto.DT_FP32)):
        pypto.set_cube_tile_shapes([256, 256], [16, 16], [256, 256])
        c[:] = pypto.matmul(a, b)  # wide
    return k


def test_default_is_a2a3():
    assert pypto.get_platform() == "a2a3"
    k = wide_matmul()
    with pytest.raises(pypto.CompileError) as e:
        k(rand((256, 16)), rand((16, 256)), np.zeros((256, 256), np.float32))
    assert str(e.value).splitlines()[0].endswith(
        "error: 'pypto.matmul' op cube tile mL0 x nL0 = 256 x 256 accumulators "
        "need 256 KiB of L0C, which holds 128 KiB on a2a3; reduce mL0 or nL0")


def test_same_kernel_fits_a3():
    pypto.set_platform("a3")
    assert pypto.get_platform() == "a3"
    a, b = rand((256, 16)), rand((16, 256), seed=1)
    c = np.zeros((256, 256), np.float32)
    k = wide_matmul()
    k(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    assert k.backend == "host"  # lowered and compiled for a3, not a2a3


# the second name (one quote, a space after it) needs quoting with escapes
# in the pipeline text the compiled back end lowers with
@pytest.fixture(params=["big.xml", 'my "big it\'s\\.xml'])
def big_name(request):
    return request.param


def test_platform_from_file(tmp_path, big_name):
    with open(A2A3_XML) as f:
        text = f.read()
    path = tmp_path / big_name
    path.write_text(text.replace('name="a2a3"', 'name="big"')
                    .replace('size="128 KiB" align="1024 B"', 'size="1 MiB" align="1024 B"'))
    pypto.set_platform(str(path))
    assert pypto.get_platform() == "big"
    a, b = rand((256, 16)), rand((16, 256), seed=1)
    c = np.zeros((256, 256), np.float32)
    k = wide_matmul()
    k(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    assert k.backend == "host"


def test_compiled_per_platform():
    k = wide_matmul()
    a, b = rand((256, 16)), rand((16, 256), seed=1)
    c = np.zeros((256, 256), np.float32)
    pypto.set_platform("a3")
    k(a, b, c)
    assert k.backend == "host"
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    pypto.set_platform("a2a3")
    with pytest.raises(pypto.CompileError):
        k(a, b, c)


def test_bad_platforms(tmp_path):
    with pytest.raises(pypto.CompileError) as e:
        pypto.set_platform("a5")
    assert str(e.value).strip() == (
        "a5: error: unknown platform 'a5' (built in: a2a3, a3; or give a file "
        "ending in .xml)")
    path = tmp_path / "bad.xml"
    with open(A2A3_XML) as f:
        path.write_text(f.read().replace('size="192 KiB"', 'size="-1 KiB"'))
    with pytest.raises(pypto.CompileError) as e:
        pypto.set_platform(str(path))
    assert str(e.value).strip() == (
        f"{path}:23: error: <buffer size=\"-1 KiB\">: must be positive")
    with pytest.raises(TypeError):
        pypto.set_platform(3)
    assert pypto.get_platform() == "a2a3"  # unchanged by the failures
