"""PyPTO's documented Python API, name by name: every name of
pypto_api_names.txt (one dotted name a line, as PyPTO's API reference
lists them) must exist in this package. Names not provided yet are listed
in NOT_YET below, so that the gap stays visible and a name that lands must
leave the list (the test fails on a stale entry too)."""

import os

import pytest

import pypto

HERE = os.path.dirname(os.path.abspath(__file__))

# Names this package does not provide yet, grouped by why. Shrink it as
# names land; never add a name that exists.
_GAPS = {}
NOT_YET = {"pypto." + n: why for why, names in _GAPS.items() for n in names.split()}


def api_names():
    with open(os.path.join(HERE, "pypto_api_names.txt")) as f:
        return [line.strip() for line in f if line.strip()]


def lookup(name):
    """The object a dotted name names, or None when a part is missing."""
    parts = name.split(".")
    assert parts[0] == "pypto", name
    obj = pypto
    for p in parts[1:]:
        try:
            obj = getattr(obj, p)
        except AttributeError:
            return None
    return obj


def test_the_list_is_the_documented_one():
    names = api_names()
    assert len(names) == len(set(names)) == 259
    assert set(NOT_YET) <= set(names), sorted(set(NOT_YET) - set(names))


@pytest.mark.parametrize("name", api_names())
def test_name_exists(name):
    obj = lookup(name)
    if name in NOT_YET:
        assert obj is None, f"{name} exists now: remove it from NOT_YET"
        pytest.xfail(NOT_YET[name])
    assert obj is not None, f"{name} is missing from the pypto package"


def test_missing_count():
    # the visible size of the gap; lower it when names land
    missing = [n for n in api_names() if lookup(n) is None]
    assert sorted(missing) == sorted(NOT_YET)
