"""Two numba threads against one for any Volva command, in one run (not a test).

    python bench/threads.py [-n 5] [--small 2000] [--large 40000] -- volva compare --patch P.toml --out /tmp/t --force

Each round runs COMMAND with ``--threads 1`` at ``--small`` and ``--large`` games (``--games K``
appended), then the same with ``--threads 2``; the marginal rate of each thread count is the
extra games over the extra wall seconds (start-up, compile and the report drop out), and a
round's ratio is the two-thread rate over the one-thread rate. Rounds alternate the thread counts
(1 2 1 2 ...), so a drift of the machine's speed falls on both; the medians are printed. For a
paired command (compare, ablate) a game is one game in each arm. Run it on an otherwise idle machine.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pair import timed  # noqa: E402  (bench/pair.py: one timed run, exits on failure)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", nargs=argparse.REMAINDER, help="the command (after --)")
    ap.add_argument("-n", type=int, default=5, help="rounds (default 5)")
    ap.add_argument("--small", type=int, default=2_000)
    ap.add_argument("--large", type=int, default=40_000)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        ap.error("no command; give it after --")
    timed(cmd + ["--threads", "1", "--games", str(a.small)])  # warm-up: the kernel cache
    rates: dict[int, list[float]] = {1: [], 2: []}
    for rnd in range(a.n):
        for th in (1, 2):
            argv = cmd + ["--threads", str(th), "--games"]
            small, large = timed(argv + [str(a.small)]), timed(argv + [str(a.large)])
            rates[th].append((a.large - a.small) / (large - small))
        print(f"round {rnd + 1}: 1 thread {rates[1][-1]:,.0f} games/s, 2 threads {rates[2][-1]:,.0f} games/s, "
              f"ratio {rates[2][-1] / rates[1][-1]:.3f}", flush=True)
    ratio = [y / x for x, y in zip(rates[1], rates[2])]
    print(f"{' '.join(cmd)}: marginal games/s, {a.small:,} -> {a.large:,} games, medians of {a.n} rounds")
    for th in (1, 2):
        print(f"  {th} thread{'s' if th > 1 else ''}: {statistics.median(rates[th]):,.0f} games/s")
    print(f"  2 threads / 1 thread: median {statistics.median(ratio):.3f} (min {min(ratio):.3f}, max {max(ratio):.3f})")


if __name__ == "__main__":
    main()
