"""Two commands on this checkout, timed alternately (not a test): A B A B ..., each run's wall time
(the whole process, start-up included), the medians and the pair-by-pair ratio B/A. As in
bench/ab.py, a speed claim is the median ratio of one such run on one machine.

    python bench/pair.py [-n 5] [--warmup 1] --a 'COMMAND A' --b 'COMMAND B'

e.g. one process on two numba threads (A) against a local cluster of two one-thread workers (B):

    python bench/pair.py -n 5 \\
      --a 'volva study --no-report --games 40000 --threads 2 --out /tmp/pair-a --force' \\
      --b 'volva study --no-report --games 40000 --workers 2 --threads 1 --out /tmp/pair-b --force'

Each command is split as a shell splits words and run without a shell; a failing run stops the
script with its exit code and the command's last error line.
"""
from __future__ import annotations

import argparse
import shlex
import statistics
import subprocess
import sys
import time


def timed(argv: list[str]) -> float:
    """Wall seconds of one run of ``argv``; exits (code 1) with its last error line if it fails."""
    t = time.perf_counter()
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or ["(no output)"])[-1]
        sys.exit(f"error: {shlex.join(argv)} exited {r.returncode}: {last}")
    return dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", required=True, help="command A (the yardstick)")
    ap.add_argument("--b", required=True, help="command B")
    ap.add_argument("-n", type=int, default=5, help="timed pairs (default 5)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed pairs first (default 1)")
    a = ap.parse_args()
    cmd_a, cmd_b = shlex.split(a.a), shlex.split(a.b)
    for _ in range(a.warmup):
        timed(cmd_a)
        timed(cmd_b)
    ta, tb = [], []
    for i in range(a.n):
        ta.append(timed(cmd_a))
        tb.append(timed(cmd_b))
        print(f"pair {i + 1}: A {ta[-1]:.2f} s  B {tb[-1]:.2f} s  B/A {tb[-1] / ta[-1]:.3f}", flush=True)
    ratios = [y / x for x, y in zip(ta, tb)]
    print(f"A median {statistics.median(ta):.2f} s (min {min(ta):.2f}, max {max(ta):.2f})")
    print(f"B median {statistics.median(tb):.2f} s (min {min(tb):.2f}, max {max(tb):.2f})")
    print(f"B/A median {statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f}) over {a.n} pairs")


if __name__ == "__main__":
    main()
