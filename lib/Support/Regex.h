/* A regular-expression matcher with guaranteed limits, for patterns that
 * come from input files (`expected-error-re`): compiling is linear in the
 * pattern and bounded in size, matching is a Pike VM (no backtracking),
 * O(program size x text length). POSIX ERE syntax: literals, `.`, bracket
 * expressions (ranges, negation, [:alpha:] and friends), `* + ?`, `{m}`,
 * `{m,}`, `{m,n}`, groups, `|`, `^`, `$`, `\` escapes of punctuation and
 * `\d \w \s \D \W \S`. A search matches anywhere in the text, as regexec. */
#ifndef PTO_SUPPORT_REGEX_H
#define PTO_SUPPORT_REGEX_H

#include <stdbool.h>
#include <stddef.h>

/* The largest compiled program accepted (counted repetition multiplies
 * its operand), and the deepest nesting of groups. */
enum { PTO_REGEX_MAX_PROGRAM = 4096, PTO_REGEX_MAX_DEPTH = 64 };

typedef struct PtoRegex PtoRegex;

/* Compiles `pattern`; NULL on error with *err set to a static message and
 * *err_off to the offset in the pattern it refers to. */
PtoRegex *pto_regex_compile(const char *pattern, const char **err,
                            size_t *err_off);
/* Whether the regex matches somewhere in text[0, len). */
bool pto_regex_search(const PtoRegex *re, const char *text, size_t len);
void pto_regex_destroy(PtoRegex *re);

#endif
