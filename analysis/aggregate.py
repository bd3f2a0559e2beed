"""Aggregations of a run's ``clans.parquet`` / ``picks.parquet`` for the balance report.

Every rate comes with a 95% interval: win rates (``sum(win_share) / n`` over clan-rows)
with the Wilson interval of ``statsmodels.stats.proportion.proportion_confint``, means
with a Student-t interval (scipy).  Every table carries its sample size ``n`` and a
``small`` flag (``n < SMALL_N``), so thin groups are visible rather than hidden.

Functions take pandas frames holding (at least) the columns they name; categorical
columns are turned into plain strings in the output.  ``load_clans``/``load_picks``
read only the columns needed and raise :class:`RunDataError` (naming the file) for a
missing, unreadable or foreign Parquet file.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as _st
from statsmodels.stats.proportion import proportion_confint

SMALL_N = 100
ALPHA = 0.05
GLORY_SOURCES = ("battle", "pillage", "quest", "ragnarok", "bonus", "cards")
GLORY_COLUMNS = [f"glory_{s}" for s in GLORY_SOURCES]
STAT_LETTERS = {"rage": "R", "axes": "A", "horns": "H"}

CLANS_NEEDED = ["game_id", "n_players", "seat", "strategy", "glory", "win_share",
                "rage_level", "axes_level", "horns_level", "stat_path", "gods", *GLORY_COLUMNS]
PICKS_NEEDED = ["game_id", "seat", "age", "pick", "card"]


class RunDataError(ValueError):
    """A run file that is missing, unreadable, or lacks the expected columns."""


# --------------------------------------------------------------------------- loading

def read_parquet_columns(path: Path, columns: list[str]) -> pd.DataFrame:
    """Read ``columns`` of the Parquet file ``path``. Raises RunDataError naming the file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    if not path.is_file():
        raise RunDataError(f"{path}: file not found")
    try:
        schema = pq.read_schema(path)
        missing = [c for c in columns if c not in schema.names]
        if missing:
            raise RunDataError(f"{path}: not a Volva results file (missing columns: {', '.join(missing)})")
        table = pq.read_table(path, columns=columns)
    except RunDataError:
        raise
    except (pa.ArrowException, OSError, ValueError) as exc:
        msg = " ".join(str(exc).split()) or type(exc).__name__
        raise RunDataError(f"{path}: unreadable Parquet file ({msg})") from None
    if table.num_rows == 0:
        raise RunDataError(f"{path}: holds no rows")
    return table.to_pandas()


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


