"""Balance tables of a run, computed from its sufficient statistics (:mod:`analysis.suffstats`).

**Unit.** Clans of one game are not independent (their win shares sum to 1), and with seat
rotation the k games of one deal share a seed. Every win rate is therefore a ratio of per-block
sums with a cluster-robust standard error over **seed blocks** (:func:`cluster_rate`; the same as
statsmodels' OLS with ``cov_type='cluster'`` grouped by seed), whatever number of seats a
strategy holds; a rate that cannot vary (a mirror lineup's 1/P) is marked ``fixed`` with no
interval. Tables whose groups merge the statistics' own groups fall back to the Wilson interval of
independent clans and say so (``clustered`` False). Means of Glory have a Student-t interval.

**Small.** A row is ``small`` with fewer than SMALL_N clans or fewer than 5 wins or losses (5
expected under the pooled rate for a comparison, :func:`too_small`): its rate gets a Wilson
interval at the effective sample size, and a comparison is shown but not tested.

**Card test and families.** Each card is tested against the clans of the same strategy that did
not have it with the cluster-robust z (:func:`cluster_var`), not a two-proportion z-test; p-values
are corrected with Benjamini–Hochberg (``p_adj``, ``significant``) and Holm (``p_holm``)
(statsmodels ``multipletests``) over the **tested rows of one table**: ``cards.csv`` is one family
(does drafting the card go with winning?) and ``card_uses.csv`` another (how is it best played?);
they are kept apart because its 'played' rows are nearly the clans of the drafted rows, so one
family would count the same evidence twice.

Functions take a :class:`~analysis.suffstats.Stats`; ``Stats.from_frames(clans, picks, uses)``
builds one from row frames.  ``load_clans``/``load_picks`` read row files and raise
:class:`RunDataError` (naming the file) for a missing, unreadable or foreign Parquet file.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as _st

from volva.analysis.intervals import (  # noqa: F401  (re-exported: agg.wilson, agg.cluster_mean, ...)
    ALPHA,
    SMALL_N,
    _sd,
    cluster_mean,
    cluster_rate,
    cluster_var,
    correct,
    rate_from_rows,
    t_interval,
    too_small,
    two_proportion_z,
    wilson,
)
from volva.analysis.records import (  # noqa: F401  (CLANS_NEEDED, PICKS_NEEDED, RunDataError: re-exported)
    CLANS_NEEDED,
    PICKS_NEEDED,
    RunDataError,
    read_parquet_columns,
)
from volva.analysis.suffstats import ALL, BLOCK_SUMS, SUMS, WIN_UNIT, Stats
from volva.simulator.core import enums as E

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


def _str_col(s: pd.Series) -> pd.Series:
    return s.astype(str) if isinstance(s.dtype, pd.CategoricalDtype) or s.dtype == object else s


RATE_COLUMNS = ["n", "wins", "win_rate", "se", "ci_low", "ci_high", "fixed", "clustered", "mean_glory",
                "glory_ci_low", "glory_ci_high", "small"]


def rate_table(df: pd.DataFrame, keys: list[str], cluster: pd.DataFrame | None = None,
               clustered: bool = True) -> pd.DataFrame:
    """Win rate and mean Glory (t interval) per group of ``keys`` from sums n, w, g, g2 (rows with
    the same keys are added first).

    The win rate's interval is cluster-robust over seed blocks (:func:`cluster_rate`) when the
    block sums of exactly these groups are known: in ``df`` (its BLOCK_SUMS, when ``keys`` are the
    table's own groups) or in ``cluster`` (keys + BLOCK_SUMS). ``clustered=False`` (groups that
    merge several of the table's groups, whose block sums do not add) or no block sums: the
    Wilson interval of independent clans, marked ``clustered`` False. Columns: keys, RATE_COLUMNS."""
    if len(df) == 0:
        return pd.DataFrame({c: [] for c in [*keys, *RATE_COLUMNS]})
    have = clustered and cluster is None and all(c in df for c in BLOCK_SUMS)
    cols = ["n", "w", "g", "g2", *(BLOCK_SUMS if have else [])]
    t = df.groupby(keys, sort=True, observed=True)[cols].sum().reset_index()
    t = t[t["n"] > 0].reset_index(drop=True)
    if clustered and cluster is not None:
        t = t.merge(cluster[[*keys, *BLOCK_SUMS]], on=keys, how="left")
        have = t["c_G"].notna().all()
    n = t["n"].to_numpy(float)
    t["wins"] = t["w"] / WIN_UNIT
    t["win_rate"] = t["wins"] / n
    if have:
        U = WIN_UNIT
        _, t["se"], t["ci_low"], t["ci_high"], t["fixed"], small = cluster_rate(
            t["wins"], n, t["c_WW"] / U ** 2, t["c_WT"] / U, t["c_TT"], t["c_G"])
    else:
        t["ci_low"], t["ci_high"] = wilson(t["wins"].to_numpy(), n)
        r = t["win_rate"].to_numpy(float)
        t["se"], t["fixed"] = np.sqrt(r * (1 - r) / n), False
        small = n < SMALL_N
    t["clustered"] = bool(have)
    t["mean_glory"] = t["g"] / n
    sd = _sd(t["g"].to_numpy(float), t["g2"].to_numpy(float), n)
    t["glory_ci_low"], t["glory_ci_high"] = t_interval(t["mean_glory"], sd, n)
    t["glory_ci_low"] = t["glory_ci_low"].clip(lower=0.0)  # a clan's Glory is never negative (the invariants)
    t["small"] = np.asarray(small, bool)
    for k in keys:
        t[k] = _str_col(t[k])
    return t[[*keys, *RATE_COLUMNS]]


def block_sums(st: Stats, keys: list[str]) -> pd.DataFrame | None:
    """The seed-block sums of the clans grouped by ``keys`` (one of ['strategy'],
    ['n_players', 'strategy'], ['n_players', 'seat'], ['n_players', 'seat', 'strategy']), from the
    'blocks' table; None when the run has none."""
    b = st["blocks"]
    if not len(b):
        return None
    per_seat, per_strategy = "seat" in keys, "strategy" in keys
    m = (b["seat"] >= 0) == per_seat
    m &= (b["strategy"].astype(str) != ALL) == per_strategy
    b = b[m]
    return b.groupby(keys, sort=True)[BLOCK_SUMS].sum().reset_index()


# --------------------------------------------------------------------------- simple groupings

def by_strategy(st: Stats) -> pd.DataFrame:
    """Win rate and mean Glory per strategy, with mean figures at Ragnarök and legendary stats.
    Intervals cluster-robust over seed blocks; a strategy's rate that cannot vary (it holds every
    seat) is ``fixed``."""
    c = st["clans"]
    out = rate_table(c, ["strategy"], block_sums(st, ["strategy"]))
    extra = c.groupby("strategy", sort=True)[["n", "figs", "legendary", "tied"]].sum()
    # ties split the win: 'wins' are win shares; a shared first place is counted here
    out["shared_wins"] = extra["tied"].to_numpy()
    out["shared_win_rate"] = (extra["tied"] / extra["n"]).to_numpy()
    out["figures_at_ragnarok"] = (extra["figs"] / extra["n"]).to_numpy()
    out["legendary"] = (extra["legendary"] / extra["n"]).to_numpy()
    return out


def shared_firsts(st: Stats) -> dict:
    """Games that ended in a shared first place: {'games', 'shared', 'rate'} (shared = Σ of the tied
    winners' shares, each such game contributing 1)."""
    c = st["clans"]
    shared = float(c["tied_w"].sum()) / WIN_UNIT if len(c) else 0.0
    return {"games": st.games, "shared": int(round(shared)), "rate": shared / st.games if st.games else float("nan")}


def by_seat(st: Stats) -> pd.DataFrame:
    """Win rate and mean Glory per (n_players, seat), with ``expected`` = 1/n_players."""
    out = rate_table(st["clans"], ["n_players", "seat"], block_sums(st, ["n_players", "seat"]))
    out["expected"] = 1.0 / out["n_players"].astype(float)
    return out


def by_seat_strategy(st: Stats) -> pd.DataFrame:
    """Win rate and mean Glory per (n_players, seat, strategy)."""
    out = rate_table(st["clans"], ["n_players", "seat", "strategy"], block_sums(st, ["n_players", "seat", "strategy"]))
    out["expected"] = 1.0 / out["n_players"].astype(float)
    return out


def by_players(st: Stats) -> pd.DataFrame:
    """Win rate and mean Glory per (n_players, strategy), with ``expected`` = 1/n_players."""
    out = rate_table(st["clans"], ["n_players", "strategy"], block_sums(st, ["n_players", "strategy"]))
    out["expected"] = 1.0 / out["n_players"].astype(float)
    return out


def glory_by_source(st: Stats) -> pd.DataFrame:
    """Mean Glory per source (battle, pillage, quest, ragnarok, bonus, cards) per strategy, with
    t intervals. Long format: strategy, source, n, mean, ci_low, ci_high, small. A source no clan
    of the run scored from (another game's: Valhalla's contest and valor in a Blood Rage run) is
    left out, as the report's figure leaves it out."""
    g = st["clans"].groupby("strategy", sort=True).sum(numeric_only=True)
    used = [src for src in GLORY_SOURCES if len(g) == 0 or (g[f"s_{src}"] != 0).any() or (g[f"q_{src}"] != 0).any()]
    rows = []
    for strat, r in g.iterrows():
        for src in used or GLORY_SOURCES:
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
    # block sums add over the table's own groups only: final levels and 3-raise paths of one strategy
    own = strategy is not None
    for key, df, col, cl in (("levels", lv, "levels", own), ("first_two", two, "path", False),
                             ("first_three", pa_, "path", own)):
        t = rate_table(df, [col], clustered=cl).rename(columns={col: "path"})
        out[key] = t.sort_values(["n", "path"], ascending=[False, True]).head(top).reset_index(drop=True)
    out["legendary"] = rate_table(lv, ["legendary"], clustered=False)
    return out


def shared_label(t: pd.DataFrame) -> pd.DataFrame:
    """A rate table over a label every clan of a game shares (the gods in play): its rate is the
    mean of 1/n_players by construction, so it is marked ``fixed`` with no interval."""
    t = t.copy()
    t["fixed"], t["se"], t["ci_low"], t["ci_high"], t["small"] = True, 0.0, np.nan, np.nan, False
    return t


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
    return {"pair": shared_label(rate_table(g, ["pair"], clustered=False)),
            "pair_strategy": rate_table(g, ["pair", "strategy"])}


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
    out = {"combo": shared_label(rate_table(g, ["combo"], clustered=False)),
           "combo_strategy": rate_table(g, ["combo", "strategy"]),
           "set": shared_label(rate_table(g, ["set"], clustered=False)),
           "set_strategy": rate_table(g, ["set", "strategy"], clustered=False),
           "god_age_strategy": rate_table(ga, ["god", "age", "strategy"], clustered=False),
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


def _vs_rest(t: pd.DataFrame, st: Stats, keys: list[str], alpha: float) -> pd.DataFrame:
    """Add the complement (clans of the same strategy without the card in that age), the
    difference with its cluster-robust standard error (seed blocks), z-test and BH/Holm corrections
    over the tested rows to a per-card sums table."""
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
    se = np.sqrt(cluster_var(t, None, t["c_G"].to_numpy(float)))
    diff = rd - rn
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where((se > 0) & np.isfinite(diff), diff / se, np.nan)
    # groups with few clans or few expected wins/losses are shown but not tested: their normal
    # approximation fails (2 clans that both won have a standard error of 0)
    small = too_small(nd, wd, nn, wn)
    tested = ~small & (se > 0) & np.isfinite(diff)
    pv = np.where(tested, 2 * _st.norm.sf(np.abs(np.nan_to_num(z))), np.nan)
    out = t[keys].copy()
    out["n"], out["wins"], out["win_rate"], out["ci_low"], out["ci_high"] = nd.astype(np.int64), wd, rd, lo_d, hi_d
    out["n_not"], out["wins_not"], out["win_rate_not"] = nn.astype(np.int64), wn, rn
    out["ci_low_not"], out["ci_high_not"] = lo_n, hi_n
    out["diff"], out["se"], out["z"], out["p_value"] = diff, se, z, pv
    out["mean_glory"], out["mean_glory_not"] = gd, gn
    out["tested"] = tested
    out["p_adj"], out["p_holm"] = correct(pv, tested, alpha)
    out["significant"] = out["p_adj"] < alpha
    out["small"] = small
    return out


def _totals(st: Stats) -> pd.DataFrame:
    """Per strategy: clans, wins and Glory (n_tot, w_tot, g_tot) and the seed-block sums c_G (blocks)
    c_TT/c_WW/c_WT."""
    c = st["clans"].groupby("strategy", sort=True)[["n", "w", "g"]].sum()
    c = c.rename(columns={"n": "n_tot", "w": "w_tot", "g": "g_tot"}).reset_index()
    cl = block_sums(st, ["strategy"])
    if cl is None:
        cl = pd.DataFrame({"strategy": [], **{k: [] for k in BLOCK_SUMS}})
    return c.merge(cl, on="strategy", how="left").fillna(0)


def cards(st: Stats, alpha: float = ALPHA) -> pd.DataFrame:
    """Per (strategy, age, card): drafting statistics and the improvement when drafted (17lands IWD).

    A clan 'drafted' a card in an age if it picked at least one copy.  Columns: strategy, age,
    card, times_drafted (pick rows), ata (mean pick position, 1-based), n_drafted /
    wins_drafted / win_rate_drafted (+ Wilson ci_low/ci_high), the same for clans of the same
    strategy that did not draft it in that age (``*_not``), iwd = difference, se (cluster-robust
    over seed blocks, :func:`cluster_var`: clans of one game and games of one deal are dependent),
    z = iwd / se, p_value (two-sided normal; NaN when not tested), tested, p_adj (Benjamini–Hochberg)
    and p_holm (Holm) over the tested rows of this table (NaN for the others), significant
    (p_adj < alpha), mean_glory (of clans that drafted it), small (:func:`too_small`: not tested).
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
    """One row per (age, card) of ``strategy`` (None: every strategy's rows): ATA, win rate when
    drafted / played / kept and the drafted IWD with its test (se, z, p_value, tested, p_adj, p_holm:
    enough to redo the correction from the CSV) — the card table of the report (cards.csv)."""
    c = cards(st)
    if not len(c):
        return c
    if strategy is not None:
        c = c[c["strategy"] == strategy]
    out = c[["strategy", "age", "card", "times_drafted", "ata", "n_drafted", "win_rate_drafted", "ci_low",
             "ci_high", "n_not", "win_rate_not", "iwd", "se", "z", "p_value", "tested", "p_adj", "p_holm",
             "significant", "small", "mean_glory"]].copy()
    u = card_uses(st)
    if len(u):
        for use, name in (("played", "played"), ("keep", "kept")):
            x = u[u["use"] == use][["strategy", "age", "card", "n", "win_rate", "mean_glory"]]
            x = x.rename(columns={"n": f"n_{name}", "win_rate": f"win_rate_{name}",
                                  "mean_glory": f"glory_{name}"})
            out = out.merge(x, on=["strategy", "age", "card"], how="left")
    return out.reset_index(drop=True)


# --------------------------------------------------------------------------- head to head

def _h2h_rates(st: Stats) -> pd.DataFrame:
    """Per (strategy, opponent): games both played, seat pairs, 'ahead' and the row's win rate, each
    a ratio over seat pairs with a cluster-robust interval over seed blocks (the game is the unit,
    not the seat pair); a strategy against itself is 0.5 by construction (``fixed``)."""
    h = st["h2h"]
    if not len(h):
        return pd.DataFrame()
    keys = ["strategy", "opponent"]
    h = h.groupby(keys, sort=True)[SUMS["h2h"]].sum().reset_index()
    out = h[[*keys, "games", "pairs"]].copy()
    m = h["pairs"].to_numpy(float)
    a = h["ahead2"].to_numpy(float) / 2
    out["ahead"], out["se"], out["ci_low"], out["ci_high"], fixed, out["small"] = cluster_rate(
        a, m, h["c_aa"] / 4, h["c_am"] / 2, h["c_mm"], h["c_G"])
    mirror = (h["strategy"] == h["opponent"]).to_numpy()
    fixed = fixed | mirror
    out["fixed"] = fixed
    out.loc[fixed, ["ci_low", "ci_high"]] = np.nan
    out.loc[fixed, "se"] = 0.0
    out.loc[fixed, "small"] = False
    w = h["w"].to_numpy(float) / WIN_UNIT
    out["win_rate"], out["win_rate_se"], out["win_rate_ci_low"], out["win_rate_ci_high"], _, _ = cluster_rate(
        w, m, h["c_ww"] / WIN_UNIT ** 2, h["c_wm"] / WIN_UNIT, h["c_mm"], h["c_G"])
    return out


def head_to_head(st: Stats, order: list[str] | None = None, value: str = "ahead") -> pd.DataFrame:
    """Matrix: row strategy vs column strategy over the games where both played.

    value 'ahead': share of the (row seat, column seat) pairs of those games where the row finished
    above the column (ties count 1/2); 'win_rate': the row's win rate in them. NaN where they never
    met; a mirror pair (the same strategy in two seats) sits on the diagonal (0.5 by construction)."""
    h = _h2h_rates(st)
    if not len(h):
        return pd.DataFrame()
    mat = h.pivot(index="strategy", columns="opponent", values=value).astype(float)
    order = order or sorted(set(h["strategy"]) | set(h["opponent"]))
    mat = mat.reindex(index=order, columns=order)
    mat.index.name, mat.columns.name = "strategy", None
    return mat


def head_to_head_long(st: Stats) -> pd.DataFrame:
    """Long head-to-head table: strategy, opponent, games (games where both played), pairs (seat
    pairs in them), ahead with se and 95% interval (cluster-robust over seed blocks: the game, not
    the seat pair, is the unit), fixed (0.5 by construction: a strategy against itself), small,
    win_rate with its interval (win_rate_se, win_rate_ci_low, win_rate_ci_high)."""
    return _h2h_rates(st)


# --------------------------------------------------------------------------- convergence

def convergence(st: Stats, strategy: str, games_done: int | None = None) -> pd.DataFrame:
    """Running win rate of ``strategy`` after the first g games, at the run's checkpoints (10, 20,
    50, ... and the last game; only g <= games_done), with its 95% interval (cluster-robust over
    seed blocks, :func:`cluster_rate`): the estimate settling inside a narrowing band.
    Columns strategy, games, n, win_rate, se, ci_low, ci_high, half_width, fixed."""
    c = st["convergence"]
    c = c[c["strategy"] == strategy]
    if games_done is not None:
        c = c[c["games"] <= games_done]
    c = c.sort_values("games")
    out = pd.DataFrame({"strategy": strategy, "games": c["games"].to_numpy(np.int64), "n": c["n"].to_numpy(np.int64)})
    wins = c["w"].to_numpy(float) / WIN_UNIT
    out["win_rate"], out["se"], out["ci_low"], out["ci_high"], out["fixed"], _ = cluster_rate(
        wins, out["n"].to_numpy(float), c["c_WW"] / WIN_UNIT ** 2, c["c_WT"] / WIN_UNIT, c["c_TT"], c["c_G"])
    out["half_width"] = (out["ci_high"] - out["ci_low"]) / 2
    return out


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
    terms = st.game.get("terms") if isinstance(st.game.get("terms"), dict) else {}
    per_game = {"games": st.games}
    for label, (a, b) in (terms.get("shape_per_game") or PER_GAME_SHAPE).items():
        per_game[label] = (tot[f"k_{a}"] - (tot[f"k_{b}"] if b else 0)) / games
    # ratios of two counters (Valhalla dice: attacks won / attacks): per strategy and over all, with
    # the Wilson interval of the events counted as independent
    for label, (a, b) in (terms.get("shape_rates") or {}).items():
        num, den = t[f"k_{a}"].to_numpy(float), t[f"k_{b}"].to_numpy(float)
        out[label] = np.divide(num, den, out=np.full(len(num), np.nan), where=den > 0)
        lo, hi = wilson(num, den)
        out[f"{label} ci_low"], out[f"{label} ci_high"] = lo, hi
        per_game[label] = out[label].iloc[-1]
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
