/* The pto dialect's definition: pipes, the !pto.tile type, the op table
 * from PTOOps.def, the queries passes read (pipe, operand access, in-place
 * results) and registration. */
#include "Dialect/PTO/PTOInternal.h"

#include "pto/Dialect/AttrNames.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Pipes                                                                */
/* ------------------------------------------------------------------ */

static const char *const pipe_names[PTO_PIPE_NUM] = {"MTE2", "MTE1", "M",   "V",
                                                     "FIX",  "MTE3", "S"};

const char *pto_pipe_name(PtoPipe p) {
  return (unsigned)p < PTO_PIPE_NUM ? pipe_names[p] : "?";
}

PtoPipe pto_pipe_lookup(const char *name) {
  for (unsigned i = 0; name && i < PTO_PIPE_NUM; i++)
    if (strcmp(pipe_names[i], name) == 0) return (PtoPipe)i;
  return PTO_PIPE_NONE;
}

bool pto_pipe_on_core(PtoPipe p, PtoBlockCore core) {
  switch (p) {
  case PTO_PIPE_MTE2: case PTO_PIPE_S: return core != PTO_BLOCK_CORE_NONE;
  case PTO_PIPE_V: case PTO_PIPE_MTE3: return core == PTO_BLOCK_CORE_VECTOR;
  case PTO_PIPE_MTE1: case PTO_PIPE_M: case PTO_PIPE_FIX:
    return core == PTO_BLOCK_CORE_CUBE;
  default: return false;
  }
}

/* ------------------------------------------------------------------ */
/* !pto.tile<32x32xf32, vec, offset = 4096>                             */
/* ------------------------------------------------------------------ */

unsigned pto_pto_elem_bytes(const PtoType *elem) {
  if (!elem) return 0;
  if (pto_type_is_float(elem)) {
    PtoFloatKind k = pto_type_float_kind(elem);
    /* the 8-bit floats are storage: moved and converted, not computed */
    if (k == PTO_F8E4M3FN || k == PTO_F8E5M2 || k == PTO_F8E8M0FNU) return 1;
    return k == PTO_F32 ? 4 : k == PTO_F16 || k == PTO_BF16 ? 2 : 0;
  }
  if (pto_type_is_integer(elem) &&
      pto_type_int_signedness(elem) == PTO_SIGNLESS) {
    unsigned w = pto_type_int_width(elem);
    return w == 1 || w == 8 ? 1 : w == 16 ? 2 : w == 32 ? 4 : w == 64 ? 8 : 0;
  }
  /* ui8, ui16, ui32, ui64: integers the instructions compare, divide
   * and widen unsigned (ui1 and si* have no tile) */
  if (pto_type_is_integer(elem) &&
      pto_type_int_signedness(elem) == PTO_UNSIGNED) {
    unsigned w = pto_type_int_width(elem);
    return w == 8 ? 1 : w == 16 ? 2 : w == 32 ? 4 : w == 64 ? 8 : 0;
  }
  return 0;
}

unsigned pto_pto_space_alignment(PtoBufSpace s) {
  switch (s) {
  case PTO_BUF_LEFT: case PTO_BUF_RIGHT: return 512;
  case PTO_BUF_ACC: return 1024;
  default: return 32;
  }
}

/* Tiles larger than this are refused outright (no platform's buffer comes
 * near it), which also keeps every byte count far from overflow. */
#define MAX_TILE_BYTES ((int64_t)1 << 30)

/* Why a tile type would be invalid, written into buf; NULL if it is
 * valid. `written`: the offset was spelled out, so -1 is not "unplanned". */
