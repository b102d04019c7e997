#!/usr/bin/env python3
"""Scores tpulint's verdicts, scores, effort and key blockers against the expert labels of
docs/validation/verdicts.tsv, for one half of the corpus.

Usage: docs/validation/verdicts.py calibration|validation|fresh|fresh2|...|fresh28 [--tpulint build/tpulint]
           [--reports DIR] [--rescan] [--markdown]

Each labeled repository (its local checkout, see the TSV) is scanned once with
`tpulint scan CHECKOUT --format json`; the JSON report is kept in --reports (default
/work/corpus-results/HALF) and reused unless --rescan. Prints one row per repository and the
measures the issue asks for:
  - exact verdict, and verdict within one level (tpu-ready < portable < significant < stay-on-gpu);
  - Spearman's rho between the score and the expert's readiness order (rank 1 = most ready);
  - key blockers found: a labeled blocker (not marked minor or optional) is found when a finding
    of severity warning or error lies in a path its globs match;
  - effort within a factor of three: the geometric mean of tpulint's core-code range against the
    label's (the labels are of the core code);
  - the share of GPU-only code against the label's share of core code without a TPU path;
  - repositories of different rank that share a score.
Reads nothing of the validation or fresh half unless asked for it by name.
"""
import argparse
import fnmatch
import json
import math
import os
import subprocess
import sys
import time

LEVELS = ["tpu-ready", "portable", "significant", "stay-on-gpu"]
HERE = os.path.dirname(os.path.abspath(__file__))


