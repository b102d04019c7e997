#!/usr/bin/env python3
"""tpulint's benchmark: tpulint side by side with its floors and with other tools, on the same
files, in the same run, on the same machine.

For each dataset it measures (median of --reps runs, wall seconds, and peak RSS):
  floor   tpulint --parse-only: the same frontends parse every file, no check runs
  rg      ripgrep searching the same files for the checks' trigger tokens: the I/O floor
  parse   bench_tree_sitter_parse (built with tpulint): tree-sitter-python's parse alone, one process
  flake8  flake8 --jobs N on the same Python files: the classic linter
  clang   clang-19 -fsyntax-only with tpulint's header-free flags on the same CUDA/C++ files
  tpulint cold (--no-cache), cached (an unchanged tree, warm cache), and five files (pre-commit)
  per file the C/C++/CUDA files' median and 95th-percentile time in a worker (`scan --timings`)
and prints ratios against the floor. The floor and tpulint with every check are run alternately,
in pairs, and their ratio is the median of the pairs' ratios; so are flake8 and tpulint, and
--jobs 1 and --jobs 2 (the speedup rows). Datasets are synthetic repositories made by generate.py
at several sizes (deterministic), or any directory given with --repo.

A dataset with more Python lines than --large-lines (default 500k: the 1M-line size) is run once
(its floor pairs five times, as elsewhere; fifteen under 50k lines), without flake8 and
clang-19 (minutes per run there; their ratios are measured at the smaller sizes): it is there for
linear growth and peak memory.

usage:
  bench/run.py [--sizes 10k,100k,1m] [--cxx-files 50,500] [--repo DIR ...] [--reps 3] [--jobs 1,2]
               [--large-lines 500000] [--tpulint build/tpulint] [--work /tmp/tpulint-bench] [--markdown FILE]
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TRIGGERS = r"nonzero|unique|masked_select|\.cuda\(|cuda|__global__|<<<|asm|item\(\)|DataLoader|float64|triton|flash_attn"


def run(cmd, cwd=None, env=None):
    """Runs cmd; returns (wall seconds, peak RSS in MB of it and its children, exit code)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    return wall, usage.ru_maxrss / 1024.0, os.waitstatus_to_exitcode(status)


def measure(cmd, reps, cwd=None, env=None, setup=None):
    walls, peaks = [], []
    for _ in range(reps):
        if setup:
            setup()
        wall, peak, _ = run(cmd, cwd=cwd, env=env)
        walls.append(wall)
        peaks.append(peak)
    return statistics.median(walls), max(peaks)


def measure_pair(floor_cmd, cmd, reps, env=None):
    """Runs the floor and the command alternately, reps times each. Returns (floor median, command
    median, the median of the per-pair ratios, floor peak, command peak). On a shared machine
    whose load drifts between runs, each pair's two runs see about the same load: the median of
    the pairs' ratios moves far less than the ratio of two medians taken minutes apart."""
    floors, walls, ratios, floor_peak, peak = [], [], [], 0.0, 0.0
    for _ in range(reps):
        f, fp, _ = run(floor_cmd, env=env)
        w, wp, _ = run(cmd, env=env)
        floors.append(f)
        walls.append(w)
        ratios.append(w / f)
        floor_peak, peak = max(floor_peak, fp), max(peak, wp)
    return statistics.median(floors), statistics.median(walls), statistics.median(ratios), floor_peak, peak


def cxx_file_times(table):
    """The seconds of the C/C++/CUDA files in a `scan --timings` table, in ascending order."""
    times = []
    with open(table) as f:
        next(f)  # the header
        for line in f:
            seconds, language, _ = line.rstrip("\n").split("\t", 2)
            if language in ("c++", "cuda"):
                times.append(float(seconds))
    return sorted(times)


def machine():
    """The line naming this machine and the date, for a table's header."""
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"Machine: {platform.node()}, {os.cpu_count()} cores, {cpu}; {time.strftime('%Y-%m-%d')}."


