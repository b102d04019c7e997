#!/usr/bin/env python3
"""Checks the launches tpulint finds beyond the textual count (docs/validation/cxx.md).

usage: cxx_macro_launches.py REPO_DIR HARNESS_OUTPUT.tsv

A launch written in a macro's body is reported where the macro is used. For each file that uses
macros whose `#define` (anywhere in the repository) holds a `<<<`, or uses such a macro, it prints
OK when tpulint's launches equal the textual count plus those uses, and XX otherwise. Several
launches from one use share its position: they count once. A macro defined twice (#if/#else)
counts its last definition.
"""
import re
import sys
from pathlib import Path

from cxx_validate import code_of, textual_counts

SOURCE_SUFFIXES = {'.cu', '.cuh', '.h', '.hpp', '.cpp', '.cc', '.c', '.cxx', '.hxx', '.inl'}
DEFINE = re.compile(r'^[ \t]*#[ \t]*define[ \t]+(\w+)\(((?:[^\n]*\\\n)*[^\n]*)', re.M)


def macro_bodies(repo):
    bodies = {}
    for path in sorted(repo.rglob('*')):
        if path.suffix in SOURCE_SUFFIXES and path.is_file():
            for m in DEFINE.finditer(code_of(path.read_text(encoding='utf-8', errors='replace'))):
                bodies[m.group(1)] = m.group(2)
    return bodies


def launching_macros(bodies):
    """Macros whose expansion holds a `<<<`, directly or through other macros."""
    launching = {name for name, body in bodies.items() if '<<<' in body}
    grew = True
    while grew:
        grew = False
        for name, body in bodies.items():
            if name not in launching and any(re.search(r'\b%s\s*\(' % m, body) for m in launching):
                launching.add(name)
                grew = True
    return launching


def without_directives(code):
    kept, in_directive = [], False
    for line in code.split('\n'):
        starts = line.lstrip().startswith('#')
        kept.append('' if starts or in_directive else line)
        in_directive = (starts or in_directive) and line.rstrip().endswith('\\')
    return '\n'.join(kept)


def main():
    repo, harness = Path(sys.argv[1]), sys.argv[2]
    launching = launching_macros(macro_bodies(repo))
    for line in open(harness, encoding='utf-8'):
        cells = line.rstrip('\n').split('\t')
        if len(cells) != 7:
            continue
        text = (repo / cells[0]).read_text(encoding='utf-8', errors='replace')
        code = without_directives(code_of(text))
        uses = {m: n for m in launching if (n := len(re.findall(r'\b%s\s*\(' % m, code)))}
        if not uses:
            continue
        textual, found = textual_counts(text)[1], int(cells[3])
        verdict = 'OK' if found == textual + sum(uses.values()) else 'XX'
        print(f'{verdict} {cells[0]}: found {found}, textual {textual}, macro uses {uses}')


if __name__ == '__main__':
    main()
