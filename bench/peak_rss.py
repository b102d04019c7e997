#!/usr/bin/env python3
"""Peak resident memory of a command and every process it starts, summed at each sample.

/usr/bin/time reports the largest single process; a scan's memory is its parent's plus its
workers' at the same moment. Samples /proc every 50 ms (a process that grows faster than that
between samples is under-counted by at most that much growth).

Usage: bench/peak_rss.py COMMAND [ARGS...]   (prints the exit code, the peak in MB and the wall time)
"""
import os
import subprocess
import sys
import time


def tree_rss(root):
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry))
        except (OSError, ValueError, IndexError):
            pass
    total, todo = 0, [root]
    page = os.sysconf("SC_PAGE_SIZE")
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            with open(f"/proc/{pid}/statm") as f:
                total += int(f.read().split()[1]) * page
        except (OSError, ValueError, IndexError):
            pass
    return total


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    start = time.monotonic()
    process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
    peak = 0
    while process.poll() is None:
        peak = max(peak, tree_rss(process.pid))
        time.sleep(0.05)
    print(f"exit {process.returncode}  peak {peak / 2**20:.0f} MB  wall {time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    main()
