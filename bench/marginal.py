"""Marginal games/s of user commands against the engine alone, in one run (not a test).

    python bench/marginal.py [-n 5] [--small 1000] [--large 40000] [--threads T] \\
        [--ruleset blood-rage] [--lineup A,B,C,D] -- 'volva study --no-report --out /tmp/m-s --force' \\
        'volva run --no-keep-rows --out /tmp/m-r --force' ...

Each round runs the engine alone (this script with ``--engine-only``: the batches of ``volva run``,
seat rotation included, played and dropped) and then every command, each at ``--small`` and at
``--large`` games (``--games K`` is appended; so are ``--ruleset``, and ``--threads`` and ``--lineup`` when given).
The marginal rate is (large - small) / (t_large - t_small), whole-process wall times, so start-up
and compile drop out. A round's ratio is the command's marginal rate over the engine's in the
same round; the medians over the rounds are printed. Run it on an otherwise idle machine.
"""
from __future__ import annotations

import argparse
import shlex
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pair import timed  # noqa: E402  (bench/pair.py: one timed run, exits on failure)


def engine_only(games: int, threads: int | None, ruleset: str, lineup: str | None, batch: int = 10_000) -> None:
    """Play ``games`` four-player games of ``lineup`` as ``volva run`` does, no reduction."""
    from volva.analysis import runner, session
    rs, names, pols = session.setup(4, lineup, None, ruleset, None, None, None)
    session.set_threads(threads)
    for first in range(0, games, batch):
        runner.play_batch_outs(rs, names, pols, 1, first, min(batch, games - first), True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("commands", nargs="*", help="commands to compare with the engine")
    ap.add_argument("-n", type=int, default=5, help="rounds (default 5)")
    ap.add_argument("--small", type=int, default=1000)
    ap.add_argument("--large", type=int, default=40_000)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--ruleset", default="blood-rage")
    ap.add_argument("--lineup", default=None, help="four strategies (default: the rule set's default lineup)")
    ap.add_argument("--engine-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--games", type=int, default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.engine_only:
        return engine_only(a.games, a.threads, a.ruleset, a.lineup)
    extra = ((["--threads", str(a.threads)] if a.threads else []) + ["--ruleset", a.ruleset]
             + (["--lineup", a.lineup] if a.lineup else []))
    engine = [sys.executable, __file__, "--engine-only", *extra]
    cmds = [("engine", engine)] + [(c, shlex.split(c) + extra) for c in a.commands]
    rates: dict[str, list[float]] = {name: [] for name, _ in cmds}
    for rnd in range(a.n):
        for name, argv in cmds:
            t_small = timed(argv + ["--games", str(a.small)])
            t_large = timed(argv + ["--games", str(a.large)])
            rates[name].append((a.large - a.small) / (t_large - t_small))
        print(f"round {rnd + 1}: " + ", ".join(f"{rates[n][-1]:,.0f}" for n, _ in cmds), flush=True)
    eng = rates["engine"]
    print(f"\n{'command':70s} {'median games/s':>15s} {'/ engine (median of rounds)':>28s}")
    for name, _ in cmds:
        ratio = [r / e for r, e in zip(rates[name], eng)]
        print(f"{name[:70]:70s} {statistics.median(rates[name]):15,.0f} {statistics.median(ratio):17.3f} "
              f"({min(ratio):.3f}-{max(ratio):.3f})")


if __name__ == "__main__":
    main()
