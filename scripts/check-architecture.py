#!/usr/bin/env python3
"""docs/ARCHITECTURE.md still draws the package as Package.swift builds it (issue 62).

Checks that
- the import table (the code block after the line `<!-- imports -->`) names each library and
  executable target with exactly the dependencies Package.swift gives it (`swift package
  dump-package`), and no target that does not exist;
- every folder under Sources/ is named in the document (its path from Sources/, or its name
  followed by `/`, or a target's name);
- the document keeps to its size: at most 250 lines, each at most 100 characters.
Prints what differs and exits 1 if anything does.

    scripts/check-architecture.py
"""
import json
import os
import re
import subprocess
import sys

DOC = 'docs/ARCHITECTURE.md'
MAX_LINES, MAX_WIDTH = 250, 100


def package_targets():
    dump = json.loads(subprocess.run(['swift', 'package', 'dump-package'], check=True,
                                     capture_output=True, text=True).stdout)
    targets = {}
    for target in dump['targets']:
        if target['type'] not in ('regular', 'executable') or \
                (target.get('path') or '').startswith('Tests'):
            continue
        targets[target['name']] = {next(iter(dependency.values()))[0]
                                   for dependency in target['dependencies']}
    return targets


def drawn_imports(text):
    block = re.search(r'<!-- imports -->\s*```[^\n]*\n(.*?)```', text, re.S)
    if not block:
        return None
    drawn, name = {}, None
    for line in block.group(1).splitlines():
        if not line.strip():
            continue
        if line[0].isspace() and name:  # a long list goes on, indented, on the next line
            drawn[name] |= set(line.split())
            continue
        name, _, rest = line.partition(':')
        name = name.strip()
        drawn[name] = set(rest.split())
    return drawn


def main():
    text = open(DOC).read()
    lines = text.split('\n')
    problems = []
    if len(lines) - 1 > MAX_LINES:
        problems.append(f'{DOC}: {len(lines) - 1} lines (at most {MAX_LINES})')
    problems += [f'{DOC}:{number}: {len(line)} characters (at most {MAX_WIDTH})'
                 for number, line in enumerate(lines, 1) if len(line) > MAX_WIDTH]
    drawn = drawn_imports(text)
    if drawn is None:
        problems.append(f'{DOC}: no import table (a code block after `<!-- imports -->`)')
    else:
        built = package_targets()
        for name in sorted(set(built) | set(drawn)):
            if name not in drawn:
                problems.append(f'{DOC}: the import table leaves out the target {name}')
            elif name not in built:
                problems.append(f'{DOC}: the import table names {name}, which Package.swift does not build')
            elif drawn[name] != built[name]:
                missing, extra = sorted(built[name] - drawn[name]), sorted(drawn[name] - built[name])
                problems.append(f'{DOC}: {name} imports {", ".join(missing) or "nothing more"} '
                                f'that the table leaves out; the table adds {", ".join(extra) or "nothing"}')
    for folder, _, _ in os.walk('Sources'):
        relative = os.path.relpath(folder, 'Sources')
        name = os.path.basename(folder)
        if relative == '.' or relative in text or f'{name}/' in text or f'`{name}`' in text:
            continue
        problems.append(f'{DOC}: the folder Sources/{relative} is not named')
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f'{DOC}: the import table matches Package.swift, every folder is named, '
          f'{len(lines) - 1} lines')
    return 0


if __name__ == '__main__':
    sys.exit(main())