static const char *tile_problem(char *buf, size_t cap, int64_t rows,
                                int64_t cols, PtoType *elem, PtoBufSpace space,
                                int64_t offset, bool written) {
  if (rows < 1 || cols < 1) {
    snprintf(buf, cap, "tile dims must be positive, got %lldx%lld",
             (long long)rows, (long long)cols);
    return buf;
  }
  unsigned eb = pto_pto_elem_bytes(elem);
  if (!eb)
    return "tile element type must be f32, f16, bf16, i64, i32, i16, i8, ui64, ui32, ui16, ui8, "
           "i1, f8E4M3FN, f8E5M2 or f8E8M0FNU";
  if (rows > MAX_TILE_BYTES / cols / eb) {
    snprintf(buf, cap, "tile of %lldx%lld elements is larger than 1 GiB",
             (long long)rows, (long long)cols);
    return buf;
  }
  if ((unsigned)space >= PTO_BUF_NUM_SPACES) return "unknown memory space";
  unsigned al = pto_pto_space_alignment(space);
  if ((written || offset != PTO_PTO_UNPLANNED) &&
      (offset < 0 || offset > MAX_TILE_BYTES * 4 || offset % al != 0)) {
    snprintf(buf, cap, "tile offset %lld in '%s' must be a non-negative "
                       "multiple of %u bytes (and below 4 GiB)",
             (long long)offset, pto_buf_space_name(space), al);
    return buf;
  }
  return NULL;
}

PtoResult pto_pto_tile_check(PtoContext *ctx, PtoLoc *loc, int64_t rows,
                             int64_t cols, PtoType *elem, PtoBufSpace space,
                             int64_t offset) {
  char buf[160];
  const char *msg =
      tile_problem(buf, sizeof buf, rows, cols, elem, space, offset, false);
  if (!msg) return PTO_SUCCESS;
  if (ctx && loc) pto_emit_error(ctx, loc, "%s", msg);
  return PTO_FAILURE;
}

PtoType *pto_pto_tile_type(PtoContext *ctx, int64_t rows, int64_t cols,
                           PtoType *elem, PtoBufSpace space, int64_t offset) {
  if (pto_pto_tile_check(ctx, NULL, rows, cols, elem, space, offset))
    return NULL;
  int64_t shape[2] = {rows, cols};
  PtoAttr *attrs[2] = {pto_attr_cstr(ctx, pto_buf_space_name(space)),
                       pto_attr_i64(ctx, offset)};
  return pto_type_dialect(ctx, "pto", "tile", shape, 2, &elem, 1, attrs,
                          offset == PTO_PTO_UNPLANNED ? 1 : 2);
}

bool pto_type_is_pto_tile(const PtoType *t) {
  return t && pto_type_isa(t, "pto", "tile") && pto_type_num_ints(t) == 2 &&
         pto_type_num_types(t) == 1 && pto_type_num_attrs(t) >= 1;
}

int64_t pto_pto_tile_rows(const PtoType *t) { return pto_type_ints(t)[0]; }
int64_t pto_pto_tile_cols(const PtoType *t) { return pto_type_ints(t)[1]; }
PtoType *pto_pto_tile_elem(const PtoType *t) { return pto_type_type_param(t, 0); }

PtoBufSpace pto_pto_tile_space(const PtoType *t) {
  if (!pto_type_is_pto_tile(t)) return PTO_BUF_NONE;
  return pto_buf_space_lookup(pto_attr_str(pto_type_attr_param(t, 0)));
}

int64_t pto_pto_tile_offset(const PtoType *t) {
  if (!pto_type_is_pto_tile(t) || pto_type_num_attrs(t) < 2)
    return PTO_PTO_UNPLANNED;
  return pto_attr_int_value(pto_type_attr_param(t, 1));
}

int64_t pto_pto_tile_bytes(const PtoType *t) {
  return pto_pto_tile_rows(t) * pto_pto_tile_cols(t) *
         (int64_t)pto_pto_elem_bytes(pto_pto_tile_elem(t));
}

PtoType *pto_pto_tile_with_offset(const PtoType *t, int64_t offset) {
  return pto_pto_tile_type(pto_type_ctx(t), pto_pto_tile_rows(t),
                           pto_pto_tile_cols(t), pto_pto_tile_elem(t),
                           pto_pto_tile_space(t), offset);
}

