"""Paired experiments: two arms on the same seeds and lineup, played batch by batch.

``volva compare --patch`` plays a baseline and a variant card set; ``volva ablate CARD`` a
forced and a banned arm.  Each clan-row of arm B is paired with the row of the same game and
seat in arm A (same seed, same strategy there), so the difference of win shares
``d = w_B - w_A`` has a paired 95% t interval, far tighter than two independent samples
when the games stay alike.  Groups that are outcomes of play (the cards drafted, the god
pair drafted, the stat path) are not paired; their differences get a two-proportion z-test
with Benjamini–Hochberg correction across rows.

Paired sums per (strategy, holder): n, d, d2 (d in units of 1/60 win), gd, gd2 (Glory);
``holder`` is 1 for clans that drafted the ablated card in arm A (always 0 for compare).
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
from scipy import stats as _st

from volva.analysis import aggregate as agg
from volva.analysis.suffstats import WIN_UNIT, Stats

PAIR_KEYS = ["strategy", "holder"]
PAIR_SUMS = ["n", "d", "d2", "gd", "gd2"]


def paired_sums(a: pd.DataFrame, b: pd.DataFrame, holder: np.ndarray | None = None) -> pd.DataFrame:
    """Sums of the paired differences B - A per (strategy, holder).

    a, b: clan rows of the two arms for the same games, both sorted by (game_id, seat);
    holder: bool per row (None: all 0). Raises ValueError if the rows do not pair up."""
    if len(a) != len(b) or not (a["game_id"].to_numpy() == b["game_id"].to_numpy()).all() or \
            not (a["seat"].to_numpy() == b["seat"].to_numpy()).all():
        raise ValueError("paired arms: the two arms' rows are not the same games and seats")
    wa = np.rint(a["win_share"].to_numpy(float) * WIN_UNIT).astype(np.int64)
    wb = np.rint(b["win_share"].to_numpy(float) * WIN_UNIT).astype(np.int64)
    ga, gb = a["glory"].to_numpy(np.int64), b["glory"].to_numpy(np.int64)
    d, gd = wb - wa, gb - ga
    h = np.zeros(len(a), np.int64) if holder is None else np.asarray(holder, np.int64)
    df = pd.DataFrame({"strategy": a["strategy"].astype(str).to_numpy(object), "holder": h,
                       "n": np.ones(len(a), np.int64), "d": d, "d2": d * d, "gd": gd, "gd2": gd * gd})
    return df.groupby(PAIR_KEYS, sort=True)[PAIR_SUMS].sum().reset_index()


def add_sums(x: pd.DataFrame | None, y: pd.DataFrame) -> pd.DataFrame:
    if x is None or not len(x):
        return y.copy()
    return pd.concat([x, y], ignore_index=True).groupby(PAIR_KEYS, sort=True)[PAIR_SUMS].sum().reset_index()


def _paired_interval(s, s2, n, alpha=0.05):
    s, s2, n = (np.asarray(x, float) for x in (s, s2, n))
    mean = s / np.maximum(n, 1)
    sd = agg._sd(s, s2, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = sd / np.sqrt(n)
        half = np.where(n >= 2, _st.t.ppf(1 - alpha / 2, np.maximum(n - 1, 1)) * se, np.nan)
        tstat = np.where(se > 0, mean / se, 0.0)
    p = np.where(n >= 2, 2 * _st.t.sf(np.abs(tstat), np.maximum(n - 1, 1)), 1.0)
    return mean, mean - half, mean + half, p


def paired_table(sums: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Mean paired difference of win rate (d_win) and Glory (d_glory) per group of ``keys``
    with 95% paired t intervals and p-values. Columns keys, n, d_win, ci_low, ci_high, p_value,
    d_glory, glory_ci_low, glory_ci_high."""
    t = sums.groupby(keys, sort=True)[PAIR_SUMS].sum().reset_index()
    m, lo, hi, p = _paired_interval(t["d"] / WIN_UNIT, t["d2"] / WIN_UNIT ** 2, t["n"])
    gm, glo, ghi, _ = _paired_interval(t["gd"], t["gd2"], t["n"])
    out = t[keys].copy()
    out["n"] = t["n"]
    out["d_win"], out["ci_low"], out["ci_high"], out["p_value"] = m, lo, hi, p
    out["d_glory"], out["glory_ci_low"], out["glory_ci_high"] = gm, glo, ghi
    return out


