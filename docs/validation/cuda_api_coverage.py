#!/usr/bin/env python3
"""How many of the CUDA API uses a translator marks does tpulint find? (docs/validation/cxx.md)

The corpus is ROCm/HIPIFY's tests/unit_tests: every line HIPIFY rewrites is preceded by a
`// CHECK:` (or `// CHECK-NEXT:`) line giving its HIP translation. A run of k such lines marks the
k code lines after it. A marked line *references a CUDA API identifier* when an identifier of the
line is gone from its translation and HIPIFY's own tables (docs/tables/*.md, the CUDA column) list
it, or the namespaces `cub`/`thrust`, or when it is an `#include` of a CUDA header: one of HIPIFY's
header map (src/CUDA2HIP.cpp, the CUDA names; Caffe2's own headers left out, they are no CUDA API).
HIPIFY also inserts `#include <hip/hip_runtime.h>` before a file's first #include, so that
`#include <stdio.h>` is marked too: such lines reference no CUDA identifier and are not counted. It *holds a call* when such an identifier is followed by `(`. Its API is the table the
identifier is listed in (the first such identifier of the line). It is *gated* when it stands
inside an `#if`/`#ifdef`/`#ifndef` block.

A line is *found* when tpulint's JSON report has, on that line, a finding of a CUDA API or CUDA
library check (category cuda-api or cuda-library, or TPU105, the launch API) or a touch line of a
work item (work_items[].touched). Nothing else counts.

Usage: cuda_api_coverage.py TPULINT HIPIFY_CHECKOUT   (python3, standard library only)
HIPIFY_CHECKOUT needs tests/unit_tests, docs/tables and src/CUDA2HIP.cpp of the repository.
"""
import collections
import glob
import json
import os
import re
import subprocess
import sys

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
CHECK = re.compile(r"^\s*//\s*CHECK(-NEXT)?:(.*)$")
TABLE_API = [  # table file prefix -> the API it documents
    ("CUDA_Runtime_API", "runtime"), ("CUDA_Driver_API", "driver"), ("CUDA_Device_API", "device"),
    ("CUDA_RTC_API", "nvrtc"), ("CUBLAS_API", "cuBLAS"), ("CUDNN_API", "cuDNN"), ("CUFFT_API", "cuFFT"),
    ("CURAND_API", "cuRAND"), ("CUSPARSE_API", "cuSPARSE"), ("CUSOLVER_API", "cuSOLVER"), ("CUB_API", "CUB"),
    ("cuComplex_API", "cuComplex"),
]
HEADER_API = [  # an #include's header -> its API, by the start of its file name
    ("cublas", "cuBLAS"), ("cudnn", "cuDNN"), ("cufft", "cuFFT"), ("curand", "cuRAND"), ("cusparse", "cuSPARSE"),
    ("cusolver", "cuSOLVER"), ("cub/", "CUB"), ("cuComplex", "cuComplex"), ("nvrtc", "nvrtc"), ("cuda.h", "driver"),
]


def cuda_headers(hipify):
    """The CUDA headers HIPIFY translates, from its header map."""
    text = open(os.path.join(hipify, "src", "CUDA2HIP.cpp"), encoding="utf-8").read()
    return {h for h in re.findall(r'^\s*\{"([^"]+)",\s*\{"', text, re.M) if not h.startswith("caffe2/")}


def lexicon(hipify):
    api_of = {}
    for path in sorted(glob.glob(os.path.join(hipify, "docs", "tables", "*.md"))):
        name = os.path.basename(path)
        api = next((a for prefix, a in TABLE_API if name.startswith(prefix)), None)
        if not api:
            continue
        for line in open(path, encoding="utf-8"):
            m = re.match(r"^\|\s*`([A-Za-z_][A-Za-z0-9_]*)`", line)
            if m:
                api_of.setdefault(m.group(1), api)
    api_of.setdefault("cub", "CUB")
    api_of.setdefault("thrust", "CUB")
    return api_of