PtoType *pto_pto_parse_type(PtoParser *p, const char *mnemonic) {
  if (strcmp(mnemonic, "tile") != 0) {
    pto_parser_error(p, "unknown pto type '%s'; the pto dialect has "
                        "'!pto.tile<...>'", mnemonic);
    return NULL;
  }
  PtoLoc *loc = pto_parser_loc(p);
  int64_t dims[3];
  unsigned rank;
  PtoType *elem;
  if (pto_parser_parse_punct(p, PTO_P_LESS) ||
      pto_parser_parse_dimension_list(p, dims, 3, &rank, false) ||
      pto_parser_parse_type(p, &elem))
    return NULL;
  if (rank != 2) {
    pto_parser_error_at(p, loc, "pto tiles are 2-D (rows x cols), got %u "
                                "dims", rank);
    return NULL;
  }
  PtoBufSpace s;
  if (pto_dialect_parse_space(p, &s)) return NULL;
  int64_t offset = PTO_PTO_UNPLANNED;
  bool written = pto_parser_optional_punct(p, PTO_P_COMMA);
  if (written && (pto_parser_parse_keyword(p, "offset") ||
                  pto_parser_parse_punct(p, PTO_P_EQUAL) ||
                  pto_parser_parse_integer(p, &offset)))
    return NULL;
  if (pto_parser_parse_punct(p, PTO_P_GREATER)) return NULL;
  PtoContext *ctx = pto_parser_ctx(p);
  char buf[160];
  const char *msg = tile_problem(buf, sizeof buf, dims[0], dims[1], elem, s,
                                 offset, written);
  if (msg) {
    pto_parser_error_at(p, loc, "%s", msg);
    return NULL;
  }
  return pto_pto_tile_type(ctx, dims[0], dims[1], elem, s, offset);
}

void pto_pto_print_type(PtoPrinter *p, PtoType *t) {
  pto_printer_puts(p, "tile<");
  pto_dialect_print_buf_params(p, t);
  if (pto_type_num_attrs(t) > 1)
    pto_printer_printf(p, ", offset = %lld",
                       (long long)pto_attr_int_value(pto_type_attr_param(t, 1)));
  pto_printer_puts(p, ">");
}

/* ------------------------------------------------------------------ */
/* The op table                                                         */
/* ------------------------------------------------------------------ */

#define PTO_PTO_OP(ID, MN, KIND, PIPE, NOP, NRES, DT, SUM)                   \
  {"pto." MN, NOP, NRES, PTO_PTO_KIND_##KIND == PTO_PTO_KIND_KERNEL, 0,      \
   PTO_PTO_KIND_##KIND == PTO_PTO_KIND_KERNEL                                \
       ? PTO_TRAIT_ISOLATED_FROM_ABOVE | PTO_TRAIT_SYMBOL |                  \
             PTO_TRAIT_SINGLE_BLOCK | PTO_TRAIT_IS_FUNCTION                  \
   : PTO_PTO_KIND_##KIND == PTO_PTO_KIND_RETURN                              \
       ? PTO_TRAIT_PURE | PTO_TRAIT_TERMINATOR | PTO_TRAIT_RETURN_LIKE       \
       : 0u,                                                                 \
   PTO_PIPE_##PIPE == PTO_PIPE_V     ? PTO_AFFINITY_VECTOR                   \
   : PTO_PIPE_##PIPE == PTO_PIPE_M   ? PTO_AFFINITY_CUBE                     \
                                     : PTO_AFFINITY_NONE,                    \
   pto_pto_verify, pto_pto_parse, pto_pto_print, NULL, NULL, SUM},
const PtoOpDef pto_pto_op_defs[PTO_PTO_NUM_OPS] = {
#include "pto/Dialect/PTOOps.def"
};
#undef PTO_PTO_OP

#define PTO_PTO_OP(ID, MN, ...) MN,
static const char *const mnemonics[PTO_PTO_NUM_OPS] = {
#include "pto/Dialect/PTOOps.def"
};
#undef PTO_PTO_OP

#define PTO_PTO_OP(ID, MN, KIND, ...) PTO_PTO_KIND_##KIND,
static const PtoPtoKind kinds[PTO_PTO_NUM_OPS] = {
#include "pto/Dialect/PTOOps.def"
};
#undef PTO_PTO_OP

#define PTO_PTO_OP(ID, MN, KIND, PIPE, ...) PTO_PIPE_##PIPE,
static const PtoPipe row_pipes[PTO_PTO_NUM_OPS] = {
#include "pto/Dialect/PTOOps.def"
};
#undef PTO_PTO_OP

