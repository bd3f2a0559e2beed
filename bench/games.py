"""Engine-only play of one rule set in one process (not a test): import, a 200-game warm-up, then
``--games`` games in batches of 50,000; prints the games/s of the timed part.

    python bench/games.py [--games 40000] [--ruleset blood-rage] [--players 4] [--threads T] [--root DIR]

Written to run unchanged against old commits, so that two commits can be timed side by side as
whole processes (each from its own worktree and venv, alternated):

    python bench/ab.py b9dd0f7 HEAD -n 7 -- python "$PWD/bench/games.py" --games 40000

``--root`` (default: the working directory) is the checkout whose code plays: the installed
``volva`` package, or for commits before the ``volva`` namespace its top-level ``simulator``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time


def engine(ruleset: str, players: int, root: str):
    """(play(seeds), seeds(first, n)) for 4-player greedy games of ``ruleset``, either layout."""
    try:
        from volva.simulator import engines
        from volva.strategies.lineup import resolve_for
        r = engines.load_ruleset(ruleset)
        pols = [resolve_for(engines.get(r).name)("greedy")] * players
        return (lambda s: engines.play_batch(r, pols, s)), (lambda first, n: engines.game_seeds(1, first, n))
    except ImportError:  # before the volva namespace (b9dd0f7 and older)
        sys.path.insert(0, root)
        from simulator.ruleset import load_ruleset

        from simulator import api
        from strategies.builtin import resolve
        r = load_ruleset(ruleset)
        if getattr(r, "engine", "") == "valhalla":
            from strategies.valhalla import resolve
        pols = [resolve("greedy")] * players
        return (lambda s: api.play_batch(r, pols, s)), (lambda first, n: api.game_seeds(1, first, n))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40_000)
    ap.add_argument("--ruleset", default="blood-rage")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--threads", type=int, default=None, help="numba threads (default: numba's)")
    ap.add_argument("--root", default=os.getcwd())
    a = ap.parse_args()
    import numba
    if a.threads:
        numba.set_num_threads(a.threads)
    play, seeds = engine(a.ruleset, a.players, a.root)
    play(seeds(0, 200))
    t = time.perf_counter()
    for first in range(0, a.games, 50_000):
        play(seeds(first, min(50_000, a.games - first)))
    dt = time.perf_counter() - t
    print(f"{a.ruleset}, {a.players} greedy, {numba.get_num_threads()} threads: {a.games / dt:,.0f} games/s")


if __name__ == "__main__":
    main()
