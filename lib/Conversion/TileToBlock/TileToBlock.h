/* Private interface of cv-partition (lib/Conversion/TileToBlock/): the
 * node graph it cuts each block of a Tile-level function into, and the two
 * halves of the pass, Partition.c (grouping the tile ops into subgraphs)
 * and Kernels.c (turning each subgraph into a block.kernel and a launch).
 *
 * A node is either a host op (an op that stays in the host function:
 * arith, scf, func, tile.dim, tile.load_scalar, tile.empty,
 * tile.tensor_reshape, tile.tensor_bitcast) or a group
 * of tile ops that becomes one kernel. Edges say "must run before": SSA
 * def-use, and for GM tensors, which the Block level updates in place,
 * writer -> later writer (WAW) and reader -> next writer (WAR). Groups
 * only ever merge along producer -> consumer tile edges of one core type,
 * when the union stays acyclic and fits the core's buffers. A WAR edge
 * inside a group (a read of a version after the group's update of it in
 * program order) is kept by the kernel's order of its ops (Kernels.c). */
#ifndef PTO_CONVERSION_TILETOBLOCK_H
#define PTO_CONVERSION_TILETOBLOCK_H

#include "pto/Dialect/Block.h"
#include "pto/Dialect/Tile.h"
#include "pto/Dialects.h"
#include "pto/Pass.h"
#include "pto/Platform.h"

#include "Support/Hash.h"
#include "Support/Vec.h"

typedef PTO_VEC(uint32_t) U32Vec;
typedef PTO_VEC(PtoOp *) OpVec;

enum { NODE_HOST, NODE_GROUP };

typedef struct Node {
  uint32_t parent; /* union-find: the group a merged one now belongs to */
  uint8_t kind;
  uint8_t core;    /* PtoBlockCore of a group */
  uint32_t pos;    /* smallest program position of its ops */
  uint32_t mark, seen; /* stamps of the acyclicity search */
  uint32_t indeg;
  PtoBlock *block;
  PtoOp *op;       /* the host op; a group's first op */
  U32Vec succ;     /* may hold merged (stale) ids and duplicates */
  OpVec ops;       /* a group's tile ops */
  /* A group's buffers, per space: bytes live after its last op (values
   * some op not yet visited uses) and the peak so far. */
  uint64_t cur[PTO_BUF_NUM_SPACES], peak[PTO_BUF_NUM_SPACES];
} Node;

/* What the capacity model needs of a type, cached by type pointer. */
typedef struct TypeInfo {
  const PtoType *type;
  bool tile;
  uint64_t bytes; /* unaligned */
} TypeInfo;
enum { TYPE_CACHE = 256, SLOT_CACHE_BITS = 14, ARRAY_CACHE_BITS = 12, SMALL_I64 = 1024 };

/* Per op of the function, by its slot (see part_op_slot): dense arrays
 * instead of maps keyed by pointers, which dominated the pass's time. */
typedef struct OpInfo {
  uint32_t pos;   /* program position, 0 for an op made after numbering */
  uint32_t node;  /* node id + 1 (tile ops of groups, host ops), or 0 */
  uint32_t vbase; /* slot of its result #0 in Partition.vals */
  uint32_t stamp; /* capacity scan: in the scanned set when == stamp */
} OpInfo;

/* Per value (op results, then block arguments as they are met). */
typedef struct ValInfo {
  uint32_t stamp, payload; /* capacity scan scratch, valid when stamp matches */
  uint32_t remaining;      /* uses not yet visited + 1; 0: not counted yet */
  uint32_t loaded;         /* node id + 1 of the vector group last loading it */
} ValInfo;

