/* The JIT (pto/ExecutionEngine.h): compiling, calling, the cache, errors
 * as values, the host's vector ISA in the generated code. */
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "Test.h"
#include "pto/ExecutionEngine.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char kAdd[] =
    "define i32 @f(i32 %a, i32 %b) {\n"
    "  %s = add i32 %a, %b\n"
    "  ret i32 %s\n"
    "}\n";
static const char kMul[] =
    "define i32 @f(i32 %a, i32 %b) {\n"
    "  %s = mul i32 %a, %b\n"
    "  ret i32 %s\n"
    "}\n";
/* y[i] = a * x[i] + y[i]: a loop the vectoriser must widen. */
static const char kSaxpy[] =
    "define void @saxpy(i64 %n, float %a, float* noalias %x, float* noalias %y) {\n"
    "entry:\n"
    "  %z = icmp eq i64 %n, 0\n"
    "  br i1 %z, label %done, label %loop\n"
    "loop:\n"
    "  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]\n"
    "  %px = getelementptr inbounds float, float* %x, i64 %i\n"
    "  %py = getelementptr inbounds float, float* %y, i64 %i\n"
    "  %vx = load float, float* %px\n"
    "  %vy = load float, float* %py\n"
    "  %m = fmul float %a, %vx\n"
    "  %s = fadd float %m, %vy\n"
    "  store float %s, float* %py\n"
    "  %i1 = add nuw i64 %i, 1\n"
    "  %c = icmp eq i64 %i1, %n\n"
    "  br i1 %c, label %done, label %loop\n"
    "done:\n"
    "  ret void\n"
    "}\n";

/* Without the disk cache: the counts below are of this JIT's compiles. */
static PtoJit *make_jit(void) {
  PtoError err = {{0}};
  PtoJitOptions o = {.opt_level = 2, .disk_cache = PTO_JIT_DISK_CACHE_OFF};
  PtoJit *jit = pto_jit_create(&o, &err);
  if (!jit) fprintf(stderr, "pto_jit_create: %s\n", err.msg);
  return jit;
}

TEST(compile_and_call) {
  PtoJit *jit = make_jit();
  CHECK(jit != NULL);
  if (!jit) return;
  PtoError err = {{0}};
  PtoJitModule *m = pto_jit_compile(jit, kAdd, strlen(kAdd), &err);
  CHECK(m != NULL);
  int32_t (*f)(int32_t, int32_t) = NULL;
  void *p = m ? pto_jit_module_lookup(m, "f", &err) : NULL;
  memcpy(&f, &p, sizeof p);
  CHECK(f != NULL);
  if (f) CHECK(f(40, 2) == 42 && f(-5, 3) == -2);
  CHECK(m && pto_jit_module_compile_seconds(m) > 0);
  pto_jit_destroy(jit);
}

TEST(same_text_compiles_once) {
  PtoJit *jit = make_jit();
  if (!jit) return;
  PtoError err = {{0}};
  PtoJitModule *a = pto_jit_compile(jit, kAdd, strlen(kAdd), &err);
  PtoJitStats s1 = pto_jit_get_stats(jit);
  /* the same bytes from another buffer */
  char copy[sizeof kAdd];
  memcpy(copy, kAdd, sizeof kAdd);
  PtoJitModule *b = pto_jit_compile(jit, copy, strlen(copy), &err);
  PtoJitStats s2 = pto_jit_get_stats(jit);
  CHECK(a != NULL && a == b);
  CHECK(s1.compiled == 1 && s1.cache_hits == 0);
  CHECK(s2.compiled == 1 && s2.cache_hits == 1);
  CHECK(s2.compile_seconds == s1.compile_seconds && s1.compile_seconds > 0);
  /* one byte more is another module */
  PtoJitModule *c = pto_jit_compile(jit, kMul, strlen(kMul), &err);
  CHECK(c != NULL && c != a && pto_jit_get_stats(jit).compiled == 2);
  pto_jit_destroy(jit);
}

