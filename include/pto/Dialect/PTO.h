/* The PTO-level dialect `pto`, the virtual tile ISA: `pto.kernel`
 * functions of instructions on 2-D tiles in a core's on-chip buffers
 * (`!pto.tile<32x32xf32, vec>`, after memory planning
 * `!pto.tile<32x32xf32, vec, offset = 4096>`), each instruction issued on
 * one hardware pipe and ordered across pipes by set_flag / wait_flag.
 * The queries below are what the passes over this level (memory planning,
 * sync insertion, hazard checking, cost) read: each instruction's pipe,
 * which operands it reads, which GM tensor it reads or writes, and the
 * buffer it updates in place. Semantics: docs/dialects/pto.md. */
#ifndef PTO_DIALECT_PTO_H
#define PTO_DIALECT_PTO_H

#include "pto/DType.h"
#include "pto/Dialect/Common.h"
#include "pto/Dialect/Block.h"
#include "pto/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

void pto_register_pto_dialect(PtoContext *ctx);

/* ------------------------------------------------------------------ */
/* Pipes                                                                */
/* ------------------------------------------------------------------ */

/* The in-order instruction queues of a core. Different pipes run in
 * parallel; set_flag / wait_flag order them. */
typedef enum PtoPipe {
  PTO_PIPE_MTE2, /* GM -> UB / L1 */
  PTO_PIPE_MTE1, /* L1 -> L0A / L0B */
  PTO_PIPE_M,    /* cube */
  PTO_PIPE_V,    /* vector */
  PTO_PIPE_FIX,  /* L0C -> GM / L1 */
  PTO_PIPE_MTE3, /* UB -> GM */
  PTO_PIPE_S,    /* scalar */
  PTO_PIPE_NUM,
  PTO_PIPE_NONE = -1,
  /* Row values of PTOOps.def that pto_pto_op_pipe resolves per op. */
  PTO_PIPE_BY_SPACE = -2,
  PTO_PIPE_BY_ATTR = -3,
} PtoPipe;

/* "MTE2" ... "S"; "?" for others. */
const char *pto_pipe_name(PtoPipe p);
/* PTO_PIPE_NONE for an unknown name. */
PtoPipe pto_pipe_lookup(const char *name);
/* Whether a core of that type has the pipe: a vector core has MTE2, V,
 * MTE3 and S; a cube core MTE2, MTE1, M, FIX and S. */
bool pto_pipe_on_core(PtoPipe p, PtoBlockCore core);

/* Event ids per (source, destination) pipe pair: 0 .. 7. */
#define PTO_PTO_NUM_EVENTS 8

/* ------------------------------------------------------------------ */
/* The tile type                                                        */
/* ------------------------------------------------------------------ */

/* Offset of a tile not yet placed by memory planning. */
#define PTO_PTO_UNPLANNED (-1)

/* !pto.tile<rows x cols x elem, space[, offset = N]>: rows and cols >= 1,
 * elem one of f32 f16 bf16 i32 i16 i8 i1, offset PTO_PTO_UNPLANNED or a
 * non-negative multiple of the space's alignment. NULL (silently) when
 * invalid; pto_pto_tile_check says why. */
PtoType *pto_pto_tile_type(PtoContext *ctx, int64_t rows, int64_t cols,
                           PtoType *elem, PtoBufSpace space, int64_t offset);
/* Emits the reason a tile type would be invalid at `loc` (NULL: silent). */
PtoResult pto_pto_tile_check(PtoContext *ctx, PtoLoc *loc, int64_t rows,
                             int64_t cols, PtoType *elem, PtoBufSpace space,
                             int64_t offset);
bool pto_type_is_pto_tile(const PtoType *t);
int64_t pto_pto_tile_rows(const PtoType *t);
int64_t pto_pto_tile_cols(const PtoType *t);
PtoType *pto_pto_tile_elem(const PtoType *t);
PtoBufSpace pto_pto_tile_space(const PtoType *t);
/* The planned byte offset in the space's buffer, or PTO_PTO_UNPLANNED. */
int64_t pto_pto_tile_offset(const PtoType *t);
/* Bytes the tile occupies: rows * cols * element size (i1: one byte). */
int64_t pto_pto_tile_bytes(const PtoType *t);
/* The same tile at another offset (PTO_PTO_UNPLANNED: unplanned); NULL if
 * the offset is not aligned for the space. */
PtoType *pto_pto_tile_with_offset(const PtoType *t, int64_t offset);
/* Bytes per element in a buffer (i1: 1); 0 for unsupported types. */
unsigned pto_pto_elem_bytes(const PtoType *elem);
/* Byte alignment of tile offsets in a space: 32 in vec and mat (UB and L1
 * blocks), 512 in left and right (L0A/L0B fractals), 1024 in acc (L0C
 * fractals). */
unsigned pto_pto_space_alignment(PtoBufSpace s);

