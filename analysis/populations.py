"""Bot populations: the same paired experiment (``volva compare --patch``, ``volva ablate``) played
by several lineups, and a verdict per card on whether its effect survives a change of bots.

A population is a named lineup (``--population NAME=LINEUP``; ``--population default`` adds the
engine's default set, :data:`strategies.lineup.DEFAULT_POPULATIONS`: an archetype field, a greedy
field and a tuned field). Each is played on its own into ``OUT/NAME/`` exactly as a single-lineup
run would be, then the effects are put side by side:

- compare: per card the change of its improvement when drafted (Δ IWD), pooled over the
  population's strategies and the card's ages with inverse-variance weights (rows too small to
  test are left out; ``age`` 0 = all ages), Benjamini–Hochberg over the cards within the
  population;
- ablate: the forced − banned change of win rate of the clans that drafted the card.

Verdict per card (:func:`verdicts`), at level ``alpha``:

- ``consistent``: flagged in every population (each with an estimate), all with the same sign (``size_differs`` says
  whether its size still depends on the bots: Cochran's Q, below);
- ``bot-dependent``: flagged with opposite signs in two populations, or flagged in some and the
  populations' effects differ significantly (Cochran's Q heterogeneity test, BH over the cards):
  the verdict depends on who plays;
- ``partial``: flagged in some populations only, with no significant difference between them
  (the others may simply lack the games to show it);
- ``no effect``: flagged in none and no significant heterogeneity.

Populations play different games, so their estimates are treated as independent.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
from scipy import stats as _st

ALPHA = 0.05
POPULATION_COLUMNS = ["population", "age", "card", "effect", "se", "ci_low", "ci_high", "z", "p_value", "p_adj",
                      "flagged", "n_strategies"]
VERDICT_COLUMNS = ["age", "card", "verdict", "size_differs", "populations", "flagged_up", "flagged_down",
                   "min_effect", "max_effect", "q", "p_heterogeneity", "p_het_adj"]


def parse_populations(specs: list[str], engine: str, players: int, reserved=frozenset()) -> list[tuple[str, str]]:
    """``--population`` values -> [(name, lineup)] in the order given. ``default`` expands to the
    engine's default set; ``reserved``: names a population may not take (what Volva writes in OUT
    itself, session.OUT_FOLDERS). Raises ValueError naming the bad value and what is allowed."""
    from volva.strategies.lineup import default_populations
    out: list[tuple[str, str]] = []
    for s in specs:
        if s.strip() == "default":
            out += list(default_populations(engine, players).items())
            continue
        name, sep, lineup = s.partition("=")
        name, lineup = name.strip(), lineup.strip()
        if not sep or not lineup:
            raise ValueError(f"--population {s!r}; allowed: NAME=LINEUP (e.g. greedy=greedy*4) or 'default'")
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", name):
            raise ValueError(f"--population {s!r}: name {name!r}; allowed: letters, digits, '-' and '_' "
                             "(it names a folder of OUT)")
        if name in reserved:
            raise ValueError(f"--population {s!r}: name {name!r} is a folder Volva writes in OUT itself; "
                             f"allowed: any other name (not {', '.join(sorted(reserved))})")
        out.append((name, lineup))
    if len(out) < 2:
        raise ValueError(f"--population: {len(out)} population(s); allowed: two or more (or 'default'), "
                         "so that a verdict can say whether an effect survives a change of bots")
    names = [n for n, _ in out]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"--population: {twice[0]!r} named twice; name each population once")
    return out


def card_effects(card_iwd: pd.DataFrame, population: str, alpha: float = ALPHA) -> pd.DataFrame:
    """One population's per-card Δ IWD (``analysis.paired.iwd_diff`` rows, pooled over its
    strategies and the card's ages with inverse-variance weights; small rows left out; age 0)
    -> ``POPULATION_COLUMNS``."""
    t = card_iwd[~card_iwd["small"].astype(bool)].copy()
    if not len(t):
        return pd.DataFrame(columns=POPULATION_COLUMNS)
    se = (t["ci_high"] - t["ci_low"]) / (2 * _st.norm.ppf(1 - alpha / 2))
    t = t.assign(w=1.0 / se ** 2, wd=t["d_iwd"] / se ** 2)
    g = t.groupby("card", sort=True).agg(w=("w", "sum"), wd=("wd", "sum"),
                                         n_strategies=("strategy", "nunique")).reset_index()
    eff = g["wd"] / g["w"]
    se = 1.0 / np.sqrt(g["w"])
    return _finish(g[["card"]].assign(age=0, effect=eff, se=se, n_strategies=g["n_strategies"]), population, alpha)


def ablate_effect(table: pd.DataFrame, card: str, population: str, alpha: float = ALPHA) -> pd.DataFrame:
    """One population's ablation (``analysis.paired.ablate_table``): the forced − banned change of
    win rate of the clans that drafted ``card`` -> ``POPULATION_COLUMNS`` (age 0: every age played).
    Empty when no clan drafted it."""
    row = table[(table["group"] == "drafted it (forced arm)") & (table["strategy"] == "(all)")]
    if not len(row) or not np.isfinite(row["ci_low"].iloc[0]):
        return pd.DataFrame(columns=POPULATION_COLUMNS)
    r = row.iloc[0]
    se = r["se"]  # cluster-robust over seed blocks (analysis.paired.ablate_table)
    df = pd.DataFrame({"age": [0], "card": [card], "effect": [r["d_win"]], "se": [se],
                       "n_strategies": [int(table.loc[table["group"] == "drafted it (forced arm)", "strategy"]
                                            .ne("(all)").sum())]})
    return _finish(df, population, alpha)


def _finish(df: pd.DataFrame, population: str, alpha: float) -> pd.DataFrame:
    from statsmodels.stats.multitest import multipletests
    z95 = _st.norm.ppf(1 - alpha / 2)
    df = df.copy()
    df.insert(0, "population", population)
    df["ci_low"], df["ci_high"] = df["effect"] - z95 * df["se"], df["effect"] + z95 * df["se"]
    df["z"] = np.where(df["se"] > 0, df["effect"] / df["se"], 0.0)
    df["p_value"] = 2 * _st.norm.sf(np.abs(df["z"]))
    df["p_adj"] = multipletests(df["p_value"], method="fdr_bh")[1] if len(df) else []
    df["flagged"] = df["p_adj"] < alpha
    return df[POPULATION_COLUMNS]


def verdicts(long: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """Per (age, card) over the populations of ``long`` (``POPULATION_COLUMNS`` rows): the verdict
    (module doc), how many populations had it, flagged up/down, the smallest and largest effect,
    Cochran's Q and its p-value with BH over the cards (``p_het_adj``). Sorted: bot-dependent,
    consistent, partial, no effect; then by the largest |effect|."""
    from statsmodels.stats.multitest import multipletests
    total = long["population"].nunique()
    rows = []
    # a population whose card rows were all too small leaves se/effect empty (object dtype): numbers
    long = long.assign(se=pd.to_numeric(long["se"], errors="coerce"), effect=pd.to_numeric(long["effect"], errors="coerce"))
    for (age, card), g in long.groupby(["age", "card"], sort=True):
        g = g[np.isfinite(g["se"]) & (g["se"] > 0)]
        if not len(g):
            continue
        w = 1.0 / g["se"].to_numpy() ** 2
        e = g["effect"].to_numpy()
        q = float(np.sum(w * (e - np.sum(w * e) / np.sum(w)) ** 2)) if len(g) > 1 else 0.0
        p_het = float(_st.chi2.sf(q, len(g) - 1)) if len(g) > 1 else 1.0
        up = int((g["flagged"] & (g["effect"] > 0)).sum())
        down = int((g["flagged"] & (g["effect"] < 0)).sum())
        rows.append({"age": age, "card": card, "populations": len(g), "flagged_up": up, "flagged_down": down,
                     "min_effect": float(e.min()), "max_effect": float(e.max()), "q": q, "p_heterogeneity": p_het})
    out = pd.DataFrame(rows, columns=[c for c in VERDICT_COLUMNS if c not in ("verdict", "p_het_adj",
                                                                          "size_differs")])
    if not len(out):
        return pd.DataFrame(columns=VERDICT_COLUMNS)
    out["p_het_adj"] = multipletests(out["p_heterogeneity"], method="fdr_bh")[1]
    out["verdict"] = [_verdict(r, alpha, total) for r in out.itertuples()]
    out["size_differs"] = out["p_het_adj"] < alpha
    order = {"bot-dependent": 0, "consistent": 1, "partial": 2, "no effect": 3}
    size = np.maximum(out["min_effect"].abs(), out["max_effect"].abs())
    out = out.assign(_o=out["verdict"].map(order), _s=-size).sort_values(["_o", "_s", "age", "card"], kind="stable")
    return out[VERDICT_COLUMNS].reset_index(drop=True)


def _verdict(r, alpha: float, total: int) -> str:
    differ = r.p_het_adj < alpha
    if r.flagged_up and r.flagged_down:
        return "bot-dependent"
    if r.flagged_up + r.flagged_down == total and total > 1:  # every population, none without an estimate
        return "consistent"
    if r.flagged_up or r.flagged_down:
        return "bot-dependent" if differ else "partial"
    return "bot-dependent" if differ else "no effect"
