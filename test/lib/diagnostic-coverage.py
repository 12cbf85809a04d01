#!/usr/bin/env python3
"""Checks that every diagnostic message of the IR core has a test.

usage: diagnostic-coverage.py SOURCE_DIR TEST_DIR

Collects the format strings passed to the diagnostic functions in
SOURCE_DIR/*.c (pto_parser_error[_at], pto_emit_error/warning/remark,
pto_op_emit_error, pto_op_diag, pto_diag_note, pto_diag_printf, the
lexer's error_tok, the --verify-diagnostics reports) and looks for each,
with its conversions (%s, %u, ...) matching any text, in the test files
under TEST_DIR. Lists the messages without a test and exits 1 if any.
"""
import os
import re
import sys

CALLS = re.compile(r"\b(pto_parser_error_at|pto_parser_error|pto_emit_error|"
                   r"pto_emit_warning|pto_emit_remark|pto_op_emit_error|"
                   r"pto_op_diag|pto_diag_note|pto_diag_printf|error_tok|"
                   r"diag_at|trait_error|lit_error)\s*\(")
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
CONVERSION = re.compile(r"%(?:%|[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?"
                        r"(?:hh|h|ll|l|z|j|t)?[diouxXcsp])")
# Pieces that are not messages on their own.
IGNORED = {"%s", "", "'%s' op ", "'", "' and '", "%s, but got '"}
# Helpers that append to the message they are given.
SUFFIX = {"trait_error": ", but got '%s' and '%s'"}


def call_args(text, start):
    """The text of the argument list of the call whose '(' is at start."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == '"':
            m = STRING.match(text, i)
            i = m.end()
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
        i += 1
    return text[start + 1:]


def messages(args):
    """Groups of adjacent string literals in an argument list."""
    out, cur, last_end = [], None, None
    for m in STRING.finditer(args):
        between = args[last_end:m.start()] if last_end is not None else None
        if cur is not None and between is not None and between.strip() == "":
            cur += m.group(1)
        else:
            if cur is not None:
                out.append(cur)
            cur = m.group(1)
        last_end = m.end()
    if cur is not None:
        out.append(cur)
    return out


def unescape(s):
    return (s.replace('\\"', '"').replace("\\n", "\n").replace("\\t", "\t")
            .replace("\\\\", "\\"))


def to_regex(fmt):
    parts, pos = [], 0
    for m in CONVERSION.finditer(fmt):
        parts.append(re.escape(fmt[pos:m.start()]))
        parts.append("%" if m.group(0) == "%%" else ".+?")
        pos = m.end()
    parts.append(re.escape(fmt[pos:]))
    return "".join(parts)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: diagnostic-coverage.py SOURCE_DIR TEST_DIR")
    src_dir, test_dir = sys.argv[1:]
    found = {}
    for name in sorted(os.listdir(src_dir)):
        if not name.endswith(".c"):
            continue
        with open(os.path.join(src_dir, name), encoding="utf-8") as f:
            text = f.read()
        for m in CALLS.finditer(text):
            for msg in messages(call_args(text, m.end() - 1)):
                msg = unescape(msg)
                if msg not in IGNORED:
                    msg += SUFFIX.get(m.group(1), "")
                    found.setdefault(msg, f"{name}")
    tests = []
    for dirpath, _, files in os.walk(test_dir):
        for name in files:
            if name.endswith((".pto", ".mlir", ".test", ".c")):
                with open(os.path.join(dirpath, name), encoding="utf-8",
                          errors="replace") as f:
                    text = f.read()
                if name.endswith(".c"):
                    # C tests split long expected messages over literals
                    text = re.sub(r'"\s*\n\s*"', "", text)
                tests.append(text)
    corpus = "\n".join(tests)
    # The whole message, not a prefix of a longer one: in a test it ends an
    # expectation ("}}"), a C string ('"') or a line.
    missing = [(msg, where) for msg, where in sorted(found.items())
               if not re.search(to_regex(msg) + r'(?=\}\}|"|$)', corpus,
                                re.MULTILINE)]
    for msg, where in missing:
        print(f"no test for: {msg!r} ({where})")
    print(f"diagnostic-coverage: {len(found)} messages, {len(missing)} without "
          f"a test")
    sys.exit(1 if missing or not found else 0)


if __name__ == "__main__":
    main()
