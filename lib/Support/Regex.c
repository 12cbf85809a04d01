/* A bounded regular-expression matcher (see Regex.h): the pattern is
 * parsed into a small tree, its compiled size is computed (and refused
 * above PTO_REGEX_MAX_PROGRAM) before any code is emitted, and the search
 * runs all threads in lock step, so no input makes it slow or large. */
#include "Support/Regex.h"

#include "Support/Alloc.h"
#include "Support/Vec.h"

#include <stdint.h>
#include <string.h>

/* ---- the tree ---- */

enum { N_CHAR, N_ANY, N_CLASS, N_BOL, N_EOL, N_CAT, N_ALT, N_REP };

typedef struct Node {
  uint8_t kind;
  uint8_t c;        /* N_CHAR */
  int cls;          /* N_CLASS: index into classes */
  int min, max;     /* N_REP; max < 0: unbounded */
  int child, next;  /* first child, next sibling (-1: none) */
} Node;

typedef struct Class {
  uint32_t bits[8];
} Class;

typedef struct Parser {
  const char *p, *start, *end;
  PTO_VEC(Node) nodes;
  PTO_VEC(Class) classes;
  unsigned depth;
  const char *err;
  size_t err_off;
} Parser;

static int fail(Parser *ps, const char *at, const char *msg) {
  if (!ps->err) {
    ps->err = msg;
    ps->err_off = (size_t)(at - ps->start);
  }
  return -1;
}

static int node(Parser *ps, int kind) {
  Node n = {(uint8_t)kind, 0, 0, 0, 0, -1, -1};
  pto_vec_push(&ps->nodes, n);
  return (int)ps->nodes.len - 1;
}

static void class_set(Class *c, unsigned ch) {
  c->bits[ch >> 5] |= 1u << (ch & 31);
}

static bool class_has(const Class *c, unsigned ch) {
  return c->bits[ch >> 5] >> (ch & 31) & 1;
}

static bool in_named(const char *name, size_t n, unsigned ch) {
#define IS(s) (n == sizeof(s) - 1 && memcmp(name, s, n) == 0)
  bool lower = ch >= 'a' && ch <= 'z', upper = ch >= 'A' && ch <= 'Z';
  bool digit = ch >= '0' && ch <= '9';
  bool space = ch == ' ' || (ch >= '\t' && ch <= '\r');
  bool print = ch >= 0x20 && ch < 0x7f;
  if (IS("alpha")) return lower || upper;
  if (IS("digit")) return digit;
  if (IS("alnum")) return lower || upper || digit;
  if (IS("upper")) return upper;
  if (IS("lower")) return lower;
  if (IS("space")) return space;
  if (IS("blank")) return ch == ' ' || ch == '\t';
  if (IS("punct")) return print && ch != ' ' && !lower && !upper && !digit;
  if (IS("print")) return print;
  if (IS("graph")) return print && ch != ' ';
  if (IS("cntrl")) return ch < 0x20 || ch == 0x7f;
  if (IS("xdigit"))
    return digit || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
  return false;
#undef IS
}

static bool named_exists(const char *name, size_t n) {
  static const char *names[] = {"alpha", "digit", "alnum", "upper",
                                "lower", "space", "blank", "punct",
                                "print", "graph", "cntrl", "xdigit"};
  for (unsigned i = 0; i < PTO_ARRAY_SIZE(names); i++)
    if (strlen(names[i]) == n && memcmp(names[i], name, n) == 0) return true;
  return false;
}

static int new_class(Parser *ps, const Class *c, bool negate) {
  Class k = *c;
  if (negate)
    for (unsigned i = 0; i < 8; i++) k.bits[i] = ~k.bits[i];
  pto_vec_push(&ps->classes, k);
  int n = node(ps, N_CLASS);
  ps->nodes.data[n].cls = (int)ps->classes.len - 1;
  return n;
}

/* `\d \w \s` and their negations, as classes. */
static int escape_class(Parser *ps, char e) {
  Class c;
  memset(&c, 0, sizeof c);
  char lower = (char)(e | 0x20);
  for (unsigned ch = 0; ch < 256; ch++) {
    bool in = lower == 'd'   ? in_named("digit", 5, ch)
              : lower == 's' ? in_named("space", 5, ch)
                             : in_named("alnum", 5, ch) || ch == '_';
    if (in) class_set(&c, ch);
  }
  return new_class(ps, &c, e != lower);
}