TEST(modules_define_the_same_name) {
  PtoJit *jit = make_jit();
  if (!jit) return;
  PtoError err = {{0}};
  PtoJitModule *a = pto_jit_compile(jit, kAdd, strlen(kAdd), &err);
  PtoJitModule *m = pto_jit_compile(jit, kMul, strlen(kMul), &err);
  CHECK(a && m);
  if (!a || !m) {
    pto_jit_destroy(jit);
    return;
  }
  int32_t (*fa)(int32_t, int32_t), (*fm)(int32_t, int32_t);
  void *pa = pto_jit_module_lookup(a, "f", &err);
  void *pm = pto_jit_module_lookup(m, "f", &err);
  CHECK(pa && pm && pa != pm);
  if (pa && pm) {
    memcpy(&fa, &pa, sizeof pa);
    memcpy(&fm, &pm, sizeof pm);
    CHECK(fa(6, 7) == 13 && fm(6, 7) == 42);
  }
  pto_jit_destroy(jit);
}

TEST(errors_are_values) {
  PtoJit *jit = make_jit();
  if (!jit) return;
  PtoError err = {{0}};
  const char *bad = "define i32 @f() {\n  ret i32 %nope\n}\n";
  CHECK(pto_jit_compile(jit, bad, strlen(bad), &err) == NULL);
  CHECK(strstr(err.msg, "invalid LLVM IR") != NULL);
  CHECK(strstr(err.msg, "%nope") != NULL);

  /* parses, but the verifier rejects it: a use its definition does not
   * dominate */
  const char *undominated =
      "define i32 @g(i1 %c) {\n"
      "entry:\n  br i1 %c, label %a, label %b\n"
      "a:\n  %x = add i32 1, 2\n  br label %b\n"
      "b:\n  ret i32 %x\n}\n";
  memset(&err, 0, sizeof err);
  CHECK(pto_jit_compile(jit, undominated, strlen(undominated), &err) == NULL);
  CHECK(strstr(err.msg, "does not verify") != NULL);
  CHECK(strstr(err.msg, "dominate") != NULL);

  /* links against a symbol no one defines */
  const char *unresolved =
      "declare i32 @pto_no_such_function(i32)\n"
      "define i32 @h(i32 %a) {\n"
      "  %r = call i32 @pto_no_such_function(i32 %a)\n  ret i32 %r\n}\n";
  memset(&err, 0, sizeof err);
  CHECK(pto_jit_compile(jit, unresolved, strlen(unresolved), &err) == NULL);
  CHECK(strstr(err.msg, "pto_no_such_function") != NULL);

  /* the JIT is still usable, the failures are not cached */
  PtoJitModule *m = pto_jit_compile(jit, kAdd, strlen(kAdd), &err);
  CHECK(m != NULL);
  CHECK(pto_jit_get_stats(jit).compiled == 1);
  CHECK(pto_jit_compile(jit, bad, strlen(bad), &err) == NULL);
  memset(&err, 0, sizeof err);
  CHECK(m && pto_jit_module_lookup(m, "g", &err) == NULL);
  CHECK(strstr(err.msg, "no function 'g'") != NULL);
  pto_jit_destroy(jit);

  PtoJitOptions o = {.opt_level = 4};
  CHECK(pto_jit_create(&o, &err) == NULL);
  CHECK(strstr(err.msg, "level 4") != NULL);
}

/* ---- the cache on disk ---- */

static PtoJit *make_cached_jit(const char *dir, int level) {
  PtoError err = {{0}};
  PtoJitOptions o = {.opt_level = level, .disk_cache = PTO_JIT_DISK_CACHE_ON,
                     .cache_dir = dir};
  PtoJit *jit = pto_jit_create(&o, &err);
  if (!jit) fprintf(stderr, "pto_jit_create: %s\n", err.msg);
  return jit;
}

/* kAdd through a new JIT on `dir`: whether f(40, 2) == 42, and its stats. */
static bool add_works(const char *dir, int level, PtoJitStats *stats) {
  PtoJit *jit = make_cached_jit(dir, level);
  if (!jit) return false;
  PtoError err = {{0}};
  PtoJitModule *m = pto_jit_compile(jit, kAdd, strlen(kAdd), &err);
  void *p = m ? pto_jit_module_lookup(m, "f", &err) : NULL;
  int32_t (*f)(int32_t, int32_t) = NULL;
  memcpy(&f, &p, sizeof p);
  bool ok = f && f(40, 2) == 42 && f(-5, 3) == -2;
  if (!ok) fprintf(stderr, "kAdd: %s\n", err.msg);
  *stats = pto_jit_get_stats(jit);
  pto_jit_destroy(jit);
  return ok;
}

