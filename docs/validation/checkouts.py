#!/usr/bin/env python3
"""Writes the labeled repositories' trees at their pinned commits, for verdicts.py to scan.

For each row of docs/validation/verdicts.tsv in the given halves, the tree at the row's commit is
written to the row's local_checkout_path (or under --root, as owner+name), from a bare git
repository of it: --mirrors/<owner>+<name>/repo (the layout of the stored snapshots; a `repo/.git` too), or any git
directory given as --mirrors with the same naming. Blobs the snapshot lacks (large binaries, LFS
pointers) are left out and counted, as in the labels ("files >= 4 MiB are absent"). A tree already
there is kept. Nothing is downloaded: a repository without a mirror is listed, to be fetched first
(`git clone --bare https://github.com/<owner>/<name> <mirrors>/<owner>+<name>/repo`).

usage:
  docs/validation/checkouts.py HALF [HALF ...] [--mirrors /work/.mirror] [--root DIR]
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the project for the import below
import verdicts  # noqa: E402  (the one reader of verdicts.tsv)


def rows(halves):
    for half in halves:
        for row in verdicts.read_labels(half):
            yield {"repo": row["repo"], "commit": row["commit"], "path": row["local_checkout_path"]}


def git(git_dir, *args, **kwargs):
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=False, capture_output=True, **kwargs)


def write_tree(git_dir, commit, out):
    listing = git(git_dir, "ls-tree", "-r", "-z", commit)
    if listing.returncode != 0:
        return None, f"commit {commit} is not in {git_dir}"
    blobs = []
    for entry in listing.stdout.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        _, kind, sha = meta.split(b" ")
        if kind == b"blob":  # submodules are absent, as in the labels
            blobs.append((sha, path))
    # One `cat-file --batch` for the whole tree: a process per blob took minutes on large trees.
    batch = subprocess.Popen(["git", "--git-dir", git_dir, "cat-file", "--batch"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    written = missing = 0
    for sha, path in blobs:
        batch.stdin.write(sha + b"\n")
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if len(header) != 3:  # "<sha> missing": a blob the snapshot left out
            missing += 1
            continue
        data = batch.stdout.read(int(header[2]))
        batch.stdout.read(1)  # the newline after each object
        target = os.path.join(out, os.fsdecode(path))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
        written += 1
    batch.stdin.close()
    batch.wait()
    return (written, missing), None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("halves", nargs="+")
    parser.add_argument("--mirrors", default="/work/.mirror")
    parser.add_argument("--root", help="write each tree to ROOT/owner+name instead of the row's local path")
    args = parser.parse_args()
    unavailable = []
    for row in rows(args.halves):
        name = row["repo"].replace("/", "+")
        out = os.path.join(args.root, name) if args.root else row["path"]
        if os.path.isdir(out) and os.listdir(out):
            print(f"{row['repo']}: kept {out}")
            continue
        git_dir = os.path.join(args.mirrors, name, "repo")
        if os.path.isdir(os.path.join(git_dir, ".git")):
            git_dir = os.path.join(git_dir, ".git")  # a snapshot with a work tree
        if not os.path.isdir(git_dir):
            unavailable.append(row["repo"])
            continue
        counts, error = write_tree(git_dir, row["commit"], out)
        if error:
            unavailable.append(f"{row['repo']} ({error})")
            continue
        print(f"{row['repo']}: {counts[0]} files at {row['commit'][:10]} in {out}"
              + (f", {counts[1]} blobs absent from the snapshot" if counts[1] else ""))
    if unavailable:
        print("no mirror (fetch them first):\n  " + "\n  ".join(unavailable), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