typedef struct Partition {
  PtoContext *ctx;
  PtoPass *pass;
  PtoPlatform plat;
  uint64_t cap[PTO_BUF_NUM_SPACES]; /* bytes per core, per space */
  bool merge, double_buffer, provenance, dedup;
  int64_t max_ops;
  PTO_VEC(Node) nodes;
  PtoPtrMap slot_of;  /* op -> its slot in `opinfo` + 1; a block argument
                         or a result of an op made after numbering -> its
                         slot in `valinfo` + 1 */
  PTO_VEC(OpInfo) opinfo;
  PTO_VEC(ValInfo) valinfo;
  /* Recently looked-up ops and their slots: most lookups are of ops near
   * the one being placed, and the map itself misses the CPU caches. */
  struct SlotCache { const PtoOp *op; uint32_t slot; } *slot_cache;
  PtoPtrMap root;     /* tensor value -> the GM tensor it is a version of */
  PtoPtrMap readers;  /* tensor version -> U32Vec* of nodes reading it */
  PtoPtrMap writer;   /* tensor version -> node id + 1 updating it */
  PtoPtrMap origin;   /* op -> number + 1 in the input (provenance) */
  TypeInfo types[TYPE_CACHE];
  /* Buffer types of the kernels, by tile type and space: building one
   * interns its names and space each time. */
  struct { const PtoType *tile; PtoBufSpace space; PtoType *buf; } bufs[TYPE_CACHE];
  uint32_t stamp;
  U32Vec stack;
  /* scan_peak's per-op result slots and per-operand value slots. */
  U32Vec scan_vbase, scan_slots;
  /* Scratch of part_sort_ops and the capacity scans. */
  PTO_VEC(uint64_t) keys;
  OpVec sorted, all;
  /* PyPTO's sg_set_scope: the scope of `scope_block` (-1: none), and per
   * block and core type (key: block | core) the group the scope's ops
   * went to (node id + 1). */
  PtoBlock *scope_block;
  int64_t scope;
  PtoPtrMap scope_groups;
  /* Kernel emission. */
  PtoOp *module;
  PtoOp *func;
  PtoSymbolTable *symbols;
  PtoPtrMap ws;       /* tile value crossing nodes -> its GM workspace */
  PtoPtrMap consts;   /* index constant + 1 -> host arith.constant value */
  PtoBuilder host;    /* where launches go */
  unsigned nkernels;
  /* With `dedup`: the kernels made so far, chained by structural hash
   * (heads: hash -> index + 1 in `made`; made_next: the next index + 1). */
  PtoPtrMap heads;
  OpVec made;
  U32Vec made_next;
  bool failed;
  /* The i64 and i64-array attributes of launch regions and offsets,
   * by value: uniquing them in the context hashes every element. */
  struct I64ArrayCache { uint32_t n; int64_t v[PTO_MAX_RANK]; PtoAttr *a; } *arrays;
  PtoAttr *small_i64[SMALL_I64];
  /* Attribute names, interned once. */
  PtoIdent *id_operand, *id_offsets, *id_sizes, *id_offset_operands,
      *id_static_offsets, *id_callee, *id_label, *id_reads, *id_writes;
} Partition;

/* ---- Partition.c ---- */

/* Whether a tile op writes into its tensor operand (an assemble or a
 * scatter); PTO_TILE_NONE (not a tile op) writes none. */
static inline bool part_writes_tensor(PtoTileOp id) {
  return id == PTO_TILE_ASSEMBLE ||
         (id != PTO_TILE_NONE && pto_tile_kind(id) == PTO_TILE_KIND_SCATTER);
}

static inline uint32_t node_find(Partition *p, uint32_t n) {
  while (p->nodes.data[n].parent != n) {
    uint32_t g = p->nodes.data[p->nodes.data[n].parent].parent;
    p->nodes.data[n].parent = g;
    n = g;
  }
  return n;
}

/* Numbers the ops of `func` in program order (their positions) and gives
 * each op and result a slot; done once per function. */
void part_number_ops(Partition *p, PtoOp *func);
/* The slot of `op` in p->opinfo; an op made after numbering gets one. */
uint32_t part_op_slot(Partition *p, PtoOp *op);
/* What is known of `op`; valid until the next op or value gets a slot. */
static inline OpInfo *part_op_info(Partition *p, PtoOp *op) {
  uint32_t slot = part_op_slot(p, op);
  return &p->opinfo.data[slot];
}
/* The node (group representative) an op belongs to, or UINT32_MAX. */
uint32_t part_node_of_op(Partition *p, PtoOp *op);
/* The GM tensor a tensor value is a version of (assemble and scatter
 * results, loop-carried tensors and loop results are versions of their
 * destination / init); the value itself when it is none of those. */
PtoValue *part_root(Partition *p, PtoValue *v);
/* Tile values recomputed in every kernel that uses them instead of being
 * passed through GM: views (a load), full, and reshapes of those. */
bool part_is_remat(PtoOp *def);
/* Puts `ops` in program order (stable): one pass when they are, linear
 * in the length for a few sorted runs (a group's ops, or several groups'
 * one after the other). */
void part_sort_ops(Partition *p, PtoOp **ops, uint32_t n);
/* Bytes a tile of type `t` takes in `space`, aligned. */
uint64_t part_tile_bytes(Partition *p, PtoType *t, PtoBufSpace space);
/* Copies each tensor version that more than one op updates (or that an
 * op of a nested block updates, other than a branch's update of what its
 * scf.if carries, or that an op reads along with what the update made)
 * before the extra updates; a tensor a loop body or
 * branch makes and yields where a GM tensor is carried becomes (or is
 * copied into) that tensor. */
void part_split_forks(Partition *p, PtoOp *func);
/* Cuts the ops of `b` (and, first, of the blocks nested in its host ops)
 * into host ops and groups, then emits each group as a kernel. */
PtoResult part_block(Partition *p, PtoBlock *b);

/* ---- Kernels.c ---- */

/* Orders the nodes of `b` (`ids`, group representatives and host ops)
 * topologically, moves the host ops into that order and puts a launch of
 * a new kernel at the place of each group. */
PtoResult part_emit_block(Partition *p, PtoBlock *b, const U32Vec *ids);
/* pto_attr_i64 and pto_attr_i64_array through p's caches. */
PtoAttr *part_i64(Partition *p, int64_t v);
PtoAttr *part_i64_array(Partition *p, const int64_t *v, unsigned n);
/* Replaces every tensor version by its root, tile.empty by
 * block.workspace, and erases the tile ops now in kernels. */
void part_finish_func(Partition *p, PtoOp *func);

#endif