#define PTO_PTO_OP(ID, MN, KIND, PIPE, NOP, NRES, DT, SUM) PTO_PTO_DT_##DT,
static const PtoPtoDtypes dtypes[PTO_PTO_NUM_OPS] = {
#include "pto/Dialect/PTOOps.def"
};
#undef PTO_PTO_OP

static const PtoOpTable op_table = {"pto.", pto_pto_op_defs, mnemonics,
                                    PTO_PTO_NUM_OPS, NULL};

PtoPtoOp pto_pto_op_id(const PtoOp *op) {
  return (PtoPtoOp)pto_optable_id(&op_table, op);
}

PtoPtoOp pto_pto_op_lookup(const char *name) {
  return (PtoPtoOp)pto_optable_lookup(&op_table, name);
}

PtoPtoKind pto_pto_op_kind(PtoPtoOp id) { return kinds[id]; }
const char *pto_pto_op_mnemonic(PtoPtoOp id) { return mnemonics[id]; }
PtoPtoDtypes pto_pto_op_dtypes(PtoPtoOp id) { return dtypes[id]; }

PtoUnaryRow pto_pto_unary_row(PtoPtoOp id) {
  return id == PTO_PTO_TLRELU  ? PTO_UNARY_ROW_LEAKY_RELU
         : id == PTO_PTO_TCLIP ? PTO_UNARY_ROW_CLIP
                               : PTO_UNARY_ROW_NONE;
}

/* ------------------------------------------------------------------ */
/* Queries                                                              */
/* ------------------------------------------------------------------ */

static PtoBufSpace operand_space(const PtoOp *op, unsigned i) {
  return i < pto_op_num_operands(op)
             ? pto_pto_tile_space(pto_value_type(pto_op_operand(op, i)))
             : PTO_BUF_NONE;
}

static PtoPipe attr_pipe(const PtoOp *op, const char *name) {
  return pto_pipe_lookup(pto_op_attr_str(op, name));
}

PtoPipe pto_pto_op_pipe(const PtoOp *op) {
  PtoPtoOp id = pto_pto_op_id(op);
  if (id == PTO_PTO_NONE) return PTO_PIPE_NONE;
  PtoPipe p = row_pipes[id];
  if (p == PTO_PIPE_BY_SPACE) {
    PtoBufSpace s = operand_space(op, 0);
    if (s == PTO_BUF_MAT) return PTO_PIPE_MTE1; /* tmov to L0A / L0B */
    if (s == PTO_BUF_ACC) return PTO_PIPE_FIX;
    if (s == PTO_BUF_VEC) return PTO_PIPE_MTE3;
    return PTO_PIPE_NONE;
  }
  if (p == PTO_PIPE_BY_ATTR) {
    switch (kinds[id]) {
    case PTO_PTO_KIND_SETFLAG: return attr_pipe(op, "src_pipe");
    case PTO_PTO_KIND_WAITFLAG: return attr_pipe(op, "dst_pipe");
    default: return attr_pipe(op, "pipe");
    }
  }
  return p;
}

PtoPtoAccess pto_pto_operand_access(const PtoOp *op, unsigned i) {
  PtoPtoOp id = pto_pto_op_id(op);
  if (id == PTO_PTO_NONE || i >= pto_op_num_operands(op))
    return PTO_PTO_ACCESS_NONE;
  PtoType *t = pto_value_type(pto_op_operand(op, i));
  if (pto_type_is_pto_tile(t)) return PTO_PTO_ACCESS_TILE_READ;
  if (!pto_type_is_tensor(t)) return PTO_PTO_ACCESS_NONE;
  return kinds[id] == PTO_PTO_KIND_STORE || kinds[id] == PTO_PTO_KIND_SCATTERGM
             ? PTO_PTO_ACCESS_GM_WRITE
             : PTO_PTO_ACCESS_GM_READ;
}

int pto_pto_op_tied_operand(const PtoOp *op) {
  return pto_pto_op_id(op) == PTO_PTO_TMATMUL_ACC ? 0 : -1;
}