def _rate_table(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Win rate (Wilson) and mean Glory (t) per group of ``keys``."""
    g = df.groupby(keys, observed=True, sort=True)
    out = g.agg(n=("win_share", "size"), wins=("win_share", "sum"),
                mean_glory=("glory", "mean"), sd_glory=("glory", "std"))
    out = out[out["n"] > 0]
    out["win_rate"] = out["wins"] / out["n"]
    out["ci_low"], out["ci_high"] = wilson(out["wins"].to_numpy(), out["n"].to_numpy())
    out["glory_ci_low"], out["glory_ci_high"] = t_interval(out["mean_glory"], out["sd_glory"].fillna(0), out["n"])
    out["small"] = out["n"] < SMALL_N
    out = out.reset_index()
    for k in keys:
        out[k] = _str_col(out[k])
    return out[[*keys, "n", "wins", "win_rate", "ci_low", "ci_high", "mean_glory", "glory_ci_low",
                "glory_ci_high", "small"]]


# --------------------------------------------------------------------------- simple groupings

def by_strategy(clans: pd.DataFrame) -> pd.DataFrame:
    """Win rate and mean Glory per strategy (columns strategy, win_share, glory)."""
    return _rate_table(clans, ["strategy"])


def by_seat(clans: pd.DataFrame) -> pd.DataFrame:
    """Win rate and mean Glory per (n_players, seat), with ``expected`` = 1/n_players."""
    out = _rate_table(clans, ["n_players", "seat"])
    out["expected"] = 1.0 / out["n_players"]
    return out


def by_players(clans: pd.DataFrame) -> pd.DataFrame:
    """Win rate and mean Glory per (n_players, strategy), with ``expected`` = 1/n_players."""
    out = _rate_table(clans, ["n_players", "strategy"])
    out["expected"] = 1.0 / out["n_players"]
    return out


def glory_by_source(clans: pd.DataFrame) -> pd.DataFrame:
    """Mean Glory per source (the six glory_* columns) per strategy, with t intervals.

    Long format: strategy, source, n, mean, ci_low, ci_high, small."""
    g = clans.groupby("strategy", observed=True, sort=True)[GLORY_COLUMNS]
    mean, sd, n = g.mean(), g.std().fillna(0), g.size()
    rows = []
    for strat in mean.index:
        for col, src in zip(GLORY_COLUMNS, GLORY_SOURCES):
            lo, hi = t_interval(mean.at[strat, col], sd.at[strat, col], n[strat])
            rows.append((str(strat), src, int(n[strat]), float(mean.at[strat, col]), float(lo[0]), float(hi[0])))
    out = pd.DataFrame(rows, columns=["strategy", "source", "n", "mean", "ci_low", "ci_high"])
    out["small"] = out["n"] < SMALL_N
    return out


# --------------------------------------------------------------------------- stat paths

def final_levels(clans: pd.DataFrame) -> pd.Series:
    """'R3 A6 H1' per row from rage/axes/horns_level."""
    key = (clans["rage_level"].astype(np.int64) * 100 + clans["axes_level"].astype(np.int64) * 10
           + clans["horns_level"].astype(np.int64))
    uniq, inv = np.unique(key.to_numpy(), return_inverse=True)
    labels = np.array([f"R{k // 100} A{k // 10 % 10} H{k % 10}" for k in uniq], dtype=object)
    return pd.Series(labels[inv.reshape(-1)], index=clans.index)


def first_raises(stat_path: pd.Series, k: int = 2) -> pd.Series:
    """First ``k`` raises of 'axes,rage,...' as 'axes,rage' ('(none)' when no raise)."""
    cats = stat_path.astype(str).astype("category")
    names = np.array([",".join(str(c).split(",")[:k]) if str(c) else "(none)" for c in cats.cat.categories],
                     dtype=object)
    return pd.Series(names[cats.cat.codes.to_numpy()], index=stat_path.index)


def by_stat_path(clans: pd.DataFrame, strategy: str | None = None, top: int = 15) -> dict[str, pd.DataFrame]:
    """Win rate per final-level path ('R3 A6 H1') and per first two raises, top ``top`` by n.

    ``strategy`` restricts to that strategy's clans (None: all).  Returns
    {'levels': df, 'first_two': df} with columns path, n, win_rate, ci_low, ci_high, mean_glory, ..."""
    df = clans if strategy is None else clans[_str_col(clans["strategy"]) == strategy]
    base = pd.DataFrame({"win_share": df["win_share"].to_numpy(), "glory": df["glory"].to_numpy(),
                         "levels": final_levels(df).to_numpy(), "first_two": first_raises(df["stat_path"]).to_numpy()})
    out = {}
    for key in ("levels", "first_two"):
        t = _rate_table(base, [key]).rename(columns={key: "path"})
        out[key] = t.sort_values(["n", "path"], ascending=[False, True]).head(top).reset_index(drop=True)
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


def by_gods(clans: pd.DataFrame) -> dict[str, pd.DataFrame] | None:
    """Win rate per god pair and per (pair, strategy); None when the run has no gods.

    Note: over all clans of a game the shares sum to 1, so the per-pair rate is 1/n_players
    by construction; the per-(pair, strategy) table is the informative one."""
    gods = _str_col(clans["gods"])
    mask = gods != ""
    if not mask.any():
        return None
    df = clans.loc[mask, ["win_share", "glory", "strategy"]].copy()
    df["pair"] = gods[mask].to_numpy()
    return {"pair": _rate_table(df, ["pair"]), "pair_strategy": _rate_table(df, ["pair", "strategy"])}


def god_matrix(pair_table: pd.DataFrame, value: str = "win_rate") -> pd.DataFrame:
    """Symmetric god x god matrix of ``value`` from a table with a 'pair' column (NaN off-pairs)."""
    order = god_order(pair_table["pair"])
    m = pd.DataFrame(np.nan, index=order, columns=order)
    for pair, v in zip(pair_table["pair"], pair_table[value]):
        a, _, b = str(pair).partition("+")
        if a in m.index and b in m.index:
            m.at[a, b] = m.at[b, a] = v
    return m


# --------------------------------------------------------------------------- cards

def _sorted_unique(a: np.ndarray) -> np.ndarray:
    """np.unique by sorting (much faster than numpy 2's hash-based unique on millions of int64)."""
    a = np.sort(a, kind="stable")
    if len(a) == 0:
        return a
    keep = np.empty(len(a), bool)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]


def cards(clans: pd.DataFrame, picks: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """Per (strategy, age, card): drafting statistics and the 'improvement when drafted'.

    ``picks`` (game_id, seat, age, pick, card) is joined to ``clans`` (game_id, seat,
    strategy, win_share) on game_id+seat.  A clan 'drafted' a card in an age if it picked
    at least one copy.  Columns: strategy, age, card, times_drafted (pick rows), ata (mean
    pick position, 1-based), n_drafted/wins_drafted/win_rate_drafted (+ Wilson ci), and the
    same for clans of the same strategy that did not draft the card in that age
    (``*_not``), iwd = difference, z, p_value, p_adj (Benjamini-Hochberg over all rows),
    significant (p_adj < alpha), small (either group < SMALL_N).
    """
    from statsmodels.stats.multitest import multipletests

    gid = clans["game_id"].to_numpy(np.int64)
    seat = clans["seat"].to_numpy(np.int64)
    ckey = gid * 8 + seat
    order = np.argsort(ckey, kind="stable")
    skey = ckey[order]
    pkey = picks["game_id"].to_numpy(np.int64) * 8 + picks["seat"].to_numpy(np.int64)
    pos = np.searchsorted(skey, pkey)
    pos = np.minimum(pos, len(skey) - 1)
    found = skey[pos] == pkey
    cidx = order[pos[found]]  # clan row per pick

    strat_cat = clans["strategy"].astype("category")
    s_code = strat_cat.cat.codes.to_numpy(np.int64)
    s_names = [str(x) for x in strat_cat.cat.categories]
    S = len(s_names)
    share = clans["win_share"].to_numpy(float)

    card_cat = picks["card"].astype("category")
    c_code = card_cat.cat.codes.to_numpy(np.int64)[found]
    c_names = [str(x) for x in card_cat.cat.categories]
    C = len(c_names)
    age = picks["age"].to_numpy(np.int64)[found]
    pick = picks["pick"].to_numpy(np.int64)[found]
    A = int(age.max()) + 1 if len(age) else 1

    # cell = (strategy, age, card)
    cell = (s_code[cidx] * A + age) * C + c_code
    ncell = S * A * C
    times = np.bincount(cell, minlength=ncell)
    pick_sum = np.bincount(cell, weights=pick, minlength=ncell)

    # unique (clan, age, card): drafted indicator
    u = _sorted_unique(cidx * (A * C) + age * C + c_code)
    u_clan, u_rest = u // (A * C), u % (A * C)
    u_cell = s_code[u_clan] * (A * C) + u_rest
    n_d = np.bincount(u_cell, minlength=ncell).astype(float)
    w_d = np.bincount(u_cell, weights=share[u_clan], minlength=ncell)

    # totals per (strategy, age): clans that drafted anything in that age
    ua = np.nonzero(np.bincount(cidx * A + age, minlength=len(clans) * A))[0]
    ua_clan, ua_age = ua // A, ua % A
    sa = s_code[ua_clan] * A + ua_age
    n_tot = np.bincount(sa, minlength=S * A).astype(float)
    w_tot = np.bincount(sa, weights=share[ua_clan], minlength=S * A)

    live = np.nonzero(times > 0)[0]
    s_i, rest = live // (A * C), live % (A * C)
    a_i, c_i = rest // C, rest % C
    nd, wd = n_d[live], w_d[live]
    nn = n_tot[s_i * A + a_i] - nd
    wn = w_tot[s_i * A + a_i] - wd
    with np.errstate(divide="ignore", invalid="ignore"):
        rd = wd / nd
        rn = np.where(nn > 0, wn / np.where(nn > 0, nn, 1), np.nan)
    lo_d, hi_d = wilson(wd, nd, alpha)
    lo_n, hi_n = wilson(wn, nn, alpha)
    z, pv = two_proportion_z(wd, nd, wn, nn)
    out = pd.DataFrame({
        "strategy": np.array(s_names, dtype=object)[s_i], "age": a_i.astype(np.int64),
        "card": np.array(c_names, dtype=object)[c_i], "times_drafted": times[live],
        "ata": pick_sum[live] / times[live],
        "n_drafted": nd.astype(np.int64), "wins_drafted": wd, "win_rate_drafted": rd,
        "ci_low": lo_d, "ci_high": hi_d,
        "n_not": nn.astype(np.int64), "wins_not": wn, "win_rate_not": rn,
        "ci_low_not": lo_n, "ci_high_not": hi_n,
        "iwd": rd - rn, "z": z, "p_value": pv,
    })
    if len(out):
        out["p_adj"] = multipletests(out["p_value"].to_numpy(), alpha=alpha, method="fdr_bh")[1]
    else:
        out["p_adj"] = []
    out["significant"] = out["p_adj"] < alpha
    out["small"] = (out["n_drafted"] < SMALL_N) | (out["n_not"] < SMALL_N)
    return out.sort_values(["strategy", "age", "card"]).reset_index(drop=True)


# --------------------------------------------------------------------------- convergence

def convergence(clans: pd.DataFrame, strategy: str | None = None, points: int = 20) -> pd.DataFrame:
    """Cumulative win rate and 95% Wilson half-width of ``strategy`` (default: the strategy of
    the first clan row, i.e. seat 0 of game 0) after the first g games, at ~``points``
    log-spaced g.  Columns strategy, games, n, win_rate, ci_low, ci_high, half_width."""
    strat = _str_col(clans["strategy"])
    if strategy is None:
        strategy = str(strat.iloc[np.argmin(clans["game_id"].to_numpy())])
    mask = (strat == strategy).to_numpy()
    gid = clans["game_id"].to_numpy(np.int64)[mask]
    share = clans["win_share"].to_numpy(float)[mask]
    order = np.argsort(gid, kind="stable")
    gid, share = gid[order], share[order]
    ugames = np.unique(clans["game_id"].to_numpy(np.int64))
    G = len(ugames)
    gs = np.unique(np.round(np.geomspace(min(10, G), G, points)).astype(np.int64)) if G else np.array([], np.int64)
    rows = []
    cum_w = np.cumsum(share)
    for g in gs:
        last = ugames[g - 1]
        k = np.searchsorted(gid, last, side="right")
        if k == 0:
            continue
        w = cum_w[k - 1]
        rows.append((strategy, int(g), int(k), w))
    out = pd.DataFrame(rows, columns=["strategy", "games", "n", "wins"])
    out["win_rate"] = out["wins"] / out["n"]
    out["ci_low"], out["ci_high"] = wilson(out["wins"].to_numpy(), out["n"].to_numpy())
    out["half_width"] = (out["ci_high"] - out["ci_low"]) / 2
    return out.drop(columns="wins")


# --------------------------------------------------------------------------- all

def focal_strategy(clans: pd.DataFrame) -> str:
    """The strategy of seat 0 in the first game (the lineup's first strategy)."""
    i = int(np.argmin(clans["game_id"].to_numpy() * 8 + clans["seat"].to_numpy()))
    return str(clans["strategy"].iloc[i])


def aggregate(clans: pd.DataFrame, picks: pd.DataFrame | None) -> dict[str, object]:
    """All report tables: strategy, seat, players, glory_sources, stat_paths (per strategy:
    {'levels','first_two'}), gods (or None), cards (or None), convergence, focal."""
    focal = focal_strategy(clans)
    strategies = sorted(_str_col(clans["strategy"]).unique())
    return {
        "focal": focal,
        "strategy": by_strategy(clans),
        "seat": by_seat(clans),
        "players": by_players(clans),
        "glory_sources": glory_by_source(clans),
        "stat_paths": {s: by_stat_path(clans, s) for s in strategies},
        "gods": by_gods(clans),
        "cards": cards(clans, picks) if picks is not None else None,
        "convergence": convergence(clans, focal),
    }