static int parse_bracket(Parser *ps) {
  const char *open = ps->p++;
  Class c;
  memset(&c, 0, sizeof c);
  bool negate = ps->p < ps->end && *ps->p == '^';
  if (negate) ps->p++;
  bool first = true;
  for (;;) {
    if (ps->p >= ps->end) return fail(ps, open, "missing ']'");
    unsigned ch = (unsigned char)*ps->p;
    if (ch == ']' && !first) break;
    first = false;
    if (ch == '[' && ps->p + 1 < ps->end && ps->p[1] == ':') {
      const char *name = ps->p + 2, *q = name;
      while (q + 1 < ps->end && !(q[0] == ':' && q[1] == ']')) q++;
      if (q + 1 >= ps->end || !named_exists(name, (size_t)(q - name)))
        return fail(ps, ps->p, "unknown character class");
      for (unsigned k = 0; k < 256; k++)
        if (in_named(name, (size_t)(q - name), k)) class_set(&c, k);
      ps->p = q + 2;
      continue;
    }
    ps->p++;
    unsigned hi = ch;
    if (ps->p + 1 < ps->end && *ps->p == '-' && ps->p[1] != ']') {
      hi = (unsigned char)ps->p[1];
      if (hi < ch) return fail(ps, ps->p - 1, "invalid range in '[...]'");
      ps->p += 2;
    }
    for (unsigned k = ch; k <= hi; k++) class_set(&c, k);
  }
  ps->p++;
  return new_class(ps, &c, negate);
}

static int parse_alt(Parser *ps);

static int parse_atom(Parser *ps) {
  char ch = *ps->p;
  int n;
  switch (ch) {
  case '(': {
    const char *open = ps->p++;
    if (++ps->depth > PTO_REGEX_MAX_DEPTH)
      return fail(ps, open, "groups nested too deeply");
    n = parse_alt(ps);
    ps->depth--;
    if (n < 0) return -1;
    if (ps->p >= ps->end || *ps->p != ')') return fail(ps, open, "missing ')'");
    ps->p++;
    return n;
  }
  case '[':
    return parse_bracket(ps);
  case '.':
    ps->p++;
    return node(ps, N_ANY);
  case '^':
    ps->p++;
    return node(ps, N_BOL);
  case '$':
    ps->p++;
    return node(ps, N_EOL);
  case '*':
  case '+':
  case '?':
    return fail(ps, ps->p, "nothing to repeat");
  case '\\':
    if (ps->p + 1 >= ps->end) return fail(ps, ps->p, "trailing '\\'");
    ch = ps->p[1];
    ps->p += 2;
    if (strchr("dwsDWS", ch)) return escape_class(ps, ch);
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
        (ch >= '0' && ch <= '9'))
      return fail(ps, ps->p - 2, "unsupported escape");
    break;
  default:
    ps->p++;
    break;
  }
  n = node(ps, N_CHAR);
  ps->nodes.data[n].c = (uint8_t)ch;
  return n;
}

static bool parse_count(Parser *ps, int *v) {
  const char *s = ps->p;
  long n = 0;
  while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
    n = n * 10 + (*ps->p++ - '0');
    if (n > PTO_REGEX_MAX_PROGRAM) n = PTO_REGEX_MAX_PROGRAM + 1;
  }
  *v = (int)n;
  return ps->p > s;
}

/* An atom and its quantifiers. */
static int parse_repeat(Parser *ps) {
  int n = parse_atom(ps);
  unsigned wrapped = 0;
  while (n >= 0 && ps->p < ps->end) {
    const char *q = ps->p;
    int min, max;
    if (*q == '*' || *q == '+' || *q == '?') {
      min = *q == '+';
      max = *q == '?' ? 1 : -1;
      ps->p++;
    } else if (*q == '{' && q + 1 < ps->end && q[1] >= '0' && q[1] <= '9') {
      ps->p++;
      parse_count(ps, &min);
      max = min;
      if (ps->p < ps->end && *ps->p == ',') {
        ps->p++;
        if (!parse_count(ps, &max)) max = -1;
      }
      if (ps->p >= ps->end || *ps->p != '}')
        return fail(ps, q, "missing '}' of a repetition count");
      ps->p++;
      if (max >= 0 && max < min)
        return fail(ps, q, "invalid repetition count (the maximum is below "
                           "the minimum)");
    } else {
      break;
    }
    if (++wrapped + ps->depth > PTO_REGEX_MAX_DEPTH)
      return fail(ps, q, "too many nested repetitions");
    int r = node(ps, N_REP);
    Node *rn = &ps->nodes.data[r];
    rn->min = min;
    rn->max = max;
    rn->child = n;
    n = r;
  }
  return n;
}