unsigned pto_pto_get_random_window(const PtoOp *op, int64_t *origin, int64_t *full,
                                   int64_t *window, bool *normal) {
  unsigned no = 0, nf = 0, nw = 0;
  const char *dist = pto_op_attr_str(op, "dist");
  *normal = dist && strcmp(dist, "normal") == 0;
  if (!pto_attr_get_i64_array(pto_op_attr(op, "origin"), origin, PTO_MAX_RANK, &no) ||
      !pto_attr_get_i64_array(pto_op_attr(op, "full"), full, PTO_MAX_RANK, &nf) ||
      !pto_attr_get_i64_array(pto_op_attr(op, "window"), window, PTO_MAX_RANK, &nw) ||
      no != nf || nw != nf)
    return 0;
  return nf;
}

unsigned pto_pto_indexed_shape(const PtoOp *op, int64_t *shape) {
  PtoPtoOp id = pto_pto_op_id(op);
  if ((id != PTO_PTO_TGATHER_GM && id != PTO_PTO_TSCATTER_GM) ||
      pto_op_num_operands(op) < (id == PTO_PTO_TGATHER_GM ? 2u : 3u) ||
      pto_op_num_results(op) != (id == PTO_PTO_TGATHER_GM ? 1u : 0u))
    return 0;
  PtoType *x = pto_value_type(pto_op_operand(op, id == PTO_PTO_TGATHER_GM ? 0 : 1));
  PtoType *t = id == PTO_PTO_TGATHER_GM ? pto_value_type(pto_op_result(op, 0))
                                        : pto_value_type(pto_op_operand(op, 0));
  if (!pto_type_is_tensor(x) || !pto_type_is_pto_tile(t)) return 0;
  unsigned rank = pto_type_tensor_rank(x), n = 0;
  PtoAttr *a = pto_op_attr(op, "shape");
  if (!a) {
    if (rank != 2) return 0;
    shape[0] = pto_pto_tile_rows(t);
    shape[1] = pto_pto_tile_cols(t);
    return 2;
  }
  if (!pto_attr_get_i64_array(a, shape, PTO_MAX_RANK, &n) || n != rank || n == 0) return 0;
  int64_t rows = 1, want = pto_pto_tile_rows(t);
  for (unsigned d = 0; d < n; d++) {
    if (shape[d] < 1 || (d + 1 < n && shape[d] > want / rows)) return 0;
    if (d + 1 < n) rows *= shape[d];
  }
  return rows == want && shape[n - 1] == pto_pto_tile_cols(t) ? n : 0;
}

unsigned pto_pto_index_position(const PtoOp *op, int64_t row, int64_t col, int64_t *pos) {
  int64_t shape[PTO_MAX_RANK];
  unsigned n = pto_pto_indexed_shape(op, shape);
  bool gather = pto_pto_op_id(op) == PTO_PTO_TGATHER_GM;
  PtoType *ix = n ? pto_value_type(pto_op_operand(op, gather ? 1 : 2)) : NULL;
  PtoType *t = n ? (gather ? pto_value_type(pto_op_result(op, 0))
                           : pto_value_type(pto_op_operand(op, 0)))
                 : NULL;
  if (!ix || !pto_type_is_pto_tile(ix) || pto_pto_tile_rows(ix) != pto_pto_tile_rows(t) ||
      pto_pto_tile_cols(ix) != pto_pto_tile_cols(t)) {
    pos[0] = row;
    pos[1] = col;
    return 2;
  }
  pos[n - 1] = col;
  for (unsigned d = n - 1; d-- > 0;) {
    pos[d] = row % shape[d];
    row /= shape[d];
  }
  return n;
}

unsigned pto_pto_get_offsets(const PtoOp *op, int64_t *offs, PtoValue **dyn) {
  unsigned n = 0;
  if (!pto_attr_get_i64_array(pto_op_named_attr(op, PTO_ATTR_ID_STATIC_OFFSETS), offs,
                              PTO_MAX_RANK, &n))
    return 0;
  /* the dynamic offsets follow the tensor (tload, tprefetch), the tile
   * and the tensor (tstore), the tensor and the index tile (tgather_gm)
   * or the tile, the tensor and the index tile (tscatter_gm) */
  PtoPtoOp id = pto_pto_op_id(op);
  unsigned next = id == PTO_PTO_TSCATTER_GM                          ? 3
                  : id == PTO_PTO_TSTORE || id == PTO_PTO_TGATHER_GM ? 2
                                                                     : 1;
  for (unsigned i = 0; i < n; i++) {
    dyn[i] = NULL;
    if (offs[i] == PTO_DYN && next < pto_op_num_operands(op))
      dyn[i] = pto_op_operand(op, next++);
  }
  return n;
}