/* ------------------------------------------------------------------ */
/* Instructions                                                         */
/* ------------------------------------------------------------------ */

typedef enum PtoPtoOp {
  PTO_PTO_NONE = -1,
#define PTO_PTO_OP(ID, ...) PTO_PTO_##ID,
#include "pto/Dialect/PTOOps.def"
#undef PTO_PTO_OP
  PTO_PTO_NUM_OPS
} PtoPtoOp;

/* The verifier, assembly form and interpreter class of an instruction. */
typedef enum PtoPtoKind {
  PTO_PTO_KIND_KERNEL,
  PTO_PTO_KIND_RETURN,
  PTO_PTO_KIND_LOAD,
  PTO_PTO_KIND_STORE,
  PTO_PTO_KIND_MOV,
  PTO_PTO_KIND_PREFETCH,
  PTO_PTO_KIND_BINARY,
  PTO_PTO_KIND_SCALAR,
  PTO_PTO_KIND_UNARY,
  PTO_PTO_KIND_CVT,
  PTO_PTO_KIND_CMP,
  PTO_PTO_KIND_SEL,
  PTO_PTO_KIND_ROWRED,
  PTO_PTO_KIND_COLRED,
  PTO_PTO_KIND_ROWARG,
  PTO_PTO_KIND_COLARG,
  PTO_PTO_KIND_ARGCOMBINE,
  PTO_PTO_KIND_TOPKMERGE,
  PTO_PTO_KIND_ROWEXPAND,
  PTO_PTO_KIND_TRANS,
  PTO_PTO_KIND_GATHER,
  PTO_PTO_KIND_SORT32,
  PTO_PTO_KIND_MRGSORT,
  PTO_PTO_KIND_TOPK,
  PTO_PTO_KIND_QUANT,
  PTO_PTO_KIND_MATMUL,
  PTO_PTO_KIND_EXPAND,  /* a tile's dims of 1 broadcast to the result */
  PTO_PTO_KIND_EXPANDS, /* a scalar broadcast to the result tile */
  PTO_PTO_KIND_GATHERGM, /* a tile read from GM at indexed positions */
  PTO_PTO_KIND_SCATTERGM, /* a tile written to GM at indexed positions */
  PTO_PTO_KIND_RANDOM,   /* a tile of a counter-based random stream */
  PTO_PTO_KIND_PERMUTE,  /* the tile's N-D view with its dims permuted */
  PTO_PTO_KIND_REPEAT,   /* the tile's N-D view repeated along dims of 1 */
  PTO_PTO_KIND_SETFLAG,
  PTO_PTO_KIND_WAITFLAG,
  PTO_PTO_KIND_BARRIER,
} PtoPtoKind;

/* The instruction's id (a pointer compare), or PTO_PTO_NONE. */
PtoPtoOp pto_pto_op_id(const PtoOp *op);
/* The id of "pto.tadd" or "tadd", or PTO_PTO_NONE (a scan: for tools). */
PtoPtoOp pto_pto_op_lookup(const char *name);
PtoPtoKind pto_pto_op_kind(PtoPtoOp id);
const char *pto_pto_op_mnemonic(PtoPtoOp id);
/* The row of pto/UnaryOps.def whose float parameters (slope, min, max)
 * instruction `id` takes as attributes, named and checked as the Tile
 * level's (tlrelu, tclip), or PTO_UNARY_ROW_NONE. */
PtoUnaryRow pto_pto_unary_row(PtoPtoOp id);
/* The pipe an instruction issues on: its row's pipe, for tmov and tstore
 * the pipe of the path it moves along (mat -> left/right: MTE1, acc ->
 * mat/GM: FIX, vec -> GM: MTE3), for set_flag its source pipe, for
 * wait_flag its destination pipe, for pipe_barrier its pipe.
 * PTO_PIPE_NONE for kernels, returns, other ops and malformed ones. */
PtoPipe pto_pto_op_pipe(const PtoOp *op);

/* How an instruction uses operand i. Results are always tiles it writes. */
typedef enum PtoPtoAccess {
  PTO_PTO_ACCESS_NONE,      /* an index or scalar operand */
  PTO_PTO_ACCESS_TILE_READ, /* a tile it reads */
  PTO_PTO_ACCESS_GM_READ,   /* the GM tensor tload / tprefetch reads */
  PTO_PTO_ACCESS_GM_WRITE,  /* the GM tensor tstore / tscatter_gm writes */
} PtoPtoAccess;
PtoPtoAccess pto_pto_operand_access(const PtoOp *op, unsigned i);
/* The operand whose buffer the result updates in place (tmatmul_acc: its
 * accumulator, operand 0; memory planning gives both one offset), or -1. */
int pto_pto_op_tied_operand(const PtoOp *op);