def code_of(line):
    """The line without its // comment and string literals' contents."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    at = line.find("//")
    return line if at < 0 else line[:at]


def marked_lines(path):
    """(line number, code, translation, gated) of each line a CHECK marks."""
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    out, pending = [], []
    gates = []  # per open #if: whether it gates (an include guard does not)
    for number, text in enumerate(lines, 1):
        m = CHECK.match(text)
        if m:
            pending.append(m.group(2).strip())
            continue
        stripped = text.strip()
        if stripped and not stripped.startswith("//"):
            if pending:
                out.append((number, text, pending.pop(0), any(gates)))
        directive = re.match(r"#\s*(\w+)\s*(\S*)", stripped)
        if directive:
            word, arg = directive.groups()
            if word in ("if", "ifdef", "ifndef"):
                following = lines[number].strip() if number < len(lines) else ""
                gates.append(not (word == "ifndef" and following == "#define " + arg))
            elif word == "endif" and gates:
                gates.pop()
    return out


def classify(code, translation, api_of, headers):
    """(api, is_call) of a marked line, or None when it references no CUDA API identifier."""
    code = code_of(code)
    include = re.match(r"\s*#\s*include\s*[<\"]([^>\"]+)[>\"]", code)
    if include:
        header = include.group(1)
        if header not in headers:
            return None
        base = header.rsplit("/", 1)[-1]
        api = next((a for prefix, a in HEADER_API if header.startswith(prefix) or base.startswith(prefix)), "runtime")
        return api, False
    gone = [w for w in dict.fromkeys(IDENT.findall(code)) if w not in set(IDENT.findall(translation))]
    listed = [w for w in gone if w in api_of]
    if not listed:
        return None
    call = any(re.search(r"\b" + re.escape(w) + r"\s*\(", code) for w in listed)
    return api_of[listed[0]], call


def scan(tpulint, root):
    run = subprocess.run([tpulint, "scan", root, "--format", "json", "--no-cache", "--exit-zero"],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.exit(f"tpulint failed ({run.returncode}): {run.stderr[-2000:]}")
    report = json.loads(run.stdout)
    found = collections.defaultdict(set)  # path -> lines
    by_finding = collections.defaultdict(set)  # path -> lines with a finding
    for f in report["findings"]:
        if f["category"] in ("cuda-api", "cuda-library") or f["id"] == "TPU105":
            found[f["path"]].add(f["line"])
            by_finding[f["path"]].add(f["line"])
    for item in report.get("work_items", []):
        for t in item.get("touched", []):
            found[t["path"]].update(t["lines"])
    return report, found, by_finding


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    tpulint, hipify = sys.argv[1], os.path.abspath(sys.argv[2])
    root = os.path.join(hipify, "tests", "unit_tests")
    api_of = lexicon(hipify)
    headers = cuda_headers(hipify)
    report, found, by_finding = scan(tpulint, root)
    prefix = report_root_prefix(report, root)
    tally = collections.defaultdict(lambda: [0, 0, 0])  # key -> [found, found by a finding, total]
    for path in sorted(glob.glob(os.path.join(root, "**", "*"), recursive=True)):
        if not re.search(r"\.(cu|cuh|cpp|h|hpp)$", path):
            continue
        rel = prefix + os.path.relpath(path, root)
        for number, code, translation, gated in marked_lines(path):
            c = classify(code, translation, api_of, headers)
            if not c:
                continue
            api, call = c
            hit = number in found.get(rel, ())
            hit_finding = number in by_finding.get(rel, ())
            gate = "gated" if gated else "not gated"
            for key in [("all", "all"), ("all", gate), ("api", api)] + ([("call", "all"), ("call", gate), ("call api", api)] if call else []):
                tally[key][0] += hit
                tally[key][1] += hit_finding
                tally[key][2] += 1
    def row(label, key):
        f, by, t = tally[key]
        pct = lambda n: 100.0 * n / t if t else 0
        print(f"  {label:<14} {f:>5} / {t:<5} {pct(f):6.1f}%   by a finding: {by:>5} {pct(by):6.1f}%")
    print(f"tpulint {report['tool']['version']} (JSON schema {report['schema_version']}) on {root}")
    print("found: a CUDA API/library finding or a work item's touch line on the line; 'by a finding': the former only")
    print("lines with a CUDA API call:")
    for key in [("call", "all"), ("call", "not gated"), ("call", "gated")]:
        row(key[1], key)
    for api in sorted(k[1] for k in tally if k[0] == "call api"):
        row(api, ("call api", api))
    print("lines referencing a CUDA API identifier (calls, types, constants, macros, #includes):")
    for key in [("all", "all"), ("all", "not gated"), ("all", "gated")]:
        row(key[1], key)
    for api in sorted(k[1] for k in tally if k[0] == "api"):
        row(api, ("api", api))


def report_root_prefix(report, root):
    """Report paths are relative to the scan root's deepest common directory: the prefix to add."""
    paths = [r["path"] for r in report["files"]["results"]]
    probe = next((p for p in paths if os.path.exists(os.path.join(root, p))), None)
    return "" if probe is not None or not paths else os.path.basename(root) + "/"


if __name__ == "__main__":
    main()