unsigned pto_pto_window_sizes(const PtoOp *op, int64_t *sizes) {
  unsigned n = 0;
  PtoAttr *a = pto_op_attr(op, "sizes");
  if (a) return pto_attr_get_i64_array(a, sizes, PTO_MAX_RANK, &n) ? n : 0;
  PtoPtoOp id = pto_pto_op_id(op);
  PtoType *t = id == PTO_PTO_TLOAD && pto_op_num_results(op)
                   ? pto_value_type(pto_op_result(op, 0))
               : id == PTO_PTO_TSTORE && pto_op_num_operands(op)
                   ? pto_value_type(pto_op_operand(op, 0))
                   : NULL;
  if (!pto_type_is_pto_tile(t)) return 0;
  memcpy(sizes, pto_type_ints(t), 2 * sizeof *sizes);
  return 2;
}

bool pto_pto_tensor_strides(const PtoType *tensor, int64_t *strides) {
  if (!pto_type_is_tensor(tensor) || !pto_type_tensor_is_static(tensor))
    return false;
  int64_t step = 1;
  for (unsigned d = pto_type_tensor_rank(tensor); d-- > 0;) {
    int64_t n = pto_type_tensor_dim(tensor, d);
    strides[d] = step;
    if (n < 1 || step > INT64_MAX / n) return false;
    step *= n;
  }
  return true;
}

bool pto_pto_window_pieces(unsigned rank, const int64_t *sizes,
                           const int64_t *strides, int64_t rows, int64_t cols,
                           PtoPtoWindowPieces *out) {
  memset(out, 0, sizeof *out);
  out->pieces = 1;
  out->piece_rows = rows;
  out->row_dim = out->col_dim = -1;
  const int64_t dims[2] = {rows, cols};
  int at[2] = {-1, -1};
  /* the non-unit sizes are the tile's non-unit dims */
  unsigned d = 0;
  bool same = true;
  for (unsigned k = 0; k < 2 && same; k++) {
    if (dims[k] == 1) continue;
    while (d < rank && sizes[d] == 1) d++;
    same = d < rank && sizes[d] == dims[k];
    if (same) at[k] = (int)d++;
  }
  while (same && d < rank && sizes[d] == 1) d++;
  if (same && d == rank) {
    out->row_dim = at[0];
    out->col_dim = at[1];
    return true;
  }
  /* the leading sizes flatten into the rows */
  if (rank < 2 || sizes[rank - 1] != cols) return false;
  int64_t n = 1;
  for (unsigned i = 0; i + 1 < rank; i++) {
    if (sizes[i] < 1 || n > INT64_MAX / sizes[i]) return false;
    n *= sizes[i];
  }
  if (n != rows) return false;
  out->col_dim = cols == 1 ? -1 : (int)rank - 1;
  /* the innermost non-unit leading dim, and those outside it whose rows
   * continue it one stride apart, make a piece */
  int inner = -1;
  for (unsigned i = rank - 1; i-- > 0;)
    if (sizes[i] != 1) { inner = (int)i; break; }
  if (inner < 0) return true; /* one row */
  out->row_dim = inner;
  int64_t prows = sizes[inner];
  int first = inner; /* the outermost dim of the piece */
  if (strides) {
    int64_t span = strides[inner] * sizes[inner];
    for (int i = inner - 1; i >= 0; i--) {
      if (sizes[i] == 1) continue;
      if (strides[i] != span) break;
      prows *= sizes[i];
      span = strides[i] * sizes[i];
      first = i;
    }
  }
  out->piece_rows = prows;
  for (int i = 0; i < first; i++) {
    if (sizes[i] == 1) continue;
    out->outer_dim[out->num_outer] = (unsigned)i;
    out->outer_size[out->num_outer++] = sizes[i];
    out->pieces *= sizes[i];
  }
  return true;
}