def percentile(ascending, percent):
    """Nearest rank, as `scan --timings` summarizes: the ceil(n * percent / 100)-th smallest."""
    rank = max(1, -(-len(ascending) * percent // 100))
    return ascending[rank - 1]


def files_under(root, exts):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in (".git", "node_modules", "build", "__pycache__")]
        out.extend(os.path.join(dirpath, f) for f in filenames if os.path.splitext(f)[1] in exts)
    return sorted(out)


PY_EXTS = {".py", ".pyi"}
CXX_EXTS = {".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".inl"}


def size_bytes(files):
    return sum(os.path.getsize(f) for f in files)


def line_count(files):
    n = 0
    for f in files:
        with open(f, "rb") as fh:
            n += fh.read().count(b"\n")
    return n


class Bench:
    def __init__(self, args):
        self.args = args
        self.tpulint = os.path.abspath(args.tpulint)
        self.rows = []  # (dataset, what, jobs, seconds, peak MB, ratio text)
        self.work = args.work
        os.makedirs(self.work, exist_ok=True)
        self.env = dict(os.environ, XDG_CACHE_HOME=os.path.join(self.work, "xdg-cache"))

    def add(self, dataset, what, jobs, seconds, peak, reference=None, ratio=None):
        """ratio: given when measured in pairs (measure_pair); otherwise seconds / reference."""
        if ratio is None and reference:
            ratio = seconds / reference
        ratio = f"{ratio:.2f}x" if ratio is not None else ""
        self.rows.append((dataset, what, jobs, seconds, peak, ratio))
        print(f"  {what:<34} -j{jobs:<2} {seconds:8.3f} s  {peak:8.0f} MB  {ratio}", flush=True)

    def tpulint_cmd(self, paths, jobs, *extra):
        return [self.tpulint, "scan", *paths, "--format", "json", "--jobs", str(jobs), *extra]

    def clang_command(self, files, jobs):
        shim = os.path.join(self.work, "cuda_shim.h")
        with open(shim, "w") as f:
            f.write(subprocess.run([self.tpulint, "cuda-shim"], capture_output=True, text=True, check=True).stdout)
        listing = os.path.join(self.work, "cxx-files.txt")
        with open(listing, "w") as f:
            f.write("\n".join(files) + "\n")
        flags = ("-fsyntax-only -x cuda -std=c++17 -nocudainc -nocudalib --cuda-host-only "
                 "--cuda-path=/__tpulint__/no-cuda -ferror-limit=0 -w -fno-caret-diagnostics "
                 f"-resource-dir=/usr/lib/llvm-19/lib/clang/19 -include {shim}")
        return ["sh", "-c", f"xargs -P {jobs} -n 1 clang-19 {flags} < '{listing}'; true"]

    def dataset(self, name, root):
        py = files_under(root, PY_EXTS)
        cxx = files_under(root, CXX_EXTS)
        large = line_count(py) > self.args.large_lines
        reps = 1 if large else self.args.reps
        # The floor ratios are the goals: five pairs, and fifteen under 50k lines, whose runs of a
        # tenth of a second one burst of the machine's load can double. Five at the large size
        # too: the median of three pairs there moved by 0.08 between runs J and K, whose workers
        # ran the same code.
        pair_reps = max(15 if line_count(py) < 50_000 else 5, reps)
        print(f"\n{name}: {len(py)} Python files ({line_count(py)} lines, {size_bytes(py) / 1e6:.1f} MB), "
              f"{len(cxx)} C/C++/CUDA files ({size_bytes(cxx) / 1e6:.1f} MB)", flush=True)
        self.sizes.append((name, len(py), line_count(py), size_bytes(py), len(cxx), size_bytes(cxx)))
        # One unmeasured pass first, so that no measured run is the one that reads the files from disk.
        run(self.tpulint_cmd([root], 2, "--parse-only", "--no-cache"), env=self.env)
        py_root = os.path.join(root, "py") if os.path.isdir(os.path.join(root, "py")) else root
        cxx_root = os.path.join(root, "csrc") if os.path.isdir(os.path.join(root, "csrc")) else root
        only_py = ["--select", "ALL", "--exclude", "*.cu", "--exclude", "*.cuh", "--exclude", "*.c",
                   "--exclude", "*.cc", "--exclude", "*.cpp", "--exclude", "*.cxx", "--exclude", "*.h",
                   "--exclude", "*.hh", "--exclude", "*.hpp", "--exclude", "*.inl"]
        only_cxx = ["--exclude", "*.py", "--exclude", "*.pyi"]
        cache = os.path.join(self.work, f"cache-{name}")
        for jobs in self.args.jobs:
            if py:
                floor, cold, ratio, floor_peak, peak = measure_pair(
                    self.tpulint_cmd([py_root], jobs, "--parse-only", "--no-cache", *only_py),
                    self.tpulint_cmd([py_root], jobs, "--no-cache", *only_py), pair_reps, env=self.env)
                self.add(name, "python: parse-only floor", jobs, floor, floor_peak)
                self.add(name, "python: tpulint, every check", jobs, cold, peak, ratio=ratio)
                if shutil.which("flake8") and not large:
                    # In pairs too, each flake8 run next to a full tpulint scan: a flake8 run takes
                    # most of a minute, over which this machine's load can move by a third.
                    _, secs, ratio, _, peak = measure_pair(
                        self.tpulint_cmd([py_root], jobs, "--no-cache", *only_py),
                        ["flake8", "--jobs", str(jobs), py_root], reps, env=self.env)
                    self.add(name, "python: flake8 (x tpulint)", jobs, secs, peak, ratio=ratio)
            if cxx:
                floor, cold, ratio, floor_peak, peak = measure_pair(
                    self.tpulint_cmd([cxx_root], jobs, "--parse-only", "--no-cache", *only_cxx),
                    self.tpulint_cmd([cxx_root], jobs, "--no-cache", *only_cxx), pair_reps, env=self.env)
                self.add(name, "c++/cuda: parse-only floor", jobs, floor, floor_peak)
                self.add(name, "c++/cuda: tpulint, every check", jobs, cold, peak, ratio=ratio)
                # The time per file, as each worker measured it, from one more full scan.
                table = os.path.join(self.work, f"{name}-cxx-timings-j{jobs}.tsv")
                _, peak, _ = run(self.tpulint_cmd([cxx_root], jobs, "--no-cache", *only_cxx, "--timings", table),
                                 env=self.env)
                times = cxx_file_times(table)
                if times:
                    self.add(name, "c++/cuda: per file, median", jobs, percentile(times, 50), peak)
                    self.add(name, "c++/cuda: per file, 95th percentile", jobs, percentile(times, 95), peak)
                if not large:
                    secs, peak = measure(self.clang_command(cxx, jobs), reps)
                    self.add(name, "c++/cuda: clang-19 -fsyntax-only", jobs, secs, peak, floor)
            # The whole tree: cold, cached, and five files as a pre-commit hook sees them.
            cold, peak = measure(self.tpulint_cmd([root], jobs, "--no-cache"), reps, env=self.env)
            self.add(name, "all: tpulint cold", jobs, cold, peak)
            shutil.rmtree(cache, ignore_errors=True)
            run(self.tpulint_cmd([root], jobs, "--cache-dir", cache), env=self.env)  # warm it
            time.sleep(2.1)  # past the cache's "recently modified" window, as between commits
            run(self.tpulint_cmd([root], jobs, "--cache-dir", cache), env=self.env)
            secs, peak = measure(self.tpulint_cmd([root], jobs, "--cache-dir", cache), reps, env=self.env)
            self.add(name, "all: tpulint cached, unchanged", jobs, secs, peak, cold)
            five = (py + cxx)[:: max(1, len(py + cxx) // 5)][:5]
            secs, peak = measure(self.tpulint_cmd(five, jobs, "--no-cache"), reps, env=self.env)
            self.add(name, "all: tpulint on 5 files (pre-commit)", jobs, secs, peak)
        parse_alone = os.path.join(os.path.dirname(self.tpulint), "bench", "bench_tree_sitter_parse")
        if py and os.path.exists(parse_alone):
            # The floor against tree-sitter's parse alone in one process (no pool, no node table,
            # no report), in pairs: the ratio column is the floor's time over the bare parse's.
            listing = os.path.join(self.work, f"{name}-python-files.txt")
            with open(listing, "w") as f:
                f.write("\n".join(py) + "\n")
            alone, floor, ratio, peak, _ = measure_pair(
                ["sh", "-c", f"'{parse_alone}' < '{listing}'"],
                self.tpulint_cmd([py_root], 1, "--parse-only", "--no-cache", *only_py), pair_reps, env=self.env)
            self.add(name, "python: tree-sitter parse alone (floor x)", 1, alone, peak, ratio=ratio)
        if py and 1 in self.args.jobs and 2 in self.args.jobs:
            # What a second core buys, -j1 and -j2 run alternately in pairs: the ratio column is
            # the median of the pairs' speedups (-j1 time / -j2 time), for the floor and the scan.
            for what, extra in (("parse-only floor", ["--parse-only"]), ("every check", [])):
                one, two, ratio, _, peak = measure_pair(
                    self.tpulint_cmd([py_root], 1, "--no-cache", *extra, *only_py),
                    self.tpulint_cmd([py_root], 2, "--no-cache", *extra, *only_py), pair_reps, env=self.env)
                self.add(name, f"python: -j2 speedup, {what}", 2, two, peak, ratio=1 / ratio)
        if shutil.which("rg"):
            secs, peak = measure(["rg", "-c", "-e", TRIGGERS, root], reps)
            self.add(name, "all: rg, the I/O floor", 1, secs, peak)

    def main(self):
        self.sizes = []
        for size in self.args.sizes:
            lines = int(float(size.lower().rstrip("km")) * (1000 if size.lower().endswith("k") else 1_000_000 if size.lower().endswith("m") else 1))
            cxx_files = self.args.cxx_files.get(size, 0)
            root = os.path.join(self.work, f"synthetic-{size}")
            marker = os.path.join(root, ".generated")
            if not os.path.exists(marker):
                shutil.rmtree(root, ignore_errors=True)
                subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), root, "--python-lines", str(lines),
                                "--cxx-files", str(cxx_files)], check=True)
                open(marker, "w").close()
            self.dataset(f"synthetic-{size}", root)
        for repo in self.args.repo:
            self.dataset(os.path.basename(os.path.normpath(repo)), os.path.abspath(repo))
        if self.args.markdown:
            self.write_markdown(self.args.markdown)

    def write_markdown(self, path):
        lines = [
            "| dataset | Python files | Python lines | Python MB | C/C++/CUDA files | C/C++/CUDA MB |",
            "|---|---|---|---|---|---|",
        ]
        for name, npy, lines_py, bpy, ncxx, bcxx in self.sizes:
            lines.append(f"| {name} | {npy} | {lines_py} | {bpy / 1e6:.1f} | {ncxx} | {bcxx / 1e6:.1f} |")
        lines += ["", "| dataset | what | jobs | median s | peak MB | ratio |", "|---|---|---|---|---|---|"]
        for dataset, what, jobs, secs, peak, ratio in self.rows:
            lines.append(f"| {dataset} | {what} | {jobs} | {secs:.3f} | {peak:.0f} | {ratio} |")
        header = f"{machine()}\nCommand: `bench/run.py {' '.join(sys.argv[1:])}`\n\n"
        with open(path, "w") as f:
            f.write(header + "\n".join(lines) + "\n")
        print(f"\nwrote {path}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="10k,100k", help="synthetic Python sizes, e.g. 10k,100k,1m")
    p.add_argument("--cxx-files", default="10k:50,100k:200,1m:500",
                   help="CUDA files per size, e.g. 10k:50,100k:200,1m:500")
    p.add_argument("--repo", action="append", default=[], help="also measure this directory (repeatable)")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--jobs", default="1,2")
    p.add_argument("--large-lines", type=int, default=500_000,
                   help="above this many Python lines: one run, no flake8 or clang-19")
    p.add_argument("--tpulint", default=os.path.join(ROOT, "build", "tpulint"))
    p.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "tpulint-bench"))
    p.add_argument("--markdown", help="write the tables to this file (docs/performance.md uses it)")
    args = p.parse_args()
    args.sizes = [s for s in args.sizes.split(",") if s]
    args.jobs = [int(j) for j in args.jobs.split(",")]
    args.cxx_files = dict(kv.split(":") for kv in args.cxx_files.split(",") if kv)
    args.cxx_files = {k: int(v) for k, v in args.cxx_files.items()}
    Bench(args).main()


if __name__ == "__main__":
    main()
