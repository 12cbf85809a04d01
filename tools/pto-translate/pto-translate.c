/* pto-translate: PTO kernels to LLVM IR (docs/tools/pto-translate.md). */
#include "pto/Dialects.h"
#include "pto/TranslateMain.h"

int main(int argc, char **argv) {
  return pto_translate_main(argc, argv, "pto-translate",
                            pto_register_all_dialects);
}
