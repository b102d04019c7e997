#!/usr/bin/env python3
"""tpulint on hostile Python files (issue 34, item 8): does the time grow with the file, and how
does it compare with an ordinary file of the same size, measured in the same run?

Each row is one kind of file built to make an analyzer slow or fat, generated at three sizes
(N, 2N, 4N bytes) in a temporary directory outside the project:
  comments      a function holding a run of comment lines (commented-out code)
  continuations a run of lines holding only a backslash continuation
  numbers       a list of numbers on one line (10 MiB at 4N)
  strings       a list of strings on one line (10 MiB at 4N)
  calls         a nest of calls, `torch.relu(torch.relu(...(m)...))`
  subscripts    a chain of subscripts, `torch[0][0]...[0]`
  attributes    a chain of attributes, `torch.a.a...a`
  negations     a condition of `not not ... torch.any(x)` in a forward
  masks         a mask of `(x > 0) & (x > 0) & ...` in a forward
  early-exit    `if not torch.cuda.is_available() or not x.is_cuda or ...: return`
  guard-chain   a chain of conditional expressions on a device guard, `a if torch.cuda.is_available() else ...`
  line-end      one long line of statements with a finding at its end
  line-findings one long line of statements each with a finding
  suppressions  findings each silenced by a suppression comment (a line's, the next line's,
                a disable/enable block)
Every file ends with an unsuppressed finding (TPU201), so a row also says whether the file's
findings survived. Each file is scanned alone by `tpulint scan FILE --no-cache --jobs 1 --format
json` (the least wall seconds of --reps runs: on a shared machine, noise only adds; a run over
1 s is run three times at most, one over 5 s once; peak RSS of tpulint and its worker, by wait4).
The reference is ordinary code (the modules of bench/generate.py, the synthetic repositories'
code, in one file) of the same sizes, scanned the same way in the same run. Printed per row: seconds and peak MB at each size, the growth of the time from N to 2N and
from 2N to 4N (about 2 where the time is linear in the file, 4 where it is quadratic), and the
time and memory at 4N against the ordinary file of the same size. Ratios against a reference
taken on the same machine in the same run, not absolute numbers, are what carry over.

A run is stopped at --timeout seconds (`timeout`, also given to tpulint as --file-timeout) and
under an address-space limit of --memory-limit MB (`out of memory`), so that an old build can be
measured too; `lost` marks a file whose findings did not all come back.

usage:
  bench/hostile_python.py [--tpulint build/tpulint] [--rows comments,calls,...] [--scale 1]
                          [--reps 5] [--timeout 60] [--memory-limit 4096] [--keep] [--markdown FILE]
"""
import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the project for the two imports below
import generate  # noqa: E402  (bench/generate.py: the reference's ordinary code)
import run  # noqa: E402  (bench/run.py: the machine's description)

KIB = 1024
MIB = 1024 * 1024
FINDING = "y = torch.nonzero(m)\n"  # TPU201, at the end of every file