bool pto_pto_op_window_pieces(const PtoOp *op, PtoPtoWindowPieces *out) {
  PtoPtoOp id = pto_pto_op_id(op);
  bool load = id == PTO_PTO_TLOAD;
  if ((!load && id != PTO_PTO_TSTORE) ||
      pto_op_num_operands(op) < (load ? 1u : 2u) ||
      (load && pto_op_num_results(op) != 1))
    return false;
  PtoType *tile = load ? pto_value_type(pto_op_result(op, 0))
                       : pto_value_type(pto_op_operand(op, 0));
  PtoType *tensor = pto_value_type(pto_op_operand(op, load ? 0 : 1));
  int64_t sizes[PTO_MAX_RANK], strides[PTO_MAX_RANK];
  unsigned rank = pto_pto_window_sizes(op, sizes);
  if (!pto_type_is_pto_tile(tile) || !pto_type_is_tensor(tensor) ||
      rank != pto_type_tensor_rank(tensor))
    return false;
  bool known = pto_pto_tensor_strides(tensor, strides);
  return pto_pto_window_pieces(rank, sizes, known ? strides : NULL,
                               pto_pto_tile_rows(tile), pto_pto_tile_cols(tile),
                               out);
}

bool pto_pto_window_as_tile(unsigned rank, const int64_t *sizes,
                            const int64_t *strides, int64_t rows, int64_t cols,
                            int64_t tile_strides[2]) {
  PtoPtoWindowPieces w;
  if (!pto_pto_window_pieces(rank, sizes, strides, rows, cols, &w) ||
      w.pieces != 1)
    return false;
  tile_strides[0] = w.row_dim >= 0 && strides && rows != 1 ? strides[w.row_dim] : 0;
  tile_strides[1] = w.col_dim >= 0 && strides ? strides[w.col_dim] : 0;
  return true;
}

/* Whether tile t holds as many elements as the array of shape[0..n). */
static bool is_view(PtoType *t, const int64_t *shape, unsigned n) {
  int64_t count = 1;
  for (unsigned d = 0; d < n; d++) count *= shape[d];
  return pto_pto_tile_rows(t) * pto_pto_tile_cols(t) == count;
}

static void shape_str(char *buf, size_t cap, const int64_t *shape, unsigned n) {
  size_t at = 0;
  buf[0] = 0;
  for (unsigned d = 0; d < n && at < cap; d++)
    at += (size_t)snprintf(buf + at, cap - at, "%s%lld", d ? "x" : "",
                           (long long)shape[d]);
}

#define WHY(...) (why ? (void)snprintf(why, cap, __VA_ARGS__) : (void)0, 0u)

