"""Tuning benchmark (not a test): is `volva tune` close to the engine's rate?

    python bench/tune.py [--trials 30] [--seed-blocks 40] [--league greedy,balanced,thor-warlord]
                         [--repeat 5] [--volva PATH]

Alternates two whole processes, A B A B ... (`--repeat` pairs), and prints the medians:
- A: `volva tune` searching ``--trials`` candidates (no polish, the smallest check), each
  candidate playing ``seed-blocks x 4 seats x league`` games in batches of ``seed-blocks`` games;
- B: `volva run --no-keep-rows` of the same number of games in one lineup (the engine's rate on
  the user's path, batches of 10,000);
and the ratio of their games/s pair by pair (A/B; 1.0 = tuning runs at the engine's rate). Both
include start-up (import, cached compile), so short runs understate both rates alike. Pass
``--volva`` to time another checkout's `volva` (e.g. an old ref's venv) the same way.

``--league default`` plays volva tune's own default league (every library strategy but random).
``--threads-ratio`` times `volva tune` itself on 2 threads against 1: each round runs the search
on 1 thread with 2 trials and with ``--trials``, then the same on 2 threads (whole processes, the
checks included at ``--check-blocks``); the marginal rate of each thread count is the extra
games over the extra seconds (start-up drops out), and the median of the rounds' ratios is printed.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--seed-blocks", type=int, default=40)
    ap.add_argument("--league", default="greedy,balanced,thor-warlord",
                    help="opponents; 'default': volva tune's own default league (every library strategy but random)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--volva", default=str(Path(sys.executable).parent / "volva"))
    ap.add_argument("--threads-ratio", action="store_true", help="2 threads against 1 (marginal rates)")
    ap.add_argument("--check-blocks", type=int, default=2)
    a = ap.parse_args()
    if a.threads_ratio:
        return threads_ratio(a)
    default = a.league == "default"
    league = default_league(a.volva) if default else a.league.split(",")
    games = a.trials * a.seed_blocks * 4 * len(league)
    tmp = Path(tempfile.mkdtemp(prefix="volva-bench-tune-"))
    tune = [a.volva, "tune", "--out", str(tmp / "tune"), "--force", "--trials", str(a.trials), "--seed-blocks",
            str(a.seed_blocks), *([] if default else ["--league", a.league]), "--polish-rounds", "0",
            "--check-blocks", "2", "--name", "b"]
    run = [a.volva, "run", "--out", str(tmp / "run"), "--force", "--no-keep-rows", "--games", str(games),
           "--lineup", ",".join((league * 4)[:4])]
    try:
        timed(tune[:6] + ["1"] + tune[7:])  # warm-up: the kernel cache
        ta, tb = [], []
        for _ in range(a.repeat):
            ta.append(timed(tune))
            tb.append(timed(run))
        ratio = [(games / x) / (games / y) for x, y in zip(ta, tb)]
        print(f"{games:,} games each; medians of {a.repeat} alternated pairs (whole processes)")
        print(f"  volva tune: {statistics.median(ta):.2f} s, {games / statistics.median(ta):,.0f} games/s")
        print(f"  volva run : {statistics.median(tb):.2f} s, {games / statistics.median(tb):,.0f} games/s")
        print(f"  tune/run games/s ratio: median {statistics.median(ratio):.3f} (min {min(ratio):.3f}, "
              f"max {max(ratio):.3f})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def default_league(volva: str) -> list[str]:
    """volva tune's default league (analysis.session.tune_setup), asked of ``volva``'s own Python."""
    code = ("from volva.strategies.lineup import library; "
            "print(','.join(n for n, _ in library('blood-rage') if n != 'random'))")
    out = subprocess.run([str(Path(volva).parent / "python"), "-c", code], check=True, capture_output=True, text=True)
    return out.stdout.strip().split(",")


def threads_ratio(a) -> None:
    default = a.league == "default"
    league = default_league(a.volva) if default else a.league.split(",")
    per_trial = a.seed_blocks * 4 * len(league)
    tmp = Path(tempfile.mkdtemp(prefix="volva-bench-tune-"))

    def cmd(trials: int, threads: int) -> list[str]:
        return [a.volva, "tune", "--out", str(tmp / f"t{threads}"), "--force", "--trials", str(trials),
                "--seed-blocks", str(a.seed_blocks), *([] if default else ["--league", a.league]), "--polish-rounds",
                "0", "--check-blocks", str(a.check_blocks), "--name", "b", "--threads", str(threads)]
    try:
        timed(cmd(2, 1))  # warm-up: the kernel cache
        rates: dict[int, list[float]] = {1: [], 2: []}
        for _ in range(a.repeat):
            for th in (1, 2):
                small, large = timed(cmd(2, th)), timed(cmd(a.trials, th))
                rates[th].append((a.trials - 2) * per_trial / (large - small))
        ratio = [y / x for x, y in zip(rates[1], rates[2])]
        print(f"volva tune, {a.trials} trials x {per_trial:,} games ({len(league)} opponents) against 2 trials; "
              f"medians of {a.repeat} rounds (whole processes, marginal rates)")
        for th in (1, 2):
            print(f"  {th} thread{'s' if th > 1 else ''}: {statistics.median(rates[th]):,.0f} games/s")
        print(f"  2 threads / 1 thread: median {statistics.median(ratio):.3f} (min {min(ratio):.3f}, "
              f"max {max(ratio):.3f})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