def unpaired_diff(ta: pd.DataFrame, tb: pd.DataFrame, keys: list[str], alpha: float = 0.05) -> pd.DataFrame:
    """B - A difference of win rate per group of ``keys`` from two rate tables (columns keys, n,
    wins, win_rate, mean_glory): two-proportion z-test, Benjamini–Hochberg p_adj and Holm
    p_holm over the rows, 95% Newcombe-style Wald interval of the difference. Rows with fewer
    than SMALL_N clans in either arm are kept, flagged ``small`` and not tested (p = 1; R42)."""
    from statsmodels.stats.multitest import multipletests
    m = ta[keys + ["n", "wins", "win_rate", "mean_glory"]].merge(
        tb[keys + ["n", "wins", "win_rate", "mean_glory"]], on=keys, how="outer", suffixes=("_a", "_b"))
    for c in ("n_a", "n_b", "wins_a", "wins_b"):
        m[c] = m[c].fillna(0)
    na, nb = m["n_a"].to_numpy(float), m["n_b"].to_numpy(float)
    ra = np.where(na > 0, m["wins_a"] / np.maximum(na, 1), np.nan)
    rb = np.where(nb > 0, m["wins_b"] / np.maximum(nb, 1), np.nan)
    diff = rb - ra
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(ra * (1 - ra) / na + rb * (1 - rb) / nb)
    z95 = _st.norm.ppf(1 - alpha / 2)
    m["win_rate_a"], m["win_rate_b"], m["d_win"] = ra, rb, diff
    m["ci_low"], m["ci_high"] = diff - z95 * se, diff + z95 * se
    z, p = agg.two_proportion_z(m["wins_b"], nb, m["wins_a"], na)
    small = (na < agg.SMALL_N) | (nb < agg.SMALL_N)
    p = np.where(small, 1.0, p)
    m["z"], m["p_value"], m["small"] = z, p, small
    m["p_adj"] = multipletests(p, method="fdr_bh")[1] if len(m) else []
    m["p_holm"] = multipletests(p, method="holm")[1] if len(m) else []
    m["significant"] = m["p_adj"] < alpha
    m["d_glory"] = m["mean_glory_b"] - m["mean_glory_a"]
    m["n_a"], m["n_b"] = m["n_a"].astype(np.int64), m["n_b"].astype(np.int64)
    return m[keys + ["n_a", "n_b", "win_rate_a", "win_rate_b", "d_win", "ci_low", "ci_high", "z", "p_value",
                     "p_adj", "p_holm", "significant", "d_glory", "small"]]


def _iwd_var(t: pd.DataFrame) -> np.ndarray:
    """Variance of a card's IWD: its game-clustered standard error squared (aggregate.cards)."""
    return t["se"].to_numpy(float) ** 2


