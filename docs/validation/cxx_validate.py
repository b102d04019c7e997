#!/usr/bin/env python3
"""Summarizes the C/C++/CUDA validation harness against a textual count (docs/validation/cxx.md).

usage: cxx_validate.py REPO_DIR HARNESS_OUTPUT.tsv

The textual count, per file, in code with comments and string literals (raw ones too) removed:
- kernels: each `__global__` outside a preprocessor line whose statement reaches a `{` before a `;`
  (a definition, not a declaration);
- launches: each `<<<` followed, after its matching `>>>`, by `(`;
neither in a branch that the file itself switches off: `#if 0`, or `#if M` where the file has
`#define M 0` (a build option off by default). Other conditions are not evaluated.
Kernels compiled at run time count too: each `__global__` inside a string literal (raw or not) of
such code whose source text reaches a `{` before a `;` (the file's text from there: adjacent
literals continue the source).
"""
import re
import statistics
import sys
from pathlib import Path

# Raw string literals first (`R"code(__global__ void k() {})code"`: source code kept as data, such as
# kernels compiled at run time with NVRTC), then comments, strings and character literals.
COMMENT_OR_STRING = re.compile(r'\b(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(.*?\)\1"|'
                               r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def code_of(text):
    # Keep newlines so that line-based rules still work.
    return COMMENT_OR_STRING.sub(lambda m: '\n' * m.group(0).count('\n') if not m.group(0).startswith('"') else '""', text)


DIRECTIVE = re.compile(r'\s*#\s*(\w+)\s*(.*?)\s*$')


def switched_off(lines):
    """Which lines are in a branch the file switches off: `#if 0`, or `#if M` after `#define M 0`."""
    zero = {m.group(1) for line in lines for m in [re.match(r'\s*#\s*define\s+(\w+)\s+0\s*$', line)] if m}
    off, stack = [], []  # stack: whether each open #if's current branch is switched off
    for line in lines:
        d = DIRECTIVE.match(line)
        kind, cond = (d.group(1), d.group(2)) if d else ('', '')
        if kind in ('if', 'ifdef', 'ifndef'):
            stack.append(kind == 'if' and (cond == '0' or cond in zero))
        elif kind in ('elif', 'else') and stack:
            stack[-1] = False
        off.append(any(stack))
        if kind == 'endif' and stack:
            stack.pop()
    return off


STRING = re.compile(r'\b(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(.*?\)\1"|"(?:\\.|[^"\\\n])*"', re.S)


def string_kernels(text):
    """`__global__` definitions in string literals outside comments: kernel sources for NVRTC/jitify."""
    count = 0
    for m in COMMENT_OR_STRING.finditer(text):
        literal = m.group(0)
        if not STRING.fullmatch(literal):
            continue
        for g in re.finditer(r'\b__global__\b', literal):
            rest = text[m.start() + g.end():m.start() + g.end() + 4000]
            semi, brace = rest.find(';'), rest.find('{')
            if brace != -1 and (semi == -1 or brace < semi):
                count += 1
    return count


def textual_counts(text):
    code = code_of(text)
    lines = code.split('\n')
    off = switched_off(lines)
    lines = ['' if o else line for line, o in zip(lines, off)]
    code = '\n'.join(lines)
    # Blank out preprocessor lines (with continuations).
    kept, in_directive = [], False
    for line in lines:
        starts = line.lstrip().startswith('#')
        kept.append('' if starts or in_directive else line)
        in_directive = (starts or in_directive) and line.rstrip().endswith('\\')
    no_pp = '\n'.join(kept)
    kernels = 0
    for m in re.finditer(r'\b__global__\b', no_pp):
        rest = no_pp[m.end():m.end() + 4000]
        semi, brace = rest.find(';'), rest.find('{')
        if brace != -1 and (semi == -1 or brace < semi):
            kernels += 1
    launches = len(re.findall(r'<<<[^;]*?>>>\s*\(', code, re.S))
    return kernels + string_kernels('\n'.join(line if not o else '' for line, o in zip(text.split('\n'), off))), launches


def main():
    repo, harness = Path(sys.argv[1]), sys.argv[2]
    rows = []
    for line in open(harness, encoding='utf-8'):
        cells = line.rstrip('\n').split('\t')
        if len(cells) == 7:
            rows.append(cells)
    ok = sum(1 for r in rows if r[1] == 'ok')
    fatal = [r for r in rows if r[1].startswith('fatal')]
    failed = [r for r in rows if r[1].startswith('failed')]
    times = sorted(float(r[5]) for r in rows)
    cpu = sorted(float(r[6]) for r in rows)
    k_text = k_found = k_matched = l_text = l_found = l_matched = 0
    misses = []
    for path, _, kernels, launches, _, _, _ in rows:
        tk, tl = textual_counts((repo / path).read_text(encoding='utf-8', errors='replace'))
        fk, fl = int(kernels), int(launches)
        k_text += tk; k_found += fk; k_matched += min(tk, fk)
        l_text += tl; l_found += fl; l_matched += min(tl, fl)
        if fk != tk or fl != tl:
            misses.append(f'{path}: kernels {fk}/{tk}, launches {fl}/{tl}')
    def p95(xs):
        return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))] if xs else 0
    print(f'files {len(rows)}: {ok} without frontend failure ({100.0 * ok / max(1, len(rows)):.1f}%), '
          f'{len(fatal)} fatal, {len(failed)} failed')
    print(f'kernels: textual {k_text}, found {k_found}, recall {100.0 * k_matched / max(1, k_text):.1f}%')
    print(f'launches: textual {l_text}, found {l_found}, recall {100.0 * l_matched / max(1, l_text):.1f}%')
    for label, xs in (('wall', times), ('cpu', cpu)):
        print(f'{label} time per file: median {statistics.median(xs) if xs else 0:.0f} ms, p95 {p95(xs):.0f} ms, '
              f'max {xs[-1] if xs else 0:.0f} ms')
    for r in fatal + failed:
        print('  frontend:', r[0], r[1])
    for m in misses:
        print('  differs:', m)


if __name__ == '__main__':
    main()
