#!/usr/bin/env python3
"""CPython's parser as the oracle for tpulint's syntax errors (TPU901) on Python files.

Usage: docs/validation/syntax_oracle.py [--tpulint build/tpulint] [--jobs N] [--markdown] REPO...

Each REPO (a local checkout, read only) is scanned once with
`tpulint scan REPO --isolated --no-cache --select TPU901 --format json`; every Python file the
scan analyzed (`*.py`, `*.pyi`; notebooks are left out, their cells are not one file CPython can
read) is then given to CPython's own parser, `ast.parse`, as bytes, so that the file's PEP 263
declaration or byte-order mark decides its encoding as it does for the interpreter. Prints:
  - false syntax errors: files with a TPU901 that CPython parses (valid Python 3 must have none);
  - files CPython rejects (Python 2, or syntax newer than this interpreter), with or without a
    TPU901, for the record;
  - the counts per repository and in all.
Exits 1 when there is a false syntax error, so it can gate a change of the grammar.
"""
import argparse
import ast
import json
import os
import subprocess
import sys
import warnings

PYTHON_SUFFIXES = (".py", ".pyi")


def scan(tpulint, repo, jobs):
    """The TPU901 findings and the analyzed Python files of one repository, from tpulint's JSON."""
    cmd = [tpulint, "scan", repo, "--isolated", "--no-cache", "--select", "TPU901", "--format", "json",
           "--exit-zero", "-j", str(jobs)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"syntax_oracle: {' '.join(cmd)} exited {proc.returncode}: {proc.stderr.strip()}")
    report = json.loads(proc.stdout)
    files = [r["path"] for r in report["files"]["results"]
             if r["language"] == "python" and r["analyzed"] and r["path"].endswith(PYTHON_SUFFIXES)]
    errors = {f["path"]: f["line"] for f in report["findings"] if f["id"] == "TPU901"}
    return files, errors


def cpython_error(path):
    """None when CPython parses the file, else its SyntaxError (line and message)."""
    with open(path, "rb") as f:
        source = f.read()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like are not errors
            ast.parse(source, filename=path)
    except (SyntaxError, ValueError) as e:  # ValueError: a NUL byte in the source
        return f"{getattr(e, 'lineno', None) or '?'}: {getattr(e, 'msg', str(e))}"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repos", nargs="+", help="local checkouts to scan (read only)")
    parser.add_argument("--tpulint", default="build/tpulint", help="the binary to test (default: build/tpulint)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="tpulint's worker threads")
    parser.add_argument("--markdown", action="store_true", help="print the per-repository table as Markdown")
    args = parser.parse_args()
    if not os.access(args.tpulint, os.X_OK):
        sys.exit(f"syntax_oracle: {args.tpulint} is not an executable (build it, or pass --tpulint)")

    totals = {"files": 0, "tpu901": 0, "false": 0, "rejected": 0, "rejected_flagged": 0}
    false_errors, rejected = [], []
    rows = []
    for repo in args.repos:
        if not os.path.isdir(repo):
            sys.exit(f"syntax_oracle: {repo} is not a directory")
        name = os.path.basename(os.path.normpath(repo))
        files, errors = scan(args.tpulint, repo, args.jobs)
        row = {"repo": name, "files": len(files), "tpu901": 0, "false": 0, "rejected": 0, "rejected_flagged": 0}
        for relative in files:
            error = cpython_error(os.path.join(repo, relative))  # paths are relative to the directory scanned
            flagged = relative in errors
            row["tpu901"] += flagged
            if error is None and flagged:
                row["false"] += 1
                false_errors.append(f"{name}/{relative}:{errors[relative]}")
            elif error is not None:
                row["rejected"] += 1
                row["rejected_flagged"] += flagged
                rejected.append(f"{name}/{relative}:{error}" + ("" if flagged else "  (no TPU901)"))
        rows.append(row)
        for key in totals:
            totals[key] += row[key]

    columns = ["repo", "files", "tpu901", "false", "rejected", "rejected_flagged"]
    if args.markdown:
        print("| repository | Python files | with TPU901 | TPU901 that CPython parses | CPython rejects | of which TPU901 |")
        print("|---|---|---|---|---|---|")
        for row in rows + [dict(totals, repo=f"**{len(rows)} repositories**")]:
            print("| " + " | ".join(str(row[c]) for c in columns) + " |")
    else:
        for row in rows:
            print("\t".join(str(row[c]) for c in columns))
        print(f"{len(rows)} repositories, {totals['files']} Python files, {totals['tpu901']} with TPU901, "
              f"{totals['false']} of them parsed by CPython {sys.version.split()[0]}, "
              f"{totals['rejected']} rejected by CPython ({totals['rejected_flagged']} with TPU901)")
    print(f"\nfalse syntax errors (TPU901, CPython parses the file): {len(false_errors)}")
    for line in false_errors:
        print(f"  {line}")
    print(f"\nfiles CPython rejects: {len(rejected)}")
    for line in rejected:
        print(f"  {line}")
    return 1 if false_errors else 0


if __name__ == "__main__":
    sys.exit(main())
