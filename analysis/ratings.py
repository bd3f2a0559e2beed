"""Ratings: strategies placed on one Elo scale by a Bradley–Terry model of who finishes above whom.

In every game, each pair of strategies at the table is one comparison: ``a`` beats ``b`` when it
finishes above ``b`` (final Glory, then the rulebook's tie-breaks: the engine's ``rank``); an
equal place counts half to each. The Bradley–Terry model P(a above b) = 1 / (1 + exp(-(r_a - r_b)))
is fitted by binomial maximum likelihood (statsmodels GLM) on the comparison counts, and printed
in Elo points (400 / ln 10 per unit of r): a difference of D points means the higher one finishes
above the other with probability 1 / (1 + 10^(-D / 400)) — 100 points ~ 64%, 200 ~ 76%.

The scale is anchored: ``anchor`` (``greedy`` when it played, else the first name in sorted
order) is 0 by definition and has no interval, so ratings from different runs and fields share
one zero as long as they share the anchor. Intervals are 95% Wald intervals from a
cluster-robust covariance, clustered on the game's seed: all comparisons of one game are
dependent, and a tournament replays the same seeds for every combination.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

ELO = 400.0 / math.log(10.0)  #: Elo points per unit of the Bradley–Terry log-strength
RATINGS_COLUMNS = ["strategy", "elo", "ci_low", "ci_high", "comparisons", "score", "anchor"]
#: a strategy that finished above (or below) every opponent in every comparison has no finite
#: rating: it is reported as +inf (-inf) without an interval and left out of the fit


def comparisons(clans: pd.DataFrame) -> pd.DataFrame:
    """Pairwise results aggregated by (seed, a, b) with a < b in sorted name order.

    ``clans``: the clans table (game_id, seed, seat, strategy, rank; every game with the same
    number of seats). Returns columns seed, a, b (strategy names), n (comparisons), score (a's
    points: 1 per place above b, 0.5 per equal place). A strategy that holds several seats of a
    game is compared with each other strategy once per seat; seats of one strategy are not
    compared with each other (mirror comparisons carry no information about ratings)."""
    df = clans.sort_values(["game_id", "seat"], kind="stable")
    P = int(df.groupby("game_id").size().max())
    names = sorted(df["strategy"].astype(str).unique())
    code = pd.Categorical(df["strategy"].astype(str), categories=names).codes.reshape(-1, P)
    rank = df["rank"].to_numpy().reshape(-1, P)
    seed = df["seed"].to_numpy().reshape(-1, P)[:, 0]
    parts = []
    for s in range(P):
        for t in range(s + 1, P):
            a, b = code[:, s], code[:, t]
            sc = (rank[:, s] < rank[:, t]) + 0.5 * (rank[:, s] == rank[:, t])
            keep = a != b
            lo, hi = np.minimum(a, b), np.maximum(a, b)
            sc = np.where(a < b, sc, 1.0 - sc)
            parts.append(pd.DataFrame({"seed": seed[keep], "a": lo[keep], "b": hi[keep], "score": sc[keep]}))
    long = pd.concat(parts, ignore_index=True)
    out = long.groupby(["seed", "a", "b"], sort=True).agg(n=("score", "size"), score=("score", "sum")).reset_index()
    out["a"] = np.asarray(names, dtype=object)[out["a"].to_numpy()]
    out["b"] = np.asarray(names, dtype=object)[out["b"].to_numpy()]
    return out


def bradley_terry(comp: pd.DataFrame, anchor: str | None = None, z: float = 1.96) -> pd.DataFrame:
    """Fit the model to :func:`comparisons` output; one row per strategy, best first, columns
    ``RATINGS_COLUMNS`` (elo and its interval in Elo points; comparisons and score: how many
    comparisons the strategy took part in and its mean score in them; the interval is NaN when
    the games are too few to estimate it: one seed, or a clustered variance that cannot be
    computed). Raises ValueError when fewer than two strategies met or ``anchor`` did not play."""
    import warnings

    import statsmodels.api as sm
    names = sorted(set(comp["a"]) | set(comp["b"]))
    if len(names) < 2:
        raise ValueError("ratings need at least two strategies that met")
    if anchor is not None and anchor not in names:
        raise ValueError(f"anchor {anchor!r} did not play; allowed: {names}")
    # per-strategy totals: comparisons taken part in and mean score in them
    tot = pd.concat([comp[["a", "n", "score"]].rename(columns={"a": "strategy"}),
                     comp[["b", "n"]].assign(score=comp["n"] - comp["score"]).rename(columns={"b": "strategy"})])
    tot = tot.groupby("strategy").sum()
    mean = tot["score"] / tot["n"]
    unbounded = {n: (math.inf if mean[n] >= 1 else -math.inf) for n in names if mean[n] <= 0 or mean[n] >= 1}
    rated = [n for n in names if n not in unbounded]
    if anchor is None and rated:
        anchor = ([n for n in rated if n == "greedy"] or rated)[0]
    if anchor is not None and anchor in unbounded:
        raise ValueError(f"anchor {anchor!r} finished {'above' if unbounded[anchor] > 0 else 'below'} every "
                         "opponent every time: it has no finite rating; choose another anchor")
    comp = comp[~comp["a"].isin(list(unbounded)) & ~comp["b"].isin(list(unbounded))]
    free = [n for n in rated if n != anchor]
    col = {n: i for i, n in enumerate(free)}
    comp = comp.reset_index(drop=True)
    X = np.zeros((len(comp), len(free)))
    rows = np.arange(len(comp))
    for side, sign in (("a", 1.0), ("b", -1.0)):
        idx = comp[side].map(col)
        ok = idx.notna().to_numpy()
        X[rows[ok], idx[ok].astype(int).to_numpy()] = sign
    n = comp["n"].to_numpy(float)
    wins = comp["score"].to_numpy(float)
    beta, se = np.zeros(len(free)), np.zeros(len(free))
    if free and len(comp):
        groups = pd.factorize(comp["seed"])[0]
        model = sm.GLM(np.column_stack([wins, n - wins]), X, family=sm.families.Binomial())
        with warnings.catch_warnings():  # near-separation: the intervals say it (wide); no library noise
            warnings.simplefilter("ignore")
            try:  # a clustered variance needs two seeds at least (a helper session: 1 game divided by zero)
                if groups.max() < 1:
                    raise ValueError("one seed")
                fit = model.fit(cov_type="cluster", cov_kwds={"groups": groups})
                se = np.sqrt(np.diag(np.asarray(fit.cov_params(), float)))
                se = np.where(se > 0, se, np.nan)  # a zero variance from two seeds fitted exactly: no information
            except (ValueError, ZeroDivisionError, np.linalg.LinAlgError):  # too few games: ratings, no intervals
                fit = model.fit()
                se = np.full(len(free), np.nan)
        beta = np.asarray(fit.params, float)
    out = []
    for name in names:
        if name in unbounded:
            elo, lo, hi = unbounded[name], np.nan, np.nan
        elif name == anchor:
            elo, lo, hi = 0.0, np.nan, np.nan
        else:
            i = col[name]
            elo, lo, hi = ELO * beta[i], ELO * (beta[i] - z * se[i]), ELO * (beta[i] + z * se[i])
        k = tot.loc[name]
        out.append({"strategy": name, "elo": elo, "ci_low": lo, "ci_high": hi, "comparisons": int(k["n"]),
                    "score": float(k["score"] / k["n"]), "anchor": name == anchor})
    res = pd.DataFrame(out, columns=RATINGS_COLUMNS)
    return res.sort_values(["elo", "strategy"], ascending=[False, True], kind="stable").reset_index(drop=True)


def ratings(clans: pd.DataFrame, anchor: str | None = None) -> pd.DataFrame:
    """Elo ratings with 95% intervals from a clans table (see the module doc)."""
    return bradley_terry(comparisons(clans), anchor)
