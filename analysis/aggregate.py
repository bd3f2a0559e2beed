"""Balance tables of a run, computed from its sufficient statistics (:mod:`analysis.suffstats`).

Every rate comes with a 95% interval: win rates (``sum(win_share) / n`` over clan-rows)
with the Wilson interval of ``statsmodels.stats.proportion.proportion_confint``, means
with a Student-t interval (scipy) from the sums of Glory and Glory².  Every table carries
its sample size ``n`` and a ``small`` flag (``n < SMALL_N``), so thin groups are visible
rather than hidden.  Card rankings test each card against the clans that did not have it
(two-proportion z-test) and correct over all rows with Benjamini–Hochberg (``p_adj``,
``significant``) and Holm (``p_holm``) (statsmodels ``multipletests``).

Functions take a :class:`~analysis.suffstats.Stats`; ``Stats.from_frames(clans, picks, uses)``
builds one from row frames.  ``load_clans``/``load_picks`` read row files and raise
:class:`RunDataError` (naming the file) for a missing, unreadable or foreign Parquet file.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as _st
from statsmodels.stats.proportion import proportion_confint

from volva.analysis.records import (  # noqa: F401  (CLANS_NEEDED, PICKS_NEEDED, RunDataError: re-exported)
    CLANS_NEEDED,
    PICKS_NEEDED,
    RunDataError,
    read_parquet_columns,
)
from volva.analysis.suffstats import SUMS, WIN_UNIT, Stats
from volva.simulator.core import enums as E

SMALL_N = 100
ALPHA = 0.05
GLORY_SOURCES = tuple(E.GLORY_SOURCE_NAMES)
GLORY_COLUMNS = [f"glory_{s}" for s in GLORY_SOURCES]
STAT_LETTERS = {"rage": "R", "axes": "A", "horns": "H"}

# --------------------------------------------------------------------------- loading

def load_clans(run_dir: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """clans.parquet of ``run_dir`` (only ``columns``, default CLANS_NEEDED)."""
    return read_parquet_columns(Path(run_dir) / "clans.parquet", columns or CLANS_NEEDED)


def load_picks(run_dir: Path) -> pd.DataFrame:
    """picks.parquet of ``run_dir`` (columns PICKS_NEEDED)."""
    return read_parquet_columns(Path(run_dir) / "picks.parquet", PICKS_NEEDED)


# --------------------------------------------------------------------------- intervals

def wilson(wins, n, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Wilson interval of ``wins / n`` (wins may be fractional: sums of win_share). NaN where n == 0."""
    wins = np.atleast_1d(np.asarray(wins, float))
    n = np.atleast_1d(np.asarray(n, float))
    lo = np.full(wins.shape, np.nan)
    hi = np.full(wins.shape, np.nan)
    ok = n > 0
    if ok.any():
        lo[ok], hi[ok] = proportion_confint(np.minimum(wins[ok], n[ok]), n[ok], alpha=alpha, method="wilson")
    return lo, hi


