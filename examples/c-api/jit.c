/* JIT-compiles a function written in LLVM IR and calls it: the smallest
 * use of pto/ExecutionEngine.h (docs/jit.md). */
#include <pto/ExecutionEngine.h>
#include <stdio.h>
#include <string.h>

static const char kSaxpy[] =
    "define void @saxpy(i64 %n, float %a, float* %x, float* %y) {\n"
    "entry:\n"
    "  br label %loop\n"
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

int main(void) {
  PtoError err;
  PtoJit *jit = pto_jit_create(NULL, &err); /* default<O2>, host CPU */
  if (!jit) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  printf("host %s, vectors: %s\n", pto_jit_get_cpu_name(jit),
         pto_jit_get_vector_isa(jit));

  PtoJitModule *m = pto_jit_compile(jit, kSaxpy, strlen(kSaxpy), &err);
  void *p = m ? pto_jit_module_lookup(m, "saxpy", &err) : NULL;
  if (!p) {
    fprintf(stderr, "%s\n", err.msg);
    pto_jit_destroy(jit);
    return 1;
  }
  void (*saxpy)(long, float, const float *, float *);
  memcpy(&saxpy, &p, sizeof p); /* object to function pointer, portably */
  float x[100], y[100];
  for (int i = 0; i < 100; i++) x[i] = (float)i, y[i] = 1.0f;
  saxpy(100, 2.0f, x, y);
  printf("y[99] = %g\n", y[99]);

  /* the same text again: answered from the cache; the next process
   * loads the object this one left on disk instead of compiling it */
  pto_jit_compile(jit, kSaxpy, strlen(kSaxpy), &err);
  PtoJitStats s = pto_jit_get_stats(jit);
  printf("compiled %llu module(s), %llu loaded from disk, %llu cache hit(s), "
         "%.1f ms\n",
         (unsigned long long)s.compiled, (unsigned long long)s.disk_hits,
         (unsigned long long)s.cache_hits, s.compile_seconds * 1e3);

  /* errors are values, with LLVM's message */
  const char *bad = "define i32 @f() {\n  ret i32 %nope\n}\n";
  if (!pto_jit_compile(jit, bad, strlen(bad), &err))
    printf("error: %s\n", err.msg);
  pto_jit_destroy(jit);
  return 0;
}
