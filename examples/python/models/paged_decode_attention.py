# Paged decode attention: one new query token per sequence (G query heads
# sharing one KV head) attends to the sequence's cached keys and values,
# which live in blocks of BS rows of a shared pool, found through the
# sequence's row of the block table. The kernel reads the sequence length
# act_seq[b] and loops over the blocks that hold it only (work grows with
# the sequence, not with the table); it gathers each block's keys through
# the block table with the experimental gather_in_l1 op, reads the values
# at the block block_table[b, j] names, masks the positions of the last,
# partial block beyond the length, and keeps an online softmax across the
# blocks. Checked against numpy.
import sys

import numpy as np

import pypto

B, G, D = 3, 4, 32          # sequences, query heads per KV head, head dim
BS, MAXB, NBLK = 8, 4, 12   # block size, table width, blocks in the pool


def make_kernel(maxb):
    @pypto.frontend.jit
    def paged_decode_attention(
            q: pypto.Tensor([B * G, D], pypto.DT_FP32),
            k_cache: pypto.Tensor([NBLK * BS, D], pypto.DT_FP32),
            v_cache: pypto.Tensor([NBLK * BS, D], pypto.DT_FP32),
            block_table: pypto.Tensor([B, maxb], pypto.DT_INT32),
            act_seq: pypto.Tensor([B], pypto.DT_INT32),
            positions: pypto.Tensor([1, BS], pypto.DT_INT32),
            positions_f: pypto.Tensor([G, BS], pypto.DT_FP32),
            out: pypto.Tensor([B * G, D], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(G, D)
        pypto.set_cube_tile_shapes([G, G], [D, D], [D, D])
        for b in pypto.loop(B, name="seq", idx_name="b"):
            n = act_seq[b]
            qb = q[b * G:b * G + G, :] * (1.0 / np.sqrt(D))
            # the running max, sum and output of the online softmax
            m = qb[:, 0:1] * 0.0 - 1e30
            s_sum = qb[:, 0:1] * 0.0
            acc = qb * 0.0
            table = block_table[b:b + 1, :]
            for j in pypto.loop((n + BS - 1) // BS, name="block", idx_name="j"):
                tokens = positions + j * BS
                kj = pypto.experimental.gather_in_l1(k_cache, tokens, table, BS, D,
                                                     is_b_matrix=True, is_trans=True)
                blk = block_table[b, j]
                vj = v_cache[blk * BS:blk * BS + BS, :]
                s = pypto.matmul(qb, pypto.transpose(kj, 0, 1), pypto.DT_FP32)
                # positions past the length (only in the last block) get
                # -1e30: min(relu(pos - valid + 1), 1) is 1 exactly there
                valid = n - j * BS
                past = pypto.minimum(pypto.relu(positions_f - valid + 1.0), 1.0)
                s = s + past * -1e30
                m_new = pypto.maximum(m, pypto.amax(s, -1, keepdim=True))
                p = pypto.exp(s - m_new)
                alpha = pypto.exp(m - m_new)
                s_sum[:] = s_sum * alpha + pypto.sum(p, -1, keepdim=True)
                acc[:] = acc * alpha + pypto.matmul(p, vj, pypto.DT_FP32)
                m[:] = m_new
            out[b * G:b * G + G, :] = acc / s_sum
    return paged_decode_attention


def reference(q, k_cache, v_cache, block_table, act_seq):
    out = np.zeros_like(q)
    for b in range(B):
        n = int(act_seq[b])
        rows = [block_table[b, t // BS] * BS + t % BS for t in range(n)]
        k, v = k_cache[rows], v_cache[rows]
        s = q[b * G:b * G + G] @ k.T / np.sqrt(D)
        e = np.exp(s - s.max(-1, keepdims=True))
        out[b * G:b * G + G] = (e / e.sum(-1, keepdims=True)) @ v
    return out


def inputs(seed=1, maxb=MAXB, act_seq=(13, 1, 32)):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((B * G, D)).astype(np.float32)
    k_cache = rng.standard_normal((NBLK * BS, D)).astype(np.float32)
    v_cache = rng.standard_normal((NBLK * BS, D)).astype(np.float32)
    act_seq = np.array(act_seq, np.int32)   # by default a partial, a tiny, a full table
    table = np.zeros((B, maxb), np.int32)
    table[:, :MAXB] = rng.permutation(NBLK)[:B * MAXB].reshape(B, MAXB)
    positions = np.arange(BS, dtype=np.int32)[None, :]
    positions_f = np.tile(np.arange(BS, dtype=np.float32), (G, 1))
    return q, k_cache, v_cache, table, act_seq, positions, positions_f


def run(maxb=MAXB, seed=1, act_seq=(13, 1, 32)):
    kernel = make_kernel(maxb)
    q, k_cache, v_cache, table, act_seq, positions, positions_f = inputs(seed, maxb, act_seq)
    out = np.zeros_like(q)
    kernel(q, k_cache, v_cache, table, act_seq, positions, positions_f, out)
    err = float(np.abs(out - reference(q, k_cache, v_cache, table, act_seq)).max())
    return kernel, err


if __name__ == "__main__":
    kernel, err = run()
    wide, err2 = run(2 * MAXB)
    print(f"paged_decode_attention: max error {max(err, err2):.3g}; "
          f"{kernel.num_ops_executed} ops executed with a table of {MAXB} blocks, "
          f"{wide.num_ops_executed} with {2 * MAXB}")
    if max(err, err2) > 1e-4:
        sys.exit("paged_decode_attention: mismatch")
