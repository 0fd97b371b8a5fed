#!/usr/bin/env python3
"""The shape of Sources/ (issue 62): no function over 60 lines, no file over 400.

A function is counted from the line of its signature (`func`, `init`, `deinit`, `subscript` in
Swift; a definition starting at column 0 in C) to the line of its closing brace, closures and
nested functions included in it. Files that are generated tables, not code, are left aside
(GENERATED, each with its reason). Prints every function and file over its limit and exits 1
if there is one, so `make test` stops on a function that grew past what a reader can hold.

    scripts/check-shape.py [folder]     (default: Sources)
"""
import os
import re
import sys

MAX_FUNCTION = 60
MAX_FILE = 400
# Generated data, not code; nothing is left aside today.
GENERATED = {}

SWIFT_DECL = re.compile(
    r'^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*'
    r'(?:(?:public|private|fileprivate|internal|package|open|static|class|final|override|mutating|'
    r'nonmutating|nonisolated|convenience|required|dynamic|consuming|borrowing)(?:\([^)]*\))?\s+)*'
    r'(func\s+[^\s(<]+|init[?!]?\s*[(<]|deinit\b|subscript\s*[(<])')
C_DECL = re.compile(r'^[A-Za-z_][\w\s\*]*\b\w+\s*\([^;]*$')
STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def braces(line):
    """The line's opening and closing braces outside string literals and line comments."""
    code = STRING.sub('""', line).split('//')[0]
    return code.count('{'), code.count('}')


def function_end(lines, start):
    """The index of the line that closes the function declared at `start`, or None for a
    declaration without a body (a protocol requirement, a C prototype)."""
    depth, opened = 0, False
    for index in range(start, len(lines)):
        opening, closing = braces(lines[index])
        if not opened and opening == 0 and (';' in lines[index] or index > start + 20):
            return None
        depth += opening - closing
        opened = opened or opening > 0
        if opened and depth <= 0:
            return index
    return None


def long_functions(path, lines):
    swift = path.endswith('.swift')
    found = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if swift:
            declared = SWIFT_DECL.match(line)
        else:
            declared = not line.startswith((' ', '\t', '#', '/', '*', '}', 'static const', 'typedef')) \
                and C_DECL.match(line)
        end = function_end(lines, index) if declared else None
        if end is not None:
            length = end - index + 1
            if length > MAX_FUNCTION:
                found.append((length, index + 1, line.strip()[:72]))
            if not swift:
                index = end
        index += 1
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else 'Sources'
    problems = []
    for folder, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            path = os.path.join(folder, name)
            if not name.endswith(('.swift', '.c')) or path in GENERATED:
                continue
            with open(path, errors='replace') as file:
                lines = file.read().split('\n')
            if len(lines) - 1 > MAX_FILE:
                problems.append(f'{path}: {len(lines) - 1} lines (at most {MAX_FILE} a file)')
            for length, line, signature in long_functions(path, lines):
                problems.append(f'{path}:{line}: {length} lines (at most {MAX_FUNCTION} a function): '
                                f'{signature}')
    for problem in problems:
        print(problem)
    if problems:
        print(f'{len(problems)} over the limits: split them into named steps (docs/ARCHITECTURE.md)')
        return 1
    print(f'{root}: every function at most {MAX_FUNCTION} lines, every file at most {MAX_FILE}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