static int parse_cat(Parser *ps) {
  int cat = node(ps, N_CAT), last = -1;
  while (ps->p < ps->end && *ps->p != '|' && *ps->p != ')') {
    int n = parse_repeat(ps);
    if (n < 0) return -1;
    if (last < 0)
      ps->nodes.data[cat].child = n;
    else
      ps->nodes.data[last].next = n;
    last = n;
  }
  return cat;
}

static int parse_alt(Parser *ps) {
  int first = parse_cat(ps);
  if (first < 0 || ps->p >= ps->end || *ps->p != '|') return first;
  int alt = node(ps, N_ALT), last = first;
  ps->nodes.data[alt].child = first;
  while (ps->p < ps->end && *ps->p == '|') {
    ps->p++;
    int n = parse_cat(ps);
    if (n < 0) return -1;
    ps->nodes.data[last].next = n;
    last = n;
  }
  return alt;
}

/* ---- the program ---- */

enum { I_CHAR, I_ANY, I_CLASS, I_BOL, I_EOL, I_SPLIT, I_JMP, I_MATCH };

typedef struct Inst {
  uint8_t op, c;
  int x, y; /* I_CLASS: x is the class; I_SPLIT: both targets; I_JMP: x */
} Inst;

struct PtoRegex {
  Inst *prog;
  int len;
  Class *classes;
};

/* The number of instructions a node compiles to, saturated past the
 * limit (so that nested counts cannot overflow). */
static long size_of(const Parser *ps, int n) {
  const Node *nd = &ps->nodes.data[n];
  long s = 0;
  switch (nd->kind) {
  case N_CAT:
    for (int c = nd->child; c >= 0; c = ps->nodes.data[c].next)
      s += size_of(ps, c);
    break;
  case N_ALT:
    for (int c = nd->child; c >= 0; c = ps->nodes.data[c].next)
      s += size_of(ps, c) + 2;
    break;
  case N_REP: {
    long a = size_of(ps, nd->child);
    if (nd->max < 0)
      s = nd->min ? (nd->min - 1) * a + a + 1 : a + 2;
    else
      s = nd->min * a + (nd->max - nd->min) * (a + 1);
    break;
  }
  default:
    s = 1;
  }
  return s > PTO_REGEX_MAX_PROGRAM ? PTO_REGEX_MAX_PROGRAM + 1 : s;
}

static int emit(Inst *prog, int pc, uint8_t op, int x, int y) {
  prog[pc] = (Inst){op, 0, x, y};
  return pc + 1;
}

static int gen(const Parser *ps, int n, Inst *prog, int pc) {
  const Node *nd = &ps->nodes.data[n];
  switch (nd->kind) {
  case N_CHAR:
    prog[pc] = (Inst){I_CHAR, nd->c, 0, 0};
    return pc + 1;
  case N_ANY:
    return emit(prog, pc, I_ANY, 0, 0);
  case N_CLASS:
    return emit(prog, pc, I_CLASS, nd->cls, 0);
  case N_BOL:
    return emit(prog, pc, I_BOL, 0, 0);
  case N_EOL:
    return emit(prog, pc, I_EOL, 0, 0);
  case N_CAT:
    for (int c = nd->child; c >= 0; c = ps->nodes.data[c].next)
      pc = gen(ps, c, prog, pc);
    return pc;
  case N_ALT: {
    /* split a, next; a; jmp end; split b, next; b; jmp end; ...; z. The
     * jumps to the end are chained through their targets until known. */
    int chain = -1;
    for (int c = nd->child; c >= 0; c = ps->nodes.data[c].next) {
      if (ps->nodes.data[c].next < 0) {
        pc = gen(ps, c, prog, pc);
        break;
      }
      int split = pc++;
      pc = gen(ps, c, prog, pc);
      prog[pc] = (Inst){I_JMP, 0, chain, 0};
      chain = pc++;
      prog[split] = (Inst){I_SPLIT, 0, split + 1, pc};
    }
    while (chain >= 0) {
      int prev = prog[chain].x;
      prog[chain].x = pc;
      chain = prev;
    }
    return pc;
  }
  default: { /* N_REP */
    /* X{m,}: m-1 copies, then one that loops back (X+ costs one split,
     * so that stacked quantifiers such as `a+++` stay small) */
    if (nd->max < 0 && nd->min) {
      for (int i = 0; i + 1 < nd->min; i++) pc = gen(ps, nd->child, prog, pc);
      int loop = pc;
      pc = gen(ps, nd->child, prog, pc);
      return emit(prog, pc, I_SPLIT, loop, pc + 1);
    }
    for (int i = 0; i < nd->min; i++) pc = gen(ps, nd->child, prog, pc);
    if (nd->max < 0) {
      int split = pc++;
      pc = gen(ps, nd->child, prog, pc);
      pc = emit(prog, pc, I_JMP, split, 0);
      prog[split] = (Inst){I_SPLIT, 0, split + 1, pc};
      return pc;
    }
    /* each optional copy may skip to the end of all of them */
    int chain = -1;
    for (int i = nd->min; i < nd->max; i++) {
      prog[pc] = (Inst){I_SPLIT, 0, pc + 1, chain};
      chain = pc++;
      pc = gen(ps, nd->child, prog, pc);
    }
    while (chain >= 0) {
      int prev = prog[chain].y;
      prog[chain].y = pc;
      chain = prev;
    }
    return pc;
  }
  }
}

