"""Cold compile of one engine (not a test): a fresh process with an empty numba cache, import +
first game, as bench/engine.py measures it; prints the seconds.

    python bench/cold.py [--ruleset blood-rage] [--players 4 | --lineup A,B,C,D] [--repeat 1]

The first-game snippet is read from ``bench/engine.py`` of the checkout in the working directory,
so the same command times any commit, old API or new, under bench/ab.py:

    python bench/ab.py b9dd0f7 HEAD -n 5 -- python /path/to/bench/cold.py

(the figure ab.py compares is the wall time of the whole command, cold compile included).
"""
from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def first_game_snippet(checkout: Path) -> str:
    """The FIRST_GAME string of ``checkout/bench/engine.py`` (a module-level assignment)."""
    tree = ast.parse((checkout / "bench" / "engine.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "FIRST_GAME" for t in node.targets):
            return ast.literal_eval(node.value)
    raise SystemExit(f"error: {checkout / 'bench' / 'engine.py'}: no FIRST_GAME snippet")


def cold_seconds(checkout: Path, ruleset: str, lineup: list[str]) -> float:
    """Seconds of import + first game in a fresh process whose kernel cache starts empty."""
    code = first_game_snippet(checkout).format(lineup=lineup, ruleset=ruleset)
    with tempfile.TemporaryDirectory(prefix="volva-cold-") as cache:
        env = dict(os.environ, VOLVA_CACHE_DIR=cache, PYTHONPATH=str(checkout))
        env.pop("NUMBA_CACHE_DIR", None)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True, cwd=checkout)
        return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="blood-rage")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--lineup", default=None, help="strategy names, comma-separated (default: greedy per player; "
                    "Valhalla: e.g. thor,loki,quester,warlord)")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    lineup = a.lineup.split(",") if a.lineup else ["greedy"] * a.players
    for _ in range(a.repeat):
        print(f"cold compile s: {cold_seconds(Path.cwd(), a.ruleset, lineup):.1f}", flush=True)


if __name__ == "__main__":
    main()
