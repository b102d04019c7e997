#!/usr/bin/env python3
"""tpulint's C/C++/CUDA frontend on real repositories, beside clang-19 -fsyntax-only (issue 35).

Usage: bench/cxx_real.py CHECKOUTS [--tpulint build/tpulint] [--repos tiny-cuda-nn,apex]
                         [--clang-sample 40] [--work DIR]

CHECKOUTS is a directory holding one checkout per repository of bench/cxx_repos.tsv, named as its
`directory` column (owner+name). Nothing is downloaded: a checkout whose git HEAD differs from the
pinned commit, or that has no .git to tell, gets a warning and is measured as it is.

Per repository:
- `tpulint scan DIR --format json --no-cache --timings T` at --jobs 1 and --jobs 2: wall time,
  user+sys CPU of the whole process tree (getrusage of the reaped children), peak resident memory
  of the tree (bench/peak_rss.py's sampling), and whether the two reports are byte-identical.
- per C/C++/CUDA file: the time in its worker at --jobs 1 (`--timings`; one worker, so it is the
  file's CPU time plus whatever the machine's other load takes from it): median and p95.
- clang-19 -fsyntax-only with tpulint's own command lines (`tpulint clang-commands`: the same
  flags, include directories, built-in shims and passes) on a sample of the same files, every
  k-th in path order: per file the CPU time (user+sys, getrusage) of the clang processes. A header
  tpulint found missing is an empty file for clang (clang stops at a missing header; tpulint skips
  it). Ratios are tpulint's time on the sample over clang's.
Prints a Markdown table (docs/performance.md).
"""
import argparse
import csv
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peak_rss import tree_rss  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CLANG = "clang-19"
SHIMS = {"/__tpulint__/cuda_shim.h": "cuda-shim", "/__tpulint__/torch_shim.h": "torch-shim"}


def pinned():
    with open(os.path.join(HERE, "cxx_repos.tsv")) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def check_commit(repo, path):
    if not os.path.isdir(os.path.join(path, ".git")):
        print(f"warning: {path}: no .git, cannot check it is at {repo['commit']}", file=sys.stderr)
        return
    head = subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    if head != repo["commit"]:
        print(f"warning: {path} is at {head or '?'}, not the pinned {repo['commit']}", file=sys.stderr)


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def measured(cmd, stdout=subprocess.DEVNULL):
    """Runs cmd; returns (exit code, wall s, CPU s of its reaped process tree, peak tree RSS MB)."""
    cpu0, start = children_cpu(), time.monotonic()
    process = subprocess.Popen(cmd, stdout=stdout)
    peak = 0
    while process.poll() is None:
        peak = max(peak, tree_rss(process.pid))
        time.sleep(0.05)
    return process.returncode, time.monotonic() - start, children_cpu() - cpu0, peak / 2**20