def read_labels(half):
    rows = []
    header = None
    with open(os.path.join(HERE, "verdicts.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cells = line.rstrip("\n").split("\t")
            if header is None:
                header = cells
                continue
            row = dict(zip(header, cells))
            if row["half"] == half:
                rows.append(row)
    return rows


def blockers_of(row):
    out = []
    for item in filter(None, row["key_blockers"].split(";")):
        if item == "none":
            continue
        kind, globs, name = item.split(":", 2)
        if name.endswith("(minor)") or name.endswith("(optional)"):
            continue
        out.append((kind, [g.strip() for g in globs.split(",") if g.strip()], name))
    return out


def glob_match(pattern, path):
    # fnmatch's '*' crosses '/', which a label's glob means too ("csrc/*" covers csrc/a/b.cu).
    pattern = pattern.rstrip("/")
    return fnmatch.fnmatchcase(path, pattern) or fnmatch.fnmatchcase(path, pattern + "/*") or path.startswith(pattern + "/")


def spearman(xs, ys):
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2 + 1
            i = j + 1
        return r
    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sx = math.sqrt(sum((a - mx) ** 2 for a in rx))
    sy = math.sqrt(sum((b - my) ** 2 for b in ry))
    return cov / (sx * sy) if sx and sy else float("nan")


def scan(tpulint, row, reports, rescan):
    name = row["repo"].replace("/", "+")
    out = os.path.join(reports, name + ".json")
    if rescan or not os.path.exists(out):
        start = time.monotonic()
        with open(out + ".tmp", "w") as f:
            code = subprocess.call([tpulint, "scan", row["local_checkout_path"], "--format", "json", "--exit-zero"],
                                   stdout=f)
        if code != 0:
            sys.exit(f"tpulint failed on {row['repo']} (exit {code})")
        os.replace(out + ".tmp", out)
        print(f"scanned {row['repo']} in {time.monotonic() - start:.0f} s", file=sys.stderr)
    with open(out, encoding="utf-8") as f:
        return json.load(f)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("half", choices=["calibration", "validation", "fresh"] + [f"fresh{n}" for n in range(2, 29)])
    parser.add_argument("--tpulint", default=os.path.join(HERE, "..", "..", "build", "tpulint"))
    parser.add_argument("--reports")
    parser.add_argument("--rescan", action="store_true")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args()
    reports = args.reports or f"/work/corpus-results/{args.half}"
    os.makedirs(reports, exist_ok=True)

    rows = read_labels(args.half)
    results = []
    for row in rows:
        report = scan(args.tpulint, row, reports, args.rescan)
        serious = [f for f in report["findings"] if f["severity"] in ("warning", "error")]
        blockers = blockers_of(row)
        found = [b for b in blockers if any(glob_match(g, f["path"]) for f in serious for g in b[1])]
        effort = report["core_effort"]  # the labels are of the core code, tests and examples apart
        lines = max(effort["code_lines"], 1)
        got_mid = math.sqrt(max(effort["hours_low"], 0.5) * max(effort["hours_high"], 0.5))
        want_mid = math.sqrt(max(float(row["effort_low_h"]), 0.5) * max(float(row["effort_high_h"]), 0.5))
        # A tie of two labels shares a half rank (4.5).
        results.append({
            "repo": row["repo"], "rank": float(row["rank"]), "want": row["verdict"], "got": report["verdict"],
            "score": report["score"], "hours": (effort["hours_low"], effort["hours_high"]),
            "label_hours": (float(row["effort_low_h"]), float(row["effort_high_h"])),
            "effort_ratio": got_mid / want_mid, "blockers": len(blockers), "found": len(found),
            "missed": [b[2] for b in blockers if b not in found],
            "gpu_share": effort.get("gpu_only_lines", 0) / lines, "label_share": float(row["core_share_no_tpu_path"]),
        })

    n = len(results)
    exact = sum(r["want"] == r["got"] for r in results)
    within = sum(abs(LEVELS.index(r["want"]) - LEVELS.index(r["got"])) <= 1 for r in results)
    rho = spearman([r["score"] for r in results], [-r["rank"] for r in results])
    blockers = sum(r["blockers"] for r in results)
    found = sum(r["found"] for r in results)
    effort_ok = sum(1 / 3 <= r["effort_ratio"] <= 3 for r in results)
    native = [r for r in results if r["gpu_share"] > 0 or r["label_share"] > 0]
    share_ok = sum(abs(r["gpu_share"] - r["label_share"]) <= 0.1 for r in native)
    shared = {}
    for r in results:
        shared.setdefault(r["score"], set()).add(r["rank"])
    ties = {s: ranks for s, ranks in shared.items() if len(ranks) > 1}

    if args.markdown:
        print("| rank | repository | verdict wanted | verdict got | score | core effort got (h) | effort labeled (h) | "
              "GPU-only share got / labeled | key blockers found |")
        print("|---:|---|---|---|---:|---|---|---|---|")
    for r in sorted(results, key=lambda r: r["rank"]):
        mark = "" if r["want"] == r["got"] else " *"
        hours = f"{r['hours'][0]:.0f}-{r['hours'][1]:.0f}"
        label = f"{r['label_hours'][0]:.0f}-{r['label_hours'][1]:.0f}"
        missed = f" (missed: {', '.join(r['missed'])})" if r["missed"] else ""
        if args.markdown:
            print(f"| {r['rank']:g} | {r['repo']} | {r['want']} | {r['got']}{mark} | {r['score']:.1f} | {hours} | {label} | "
                  f"{r['gpu_share']:.2f} / {r['label_share']:.2f} | {r['found']}/{r['blockers']}{missed} |")
        else:
            print(f"{r['rank']:3g} {r['repo']:45s} {r['want']:12s} {r['got']:12s}{mark:2s} {r['score']:6.1f} "
                  f"{hours:>12s} {label:>12s} x{r['effort_ratio']:<6.2f} {r['gpu_share']:.2f}/{r['label_share']:.2f} "
                  f"{r['found']}/{r['blockers']}{missed}")
    print()
    print(f"{args.half}: {n} repositories")
    print(f"  exact verdict      {exact}/{n} = {exact / n:.0%}")
    print(f"  within one level   {within}/{n} = {within / n:.0%}")
    print(f"  Spearman rho(score, readiness order) = {rho:.3f}")
    print(f"  key blockers found {found}/{blockers} = {found / max(blockers, 1):.0%}")
    print(f"  effort within 3x   {effort_ok}/{n} = {effort_ok / n:.0%}  (core code)")
    print(f"  GPU-only share within 0.1 of the label's share without TPU path: {share_ok}/{len(native)} "
          f"(repositories with native or kernel code)")
    print(f"  scores shared by different ranks: {len(ties)}" +
          ("".join(f"\n    {s}: ranks {[f'{x:g}' for x in sorted(v)]}" for s, v in sorted(ties.items())) if ties else ""))


if __name__ == "__main__":
    main()