/* The path of the one entry in dir (the caller frees it), or NULL. */
static char *only_entry(const char *dir) {
  DIR *d = opendir(dir);
  char *found = NULL;
  int n = 0;
  for (struct dirent *de; d && (de = readdir(d));) {
    if (de->d_name[0] == '.') continue;
    n++;
    free(found);
    found = malloc(strlen(dir) + strlen(de->d_name) + 2);
    sprintf(found, "%s/%s", dir, de->d_name);
  }
  if (d) closedir(d);
  if (n != 1) {
    free(found);
    return NULL;
  }
  return found;
}

static long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  char path[4096];
  for (struct dirent *de; d && (de = readdir(d));) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    unlink(path);
  }
  if (d) closedir(d);
  rmdir(dir);
}

TEST(disk_cache_serves_the_next_jit) {
  char root[] = "/tmp/pto-jit-cache-XXXXXX";
  CHECK(mkdtemp(root) != NULL);
  char dir[64];
  snprintf(dir, sizeof dir, "%s/a/b", root); /* created on the first write */
  PtoJitStats s;
  CHECK(add_works(dir, 2, &s));
  CHECK(s.compiled == 1 && s.disk_hits == 0 && s.disk_writes == 1);
  char *entry = only_entry(dir);
  CHECK(entry != NULL);
  /* another JIT, as in another process: loaded, not compiled */
  CHECK(add_works(dir, 2, &s));
  CHECK(s.compiled == 0 && s.disk_hits == 1 && s.disk_writes == 0);
  CHECK(s.compile_seconds > 0);
  /* another optimisation level is another object */
  CHECK(add_works(dir, 1, &s));
  CHECK(s.compiled == 1 && s.disk_hits == 0 && s.disk_writes == 1);
  char sub[80];
  snprintf(sub, sizeof sub, "%s/a", root);
  remove_tree(dir);
  rmdir(sub);
  rmdir(root);
  free(entry);
}

/* A damaged entry (truncated, a byte changed, empty, another file) is a
 * miss: the module is compiled and the entry replaced. */
TEST(disk_cache_ignores_damaged_entries) {
  char dir[] = "/tmp/pto-jit-cache-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  PtoJitStats s;
  CHECK(add_works(dir, 2, &s) && s.disk_writes == 1);
  char *entry = only_entry(dir);
  CHECK(entry != NULL);
  if (!entry) return;
  long size = file_size(entry);
  CHECK(size > 64);
  for (int damage = 0; damage < 4; damage++) {
    FILE *f = fopen(entry, "r+b");
    CHECK(f != NULL);
    if (!f) break;
    if (damage == 0) { /* truncated */
      CHECK(ftruncate(fileno(f), size / 2) == 0);
    } else if (damage == 1) { /* a byte of the object changed */
      fseek(f, size - 17, SEEK_SET);
      int c = fgetc(f);
      fseek(f, size - 17, SEEK_SET);
      fputc(c ^ 0x5a, f);
    } else if (damage == 2) { /* empty */
      CHECK(ftruncate(fileno(f), 0) == 0);
    } else { /* not an entry at all */
      CHECK(ftruncate(fileno(f), 0) == 0);
      for (long i = 0; i < size; i++) fputc('x', f);
    }
    fclose(f);
    CHECK(add_works(dir, 2, &s));
    CHECK(s.compiled == 1 && s.disk_hits == 0 && s.disk_writes == 1);
    CHECK(file_size(entry) == size);
    /* replaced by a good one */
    CHECK(add_works(dir, 2, &s));
    CHECK(s.compiled == 0 && s.disk_hits == 1);
  }
  free(entry);
  remove_tree(dir);
}