PtoRegex *pto_regex_compile(const char *pattern, const char **err,
                            size_t *err_off) {
  Parser ps;
  memset(&ps, 0, sizeof ps);
  ps.p = ps.start = pattern;
  ps.end = pattern + strlen(pattern);
  int root = parse_alt(&ps);
  if (root >= 0 && ps.p < ps.end) root = fail(&ps, ps.p, "unmatched ')'");
  long size = root >= 0 ? size_of(&ps, root) + 1 : 0;
  if (root >= 0 && size > PTO_REGEX_MAX_PROGRAM)
    root = fail(&ps, pattern, "regex too large (its repetitions expand past "
                              "4096 states)");
  PtoRegex *re = NULL;
  if (root >= 0) {
    re = pto_calloc(1, sizeof *re);
    re->prog = pto_calloc((size_t)size, sizeof *re->prog);
    re->len = emit(re->prog, gen(&ps, root, re->prog, 0), I_MATCH, 0, 0);
    re->classes = ps.classes.data;
    ps.classes.data = NULL;
  } else {
    *err = ps.err;
    *err_off = ps.err_off;
  }
  pto_vec_free(&ps.nodes);
  pto_vec_free(&ps.classes);
  return re;
}

void pto_regex_destroy(PtoRegex *re) {
  if (!re) return;
  pto_free(re->prog);
  pto_free(re->classes);
  pto_free(re);
}

/* ---- the search ---- */

typedef struct Vm {
  const PtoRegex *re;
  unsigned *mark; /* generation in which a pc was added */
  int *stack;
  size_t len;
} Vm;

/* Adds pc and everything reachable from it without consuming a char to
 * `list`; true if that reaches the match. */
static bool add(Vm *vm, int *list, int *n, int pc, size_t pos, unsigned g) {
  int sp = 0;
  vm->stack[sp++] = pc;
  while (sp) {
    pc = vm->stack[--sp];
    if (vm->mark[pc] == g) continue;
    vm->mark[pc] = g;
    const Inst *in = &vm->re->prog[pc];
    switch (in->op) {
    case I_JMP:
      vm->stack[sp++] = in->x;
      break;
    case I_SPLIT:
      vm->stack[sp++] = in->y;
      vm->stack[sp++] = in->x;
      break;
    case I_BOL:
      if (pos == 0) vm->stack[sp++] = pc + 1;
      break;
    case I_EOL:
      if (pos == vm->len) vm->stack[sp++] = pc + 1;
      break;
    case I_MATCH:
      return true;
    default:
      list[(*n)++] = pc;
    }
  }
  return false;
}

bool pto_regex_search(const PtoRegex *re, const char *text, size_t len) {
  size_t n = (size_t)re->len;
  Vm vm = {re, pto_calloc(n, sizeof(unsigned)),
           pto_malloc(2 * n * sizeof(int) + sizeof(int)), len};
  int *cur = pto_malloc(n * sizeof(int)), *nxt = pto_malloc(n * sizeof(int));
  int nc = 0;
  unsigned g = 1;
  bool found = add(&vm, cur, &nc, 0, 0, g);
  for (size_t pos = 0; !found && pos < len; pos++) {
    unsigned ch = (unsigned char)text[pos];
    int nn = 0;
    g++;
    for (int i = 0; i < nc && !found; i++) {
      const Inst *in = &re->prog[cur[i]];
      bool ok = in->op == I_ANY || (in->op == I_CHAR && in->c == ch) ||
                (in->op == I_CLASS && class_has(&re->classes[in->x], ch));
      if (ok) found = add(&vm, nxt, &nn, cur[i] + 1, pos + 1, g);
    }
    /* unanchored: a match may also start after this char */
    if (!found) found = add(&vm, nxt, &nn, 0, pos + 1, g);
    int *t = cur;
    cur = nxt;
    nxt = t;
    nc = nn;
  }
  pto_free(vm.mark);
  pto_free(vm.stack);
  pto_free(cur);
  pto_free(nxt);
  return found;
}