unsigned pto_pto_layout_explain(const PtoOp *op, int64_t *out_shape,
                                int64_t *src_stride, char *why, size_t cap) {
  PtoPtoOp id = pto_pto_op_id(op);
  bool permute = id == PTO_PTO_TPERMUTE;
  if ((!permute && id != PTO_PTO_TREPEAT) || pto_op_num_operands(op) != 1 ||
      pto_op_num_results(op) != 1)
    return WHY("takes one tile and gives one tile");
  PtoType *a = pto_value_type(pto_op_operand(op, 0));
  PtoType *r = pto_value_type(pto_op_result(op, 0));
  if (!pto_type_is_pto_tile(a) || !pto_type_is_pto_tile(r))
    return WHY("takes one tile and gives one tile");
  const char *second = permute ? "perm" : "repeats";
  int64_t shape[PTO_MAX_RANK], k[PTO_MAX_RANK], in_stride[PTO_MAX_RANK];
  unsigned n = 0, nk = 0;
  PtoAttr *sa = pto_op_attr(op, "shape"), *ka = pto_op_attr(op, second);
  if (!sa || !pto_attr_get_i64_array(sa, shape, PTO_MAX_RANK, &n) || n < 1)
    return WHY("requires 'shape', the tile's view, with 1 to %d dims",
               PTO_MAX_RANK);
  if (!ka || !pto_attr_get_i64_array(ka, k, PTO_MAX_RANK, &nk) || nk != n)
    return WHY("requires '%s' with one entry per dim of 'shape' (%u)", second, n);
  for (unsigned d = 0; d < n; d++)
    if (shape[d] < 1 || shape[d] > INT32_MAX)
      return WHY("dim %u of 'shape' must be positive, got %lld", d,
                 (long long)shape[d]);
  char vs[PTO_MAX_RANK * 24];
  shape_str(vs, sizeof vs, shape, n);
  if (!is_view(a, shape, n))
    return WHY("operand #0 is %lldx%lld, whose elements are not an array of "
               "shape %s",
               (long long)pto_pto_tile_rows(a), (long long)pto_pto_tile_cols(a), vs);
  in_stride[n - 1] = 1;
  for (unsigned d = n - 1; d-- > 0;) in_stride[d] = in_stride[d + 1] * shape[d + 1];
  if (permute) {
    bool seen[PTO_MAX_RANK] = {false};
    for (unsigned d = 0; d < n; d++) {
      if (k[d] < 0 || k[d] >= (int64_t)n || seen[k[d]])
        return WHY("'perm' must order the %u dims of 'shape', each once", n);
      seen[k[d]] = true;
      out_shape[d] = shape[k[d]];
      src_stride[d] = in_stride[k[d]];
    }
  } else {
    for (unsigned d = 0; d < n; d++) {
      if (k[d] < 1 || (k[d] > 1 && shape[d] != 1) || k[d] > INT32_MAX)
        return WHY("repeat %lld of dim %u must be 1, or positive on a dim of "
                   "1 (got a dim of %lld)",
                   (long long)k[d], d, (long long)shape[d]);
      out_shape[d] = shape[d] * k[d];
      src_stride[d] = k[d] > 1 ? 0 : in_stride[d];
    }
  }
  if (!is_view(r, out_shape, n)) {
    shape_str(vs, sizeof vs, out_shape, n);
    return WHY("result #0 must hold the %s array of shape %s, got %lldx%lld",
               permute ? "permuted" : "repeated", vs,
               (long long)pto_pto_tile_rows(r), (long long)pto_pto_tile_cols(r));
  }
  if (pto_pto_tile_elem(r) != pto_pto_tile_elem(a))
    return WHY("result #0 must have the operand's element type");
  return n;
}
#undef WHY

unsigned pto_pto_layout_map(const PtoOp *op, int64_t *out_shape,
                            int64_t *src_stride) {
  return pto_pto_layout_explain(op, out_shape, src_stride, NULL, 0);
}

bool pto_pto_flag(const PtoOp *op, PtoPipe *src, PtoPipe *dst, int *event) {
  PtoPtoOp id = pto_pto_op_id(op);
  if (id != PTO_PTO_SET_FLAG && id != PTO_PTO_WAIT_FLAG) return false;
  PtoAttr *e = pto_op_attr(op, "event");
  *src = attr_pipe(op, "src_pipe");
  *dst = attr_pipe(op, "dst_pipe");
  if (!e || pto_attr_kind(e) != PTO_ATTR_INTEGER || *src == PTO_PIPE_NONE ||
      *dst == PTO_PIPE_NONE)
    return false;
  int64_t v = pto_attr_int_value(e);
  if (v < 0 || v >= PTO_PTO_NUM_EVENTS) return false;
  *event = (int)v;
  return true;
}

PtoOp *pto_pto_enclosing_kernel(PtoOp *op) {
  for (PtoOp *p = pto_op_parent_op(op); p; p = pto_op_parent_op(p))
    if (pto_pto_op_id(p) == PTO_PTO_KERNEL) return p;
  return NULL;
}

/* ------------------------------------------------------------------ */
/* Registration                                                         */
/* ------------------------------------------------------------------ */

static const PtoDialectDef pto_dialect = {
    "pto", pto_pto_op_defs, PTO_PTO_NUM_OPS, pto_pto_parse_type,
    pto_pto_print_type, NULL, NULL, NULL,
    "PTO level: the virtual tile ISA, instructions on tiles in a core's "
    "on-chip buffers, each on a pipe, ordered by flags",
    pto_attr_name_table, PTO_ATTR_NUM_IDS};

void pto_register_pto_dialect(PtoContext *ctx) {
  pto_ctx_register_dialect(ctx, &pto_dialect);
}