TEST(disk_cache_options) {
  PtoError err = {{0}};
  /* a directory that cannot be made: compiles still work */
  char dir[] = "/tmp/pto-jit-cache-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char file[64], under[80];
  snprintf(file, sizeof file, "%s/file", dir);
  snprintf(under, sizeof under, "%s/sub", file);
  FILE *f = fopen(file, "w");
  if (f) fclose(f);
  PtoJitStats s;
  CHECK(add_works(under, 2, &s));
  CHECK(s.compiled == 1 && s.disk_writes == 0);
  unlink(file);
  rmdir(dir);

  /* off, and the environment's choices */
  PtoJitOptions off = {.opt_level = 2, .disk_cache = PTO_JIT_DISK_CACHE_OFF};
  PtoJit *jit = pto_jit_create(&off, &err);
  CHECK(jit && pto_jit_get_cache_dir(jit) == NULL);
  pto_jit_destroy(jit);
  const char *saved = getenv("PTO_JIT_CACHE");
  char *keep = saved ? strdup(saved) : NULL;
  setenv("PTO_JIT_CACHE", "maybe", 1);
  CHECK(pto_jit_create(NULL, &err) == NULL);
  CHECK_STR(err.msg, "PTO_JIT_CACHE=maybe: expected 0 (no JIT cache on disk) or 1");
  setenv("PTO_JIT_CACHE", "1", 1);
  setenv("PTO_CACHE_DIR", "/nonexistent/pto-cache", 1);
  jit = pto_jit_create(NULL, &err);
  CHECK(jit && pto_jit_get_cache_dir(jit) &&
        strcmp(pto_jit_get_cache_dir(jit), "/nonexistent/pto-cache") == 0);
  pto_jit_destroy(jit);
  unsetenv("PTO_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  jit = pto_jit_create(NULL, &err);
  CHECK(jit && pto_jit_get_cache_dir(jit) &&
        strcmp(pto_jit_get_cache_dir(jit), "/xdg/pto/jit") == 0);
  pto_jit_destroy(jit);
  unsetenv("XDG_CACHE_HOME");
  setenv("PTO_JIT_CACHE", "0", 1);
  jit = pto_jit_create(NULL, &err);
  CHECK(jit && pto_jit_get_cache_dir(jit) == NULL);
  pto_jit_destroy(jit);
  if (keep) setenv("PTO_JIT_CACHE", keep, 1);
  else unsetenv("PTO_JIT_CACHE");
  free(keep);

  PtoJitOptions bad = {.opt_level = 2, .disk_cache = (PtoJitDiskCache)7};
  CHECK(pto_jit_create(&bad, &err) == NULL);
  CHECK(strstr(err.msg, "disk cache mode 7") != NULL);
}

/* The body of fatal_error_is_an_error, in a child process: a JIT that
 * hit LLVM's fatal error keeps what LLVM had allocated (a leak the leak
 * checker would report at exit; the child leaves by _exit). */
static int fatal_error_child(void) {
  PtoJit *jit = make_jit();
  if (!jit) return 10;
  PtoError err = {{0}};
  /* valid IR for x86's code generator to fail on: another target's
   * intrinsic, which instruction selection reports through
   * report_fatal_error ("Cannot select") */
  const char *alien =
      "declare i32 @llvm.aarch64.crc32b(i32, i32)\n"
      "define i32 @f(i32 %a, i32 %b) {\n"
      "  %r = call i32 @llvm.aarch64.crc32b(i32 %a, i32 %b)\n  ret i32 %r\n}\n";
  if (pto_jit_compile(jit, alien, strlen(alien), &err)) return 11;
  if (!strstr(err.msg, "LLVM failed: Cannot select: intrinsic %llvm.aarch64.crc32b")) return 12;
  if (!strstr(err.msg, "create another")) return 13;
  /* the broken JIT refuses further work; a new one works */
  memset(&err, 0, sizeof err);
  if (pto_jit_compile(jit, kAdd, strlen(kAdd), &err)) return 14;
  if (!strstr(err.msg, "cannot be used after LLVM failed (Cannot select")) return 15;
  pto_jit_destroy(jit);
  PtoJit *again = make_jit();
  PtoJitModule *m = again ? pto_jit_compile(again, kAdd, strlen(kAdd), &err) : NULL;
  void *p = m ? pto_jit_module_lookup(m, "f", &err) : NULL;
  int32_t (*f)(int32_t, int32_t) = NULL;
  memcpy(&f, &p, sizeof p);
  if (!f || f(40, 2) != 42) return 16;
  pto_jit_destroy(again);
  return 0;
}

/* An LLVM fatal error inside the JIT is an error value, not the end of
 * the process. Deterministic on x86-64 hosts only, where the intrinsic is
 * foreign. */
TEST(fatal_error_is_an_error) {
  PtoJit *probe = make_jit();
  if (!probe) return;
  bool x86 = strncmp(pto_jit_get_triple(probe), "x86_64", 6) == 0;
  pto_jit_destroy(probe);
  if (!x86) return;
  fflush(NULL);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) _exit(fatal_error_child());
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  if (WIFEXITED(status) && WEXITSTATUS(status))
    fprintf(stderr, "fatal_error_child failed at step %d\n", WEXITSTATUS(status));
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(calls_the_process) {
  PtoJit *jit = make_jit();
  if (!jit) return;
  PtoError err = {{0}};
  const char *ll =
      "declare i64 @strlen(i8*)\n"
      "define i64 @len(i8* %s) {\n"
      "  %n = call i64 @strlen(i8* %s)\n  ret i64 %n\n}\n";
  PtoJitModule *m = pto_jit_compile(jit, ll, strlen(ll), &err);
  CHECK(m != NULL);
  void *p = m ? pto_jit_module_lookup(m, "len", &err) : NULL;
  uint64_t (*len)(const char *);
  if (p) {
    memcpy(&len, &p, sizeof p);
    CHECK(len("tile") == 4);
  }
  pto_jit_destroy(jit);
}

TEST(vectorises_for_the_host) {
  PtoJit *jit = make_jit();
  if (!jit) return;
  const char *isa = pto_jit_get_vector_isa(jit);
  CHECK(pto_jit_get_cpu_name(jit)[0] != 0);
  CHECK(strstr(pto_jit_get_triple(jit), "-") != NULL);
  PtoError err = {{0}};
  char *asm_text = NULL;
  CHECK(pto_succeeded(pto_jit_emit_assembly(jit, kSaxpy, strlen(kSaxpy),
                                            &asm_text, &err)));
  if (asm_text && strcmp(isa, "avx512f") == 0)
    CHECK(strstr(asm_text, "zmm") || strstr(asm_text, "ymm"));
  else if (asm_text && strcmp(isa, "avx2") == 0)
    CHECK(strstr(asm_text, "vmulps") && strstr(asm_text, "ymm"));
  else if (asm_text)
    printf("host vector ISA %s: no wide-vector check\n", isa);
  pto_free(asm_text);

  char *ir = NULL;
  CHECK(pto_succeeded(pto_jit_emit_optimized_ir(jit, kSaxpy, strlen(kSaxpy),
                                                &ir, &err)));
  CHECK(ir && strstr(ir, " x float>") != NULL); /* widened at some width */
  pto_free(ir);

  /* and the vector code computes saxpy */
  PtoJitModule *m = pto_jit_compile(jit, kSaxpy, strlen(kSaxpy), &err);
  void *p = m ? pto_jit_module_lookup(m, "saxpy", &err) : NULL;
  CHECK(p != NULL);
  if (p) {
    void (*saxpy)(int64_t, float, const float *, float *);
    memcpy(&saxpy, &p, sizeof p);
    float x[37], y[37];
    for (int i = 0; i < 37; i++) x[i] = (float)i, y[i] = 1.0f;
    saxpy(37, 2.0f, x, y);
    int bad = 0;
    for (int i = 0; i < 37; i++) bad += y[i] != 2.0f * (float)i + 1.0f;
    CHECK(bad == 0);
  }
  pto_jit_destroy(jit);
}

RUN_TESTS(T(compile_and_call), T(same_text_compiles_once),
          T(modules_define_the_same_name), T(errors_are_values),
          T(calls_the_process), T(vectorises_for_the_host),
          T(fatal_error_is_an_error), T(disk_cache_serves_the_next_jit),
          T(disk_cache_ignores_damaged_entries), T(disk_cache_options))