def repeat_to(unit, size):
    """`unit` as many times as fit in `size` bytes (at least once)."""
    return unit * max(1, size // len(unit))


def comments(size):
    body = repeat_to("    # commented-out code: x = torch.zeros(3)\n", size)
    return "import torch\n\ndef f(m):\n    x = 1\n" + body + "    return x\n\n" + FINDING, 1


def continuations(size):
    return "import torch\nx = 1\n" + repeat_to("\\\n", size) + FINDING, 1


def literal_list(element, size):
    """A list on one line of element(0), element(1), ... filling `size` bytes."""
    parts, length, i = [], 0, 0
    while length < size:
        parts.append(element(i) + ", ")
        length += len(parts[-1])
        i += 1
    return "import torch\nx = [" + "".join(parts) + "]\n" + FINDING, 1


def numbers(size):
    return literal_list(str, size)


def strings(size):
    return literal_list(lambda i: f"'item{i}'", size)


def calls(size):
    n = max(1, size // len("torch.relu()"))
    return "import torch\nx = " + "torch.relu(" * n + "m" + ")" * n + "\n" + FINDING, 1


def subscripts(size):
    return "import torch\nx = torch" + repeat_to("[0]", size) + "\n" + FINDING, 1


def attributes(size):
    return "import torch\nx = torch" + repeat_to(".a", size) + "\n" + FINDING, 1


def negations(size):
    return ("import torch\n\ndef forward(self, x):\n    if " + repeat_to("not ", size) + "torch.any(x):\n"
            "        return x\n    return x\n\n" + FINDING, 1)


def masks(size):
    return "import torch\n\ndef forward(self, x):\n    return x[(x > 0)" + repeat_to(" & (x > 0)", size) + "]\n\n" + FINDING, 1


def early_exit(size):
    return ("import torch\n\ndef f(x):\n    if not torch.cuda.is_available()" + repeat_to(" or not x.is_cuda", size) +
            ":\n        return x\n    return x\n\n" + FINDING, 1)


def guard_chain(size):
    return "import torch\nx = " + repeat_to("a if torch.cuda.is_available() else ", size) + "b\n" + FINDING, 1


def line_end(size):
    return "import torch\n" + repeat_to("x = f(x, 1); ", size) + FINDING, 1


def line_findings(size):
    unit = "a = torch.nonzero(m); "
    n = max(1, size // len(unit))
    return "import torch\n" + unit * n + FINDING, n + 1


def suppressions(size):
    unit = ("a = torch.nonzero(m)  # tpulint: ignore[TPU201]\n"
            "# tpulint: ignore-next-line[TPU2]\n"
            "b = torch.nonzero(m)\n"
            "# tpulint: disable[TPU201]\n"
            "c = torch.nonzero(m)\n"
            "# tpulint: enable[TPU201]\n")
    return "import torch\n" + repeat_to(unit, size) + FINDING, 1


# (name, generator, N in bytes): N chosen so that a linear build takes about 0.1-1 s at 4N.
ROWS = [
    ("comments", comments, 2 * MIB),
    ("continuations", continuations, 256 * KIB),
    ("numbers", numbers, 2.5 * MIB),
    ("strings", strings, 2.5 * MIB),
    ("calls", calls, 256 * KIB),
    ("subscripts", subscripts, 256 * KIB),
    ("attributes", attributes, 256 * KIB),
    ("negations", negations, 256 * KIB),
    ("masks", masks, 256 * KIB),
    ("early-exit", early_exit, 256 * KIB),
    ("guard-chain", guard_chain, 128 * KIB),
    ("line-end", line_end, 1 * MIB),
    ("line-findings", line_findings, 128 * KIB),
    ("suppressions", suppressions, 1 * MIB),
]
FACTORS = (1, 2, 4)


def plain(size):
    """Ordinary code: bench/generate.py's modules, one after another, up to `size` bytes."""
    rng = generate.random.Random(20261130)
    parts, length, index = [], 0, 0
    while True:
        part = generate.python_file(rng, index)
        if length + len(part) > size:
            return "".join(parts), None
        parts.append(part)
        length += len(part)
        index += 1


def size_label(size):
    if size >= MIB:
        return f"{size / MIB:.3g} MiB"
    return f"{size / KIB:.3g} KiB"


class Bench:
    def __init__(self, args):
        self.args = args
        self.work = tempfile.mkdtemp(prefix="tpulint-hostile-")
        self.plain_runs = {}  # size -> scan() of the ordinary file of that size
        self.lines = []       # the table, as markdown rows

    def scan(self, path, expected):
        """Scans `path` --reps times (three at most when a run takes over 1 s, once over 5 s or when
        it fails). Returns (least wall s, peak MB, outcome): outcome is "ok", "lost (K of N)",
        "timeout", "out of memory", "skipped: ..." or "TPU903: ..." (tpulint's note)."""
        cmd = [self.args.tpulint, "scan", path, "--no-cache", "--jobs", "1", "--format", "json",
               "--file-timeout", str(self.args.timeout)]
        limit = self.args.memory_limit * MIB

        def limits():
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        walls, peak, outcome = [], 0.0, "ok"
        for rep in range(self.args.reps):
            out_path = os.path.join(self.work, "report.json")
            err_path = os.path.join(self.work, "stderr.txt")
            with open(out_path, "wb") as out, open(err_path, "wb") as err:
                start = time.monotonic()
                proc = subprocess.Popen(cmd, stdout=out, stderr=err, preexec_fn=limits, start_new_session=True)
                killed = []

                def kill():
                    killed.append(True)
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass

                # tpulint stops the file at --file-timeout itself; this only catches a hung scan.
                timer = threading.Timer(self.args.timeout + 30, kill)
                timer.start()
                _, status, usage = os.wait4(proc.pid, 0)
                timer.cancel()
                proc.returncode = os.waitstatus_to_exitcode(status)
                wall = time.monotonic() - start
            walls.append(wall)
            peak = max(peak, usage.ru_maxrss / 1024.0)
            with open(err_path, errors="replace") as err:
                stderr = err.read()
            outcome = self.outcome(out_path, stderr, expected, killed, proc.returncode)
            if outcome != "ok" or wall > 5 or (wall > 1 and rep >= 2):
                break
        return min(walls), peak, outcome

    @staticmethod
    def outcome(report, stderr, expected, killed, code):
        if killed:
            return "timeout"
        # A worker or tpulint itself that runs out of memory says so on its standard error.
        oom = "out of memory" in stderr or "bad_alloc" in stderr
        try:
            with open(report) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            return "out of memory" if oom else f"exit {code}, no report"
        if doc.get("files", {}).get("skipped"):
            return "skipped: " + doc["files"]["skipped"][0].get("reason", "")
        ids = [f["id"] for f in doc.get("findings", [])]
        for f in doc.get("findings", []):
            if f["id"] == "TPU903":
                message = f.get("message", "")
                if "file-timeout" in message:
                    return "timeout"
                if "memory" in message or "bad_alloc" in message or oom:
                    return "out of memory"
                return "TPU903: " + message
        if expected is not None and ids.count("TPU201") != expected:
            return f"lost ({ids.count('TPU201')} of {expected})"
        return "ok"

    def measure(self, generator, size):
        """Writes generator's file of about `size` bytes and scans it: (scan's result, size)."""
        # Files larger than 10 MiB are skipped by default (--max-file-size): 4N = 10 MiB must fit.
        text, expected = generator(size - 256)
        assert len(text.encode()) <= size, (generator.__name__, size)
        path = os.path.join(self.work, f"{generator.__name__}_{size}.py")
        with open(path, "w") as f:
            f.write(text)
        result = self.scan(path, expected)
        if not self.args.keep:
            os.remove(path)
        return result, size

    def plain_run(self, size):
        if size not in self.plain_runs:
            self.plain_runs[size] = self.measure(plain, size)[0]
        return self.plain_runs[size]

    def row(self, name, runs, reference):
        """One table row: the runs at N, 2N and 4N, and the reference's run at 4N (or None)."""
        cells = []
        for (wall, peak, outcome), _ in runs:
            if outcome == "timeout":
                cells.append(f"timeout ({wall:.0f} s)")
            else:
                cells.append(f"{wall:.2f} s, {peak:.0f} MB" + ("" if outcome == "ok" else f" ({outcome})"))

        def growth(a, b):
            (wa, _, oa), (wb, _, ob) = a[0], b[0]
            return f"{wb / wa:.1f}" if oa == ob == "ok" else "-"
        growths = [growth(runs[0], runs[1]), growth(runs[1], runs[2])]
        against = "-"
        if reference is not None:
            (w, p, o), (rw, rp, ro) = runs[2][0], reference
            if o == ro == "ok":
                against = f"{w / rw:.2f}x, {p / rp:.2f}x"
        sizes = " / ".join(size_label(b) for _, b in runs)
        line = f"| {name} | {sizes} | " + " | ".join(cells) + f" | {growths[0]} | {growths[1]} | {against} |"
        self.lines.append(line)
        print(line, flush=True)

    def main(self):
        self.header = (f"{run.machine()}\nBinary: {self.args.tpulint}\n"
                       f"Command: `bench/hostile_python.py {' '.join(sys.argv[1:])}`\n")
        print(self.header)
        head = ("| file | sizes (N / 2N / 4N) | N | 2N | 4N | time 2N/N | time 4N/2N "
                "| 4N against ordinary code (time, memory) |")
        self.lines += [head, "|---|---|---|---|---|---|---|---|"]
        print(head, flush=True)
        try:
            wanted = set(self.args.rows) if self.args.rows else None
            references = []
            for name, generator, n in ROWS:
                if wanted is not None and name not in wanted:
                    continue
                sizes = [int(n * self.args.scale * k) for k in FACTORS]
                runs = [self.measure(generator, s) for s in sizes]
                self.row(name, runs, self.plain_run(sizes[-1]))
                if tuple(sizes) not in references:
                    references.append(tuple(sizes))
            for sizes in references:
                self.row("ordinary code (reference)", [(self.plain_run(s), s) for s in sizes], None)
        finally:
            if self.args.keep:
                print(f"\nfiles kept in {self.work}")
            else:
                shutil.rmtree(self.work, ignore_errors=True)
        if self.args.markdown:
            with open(self.args.markdown, "w") as f:
                f.write(self.header + "\n" + "\n".join(self.lines) + "\n")
            print(f"\nwrote {self.args.markdown}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tpulint", default=os.path.join(ROOT, "build", "tpulint"))
    p.add_argument("--rows", help="only these rows, e.g. comments,calls (default: all)")
    p.add_argument("--scale", type=float, default=1.0, help="multiply every N by this")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--timeout", type=float, default=60, help="seconds one scan may take")
    p.add_argument("--memory-limit", type=int, default=4096, help="address space of a scan, MB")
    p.add_argument("--keep", action="store_true", help="keep the generated files")
    p.add_argument("--markdown", help="write the table to this file")
    args = p.parse_args()
    args.rows = [r for r in args.rows.split(",") if r] if args.rows else None
    known = {name for name, _, _ in ROWS}
    if args.rows and not set(args.rows) <= known:
        p.error(f"unknown rows: {', '.join(sorted(set(args.rows) - known))}; known: {', '.join(n for n, _, _ in ROWS)}")
    if not os.access(args.tpulint, os.X_OK):
        p.error(f"{args.tpulint}: not an executable (build it: make build)")
    Bench(args).main()


if __name__ == "__main__":
    main()