/* tload, tstore, tprefetch, tgather_gm, tscatter_gm: one offset per tensor dim into offs (PTO_DYN
 * for dynamic ones) and in dyn the index operand of each dynamic offset
 * (NULL for static ones). Returns the rank (0 if malformed). */
unsigned pto_pto_get_offsets(const PtoOp *op, int64_t *offs, PtoValue **dyn);

/* trandom: its `origin`, `full` and `window` (PTO_MAX_RANK entries each
 * at most) and whether `dist` is "normal". Returns their length (0 if
 * malformed: the verifier refuses such an op). */
unsigned pto_pto_get_random_window(const PtoOp *op, int64_t *origin, int64_t *full,
                                   int64_t *window, bool *normal);

/* tgather_gm, tscatter_gm: the tile (the result, or the scattered
 * operand #0) seen in the tensor's rank: the `shape` attribute, whose
 * leading dims flatten into the tile's rows and whose last is its
 * columns, or without it, for a 2-D tensor, the tile's rows and columns.
 * Returns the rank (0 if malformed). */
unsigned pto_pto_indexed_shape(const PtoOp *op, int64_t *shape);

/* The position an out-of-range index of tgather_gm / tscatter_gm at
 * (row, col) of its index tile is named by: in the tile's shape in the
 * tensor's rank (pto_pto_indexed_shape) when the index tile has one index
 * per element, else (row, col). Returns the position's rank. */
unsigned pto_pto_index_position(const PtoOp *op, int64_t row, int64_t col, int64_t *pos);

/* tload, tstore, tprefetch: the sizes of the GM window, one per tensor
 * dim (the `sizes` attribute, or for tload / tstore without it the tile's
 * shape). Returns the rank (0 if malformed). */
unsigned pto_pto_window_sizes(const PtoOp *op, int64_t *sizes);

/* How a GM window of `rank` sizes, whose dims lie `strides` elements
 * apart, holds a rows x cols tile: either its sizes other than 1 are the
 * tile's dims other than 1, in order, or its last size is the tile's
 * columns and its leading sizes flatten into the tile's rows (their
 * product, the rows one stride apart: each non-unit leading dim steps
 * over exactly the rows inside it; NULL strides, unknown: only one non-unit
 * leading dim then flattens). On success tile_strides gets the element
 * distance between rows and between columns (0 along a dim of 1). The
 * verifier, the interpreter and the translation read windows this way. */
bool pto_pto_window_as_tile(unsigned rank, const int64_t *sizes,
                            const int64_t *strides, int64_t rows, int64_t cols,
                            int64_t tile_strides[2]);

/* How a GM window of `rank` sizes holds a rows x cols tile as `pieces`
 * 2-D pieces of piece_rows x cols, one after the other in the tile: the
 * tile form of pto_pto_window_as_tile (one piece), or its last size the
 * columns and its leading sizes, whose product is the rows, at several
 * strides: the innermost non-unit leading dims whose rows lie one stride
 * apart (all of them with their strides known, the innermost one without)
 * make one piece, each further non-unit leading dim is looped over,
 * outermost first. Element (r, c) of piece p is at
 *   sum_k idx_k(p) * stride[outer_dim[k]] + r * stride[row_dim]
 *   + c * stride[col_dim]
 * with idx_k(p) the digits of p in the outer sizes (row-major) and a dim of
 * -1 contributing nothing. Each piece is one burst of the MTE. */
typedef struct PtoPtoWindowPieces {
  int64_t pieces, piece_rows;
  int row_dim, col_dim;
  unsigned num_outer;
  unsigned outer_dim[PTO_MAX_RANK];
  int64_t outer_size[PTO_MAX_RANK];
} PtoPtoWindowPieces;
bool pto_pto_window_pieces(unsigned rank, const int64_t *sizes,
                           const int64_t *strides, int64_t rows, int64_t cols,
                           PtoPtoWindowPieces *out);
/* The pieces of the window of tload / tstore `op` (its tensor's strides
 * when its dims are static); false when malformed. */
bool pto_pto_op_window_pieces(const PtoOp *op, PtoPtoWindowPieces *out);

/* tpermute / trepeat: the result's elements in row-major order as the
 * array of out_shape and, per dim of it, the distance between neighbours
 * of the operand's elements (in row-major order) read for it (0 along a
 * repeated dim). Returns the rank, 0 when the attributes do not describe
 * the tiles (the verifier says why). */
unsigned pto_pto_layout_map(const PtoOp *op, int64_t *out_shape,
                            int64_t *src_stride);

/* The row-major strides (in elements) of a tensor type with static dims;
 * false for dynamic (or overflowing) ones. */
bool pto_pto_tensor_strides(const PtoType *tensor, int64_t *strides);

/* set_flag / wait_flag: their pipes and event id (false if malformed). */
bool pto_pto_flag(const PtoOp *op, PtoPipe *src, PtoPipe *dst, int *event);

#ifdef __cplusplus
}
#endif
#endif
