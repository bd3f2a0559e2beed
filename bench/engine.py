"""Engine benchmark (not a test): prints games/s, compile and start-up seconds, peak RSS.

    python bench/engine.py [--games 100000] [--players 4] [--lineup greedy,greedy,greedy,greedy]
                           [--ruleset valhalla]

Figures:
- cold compile s: a fresh process with an empty numba cache, import + first game;
- cached start s: a fresh process with the warm cache, import + first game;
- games/s: complete games per second after warm-up, all numba threads;
- `volva run --games 1000` s: the whole command, warm cache;
- peak RSS: of this process after the timed run.
A correctness check (no invariant violation in 1,000 checked games) runs before timing.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FIRST_GAME = """
import time, numpy as np
t = time.perf_counter()
from volva.simulator import engines
from volva.strategies.lineup import resolve_for
r = engines.load_ruleset({ruleset!r})
resolve = resolve_for(engines.get(r).name)
engines.play_batch(r, [resolve(n) for n in {lineup!r}], engines.game_seeds(1, 0, 1))
print(time.perf_counter() - t)
"""


def _first_game_seconds(lineup: list[str], cache_dir: str, ruleset: str) -> float:
    env = dict(os.environ, VOLVA_CACHE_DIR=cache_dir, PYTHONPATH=str(ROOT))
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", FIRST_GAME.format(lineup=lineup, ruleset=ruleset)], env=env, check=True,
                         capture_output=True, text=True, cwd=ROOT).stdout
    return float(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--lineup", default=None)
    ap.add_argument("--skip-cold", action="store_true", help="skip the cold-compile measurement")
    ap.add_argument("--module", action="append", default=[], help="rule module, e.g. gods-of-asgard")
    ap.add_argument("--ruleset", default="blood-rage", help="a rule set (simulator.engines.names(); default blood-rage)")
    a = ap.parse_args()
    lineup = (a.lineup or ",".join(["greedy"] * a.players)).split(",")

    import numba

    from volva.simulator import engines
    from volva.strategies.lineup import resolve_for

    rows = []
    if not a.skip_cold:
        with tempfile.TemporaryDirectory() as cold:
            rows.append(("cold compile (import + first game), s", f"{_first_game_seconds(lineup, cold, a.ruleset):.1f}"))
    from volva.simulator import CACHE_DIR
    rows.append(("cached start (import + first game), s",
                 f"{_first_game_seconds(lineup, str(CACHE_DIR.parent), a.ruleset):.2f}"))

    r = engines.load_ruleset(a.ruleset, options={m.replace("-", "_"): True for m in a.module})
    resolve = resolve_for(engines.get(r).name)  # the strategies of the engine that plays the rule set
    pols = [resolve(n) for n in lineup]
    check = engines.play_batch(r, pols, engines.game_seeds(99, 0, 1000), check=True)
    assert not check.violation.any(), "invariant violation: fix the engine before timing it"
    engines.play_batch(r, pols, engines.game_seeds(1, 0, 2000))  # warm-up
    t = time.perf_counter()
    done = 0
    while done < a.games:
        n = min(50_000, a.games - done)
        engines.play_batch(r, pols, engines.game_seeds(1, done, n))
        done += n
    dt = time.perf_counter() - t
    mods = f", {'+'.join(a.module)}" if a.module else ""
    rows.append((f"games/s ({a.ruleset}, {a.players} players, {','.join(lineup)}{mods}, "
                 f"{numba.get_num_threads()} threads)",
                 f"{a.games / dt:,.0f}"))
    rows.append(("peak RSS of this process, MiB", f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}"))

    volva = Path(sys.executable).with_name("volva")
    if volva.exists():
        with tempfile.TemporaryDirectory() as out:
            t = time.perf_counter()
            subprocess.run([str(volva), "run", "--ruleset", a.ruleset, "--players", str(a.players),
                            "--lineup", ",".join(lineup),
                            "--games", "1000", "--seed", "1", "--out", out], check=True, capture_output=True)
            rows.append(("`volva run --games 1000` (warm cache), s", f"{time.perf_counter() - t:.2f}"))

    print("| figure | value |\n|---|---|")
    for k, v in rows:
        print(f"| {k} | {v} |")


if __name__ == "__main__":
    main()