def nearest_rank(sorted_values, percent):
    """As `scan --timings` summarizes: the ceil(n * percent / 100)-th smallest."""
    if not sorted_values:
        return float("nan")
    k = max(1, -(-len(sorted_values) * percent // 100))
    return sorted_values[int(k) - 1]


def cxx_times(table):
    """{path: seconds} of the C/C++/CUDA files of a `scan --timings` table."""
    out = {}
    with open(table) as f:
        next(f)
        for line in f:
            seconds, language, path = line.rstrip("\n").split("\t", 2)
            if language in ("c++", "cuda", "c"):
                out[path] = float(seconds)
    return out


def clang_times(tpulint, root, paths, missing, work):
    """{path: CPU seconds} of clang-19 -fsyntax-only over tpulint's commands for each file."""
    shims = {}
    for virtual, command in SHIMS.items():
        shims[virtual] = os.path.join(work, os.path.basename(virtual))
        with open(shims[virtual], "w") as f:
            f.write(subprocess.run([tpulint, command], capture_output=True, text=True, check=True).stdout)
    lines = subprocess.run([tpulint, "clang-commands", root, *paths], capture_output=True, text=True, check=True).stdout
    times = {}
    for line in lines.splitlines():
        c = json.loads(line)
        stubs = os.path.join(work, "stubs", c["path"].replace("/", "_"))
        for header in missing.get(c["path"], []):
            if header.startswith("/") or ".." in header.split("/"):
                continue
            os.makedirs(os.path.dirname(os.path.join(stubs, header)), exist_ok=True)
            open(os.path.join(stubs, header), "a").close()
        args = [CLANG] + [shims.get(a, a) for a in c["arguments"][1:]] + ["-idirafter", stubs]
        cpu0 = children_cpu()
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=root)
        times[c["path"]] = times.get(c["path"], 0.0) + children_cpu() - cpu0
    return times


def ms(seconds):
    return f"{seconds * 1000:.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkouts")
    ap.add_argument("--tpulint", default=os.path.join(HERE, "..", "build", "tpulint"))
    ap.add_argument("--repos", help="comma-separated names (or parts of them) to measure; default all")
    ap.add_argument("--clang-sample", type=int, default=40, help="files per repository for clang-19 (0: none)")
    ap.add_argument("--work", help="directory for reports and timings (default: a temporary one)")
    a = ap.parse_args()
    tpulint = os.path.abspath(a.tpulint)
    work = a.work or tempfile.mkdtemp(prefix="cxx_real_")
    os.makedirs(work, exist_ok=True)
    rows = []
    for repo in pinned():
        if a.repos and not any(r in repo["name"] for r in a.repos.split(",")):
            continue
        root = os.path.join(a.checkouts, repo["directory"])
        if not os.path.isdir(root):
            print(f"warning: {root}: missing, skipped", file=sys.stderr)
            continue
        check_commit(repo, root)
        short = repo["name"].split("/")[1]
        runs = {}
        for jobs in (1, 2):
            report = os.path.join(work, f"{short}-j{jobs}.json")
            table = os.path.join(work, f"{short}-j{jobs}.tsv")
            with open(report, "w") as out:
                code, wall, cpu, peak = measured([tpulint, "scan", root, "--format", "json", "--no-cache",
                                                  "--jobs", str(jobs), "--timings", table], stdout=out)
            if code not in (0, 1):
                sys.exit(f"tpulint exited {code} on {root}")
            runs[jobs] = dict(wall=wall, cpu=cpu, peak=peak, report=report, times=cxx_times(table))
            print(f"{short} -j{jobs}: {wall:.1f} s wall, {cpu:.1f} s CPU, {peak:.0f} MB", file=sys.stderr)
        with open(runs[1]["report"], "rb") as f1, open(runs[2]["report"], "rb") as f2:
            identical = f1.read() == f2.read()
        times = runs[1]["times"]
        per_file = sorted(times.values())
        row = dict(name=repo["name"], commit=repo["commit"][:10], files=len(times), identical=identical,
                   wall1=runs[1]["wall"], wall2=runs[2]["wall"], cpu1=runs[1]["cpu"], peak2=runs[2]["peak"],
                   median=statistics.median(per_file) if per_file else float("nan"),
                   p95=nearest_rank(per_file, 95))
        if a.clang_sample and times:
            paths = sorted(times)
            step = max(1, len(paths) // a.clang_sample)
            sample = paths[::step][: a.clang_sample]
            with open(runs[1]["report"]) as f:
                missing = {m["path"]: m["headers"] for m in json.load(f)["files"].get("missing_headers", [])}
            clang = clang_times(tpulint, root, sample, missing, tempfile.mkdtemp(dir=work))
            c = sorted(clang.values())
            t = sorted(times[p] for p in sample)
            row.update(sample=len(sample), clang_median=statistics.median(c), clang_p95=nearest_rank(c, 95),
                       sample_median=statistics.median(t), sample_p95=nearest_rank(t, 95),
                       clang_total=sum(c), sample_total=sum(t))
        rows.append(row)

    print("| repository | commit | C/C++/CUDA files | wall -j1 | wall -j2 | CPU -j1 | per file median / p95 (ms) "
          "| peak -j2 | -j1 = -j2 | clang sample | clang-19 median / p95 (ms) | tpulint on sample median / p95 (ms) "
          "| tpulint / clang, sample total |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    for r in rows:
        clang = ("| {sample} | {cm} / {cp} | {tm} / {tp} | {ratio:.2f} |".format(
            sample=r["sample"], cm=ms(r["clang_median"]), cp=ms(r["clang_p95"]), tm=ms(r["sample_median"]),
            tp=ms(r["sample_p95"]), ratio=r["sample_total"] / r["clang_total"] if r["clang_total"] else float("nan"))
            if "sample" in r else "| | | | |")
        print(f"| {r['name']} | {r['commit']} | {r['files']} | {r['wall1']:.1f} s | {r['wall2']:.1f} s | "
              f"{r['cpu1']:.1f} s | {ms(r['median'])} / {ms(r['p95'])} | {r['peak2']:.0f} MB | "
              f"{'yes' if r['identical'] else 'NO'} {clang}")
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
