# The int8-quantised indexer score (the token selector of sparse attention,
# as in DeepSeek-V3.2's Lightning Indexer): each query token t has H
# indexer heads; a key s scores
#     score[t, s] = sum_h w[t, h] * relu(q[t, h] . k[s])
# and the TOPK best keys are kept. Queries and keys are quantised per row
# to int8 (pypto.quantize); the int8 x int8 matmul accumulates in i32 and
# leaves the accumulator dequantised by the keys' scales (a per-channel
# scale_tensor) through a ReLU, with an f16 result (extend_params, the
# FIX pipe's job on the accelerator); the queries' scales (positive, so
# they commute with the ReLU) fold into the head weights. Checked against
# numpy, which computes the same quantisation. The quantisation is spelled
# out in the steps pypto.quantize documents (its tile.quantize has no PTO
# instruction yet), so that the kernel runs at every level down to PTO.
import sys

import numpy as np

import pypto

T, H, D = 4, 4, 64      # query tokens, indexer heads, head dim
S, TOPK = 128, 16       # keys, keys kept per token


def quantize(x):
    """pypto.quantize's steps for rows that are not all zero: scale =
    amax / 127 and q = rint(x / scale) (|x / scale| <= 127 needs no clamp)."""
    scale = pypto.amax(pypto.abs(x), -1, keepdim=True) / 127.0
    return pypto.cast(x / scale, pypto.DT_INT8, pypto.CastMode.CAST_RINT), scale


def make_kernel():
    @pypto.frontend.jit
    def int8_indexer(
            q: pypto.Tensor([T * H, D], pypto.DT_FP32),      # row t*H + h
            k: pypto.Tensor([S, D], pypto.DT_FP32),
            w: pypto.Tensor([T * H, 1], pypto.DT_FP32),
            scores: pypto.Tensor([T, TOPK], pypto.DT_FP32),
            indices: pypto.Tensor([T, TOPK], pypto.DT_INT32)):
        pypto.set_vec_tile_shapes(T * H, S)     # a whole row of scores: top-k in one tile
        pypto.set_cube_tile_shapes([16, 16], [64, 64], [64, 64])
        qq, qs = quantize(q)                  # [T*H, D] i8, [T*H, 1] f32
        kq, ks = quantize(k)                  # [S, D] i8, [S, 1] f32
        logits = pypto.matmul(qq, pypto.transpose(kq, 0, 1), pypto.DT_FP16,
                              extend_params={"scale_tensor": pypto.transpose(ks, 0, 1),
                                             "relu_type": pypto.ReLuType.RELU})
        weighted = pypto.cast(logits, pypto.DT_FP32) * (qs * w)
        score = pypto.sum(pypto.reshape(weighted, [T, H, S]), 1)
        values, idx = pypto.topk(score, TOPK, -1)
        scores[:] = values
        indices[:] = pypto.cast(idx, pypto.DT_INT32)
    return int8_indexer


def quantize_ref(x):
    """pypto.quantize: per row, scale = f32(amax / 127) and q =
    clamp(rint(f32(x / scale)), -127, 127)."""
    amax = np.abs(x).max(-1, keepdims=True).astype(np.float32)
    scale = (amax.astype(np.float64) / 127.0).astype(np.float32)
    q = np.rint((x.astype(np.float64) / scale).astype(np.float32))
    return np.clip(q, -127, 127).astype(np.int8), scale


def score_ref(q, k, w):
    qq, qs = quantize_ref(q)
    kq, ks = quantize_ref(k)
    acc = qq.astype(np.int64) @ kq.astype(np.int64).T
    logits = np.maximum(acc.astype(np.float32) * ks.T, 0).astype(np.float16)
    weighted = logits.astype(np.float32) * (qs * w)
    return weighted.reshape(T, H, S).astype(np.float64).sum(1)


def inputs(seed=1):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((T * H, D)).astype(np.float32)
    k = rng.standard_normal((S, D)).astype(np.float32)
    w = rng.uniform(0.1, 1.0, (T * H, 1)).astype(np.float32)
    return q, k, w


def check(scores, indices, q, k, w):
    """The largest error of the kept scores: against numpy's top-k values,
    and against numpy's scores of the keys picked (ties may pick either)."""
    ref = score_ref(q, k, w)
    want = -np.sort(-ref, axis=-1)[:, :TOPK]
    picked = np.take_along_axis(ref, indices.astype(np.int64), -1)
    distinct = all(len(set(r)) == TOPK for r in indices.tolist())
    err = max(np.abs(scores - want).max(), np.abs(scores - picked).max())
    return float(err) if distinct else float("inf")


def run(seed=1):
    kernel = make_kernel()
    q, k, w = inputs(seed)
    scores = np.zeros((T, TOPK), np.float32)
    indices = np.zeros((T, TOPK), np.int32)
    kernel(q, k, w, scores, indices)
    return kernel, check(scores, indices, q, k, w)


if __name__ == "__main__":
    kernel, err = run()
    print(f"int8_indexer: max error {err:.3g}")
    if err > 1e-3:
        sys.exit("int8_indexer: mismatch")
