"""The god sweep of a Valhalla study: every ordered god combination ("gods") or every set of
3 gods ("god-sets"), cycled through the games so each combination is played equally often."""
from __future__ import annotations

import numpy as np

SWEEPS = ("gods", "god-sets")  #: --sweep: every ordered god combination / every set of 3 gods


def sweep_combos(ruleset, sweep: str) -> list[tuple[int, int, int, int]]:
    """The god plans of a sweep: "gods" -> every ordered choice of 3 gods (60 of 5), "god-sets"
    -> every set of 3 (10 of 5; the order is drawn in each game). (age1, age2, age3, shuffle)."""
    from itertools import combinations, permutations
    n = int(ruleset.tables.n_gods)
    if sweep == "gods":
        return [(a, b, c, 0) for a, b, c in permutations(range(n), 3)]
    if sweep == "god-sets":
        return [(a, b, c, 1) for a, b, c in combinations(range(n), 3)]
    raise ValueError(f"--sweep {sweep!r}; allowed: {', '.join(SWEEPS)}")


def god_plan_for(ruleset, game_ids, period: int):
    """int8[G, 4] god plans of games ``game_ids`` under ``ruleset.sweep`` (None: no sweep).
    Game g plays combination (g // period) mod n_combos: the rotations of one seed share the gods,
    and n_combos * period consecutive games play every combination in every rotation once."""
    sweep = getattr(ruleset, "sweep", None)
    if not sweep:
        return None
    combos = np.array(sweep_combos(ruleset, sweep), np.int8)
    ids = np.asarray(game_ids, np.int64)
    return combos[(ids // max(int(period), 1)) % len(combos)]
