"""The model examples of examples/python/models: each matches numpy; the
paged decode attention's work follows the sequence lengths, not the size of the
block table (the interpreter's executed-op count, kernel.num_ops_executed)."""

import importlib.util
import os

import numpy as np

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


def test_int8_indexer_matches_numpy():
    ex = load("int8_indexer")
    for seed in (1, 2, 3):
        kernel, err = ex.run(seed)
        assert err < 1e-3, (seed, err)
    # the product is one dequantising int8 matmul with its relu, no
    # separate dequantize or relu op
    ir = kernel.ir()
    assert "tensor<1x128xf32> -> tensor<16x128xf16>" in ir and "relu" in ir
    assert "pypto.dequantize" not in ir and "pypto.relu" not in ir


def test_int8_indexer_check_catches_a_wrong_pick():
    ex = load("int8_indexer")
    q, k, w = ex.inputs(1)
    ref = ex.score_ref(q, k, w)
    idx = np.argsort(-ref, axis=-1, kind="stable")[:, :ex.TOPK].astype(np.int32)
    vals = np.take_along_axis(ref, idx.astype(np.int64), -1).astype(np.float32)
    assert ex.check(vals, idx, q, k, w) < 1e-5
    idx[0, 0] = np.argmin(ref[0])   # the worst key instead of the best
    assert ex.check(vals, idx, q, k, w) > 1e-3
