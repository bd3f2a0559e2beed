"""Win rate and Glory by the engine's seat groups (the ``groups`` sums of :mod:`analysis.suffstats`).

An engine may name groups of seats beside strategy and seat (``BatchOut.groups`` and the rule
set's ``group_names``); Valhalla, the dice game, has three: the seat's **Jarl**, its **Valhalla
clan** (the clan with most Warriors in its Valhalla at the end) and **how the game ended**.

Per dimension and value: the win rate of the clans in that group over all strategies (strategy
``*``, cluster-robust interval over seed blocks), its difference from the average clan (the mean
win share, 1/N per game: win shares sum to 1) with a z-test corrected by Benjamini–Hochberg over
the values of the dimension, mean Glory by source, and the same rates per strategy. A group is
what the clan had or did, not a random assignment: the figures are associations (``volva ablate``
measures a Jarl's or a card's effect).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as _st

from volva.analysis.aggregate import rate_table, source_means
from volva.analysis.intervals import ALPHA, correct
from volva.analysis.suffstats import ALL, WIN_UNIT, Stats


def by_group(st: Stats, alpha: float = ALPHA) -> dict[str, dict]:
    """{dimension: {"pooled": one row per value, "strategy": one row per (strategy, value),
    "average": the average clan's win rate, "per_game": True for a value every clan of a game
    shares (then every pooled rate is the average by construction: ``fixed``, not tested)}}, empty
    without group sums. Pooled columns: value, aggregate.RATE_COLUMNS, ``vs_average`` (win rate −
    the average clan's), ``p_value``, ``p_adj`` (BH over the dimension's tested values),
    ``significant``, ``share`` (of all clans) and mean Glory per source (``glory_<source>``)."""
    g = st["groups"]
    out: dict[str, dict[str, pd.DataFrame]] = {}
    if not len(g):
        return out
    for dim in pd.unique(g["dimension"].astype(str)):
        t = g[g["dimension"].astype(str) == dim]
        every = t[t["strategy"] == ALL]
        pooled = rate_table(every, ["value"])
        average = every["w"].sum() / WIN_UNIT / max(int(every["n"].sum()), 1)
        pooled["share"] = pooled["n"] / max(int(every["n"].sum()), 1)
        pooled["vs_average"] = pooled["win_rate"] - average
        if np.allclose(pooled["vs_average"].to_numpy(float), 0.0, atol=1e-9):
            pooled["fixed"] = True  # a value every clan of a game shares (how it ended): 1/N by construction
        se = pooled["se"].to_numpy(float)
        tested = ~pooled["small"].to_numpy(bool) & ~pooled["fixed"].to_numpy(bool) & (se > 0)
        z = np.divide(pooled["vs_average"].to_numpy(float), se, out=np.zeros(len(se)), where=se > 0)
        pooled["p_value"] = np.where(tested, 2 * _st.norm.sf(np.abs(z)), np.nan)
        pooled["p_adj"] = correct(pooled["p_value"], tested, alpha)[0]
        pooled["significant"] = pooled["p_adj"] < alpha
        src = source_means(every, ["value"]).drop(columns="n")
        pooled = pooled.merge(src.rename(columns={c: f"glory_{c}" for c in src.columns if c != "value"}),
                              on="value", how="left")
        strat = rate_table(t[t["strategy"] != ALL], ["strategy", "value"])
        out[dim] = {"pooled": pooled.sort_values("win_rate", ascending=False).reset_index(drop=True),
                    "strategy": strat, "average": average, "per_game": bool(pooled["fixed"].all())}
    return out