def t_interval(mean, sd, n, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Student-t interval of a mean from (mean, sample sd, n); NaN where n < 2."""
    mean, sd, n = (np.atleast_1d(np.asarray(x, float)) for x in (mean, sd, n))
    half = np.full(mean.shape, np.nan)
    ok = n >= 2
    half[ok] = _st.t.ppf(1 - alpha / 2, n[ok] - 1) * sd[ok] / np.sqrt(n[ok])
    return mean - half, mean + half


def two_proportion_z(w1, n1, w2, n2) -> tuple[np.ndarray, np.ndarray]:
    """Pooled two-proportion z-test of w1/n1 vs w2/n2 (vectorised; same as
    ``statsmodels.stats.proportion.proportions_ztest``). Returns (z, two-sided p); p = 1 when undefined."""
    w1, n1, w2, n2 = (np.asarray(x, float) for x in (w1, n1, w2, n2))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = (w1 + w2) / (n1 + n2)
        se = np.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
        z = (w1 / n1 - w2 / n2) / se
    bad = ~np.isfinite(z)
    z = np.where(bad, 0.0, z)
    pv = np.where(bad, 1.0, 2 * _st.norm.sf(np.abs(z)))
    return z, pv


def _str_col(s: pd.Series) -> pd.Series:
    return s.astype(str) if isinstance(s.dtype, pd.CategoricalDtype) or s.dtype == object else s


def rate_table(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Win rate (Wilson) and mean Glory (t) per group of ``keys`` from sums n, w, g, g2
    (rows with the same keys are added first)."""
    if len(df) == 0:
        cols = [*keys, "n", "wins", "win_rate", "ci_low", "ci_high", "mean_glory", "glory_ci_low",
                "glory_ci_high", "small"]
        return pd.DataFrame({c: [] for c in cols})
    t = df.groupby(keys, sort=True, observed=True)[["n", "w", "g", "g2"]].sum().reset_index()
    t = t[t["n"] > 0].reset_index(drop=True)
    n = t["n"].to_numpy(float)
    t["wins"] = t["w"] / WIN_UNIT
    t["win_rate"] = t["wins"] / n
    t["ci_low"], t["ci_high"] = wilson(t["wins"].to_numpy(), n)
    t["mean_glory"] = t["g"] / n
    sd = _sd(t["g"].to_numpy(float), t["g2"].to_numpy(float), n)
    t["glory_ci_low"], t["glory_ci_high"] = t_interval(t["mean_glory"], sd, n)
    t["small"] = t["n"] < SMALL_N
    for k in keys:
        t[k] = _str_col(t[k])
    return t[[*keys, "n", "wins", "win_rate", "ci_low", "ci_high", "mean_glory", "glory_ci_low",
              "glory_ci_high", "small"]]


def _sd(s, s2, n):
    """Sample sd from sum, sum of squares and n (0 where n < 2)."""
    s, s2, n = (np.asarray(x, float) for x in (s, s2, n))
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.where(n > 1, (s2 - s * s / np.where(n > 0, n, 1)) / (n - 1), 0.0)
    return np.sqrt(np.clip(var, 0, None))


# --------------------------------------------------------------------------- simple groupings

def by_strategy(st: Stats) -> pd.DataFrame:
    """Win rate and mean Glory per strategy, with mean figures at Ragnarök and legendary stats."""
    c = st["clans"]
    out = rate_table(c, ["strategy"])
    extra = c.groupby("strategy", sort=True)[["n", "figs", "legendary"]].sum()
    out["figures_at_ragnarok"] = (extra["figs"] / extra["n"]).to_numpy()
    out["legendary"] = (extra["legendary"] / extra["n"]).to_numpy()
    return out


def by_seat(st: Stats) -> pd.DataFrame:
    """Win rate and mean Glory per (n_players, seat), with ``expected`` = 1/n_players."""
    out = rate_table(st["clans"], ["n_players", "seat"])
    out["expected"] = 1.0 / out["n_players"].astype(float)
    return out


def by_seat_strategy(st: Stats) -> pd.DataFrame:
    """Win rate and mean Glory per (n_players, seat, strategy)."""
    out = rate_table(st["clans"], ["n_players", "seat", "strategy"])
    out["expected"] = 1.0 / out["n_players"].astype(float)
    return out


def by_players(st: Stats) -> pd.DataFrame:
    """Win rate and mean Glory per (n_players, strategy), with ``expected`` = 1/n_players."""
    out = rate_table(st["clans"], ["n_players", "strategy"])
    out["expected"] = 1.0 / out["n_players"].astype(float)
    return out


def glory_by_source(st: Stats) -> pd.DataFrame:
    """Mean Glory per source (battle, pillage, quest, ragnarok, bonus, cards) per strategy, with
    t intervals. Long format: strategy, source, n, mean, ci_low, ci_high, small."""
    g = st["clans"].groupby("strategy", sort=True).sum(numeric_only=True)
    rows = []
    for strat, r in g.iterrows():
        for src in GLORY_SOURCES:
            n = float(r["n"])
            mean = r[f"s_{src}"] / n
            lo, hi = t_interval(mean, _sd(r[f"s_{src}"], r[f"q_{src}"], n), n)
            rows.append((str(strat), src, int(n), float(mean), float(lo[0]), float(hi[0])))
    out = pd.DataFrame(rows, columns=["strategy", "source", "n", "mean", "ci_low", "ci_high"])
    out["small"] = out["n"] < SMALL_N
    return out


# --------------------------------------------------------------------------- stat paths

def by_stat_path(st: Stats, strategy: str | None = None, top: int = 15) -> dict[str, pd.DataFrame]:
    """Win rate per final-level path ('R3 A6 H1'), per order of the first two and three raises
    ('axes,rage'), and per legendary count (stats on step 4+), top ``top`` by n.

    ``strategy`` restricts to that strategy's clans (None: all).  Returns
    {'levels', 'first_two', 'first_three', 'legendary'} frames with columns path, n, win_rate, ..."""
    lv, pa_ = st["levels"], st["paths"]
    if strategy is not None:
        lv, pa_ = lv[lv["strategy"] == strategy], pa_[pa_["strategy"] == strategy]
    two = pa_.assign(path=[",".join(str(p).split(",")[:2]) for p in pa_["path"]])
    out = {}
    for key, df, col in (("levels", lv, "levels"), ("first_two", two, "path"), ("first_three", pa_, "path")):
        t = rate_table(df, [col]).rename(columns={col: "path"})
        out[key] = t.sort_values(["n", "path"], ascending=[False, True]).head(top).reset_index(drop=True)
    out["legendary"] = rate_table(lv, ["legendary"])
    return out


# --------------------------------------------------------------------------- gods

def god_order(pairs) -> list[str]:
    """Gods named in 'a+b' pair labels, in module order (labels keep gods.toml order, so a god
    that comes first in more pairs comes earlier)."""
    first, seen = {}, []
    for p in pairs:
        parts = [x for x in str(p).split("+") if x]
        for x in parts:
            if x not in seen:
                seen.append(x)
            first.setdefault(x, 0)
        if len(parts) == 2:
            first[parts[0]] += 1
    return sorted(seen, key=lambda x: (-first[x], seen.index(x)))


def by_gods(st: Stats) -> dict[str, pd.DataFrame] | None:
    """Win rate per pair of Gods of Ásgard in play and per (pair, strategy); None without the module.

    Note: over all clans of a game the shares sum to 1, so the per-pair rate is 1/n_players
    by construction; the per-(pair, strategy) table is the informative one."""
    g = st["gods"]
    g = g[g["gods"].astype(str) != ""].rename(columns={"gods": "pair"})
    if not len(g):
        return None
    if g["pair"].astype(str).str.contains(">").any():
        return None  # Blood Rage: Valhalla's gods by age: by_valhalla_gods
    return {"pair": rate_table(g, ["pair"]), "pair_strategy": rate_table(g, ["pair", "strategy"])}


def source_means(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Mean Glory per source per group of ``keys`` from sums n and s_<source> (columns
    keys, n, and one column per source)."""
    cols = [f"s_{x}" for x in GLORY_SOURCES if f"s_{x}" in df]
    t = df.groupby(keys, sort=True, observed=True)[["n", *cols]].sum().reset_index()
    t = t[t["n"] > 0].reset_index(drop=True)
    for c in cols:
        t[c[2:]] = t[c] / t["n"]
    for k in keys:
        t[k] = _str_col(t[k])
    return t[[*keys, "n", *[c[2:] for c in cols]]]


def by_valhalla_gods(st: Stats) -> dict[str, pd.DataFrame] | None:
    """Blood Rage: Valhalla's god combinations (the ``gods`` key 'thor>loki>tyr', age order):
    win rate and Glory per combination ('combo'), per set of three ('set', e.g. 'loki+thor+tyr')
    and per god and age it arrives ('god_age'), each also per strategy (*_strategy); Glory by
    source per set ('set_sources') and per drafted god pair ('drafted_sources'). None for runs
    of another rule set. Over all clans a game's win shares sum to 1, so the pooled win rate is
    1/N: the per-strategy tables carry the information."""
    g = st["gods"]
    g = g[g["gods"].astype(str).str.contains(">")]
    if not len(g):
        return None
    g = g.rename(columns={"gods": "combo"})
    g["set"] = ["+".join(sorted(str(c).split(">"))) for c in g["combo"]]
    ages = []
    for a in range(3):
        x = g.copy()
        x["god"] = [str(c).split(">")[a] for c in g["combo"]]
        x["age"] = a + 1
        ages.append(x)
    ga = pd.concat(ages, ignore_index=True)
    out = {"combo": rate_table(g, ["combo"]), "combo_strategy": rate_table(g, ["combo", "strategy"]),
           "set": rate_table(g, ["set"]), "set_strategy": rate_table(g, ["set", "strategy"]),
           "god_age_strategy": rate_table(ga, ["god", "age", "strategy"]),
           "set_sources": source_means(g, ["set"])}
    dg = st["drafted_gods"]
    out["drafted_sources"] = source_means(dg, ["god_pair"]) if len(dg) else None
    return out


def by_drafted_gods(st: Stats) -> pd.DataFrame:
    """Win rate per (strategy, god_pair): the two gods a clan drafted most cards of (R39)."""
    return rate_table(st["drafted_gods"], ["strategy", "god_pair"])


def god_matrix(pair_table: pd.DataFrame, value: str = "win_rate", col: str = "pair") -> pd.DataFrame:
    """Symmetric god x god matrix of ``value`` from a table of 'a+b' labels in ``col`` (NaN
    off-pairs; a single-god label 'a' sits on the diagonal)."""
    labels = [str(p) for p in pair_table[col] if str(p) not in ("", "(none)")]
    order = god_order(labels)
    m = pd.DataFrame(np.nan, index=order, columns=order)
    for pair, v in zip(pair_table[col], pair_table[value]):
        a, _, b = str(pair).partition("+")
        b = b or a
        if a in m.index and b in m.index:
            m.at[a, b] = m.at[b, a] = v
    return m


# --------------------------------------------------------------------------- cards

def cluster_var(t: pd.DataFrame, cl: pd.DataFrame, games: int) -> np.ndarray:
    """Game-clustered variance of (win rate with the card − win rate without it) per row of a
    card table (sums n, w and the cluster sums c_*), cl: the 'cluster' table merged per strategy
    (c_TT, c_WW, c_WT, n_tot, w_tot). Linearised (delta-method) sandwich estimator with the
    G/(G-1) small-sample factor; see analysis.suffstats for the sums."""
    f = lambda c: t[c].to_numpy(float)  # noqa: E731
    Nd, Wd = f("n"), f("w")
    Nn, Wn = f("n_tot") - Nd, f("w_tot") - Wd
    with np.errstate(divide="ignore", invalid="ignore"):
        pd_, pn = Wd / Nd, np.where(Nn > 0, Wn / np.where(Nn > 0, Nn, 1), 0.0)
        ww, wn, nn = f("c_ww"), f("c_wn"), f("c_nn")
        wW, wT, nW, nT = f("c_wW"), f("c_wT"), f("c_nW"), f("c_nT")
        TT, WW, WT = f("c_TT"), f("c_WW"), f("c_WT")
        saa = ww - 2 * pd_ * wn + pd_ ** 2 * nn
        s_wn2, s_wnnn, s_nn2 = WW - 2 * wW + ww, WT - nW - wT + wn, TT - 2 * nT + nn
        sbb = s_wn2 - 2 * pn * s_wnnn + pn ** 2 * s_nn2
        sab = (wW - ww) - pn * (wT - wn) - pd_ * (nW - wn) + pd_ * pn * (nT - nn)
        var = saa / Nd ** 2 + np.where(Nn > 0, sbb / np.where(Nn > 0, Nn, 1) ** 2
                                       - 2 * sab / (Nd * np.where(Nn > 0, Nn, 1)), 0.0)
    G = max(int(games), 2)
    return np.clip(var, 0, None) * G / (G - 1) / WIN_UNIT ** 2


def _vs_rest(t: pd.DataFrame, st: Stats, keys: list[str], alpha: float) -> pd.DataFrame:
    """Add the complement (clans of the same strategy without the card in that age), the
    difference with its game-clustered standard error, z-test and BH/Holm corrections to a
    per-card sums table."""
    from statsmodels.stats.multitest import multipletests
    t = t.merge(_totals(st), on="strategy", how="left")
    nd, wd = t["n"].to_numpy(float), t["w"].to_numpy(float) / WIN_UNIT
    nn, wn = t["n_tot"].to_numpy(float) - nd, t["w_tot"].to_numpy(float) / WIN_UNIT - wd
    with np.errstate(divide="ignore", invalid="ignore"):
        rd = wd / nd
        rn = np.where(nn > 0, wn / np.where(nn > 0, nn, 1), np.nan)
        gd = t["g"].to_numpy(float) / nd
        gn = np.where(nn > 0, (t["g_tot"].to_numpy(float) - t["g"].to_numpy(float)) / np.where(nn > 0, nn, 1),
                      np.nan)
    lo_d, hi_d = wilson(wd, nd, alpha)
    lo_n, hi_n = wilson(wn, nn, alpha)
    se = np.sqrt(cluster_var(t, None, st.games))
    diff = rd - rn
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where((se > 0) & np.isfinite(diff), diff / se, 0.0)
    small = (nd < SMALL_N) | (nn < SMALL_N)
    # groups under SMALL_N clans are shown but not tested: their normal approximation fails
    # (2 clans that both won have a standard error of 0)
    pv = np.where((se > 0) & np.isfinite(diff) & ~small, 2 * _st.norm.sf(np.abs(z)), 1.0)
    out = t[keys].copy()
    out["n"], out["wins"], out["win_rate"], out["ci_low"], out["ci_high"] = nd.astype(np.int64), wd, rd, lo_d, hi_d
    out["n_not"], out["wins_not"], out["win_rate_not"] = nn.astype(np.int64), wn, rn
    out["ci_low_not"], out["ci_high_not"] = lo_n, hi_n
    out["diff"], out["se"], out["z"], out["p_value"] = diff, se, z, pv
    out["mean_glory"], out["mean_glory_not"] = gd, gn
    if len(out):
        out["p_adj"] = multipletests(pv, alpha=alpha, method="fdr_bh")[1]
        out["p_holm"] = multipletests(pv, alpha=alpha, method="holm")[1]
    else:
        out["p_adj"], out["p_holm"] = [], []
    out["significant"] = out["p_adj"] < alpha
    out["small"] = small
    return out


def _totals(st: Stats) -> pd.DataFrame:
    """Per strategy: clans, wins and Glory (n_tot, w_tot, g_tot) and the cluster sums c_TT/c_WW/c_WT."""
    c = st["clans"].groupby("strategy", sort=True)[["n", "w", "g"]].sum()
    c = c.rename(columns={"n": "n_tot", "w": "w_tot", "g": "g_tot"}).reset_index()
    cl = st["cluster"].groupby("strategy", sort=True)[["c_TT", "c_WW", "c_WT"]].sum().reset_index()
    return c.merge(cl, on="strategy", how="left").fillna(0)


def cards(st: Stats, alpha: float = ALPHA) -> pd.DataFrame:
    """Per (strategy, age, card): drafting statistics and the improvement when drafted (17lands IWD).

    A clan 'drafted' a card in an age if it picked at least one copy.  Columns: strategy, age,
    card, times_drafted (pick rows), ata (mean pick position, 1-based), n_drafted /
    wins_drafted / win_rate_drafted (+ Wilson ci_low/ci_high), the same for clans of the same
    strategy that did not draft it in that age (``*_not``), iwd = difference, z, p_value,
    p_adj (Benjamini–Hochberg over all rows), p_holm (Holm), significant (p_adj < alpha),
    mean_glory (of clans that drafted it), small (either group < SMALL_N).  The test of iwd uses a
    game-clustered standard error ``se`` (:func:`cluster_var`): clans of one game are dependent.
    """
    d = st["draft"]
    if not len(d):
        return pd.DataFrame()
    t = d.groupby(["strategy", "age", "card"], sort=True)[SUMS["draft"]].sum().reset_index()
    out = _vs_rest(t, st, ["strategy", "age", "card"], alpha)
    out.insert(3, "times_drafted", t["times"].to_numpy())
    out.insert(4, "ata", t["pick_sum"].to_numpy(float) / t["times"].to_numpy(float))
    out = out.rename(columns={"n": "n_drafted", "wins": "wins_drafted", "win_rate": "win_rate_drafted",
                              "diff": "iwd"})
    return out.sort_values(["strategy", "age", "card"]).reset_index(drop=True)


def card_uses(st: Stats, alpha: float = ALPHA) -> pd.DataFrame:
    """Per (strategy, age, card, use): clans that played the card that way (use = battle,
    upgrade, quest; 'played' = any of the three; 'keep' = carried over at Discard) against the
    clans of the same strategy that did not, with the same columns as :func:`cards`
    (n, win_rate, ci, n_not, win_rate_not, diff, z, p_adj, p_holm, mean_glory, ...)."""
    u = st["use"]
    if not len(u):
        return pd.DataFrame()
    t = u.groupby(["strategy", "age", "card", "use"], sort=True)[SUMS["use"]].sum().reset_index()
    out = _vs_rest(t, st, ["strategy", "age", "card", "use"], alpha)
    out.insert(4, "times", t["times"].to_numpy())
    return out.sort_values(["strategy", "age", "card", "use"]).reset_index(drop=True)


def card_summary(st: Stats, strategy: str | None = None) -> pd.DataFrame:
    """One row per (age, card) of ``strategy`` (None: all strategies pooled): ATA, win rate when
    drafted / played / kept and the drafted IWD — the card table of the report."""
    c = cards(st)
    if not len(c):
        return c
    if strategy is not None:
        c = c[c["strategy"] == strategy]
    out = c[["strategy", "age", "card", "times_drafted", "ata", "n_drafted", "win_rate_drafted", "ci_low",
             "ci_high", "iwd", "p_adj", "significant", "mean_glory"]].copy()
    u = card_uses(st)
    if len(u):
        for use, name in (("played", "played"), ("keep", "kept")):
            x = u[u["use"] == use][["strategy", "age", "card", "n", "win_rate", "mean_glory"]]
            x = x.rename(columns={"n": f"n_{name}", "win_rate": f"win_rate_{name}",
                                  "mean_glory": f"glory_{name}"})
            out = out.merge(x, on=["strategy", "age", "card"], how="left")
    return out.reset_index(drop=True)


# --------------------------------------------------------------------------- head to head

def head_to_head(st: Stats, order: list[str] | None = None, value: str = "ahead") -> pd.DataFrame:
    """Matrix: row strategy vs column strategy over the games where both played.

    value 'ahead': share of those games the row finished above the column (ties count 1/2);
    'win_rate': the row's win rate in them.  NaN where they never met; a mirror pair (the
    same strategy in two seats) sits on the diagonal."""
    h = st["h2h"]
    if not len(h):
        return pd.DataFrame()
    h = h.groupby(["strategy", "opponent"], sort=True)[["games", "w", "ahead2"]].sum().reset_index()
    h["ahead"] = h["ahead2"] / (2 * h["games"])
    h["win_rate"] = h["w"] / WIN_UNIT / h["games"]
    mat = h.pivot(index="strategy", columns="opponent", values=value).astype(float)
    order = order or sorted(set(h["strategy"]) | set(h["opponent"]))
    mat = mat.reindex(index=order, columns=order)
    mat.index.name, mat.columns.name = "strategy", None
    return mat


def head_to_head_long(st: Stats) -> pd.DataFrame:
    """Long head-to-head table: strategy, opponent, games, ahead (+ Wilson ci), win_rate."""
    h = st["h2h"]
    if not len(h):
        return pd.DataFrame()
    h = h.groupby(["strategy", "opponent"], sort=True)[["games", "w", "ahead2"]].sum().reset_index()
    out = h[["strategy", "opponent", "games"]].copy()
    out["ahead"] = h["ahead2"] / (2 * h["games"])
    out["ci_low"], out["ci_high"] = wilson(h["ahead2"] / 2, h["games"])
    out["win_rate"] = h["w"] / WIN_UNIT / h["games"]
    return out


# --------------------------------------------------------------------------- convergence

def convergence(st: Stats, strategy: str, games_done: int | None = None) -> pd.DataFrame:
    """Cumulative win rate and 95% Wilson half-width of ``strategy`` after the first g games, at
    the run's checkpoints (10, 20, 50, ... and the last game; only g <= games_done).
    Columns strategy, games, n, win_rate, ci_low, ci_high, half_width."""
    c = st["convergence"]
    c = c[c["strategy"] == strategy]
    if games_done is not None:
        c = c[c["games"] <= games_done]
    c = c.sort_values("games")
    out = pd.DataFrame({"strategy": strategy, "games": c["games"].to_numpy(np.int64), "n": c["n"].to_numpy(np.int64)})
    wins = c["w"].to_numpy(float) / WIN_UNIT
    out["win_rate"] = wins / np.maximum(out["n"].to_numpy(float), 1)
    out["ci_low"], out["ci_high"] = wilson(wins, out["n"].to_numpy())
    out["half_width"] = (out["ci_high"] - out["ci_low"]) / 2
    return out


# --------------------------------------------------------------------------- all

#: per-game figures of the game shape: label -> (counter summed over clans, counter subtracted or None)
PER_GAME_SHAPE = {
    "action_turns": ("actions", None), "pillages": ("pillages", None),
    "pillages_unopposed": ("pillages_unopposed", None),
    "battles": ("pillages", "pillages_unopposed"),  # every battle has one pillager
    "battle_ties": ("pillage_ties", None), "quests_committed": ("quests", None),
    "quests_completed": ("quests_done", None), "figures_lost_in_battle": ("lost_battle", None),
    "figures_lost_to_ragnarok": ("lost_ragnarok", None),
}


def game_shape(st: Stats) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """How the bots play (issue 13): (per clan, per game), or None when the engine does not count
    the game shape.

    Per clan: one row per strategy and an ``(all)`` row; ``clans``, the mean of each counter of
    ``enums.SHAPE_NAMES`` per clan per game with its standard error (``se_<counter>``), the share
    of Glory from the end-of-game stat bonuses (``bonus_share`` = bonus Glory / all Glory) and the
    mean final track levels (1..6). Per game: one row, ``games`` and the totals of
    :data:`PER_GAME_SHAPE` per game (battles = pillages that met an enemy; ties = tied battles)."""
    sh = st["shape"]
    if not len(sh):
        return None
    names = list(E.SHAPE_NAMES)
    t = sh.groupby("strategy", sort=True)[["n", *[f"k_{x}" for x in names], *[f"k2_{x}" for x in names]]].sum()
    t.loc["(all)"] = t.sum()
    out = pd.DataFrame({"strategy": t.index, "clans": t["n"].to_numpy()})
    n = t["n"].to_numpy(float)
    for x in names:
        out[x] = t[f"k_{x}"].to_numpy() / n
        out[f"se_{x}"] = _sd(t[f"k_{x}"], t[f"k2_{x}"], n) / np.sqrt(n)
    c = st["clans"].groupby("strategy", sort=True)[["g", "s_bonus"]].sum()
    c.loc["(all)"] = c.sum()
    out["bonus_share"] = (c["s_bonus"] / c["g"].where(c["g"] > 0)).reindex(t.index).to_numpy()
    lv = st["levels"]
    if len(lv):
        parts = lv["levels"].astype(str).str.extract(r"R(\d) A(\d) H(\d)").astype(float)
        for i, stat in enumerate(E.STAT_NAMES):
            w = parts[i] * lv["n"]
            by = w.groupby(lv["strategy"].astype(str)).sum()
            nn = lv["n"].groupby(lv["strategy"].astype(str)).sum()
            by.loc["(all)"], nn.loc["(all)"] = by.sum(), nn.sum()
            out[f"{stat}_level"] = (by / nn).reindex(t.index).to_numpy()
    games = max(st.games, 1)
    tot = t.loc["(all)"]
    per_game = {"games": st.games}
    for label, (a, b) in PER_GAME_SHAPE.items():
        per_game[label] = (tot[f"k_{a}"] - (tot[f"k_{b}"] if b else 0)) / games
    return out.reset_index(drop=True), pd.DataFrame([per_game])


def aggregate(st: Stats, focal: str, games_done: int | None = None) -> dict[str, object]:
    """All report tables: strategy, seat, seat_strategy, players, glory_sources, stat_paths (per
    strategy), gods (or None), drafted_gods, cards, card_uses, card_summary, h2h, h2h_long,
    convergence, focal."""
    strategies = sorted(st["clans"]["strategy"].astype(str).unique())
    rank = by_strategy(st).sort_values(["win_rate", "strategy"], ascending=[False, True])["strategy"].tolist()
    return {
        "focal": focal,
        "strategy": by_strategy(st),
        "seat": by_seat(st),
        "seat_strategy": by_seat_strategy(st),
        "players": by_players(st),
        "glory_sources": glory_by_source(st),
        "stat_paths": {s: by_stat_path(st, s) for s in strategies},
        "gods": by_gods(st),
        "valhalla_gods": by_valhalla_gods(st),
        "drafted_gods": by_drafted_gods(st),
        "cards": cards(st) if len(st["draft"]) else None,
        "card_uses": card_uses(st) if len(st["use"]) else None,
        "card_summary": card_summary(st, focal) if len(st["draft"]) else None,
        "h2h": head_to_head(st, rank),
        "h2h_long": head_to_head_long(st),
        "convergence": convergence(st, focal, games_done),
        "game_shape": game_shape(st),
    }
