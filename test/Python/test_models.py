"""The model examples of examples/python/models: each matches numpy, and
its work follows the sequence lengths, not the size of the block table
(the interpreter's executed-op count, kernel.num_ops_executed)."""

import importlib.util
import os

from conftest import ROOT


def load(name):
    path = os.path.join(ROOT, "examples", "python", "models", name + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_paged_decode_attention_matches_numpy():
    ex = load("paged_decode_attention")
    for act_seq in ((13, 1, 32), (8, 9, 31), (1, 1, 1)):
        _, err = ex.run(act_seq=act_seq)
        assert err < 1e-4, (act_seq, err)


def test_paged_decode_attention_work_follows_the_sequences_not_the_table(monkeypatch):
    # the work is counted in interpreter ops, whatever the run mode would pick
    monkeypatch.setenv("PTO_BACKEND", "interp")
    ex = load("paged_decode_attention")
    k1, _ = ex.run(ex.MAXB)
    k2, err = ex.run(2 * ex.MAXB)       # twice the table, the same sequences
    assert err < 1e-4
    n1, n2 = k1.num_ops_executed, k2.num_ops_executed
    assert 0 < n1 and n2 < 1.1 * n1, (n1, n2)
    short, _ = ex.run(act_seq=(4, 1, 8))   # one block per sequence
    assert short.num_ops_executed < 0.7 * n1, (short.num_ops_executed, n1)
    assert k1.num_compiles == 1


def test_num_ops_executed_before_a_run():
    ex = load("paged_decode_attention")
    assert ex.make_kernel(ex.MAXB).num_ops_executed == 0
