"""Soak run (not a test): many seeded games under the invariant checker, across rule sets, player
counts, Gods of Ásgard and Rainbow Bridge; prints the count, the violations (must be 0) and the
wall time, per configuration and in total.

    python bench/soak.py [--games 10000000] [--batch 20000] [--seed 1] [--lineup greedy|random|mixed]

The games are split evenly over the configurations below; every game runs the invariant checks
after each action and phase (``check=True``: the same checker as ``volva run --check``). A
violation prints its configuration, seed and invariant code, and the exit code is 1. Lineups:
``greedy`` (the default bots), ``random`` (uniform over legal choices: reaches odd states) or
``mixed`` (alternating seats). Exit code 0 means every game passed.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: (label, rule set, options, player counts)
CONFIGS = [
    ("blood-rage", "blood-rage", None, (2, 3, 4, 5)),
    ("blood-rage + gods-of-asgard", "blood-rage", {"gods_of_asgard": True}, (2, 3, 4, 5)),
    ("valhalla", "valhalla", None, (3, 4, 5)),
    ("rainbow-bridge", "rainbow-bridge", None, (3, 4, 5)),
]


def _ruleset(name: str, options):
    from volva.simulator import engines
    if name == "rainbow-bridge":  # Blood Rage, then Blood Rage: Valhalla (DIGEST §4)
        from volva.simulator.rainbow import load
        return load()
    return engines.load_ruleset(name, options=options)


def _lineup(rs_name: str, P: int, kind: str):
    """(kind, params) per seat; Rainbow Bridge: (Blood Rage's, Valhalla's) per seat."""
    from volva.strategies.lineup import resolve_for
    names = {"greedy": ["greedy"] * P, "random": ["random"] * P,
             "mixed": [("greedy" if i % 2 == 0 else "random") for i in range(P)]}[kind]
    if rs_name == "rainbow-bridge":
        base, vh = resolve_for("blood-rage"), resolve_for("valhalla")
        return [(base(n), vh(n)) for n in names]
    resolve = resolve_for("valhalla" if rs_name == "valhalla" else "blood-rage")
    return [resolve(n) for n in names]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000_000)
    ap.add_argument("--batch", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lineup", choices=("greedy", "random", "mixed"), default="mixed")
    a = ap.parse_args()
    from volva.simulator import engines
    runs = [(label, rs_name, opts, P) for label, rs_name, opts, Ps in CONFIGS for P in Ps]
    per = -(-a.games // len(runs))
    total = bad = 0
    t0 = time.perf_counter()
    print(f"soak: {per * len(runs):,} games in {len(runs)} configurations, lineup {a.lineup}, invariant checks on")
    for k, (label, rs_name, opts, P) in enumerate(runs):
        rs = _ruleset(rs_name, opts)
        lineup = _lineup(rs_name, P, a.lineup)
        t = time.perf_counter()
        done = viol = 0
        while done < per:
            g = min(a.batch, per - done)
            seeds = engines.game_seeds(a.seed + k, done, g)
            out = engines.play_batch(rs, lineup, seeds, check=True)
            hit = np.flatnonzero(out.violation)
            for i in hit[:5]:
                print(f"  VIOLATION {label} {P}p: seed {int(seeds[i])} invariant {int(out.violation[i])}")
            viol += len(hit)
            done += g
        total += done
        bad += viol
        dt = time.perf_counter() - t
        print(f"{label:>28} {P}p: {done:>10,} games, {viol} violations, {dt:8.1f} s ({done / dt:,.0f} games/s)")
    wall = time.perf_counter() - t0
    print(f"total: {total:,} games, {bad} violations, {wall:.0f} s wall ({total / wall:,.0f} games/s)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