def iwd_diff(ca: pd.DataFrame, cb: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Per (strategy, age, card): the change of the card's improvement-when-drafted (win rate
    drafted − not drafted, same strategy and age) from arm A to arm B, so a strategy-wide shift
    does not count as the card moving. z = Δ / sqrt(var_A + var_B) (independent samples; the
    shared seeds only make this conservative), 95% interval, BH ``p_adj`` and Holm ``p_holm``
    over the rows, sorted by |z|. Rows with a group of fewer than SMALL_N clans in either arm
    are kept but flagged ``small``."""
    from statsmodels.stats.multitest import multipletests
    keys = ["strategy", "age", "card"]
    a = ca[keys + ["iwd", "n_drafted", "ata"]].assign(var=_iwd_var(ca))
    b = cb[keys + ["iwd", "n_drafted", "ata"]].assign(var=_iwd_var(cb))
    m = a.merge(b, on=keys, suffixes=("_a", "_b"))
    m = m[np.isfinite(m["var_a"]) & np.isfinite(m["var_b"]) & (m["var_a"] + m["var_b"] > 0)].reset_index(drop=True)
    se = np.sqrt(m["var_a"] + m["var_b"])
    m["d_iwd"] = m["iwd_b"] - m["iwd_a"]
    z95 = _st.norm.ppf(1 - alpha / 2)
    m["ci_low"], m["ci_high"] = m["d_iwd"] - z95 * se, m["d_iwd"] + z95 * se
    m["z"] = m["d_iwd"] / se
    small = (m["n_drafted_a"] < agg.SMALL_N) | (m["n_drafted_b"] < agg.SMALL_N)
    m["p_value"] = np.where(small, 1.0, 2 * _st.norm.sf(np.abs(m["z"])))  # small groups: not tested
    m["p_adj"] = multipletests(m["p_value"], method="fdr_bh")[1] if len(m) else []
    m["p_holm"] = multipletests(m["p_value"], method="holm")[1] if len(m) else []
    m["significant"] = m["p_adj"] < alpha
    m["small"] = small
    m = m.drop(columns=["var_a", "var_b"])
    return m.reindex(m["z"].abs().sort_values(ascending=False).index).reset_index(drop=True)


def compare_tables(sa: Stats, sb: Stats, sums: pd.DataFrame, alpha: float = 0.05) -> dict[str, pd.DataFrame]:
    """What moved between arm A (baseline) and arm B (variant): 'strategy' paired; 'card_iwd'
    (each card's improvement when drafted, :func:`iwd_diff`), 'cards' (win rate when drafted),
    'drafted_gods', 'gods', 'stat_levels', 'stat_paths' unpaired with BH correction."""
    out = {"strategy": paired_table(sums, ["strategy"])}
    ca, cb = agg.cards(sa, alpha), agg.cards(sb, alpha)
    if len(ca) and len(cb):
        ren = {"n_drafted": "n", "wins_drafted": "wins", "win_rate_drafted": "win_rate"}
        cards = unpaired_diff(ca.rename(columns=ren), cb.rename(columns=ren), ["strategy", "age", "card"], alpha)
        ata = ca[["strategy", "age", "card", "ata"]].merge(cb[["strategy", "age", "card", "ata"]],
                                                           on=["strategy", "age", "card"], how="outer",
                                                           suffixes=("_a", "_b"))
        out["cards"] = cards.merge(ata, on=["strategy", "age", "card"], how="left")
        out["card_iwd"] = iwd_diff(ca, cb, alpha)
    out["drafted_gods"] = unpaired_diff(agg.by_drafted_gods(sa), agg.by_drafted_gods(sb),
                                        ["strategy", "god_pair"], alpha)
    ga, gb = agg.by_gods(sa), agg.by_gods(sb)
    if ga is not None and gb is not None:
        out["gods"] = unpaired_diff(ga["pair_strategy"], gb["pair_strategy"], ["pair", "strategy"], alpha)
    la = agg.rate_table(sa["levels"], ["strategy", "levels"])
    lb = agg.rate_table(sb["levels"], ["strategy", "levels"])
    out["stat_levels"] = unpaired_diff(la, lb, ["strategy", "levels"], alpha)
    pa_ = agg.rate_table(sa["paths"], ["strategy", "path"])
    pb = agg.rate_table(sb["paths"], ["strategy", "path"])
    out["stat_paths"] = unpaired_diff(pa_, pb, ["strategy", "path"], alpha)
    return out


def holders(fr_a, card: str, ages: list[int] | None) -> np.ndarray:
    """bool per clan row of arm A: the clan drafted ``card`` (in ``ages``, default any)."""
    from volva.analysis.suffstats import _row_index
    pk = fr_a.picks
    m = (pk["card"].astype(str) == card).to_numpy().copy()
    if ages:
        m &= np.isin(pk["age"].to_numpy(), ages)
    found, rows = _row_index(fr_a.clans, pk["game_id"].to_numpy()[m], pk["seat"].to_numpy()[m])
    h = np.zeros(len(fr_a.clans), bool)
    h[rows] = True
    return h


def run_paired(rs_a, rs_b, names, pols, seed: int, games: int, batch_size: int, rotate: bool,
               wa, wb, card: str | None = None, ages: list[int] | None = None, progress=None,
               stop=None, decide=None) -> pd.DataFrame:
    """Play both arms batch by batch on the same games into RunWriters ``wa``/``wb``; returns
    the paired sums (holder = drafted ``card`` in arm A, when given). Paired sums so far are
    saved as ``paired.parquet`` next to the arms after every batch. ``decide(games, sums)``,
    called after every batch, ends the run early when it returns True (--until-decided)."""
    from volva.analysis.runner import play_batch_frames
    from volva.analysis.suffstats import aligned_batch, checkpoints
    points = checkpoints(games)
    batch_size = aligned_batch(batch_size, names, rotate)  # whole seed blocks (suffstats cluster sums)
    sums = None
    for first in range(0, games, batch_size):
        n = min(batch_size, games - first)
        fa = play_batch_frames(rs_a, names, pols, seed, first, n, rotate, points)
        fb = play_batch_frames(rs_b, names, pols, seed, first, n, rotate, points)
        h = holders(fa, card, ages) if card is not None else None
        sums = add_sums(sums, paired_sums(fa.clans, fb.clans, h))
        wa.add(fa, n)
        wb.add(fb, n)
        tmp = wa.out.parent / ".paired.parquet.tmp"
        sums.to_parquet(tmp, index=False)
        os.replace(tmp, wa.out.parent / "paired.parquet")
        if progress is not None:
            progress(n)
        if stop is not None and stop() and first + n < games:
            raise KeyboardInterrupt
        if decide is not None and decide(first + n, sums):
            break
    return sums


def strategy_streams(sums: pd.DataFrame) -> dict[str, tuple[int, float, float]]:
    """Sequential streams of ``compare``: per strategy (n, Σd, Σd²) of the paired change of win
    share (variant − baseline, in wins)."""
    t = sums.groupby("strategy", sort=True)[PAIR_SUMS].sum()
    return {k: (int(r["n"]), r["d"] / WIN_UNIT, r["d2"] / WIN_UNIT ** 2) for k, r in t.iterrows()}


def holder_stream(sums: pd.DataFrame) -> dict[str, tuple[int, float, float]]:
    """Sequential stream of ``ablate``: the clans that drafted the card in the forced arm, forced −
    banned change of win share (n, Σd, Σd²; arm A is forced, so the sign is flipped)."""
    h = sums[sums["holder"] == 1][PAIR_SUMS].sum()
    return {"drafted it (forced arm)": (int(h["n"]), -h["d"] / WIN_UNIT, h["d2"] / WIN_UNIT ** 2)}


def write_compare_tables(sa: Stats, sb: Stats, sums: pd.DataFrame, out) -> dict[str, pd.DataFrame]:
    """:func:`compare_tables`, each also written as OUT/compare_<name>.csv."""
    tabs = compare_tables(sa, sb, sums)
    for k, df in tabs.items():
        df.to_csv(out / f"compare_{k}.csv", index=False)
    return tabs


ABLATE_COLUMNS = ["group", "strategy", "n", "d_win", "ci_low", "ci_high", "p_value", "d_glory", "glory_ci_low",
                  "glory_ci_high"]


def ablate_table(sums: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Paired sums of an ablation (played as arm A = forced, arm B = banned) -> (forced − banned
    per group: the clans that drafted the card in the forced arm, all of them and per strategy,
    then all clans per strategy; the number of clans that drafted it)."""
    flip = sums.assign(d=-sums["d"], gd=-sums["gd"])  # sign: forced - banned
    held = flip[flip["holder"] == 1]
    rows = []
    if len(held):
        group = "drafted it (forced arm)"
        rows += [paired_table(held.assign(strategy="(all)"), ["strategy"]).assign(group=group),
                 paired_table(held, ["strategy"]).assign(group=group)]
    rows.append(paired_table(flip, ["strategy"]).assign(group="all clans"))
    res = pd.concat(rows, ignore_index=True)[ABLATE_COLUMNS]
    return res, int(held["n"].sum()) if len(held) else 0


def write_ablate_table(sums: pd.DataFrame, out) -> tuple[pd.DataFrame, int]:
    """:func:`ablate_table`, the table also written as OUT/ablate.csv."""
    res, n_held = ablate_table(sums)
    res.to_csv(out / "ablate.csv", index=False)
    return res, n_held
