#!/usr/bin/env python3
"""Scores the contexts tpulint gives Python findings against a blind reviewer's labels
(docs/validation/context_samples/SAMPLE.tsv; docs/validation/context.md says how each was drawn).

Usage: docs/validation/contexts.py SAMPLE --reports DIR [--tpulint BIN --root DIR] [--rows]
       docs/validation/contexts.py SAMPLE --agreement OTHER   (two labelings of the same findings)

A finding is matched by (repository, path, line, check) in DIR/owner+name.json, the JSON report of
`tpulint scan CHECKOUT --format json`. With --tpulint, a repository whose report is missing is
scanned from its checkout under --root (docs/validation/checkouts.py writes them at the pinned
commits of verdicts.tsv). Prints the context accuracy, the confusion matrix (tool by reviewer),
precision and recall per context, and the discounting: a finding should be discounted when the
reviewer puts it in guarded code, or in host, one-time or evaluation code and its check matters
only in device code (`device_code_only` in checks/python/*.cpp).
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CONTEXTS = ["hot-path", "loop", "host", "one-time", "eval", "guarded", "test", "unknown"]


def device_only_checks():
    ids = set()
    for path in glob.glob(os.path.join(HERE, "..", "..", "checks", "python", "TPU*.cpp")):
        if re.search(r"\.device_code_only\s*=\s*true", open(path).read()):
            ids.add(os.path.basename(path).split("_")[0])
    return ids


def read_sample(name):
    rows = []
    with open(os.path.join(HERE, "context_samples", name + ".tsv")) as f:
        for line in f:
            if line.startswith("#") or line.startswith("n\t"):
                continue
            c = line.rstrip("\n").split("\t")
            rows.append({"n": int(c[0]), "repo": c[1], "path": c[2], "line": int(c[3]), "check": c[4],
                         "context": c[5], "confidence": c[6], "reason": c[7] if len(c) > 7 else ""})
    return rows


def agreement(first, second):
    other = {r["n"]: r["context"] for r in second}
    pairs = [(r["context"], other[r["n"]]) for r in first if r["n"] in other]
    agree = sum(a == b for a, b in pairs)
    n = len(pairs)
    a_counts = collections.Counter(a for a, _ in pairs)
    b_counts = collections.Counter(b for _, b in pairs)
    expected = sum(a_counts[c] * b_counts[c] for c in a_counts) / (n * n)
    kappa = (agree / n - expected) / (1 - expected)
    print(f"agree on {agree}/{n} = {100 * agree / n:.1f}%, Cohen's kappa {kappa:.2f}")
    for (a, b), k in collections.Counter(p for p in pairs if p[0] != p[1]).most_common():
        print(f"  {a} / {b}: {k}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sample")
    parser.add_argument("--reports")
    parser.add_argument("--agreement", help="another labeling of the same findings: print how often they agree")
    parser.add_argument("--tpulint")
    parser.add_argument("--root")
    parser.add_argument("--rows", action="store_true", help="print each disagreement")
    args = parser.parse_args()
    rows = read_sample(args.sample)
    if args.agreement:
        return agreement(rows, read_sample(args.agreement))
    if not args.reports:
        sys.exit("--reports DIR or --agreement OTHER")
    device_only = device_only_checks()
    reports = {}
    for repo in sorted({r["repo"] for r in rows}):
        path = os.path.join(args.reports, repo + ".json")
        if not os.path.exists(path):
            if not args.tpulint or not args.root:
                sys.exit(f"no report {path}: pass --tpulint and --root to scan it")
            os.makedirs(args.reports, exist_ok=True)
            subprocess.check_call([args.tpulint, "scan", os.path.join(args.root, repo), "--format", "json",
                                   "--exit-zero", "-o", path])
        reports[repo] = {}
        for f in json.load(open(path))["findings"]:
            reports[repo].setdefault((f["path"], f["line"], f["id"]), f)
    confusion = collections.Counter()
    right = missing = 0
    discounted = []
    left = []
    disagreements = []
    for r in rows:
        f = reports[r["repo"]].get((r["path"], r["line"], r["check"]))
        if f is None:
            missing += 1
            continue
        got, want = f["context"], r["context"]
        confusion[(got, want)] += 1
        right += got == want
        should = want == "guarded" or (want in ("host", "one-time", "eval") and r["check"] in device_only)
        if f["discounted"]:
            discounted.append(should)
        elif should:
            left.append(r["n"])
        if got != want:
            disagreements.append((r, got))
    total = len(rows) - missing
    print(f"rows {len(rows)} (missing in this build: {missing}); context right {right}/{total} = {100 * right / total:.1f}%")
    print("| tool \\\\ reviewer | " + " | ".join(CONTEXTS) + " | total |")
    print("|---" * (len(CONTEXTS) + 2) + "|")
    for g in CONTEXTS:
        print(f"| {g} | " + " | ".join(str(confusion[(g, w)]) for w in CONTEXTS) +
              f" | {sum(confusion[(g, w)] for w in CONTEXTS)} |")
    for c in CONTEXTS[:-1]:
        tool = sum(confusion[(c, w)] for w in CONTEXTS)
        reviewer = sum(confusion[(g, c)] for g in CONTEXTS)
        print(f"{c}: tool {tool}, precision {confusion[(c, c)]}/{tool}; reviewer {reviewer}, recall {confusion[(c, c)]}/{reviewer}")
    print(f"discounted {len(discounted)}, of which should be {sum(discounted)}")
    print(f"warnings/errors left in code that should be discounted: {len(left)} -> {sorted(left)}")
    if args.rows:
        for r, got in disagreements:
            print(f"{r['n']}\t{r['repo']}\t{r['path']}:{r['line']}\t{r['check']}\ttool={got}\treviewer={r['context']}\t{r['reason']}")


if __name__ == "__main__":
    main()
