#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The size of the code, checked: short functions, small program files.

Usage: scripts/check_size.py [ROOT]   (default: the repository this is in)

Every function of the project's C files (the programs and their parts at
the top, lib/, module/ and the tests' C files under tests/) is at most
MAX_FUNC_LINES lines, counted from the first line of its definition (the
return type) to its closing brace; every program file (a C file at the
top: a program's or tool's main file, its parts and headers) is at most
MAX_FILE_LINES lines. docs/design.md says why: a program reads as the
experiment, its steps named.

One line per offender on stdout, exit 1:
  FILE:LINE FUNC is N lines (at most 80)
  FILE is N lines (at most 550)
silent, exit 0, when every function and program file keeps its size.
"""

import os
import re
import sys

MAX_FUNC_LINES = 80
MAX_FILE_LINES = 550

# Where the project's C files are, besides the top; build outputs and
# fetched kernels (build/, vm/cache/) are not the project's.
C_DIRS = ["lib", "module", "tests"]

# A C token that matters to the shape: comments, string and character
# literals are skipped whole (a brace in them is no brace), as are
# preprocessor lines with their continuations.
TOKEN = re.compile(r"""
      (?P<comment>/\*.*?\*/|//[^\n]*)
    | (?P<literal>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
    | (?P<directive>^[ \t]*\#(?:\\\n|[^\n])*)
    | (?P<word>[A-Za-z_]\w*)
    | (?P<punct>[{}()\[\];=,])
    | (?P<space>[ \t\r\f\v]+|\n)
    | (?P<other>.)
""", re.VERBOSE | re.DOTALL | re.MULTILINE)


def tokens(text):
    """(kind, text, line) of each token that is code, not comment or space."""
    line = 1
    for m in TOKEN.finditer(text):
        kind = m.lastgroup
        if kind not in ("comment", "space", "directive"):
            yield kind, m.group(), line
        line += m.group().count("\n")


def function_name(toks):
    """The name a definition's head defines: the word before the
    parenthesis that matches the head's last ')', or None when the head
    does not end in ')' (a struct, an initializer)."""
    i = len(toks) - 1
    while i >= 0 and toks[i][1] == ")":
        depth = 0
        while i >= 0:
            if toks[i][1] == ")":
                depth += 1
            elif toks[i][1] == "(":
                depth -= 1
                if depth == 0:
                    break
            i -= 1
        i -= 1
        # An attribute after the parameters: look before it.
        if i >= 0 and toks[i][0] == "word" and not toks[i][1].startswith("__attribute"):
            return toks[i][1]
        i -= 1
    return None


def functions(text):
    """(name, first line, last line) of each function defined in text."""
    head = []	# the tokens since the last ';' or '}' at file level
    depth = 0
    name = start = None
    for kind, tok, line in tokens(text):
        if depth == 0:
            if tok == "{":
                name = function_name(head)
                start = head[0][2] if head else line
                head = []
                depth = 1
            elif tok == ";":
                head = []
            else:
                head.append((kind, tok, line))
            continue
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
            if depth == 0 and name is not None:
                yield name, start, line
            if depth == 0:
                name = None


def c_files(root):
    top = sorted(n for n in os.listdir(root)
                 if n.endswith((".c", ".h")) and os.path.isfile(os.path.join(root, n)))
    nested = []
    for d in C_DIRS:
        for dirpath, dirs, names in os.walk(os.path.join(root, d)):
            dirs.sort()
            nested += [os.path.relpath(os.path.join(dirpath, n), root)
                       for n in sorted(names) if n.endswith((".c", ".h"))]
    return top, nested


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not os.path.isfile(os.path.join(root, "Makefile")):
        print(f"check_size: {root}: no Makefile: not an isolbench tree", file=sys.stderr)
        return 1
    top, nested = c_files(root)
    errors = []
    for path in top + nested:
        with open(os.path.join(root, path), errors="replace") as f:
            text = f.read()
        lines = text.count("\n")
        if path in top and lines > MAX_FILE_LINES:
            errors.append(f"{path} is {lines} lines (at most {MAX_FILE_LINES})")
        for name, first, last in functions(text):
            n = last - first + 1
            if n > MAX_FUNC_LINES:
                errors.append(f"{path}:{first} {name} is {n} lines (at most {MAX_FUNC_LINES})")
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
