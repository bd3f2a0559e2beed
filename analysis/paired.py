"""Paired experiments: two arms on the same seeds and lineup, played batch by batch.

``volva compare --patch`` plays a baseline and a variant card set; ``volva ablate CARD`` a
forced and a banned arm. Each clan-row of arm B is paired with the row of the same game and
seat in arm A (same seed, same strategy there), so the difference of win shares
``d = w_B - w_A`` is a paired difference. **Unit**: the clans of one game, and the games of one
deal (seat rotation), are dependent, so every paired mean is a ratio of per-seed-block sums with a
cluster-robust standard error and a t interval with G − 1 degrees of freedom
(:func:`analysis.aggregate.cluster_mean`); a difference that is 0 in every block (a mirror
lineup's strategy row) is ``fixed``. Groups that are outcomes of play (the god pair drafted, the
stat path) are not paired; their differences get an unpooled two-proportion z-test, a Newcombe
interval and Benjamini–Hochberg correction over the tested rows.

The sums a batch keeps (paired sums per (strategy, holder), card sums per (strategy, age,
card)) are :mod:`analysis.pairsums`'s.
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
from scipy import stats as _st

from volva.analysis import aggregate as agg
from volva.analysis.pairsums import (
    ALL_CLANS,
    CARD_KEYS,
    CELL_Q,
    PAIR_KEYS,
    PAIR_SUMS,
    UNITS,
    VARS,
)
from volva.analysis.suffstats import ALL, WIN_UNIT, Stats
from volva.simulator.core import enums as E


def add_sums(x: pd.DataFrame | None, y: pd.DataFrame, keys: list[str] = PAIR_KEYS) -> pd.DataFrame:
    """Running sums: ``x`` + ``y`` per group of ``keys`` (batches never split a block, so the block
    sums add)."""
    if x is None or not len(x):
        return y.copy()
    cols = [c for c in y.columns if c not in keys]
    return pd.concat([x, y], ignore_index=True).groupby(keys, sort=True)[cols].sum().reset_index()


def _paired_interval(s, s2, n, alpha=0.05):
    """Paired t interval of a mean from (sum, sum of squares, n) treating rows as independent (the
    sequential streams' unit); the tables use :func:`agg.cluster_mean`."""
    s, s2, n = (np.asarray(x, float) for x in (s, s2, n))
    mean = s / np.maximum(n, 1)
    sd = agg._sd(s, s2, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = sd / np.sqrt(n)
        half = np.where(n >= 2, _st.t.ppf(1 - alpha / 2, np.maximum(n - 1, 1)) * se, np.nan)
        tstat = np.where(se > 0, mean / se, 0.0)
    p = np.where(n >= 2, 2 * _st.t.sf(np.abs(tstat), np.maximum(n - 1, 1)), 1.0)
    return mean, mean - half, mean + half, p


def paired_table(sums: pd.DataFrame, keys: list[str], alpha: float = 0.05) -> pd.DataFrame:
    """Mean paired difference of win rate (d_win) and Glory (d_glory) per row of ``sums`` (each row
    one group with its own block sums; rows with the same ``keys`` must not repeat), with
    cluster-robust 95% intervals over seed blocks and p-values (t, G − 1 df). Columns keys, n,
    d_win, se, ci_low, ci_high, p_value, fixed, d_glory, glory_ci_low, glory_ci_high."""
    t = sums.reset_index(drop=True)
    U = WIN_UNIT
    n = t["n"].to_numpy(float)
    m, se, lo, hi, p, fixed = agg.cluster_mean(t["d"] / U, n, t["c_dd"] / U ** 2, t["c_dn"] / U, t["c_nn"],
                                               t["c_G"], alpha)
    gm, _, glo, ghi, _, _ = agg.cluster_mean(t["gd"], n, t["c_gg"], t["c_gn"], t["c_nn"], t["c_G"], alpha)
    out = t[keys].copy()
    out["n"] = t["n"].astype(np.int64)
    out["d_win"], out["se"], out["ci_low"], out["ci_high"], out["p_value"], out["fixed"] = m, se, lo, hi, p, fixed
    out["d_glory"], out["glory_ci_low"], out["glory_ci_high"] = gm, glo, ghi
    return out


def strategy_rows(sums: pd.DataFrame) -> pd.DataFrame:
    """The rows of every clan of each strategy (holder -1, not '*')."""
    return sums[(sums["holder"] == ALL_CLANS) & (sums["strategy"] != ALL)]


def unpaired_diff(ta: pd.DataFrame, tb: pd.DataFrame, keys: list[str], alpha: float = 0.05) -> pd.DataFrame:
    """B - A difference of win rate per group of ``keys`` from two rate tables (columns keys, n,
    wins, win_rate, mean_glory): two-proportion z-test, 95% Newcombe hybrid-score interval of the
    difference (statsmodels ``confint_proportions_2indep(method='newcomb')``: good coverage at
    small counts), Benjamini–Hochberg p_adj and Holm p_holm over the tested rows. Rows that are
    :func:`agg.too_small` (under SMALL_N clans or 5 expected wins or losses in an arm) are kept,
    flagged ``small`` and not tested (p NaN). Clans are treated as independent here: these groups
    (god pair drafted, stat levels) are outcomes of play."""
    from statsmodels.stats.proportion import confint_proportions_2indep
    m = ta[keys + ["n", "wins", "win_rate", "mean_glory"]].merge(
        tb[keys + ["n", "wins", "win_rate", "mean_glory"]], on=keys, how="outer", suffixes=("_a", "_b"))
    for c in ("n_a", "n_b", "wins_a", "wins_b"):
        m[c] = m[c].fillna(0)
    na, nb = m["n_a"].to_numpy(float), m["n_b"].to_numpy(float)
    wa, wb = m["wins_a"].to_numpy(float), m["wins_b"].to_numpy(float)
    ra = np.where(na > 0, wa / np.maximum(na, 1), np.nan)
    rb = np.where(nb > 0, wb / np.maximum(nb, 1), np.nan)
    m["win_rate_a"], m["win_rate_b"], m["d_win"] = ra, rb, rb - ra
    lo, hi = np.full(len(m), np.nan), np.full(len(m), np.nan)
    ok = (na > 0) & (nb > 0)
    if ok.any():
        lo[ok], hi[ok] = confint_proportions_2indep(np.minimum(wb[ok], nb[ok]), nb[ok], np.minimum(wa[ok], na[ok]),
                                                    na[ok], method="newcomb", compare="diff", alpha=alpha)
    m["ci_low"], m["ci_high"] = lo, hi
    z, p = agg.two_proportion_z(m["wins_b"], nb, m["wins_a"], na)
    small = agg.too_small(na, wa, nb, wb)
    tested = ~small
    m["z"], m["p_value"], m["tested"], m["small"] = np.where(tested, z, np.nan), np.where(tested, p, np.nan), tested, \
        small
    m["p_adj"], m["p_holm"] = agg.correct(m["p_value"], tested, alpha)
    m["significant"] = m["p_adj"] < alpha
    m["d_glory"] = m["mean_glory_b"] - m["mean_glory_a"]
    m["n_a"], m["n_b"] = m["n_a"].astype(np.int64), m["n_b"].astype(np.int64)
    return m[keys + ["n_a", "n_b", "win_rate_a", "win_rate_b", "d_win", "ci_low", "ci_high", "z", "p_value",
                     "tested", "p_adj", "p_holm", "significant", "d_glory", "small"]]


def paired_iwd_var(cs: pd.DataFrame, ca: pd.DataFrame, cb: pd.DataFrame) -> pd.DataFrame:
    """Per (strategy, age, card): the cluster-robust variance of IWD_B − IWD_A using the pairing
    (``var``), and of each arm alone (``var_a``, ``var_b``: :func:`agg.cluster_var`'s), from the card
    sums ``cs`` and the arms' card tables ``ca``/``cb`` (aggregate.cards). The IWD of an arm is
    linear to first order in the per-block sums (wd, nd, W, T) with coefficients (a, −β, −γ, δ),
    a = 1/Nd + 1/Nn, β = pd/Nd + pn/Nn, γ = 1/Nn, δ = pn/Nn; the variance of the difference is the
    quadratic form of the coefficient vector in the second moments q_*, times G/(G − 1)."""
    cell = cs[cs["card"] != ALL].set_index(CARD_KEYS)
    strat = cs[cs["card"] == ALL].set_index("strategy")
    m = ca[CARD_KEYS + ["n_drafted", "n_not", "win_rate_drafted", "win_rate_not"]].merge(
        cb[CARD_KEYS + ["n_drafted", "n_not", "win_rate_drafted", "win_rate_not"]], on=CARD_KEYS,
        suffixes=("_a", "_b"))
    m = m[m.set_index(CARD_KEYS).index.isin(cell.index)].reset_index(drop=True)
    coef = np.zeros((len(m), 7))
    for arm, sign, (iw, inn) in (("a", -1.0, (0, 1)), ("b", 1.0, (2, 3))):
        Nd, Nn = m[f"n_drafted_{arm}"].to_numpy(float), m[f"n_not_{arm}"].to_numpy(float)
        pd_, pn = m[f"win_rate_drafted_{arm}"].to_numpy(float), np.nan_to_num(m[f"win_rate_not_{arm}"].to_numpy(float))
        with np.errstate(divide="ignore", invalid="ignore"):
            inv_n = np.where(Nn > 0, 1 / np.where(Nn > 0, Nn, 1), 0.0)
            coef[:, iw] = sign * (1 / Nd + inv_n)
            coef[:, inn] = sign * -(pd_ / Nd + pn * inv_n)
            coef[:, 4 if arm == "a" else 5] = sign * -inv_n
            coef[:, 6] += sign * pn * inv_n
    idx = pd.MultiIndex.from_frame(m[CARD_KEYS])
    M = np.zeros((len(m), 7, 7))
    for i in range(7):
        for j in range(i, 7):
            q = f"q_{VARS[i]}_{VARS[j]}"
            src = cell.reindex(idx)[q].to_numpy(float) if q in CELL_Q else \
                strat.reindex(m["strategy"])[q].to_numpy(float)
            M[:, i, j] = M[:, j, i] = src / (UNITS[i] * UNITS[j])
    G = np.maximum(strat.reindex(m["strategy"])["c_G"].to_numpy(float), 2)
    f = G / (G - 1)

    def form(c):
        return np.clip(np.einsum("ri,rij,rj->r", c, M, c), 0, None) * f
    out = m[CARD_KEYS].copy()
    a_only, b_only = coef.copy(), coef.copy()
    a_only[:, [2, 3, 5]] = 0
    b_only[:, [0, 1, 4]] = 0
    # T's coefficient is δ_B − δ_A: split it by arm
    for arm, c_ in (("a", a_only), ("b", b_only)):
        Nn = m[f"n_not_{arm}"].to_numpy(float)
        pn = np.nan_to_num(m[f"win_rate_not_{arm}"].to_numpy(float))
        with np.errstate(divide="ignore", invalid="ignore"):
            c_[:, 6] = (1.0 if arm == "b" else -1.0) * pn * np.where(Nn > 0, 1 / np.where(Nn > 0, Nn, 1), 0.0)
    out["var"], out["var_a"], out["var_b"] = form(coef), form(a_only), form(b_only)
    return out


def iwd_diff(ca: pd.DataFrame, cb: pd.DataFrame, alpha: float = 0.05, cs: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per (strategy, age, card): the change of the card's improvement-when-drafted (win rate
    drafted − not drafted, same strategy and age) from arm A to arm B, so a strategy-wide shift
    does not count as the card moving. With the card sums ``cs`` of a paired run the standard error
    uses the pairing (:func:`paired_iwd_var`, ``paired`` True); without (two independent runs),
    sqrt(var_A + var_B). z = Δ / se, 95% interval, BH ``p_adj`` and Holm ``p_holm`` over the tested
    rows, sorted by |z|. Rows whose card test is ``small`` in either arm are kept, flagged and not
    tested. Also the change of who drafts the card: ``draft_rate_a``/``_b`` (share of the strategy's
    clans that drafted it) and ATA."""
    keys = CARD_KEYS
    cols = keys + ["iwd", "n_drafted", "n_not", "ata", "se", "small"]
    m = ca[cols].merge(cb[cols], on=keys, suffixes=("_a", "_b"))
    m["var_a"], m["var_b"] = m["se_a"] ** 2, m["se_b"] ** 2
    m["paired"] = False
    if cs is not None and len(cs):
        pv = paired_iwd_var(cs, ca, cb)
        m = m.merge(pv[keys + ["var"]], on=keys, how="left")
        m["paired"] = m["var"].notna()
        m["var"] = m["var"].fillna(m["var_a"] + m["var_b"])
    else:
        m["var"] = m["var_a"] + m["var_b"]
    m = m[np.isfinite(m["var"]) & (m["var"] > 0)].reset_index(drop=True)
    se = np.sqrt(m["var"])
    m["d_iwd"] = m["iwd_b"] - m["iwd_a"]
    z95 = _st.norm.ppf(1 - alpha / 2)
    m["se"] = se
    m["ci_low"], m["ci_high"] = m["d_iwd"] - z95 * se, m["d_iwd"] + z95 * se
    m["z"] = m["d_iwd"] / se
    small = m["small_a"].astype(bool) | m["small_b"].astype(bool)
    m["tested"] = ~small
    m["p_value"] = np.where(small, np.nan, 2 * _st.norm.sf(np.abs(m["z"])))
    m["p_adj"], m["p_holm"] = agg.correct(m["p_value"], ~small, alpha)
    m["significant"] = m["p_adj"] < alpha
    m["small"] = small
    for arm in ("a", "b"):
        m[f"draft_rate_{arm}"] = m[f"n_drafted_{arm}"] / (m[f"n_drafted_{arm}"] + m[f"n_not_{arm}"])
    m = m.drop(columns=["var_a", "var_b", "var", "se_a", "se_b", "small_a", "small_b", "n_not_a", "n_not_b"])
    return m.reindex(m["z"].abs().sort_values(ascending=False).index).reset_index(drop=True)


def _holder_effect(c: pd.DataFrame, pre: str, alpha: float) -> tuple:
    U = WIN_UNIT
    n = c[f"{pre}n"].to_numpy(float)
    return (n,) + agg.cluster_mean(c[f"{pre}d"] / U, n, c[f"{pre}c_dd"] / U ** 2, c[f"{pre}c_dn"] / U,
                                   c[f"{pre}c_nn"], c[f"{pre}c_G"], alpha)


def card_value(cs: pd.DataFrame, ca: pd.DataFrame, cb: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """What the patch changed in each card, separated as a designer asks it, per (strategy, age, card):

    - **worth to a holder**: ``d_value``, the paired change of win rate (variant − baseline, same
      game and seat) of the clans that hold the card in the variant (``holders``), minus the same
      change for the strategy's other clans: a strategy-wide shift (the whole meta moved) does not
      count as the card's. Cluster-robust 95% interval over seed blocks (:func:`agg.cluster_var`
      on the paired differences); tested (BH ``p_adj``, Holm ``p_holm`` over the tested rows)
      unless :func:`agg.too_small`; the table is sorted by it. ``d_holders`` (with its interval) is
      the holders' change alone;
    - **who drafts it**: draft_rate_a/_b (share of the strategy's clans that drafted it), ata_a/_b;
    - ``d_held_both``: the change for the clans that drafted it in *both* arms (``holders_both``),
      who drafts it held fixed; often few clans when the patch changes the draft.
    """
    c = cs[(cs["card"] != ALL) & (cs["h_n"] > 0)].reset_index(drop=True)
    st = cs[cs["card"] == ALL].set_index("strategy")
    U = WIN_UNIT
    # the card test of aggregate.cards with win shares replaced by paired differences
    t = pd.DataFrame({"n": c["h_n"], "w": c["h_d"], "n_tot": st.reindex(c["strategy"])["s_T"].to_numpy(),
                      "w_tot": st.reindex(c["strategy"])["s_D"].to_numpy(),
                      "c_nn": c["h_c_nn"], "c_wn": c["h_c_dn"], "c_ww": c["h_c_dd"], "c_wW": c["x_dD"],
                      "c_wT": c["x_dT"], "c_nW": c["x_nD"], "c_nT": c["x_nT"]})
    S = st.reindex(c["strategy"])
    t["c_TT"] = S["q_T_T"].to_numpy()
    t["c_WW"] = (S["q_WB_WB"] - 2 * S["q_WA_WB"] + S["q_WA_WA"]).to_numpy()
    t["c_WT"] = (S["q_WB_T"] - S["q_WA_T"]).to_numpy()
    nh, nn = t["n"].to_numpy(float), (t["n_tot"] - t["n"]).to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        dh = t["w"].to_numpy(float) / U / nh
        dn = np.where(nn > 0, (t["w_tot"] - t["w"]).to_numpy(float) / U / np.where(nn > 0, nn, 1), np.nan)
    se = np.sqrt(agg.cluster_var(t, None, S["c_G"].to_numpy(float)))
    G = np.maximum(S["c_G"].to_numpy(float), 2)
    q = _st.t.ppf(1 - alpha / 2, G - 1)
    out = c[CARD_KEYS].copy()
    out["holders"] = c["h_n"].astype(np.int64)
    out["d_value"], out["se"] = dh - dn, se
    out["ci_low"], out["ci_high"] = out["d_value"] - q * se, out["d_value"] + q * se
    small = (nh < agg.SMALL_N) | (nn < agg.SMALL_N) | ~(se > 0)
    out["tested"], out["small"] = ~small, small
    with np.errstate(divide="ignore", invalid="ignore"):
        out["p_value"] = np.where(small, np.nan, 2 * _st.t.sf(np.abs(out["d_value"] / se), G - 1))
    out["p_adj"], out["p_holm"] = agg.correct(out["p_value"], ~small, alpha)
    out["significant"] = out["p_adj"] < alpha
    for pre, name in (("h_", "d_holders"), ("k_", "d_held_both")):
        n = c[f"{pre}n"].to_numpy(float)
        m, _, lo, hi, _, _ = agg.cluster_mean(c[f"{pre}d"] / U, n, c[f"{pre}c_dd"] / U ** 2, c[f"{pre}c_dn"] / U,
                                              c[f"{pre}c_nn"], c[f"{pre}c_G"], alpha)
        out[name], out[f"{name}_ci_low"], out[f"{name}_ci_high"] = m, lo, hi
    out["holders_both"] = c["k_n"].astype(np.int64)
    for arm, tab in (("a", ca), ("b", cb)):
        r = tab[CARD_KEYS + ["n_drafted", "n_not", "ata"]].copy()
        r[f"draft_rate_{arm}"] = r["n_drafted"] / (r["n_drafted"] + r["n_not"])
        out = out.merge(r[CARD_KEYS + [f"draft_rate_{arm}", "ata"]].rename(columns={"ata": f"ata_{arm}"}),
                        on=CARD_KEYS, how="left")
    return out.sort_values(["d_value", "strategy", "age", "card"], ascending=[False, True, True, True],
                           na_position="last").reset_index(drop=True)


def compare_tables(sa: Stats, sb: Stats, sums: pd.DataFrame, alpha: float = 0.05,
                   cs: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """What moved between arm A (baseline) and arm B (variant): 'strategy' paired (clustered by
    seed block); 'card_value' (:func:`card_value`, with the card sums ``cs``), 'card_iwd' (each
    card's improvement when drafted, :func:`iwd_diff`, paired when ``cs`` is given), 'cards' (win
    rate when drafted), 'drafted_gods', 'gods', 'stat_levels', 'stat_paths' unpaired with BH
    correction over each table's tested rows."""
    out = {"strategy": paired_table(strategy_rows(sums), ["strategy"], alpha)}
    ca, cb = agg.cards(sa, alpha), agg.cards(sb, alpha)
    if len(ca) and len(cb):
        ren = {"n_drafted": "n", "wins_drafted": "wins", "win_rate_drafted": "win_rate"}
        cards = unpaired_diff(ca.rename(columns=ren), cb.rename(columns=ren), CARD_KEYS, alpha)
        ata = ca[CARD_KEYS + ["ata"]].merge(cb[CARD_KEYS + ["ata"]], on=CARD_KEYS, how="outer", suffixes=("_a", "_b"))
        out["cards"] = cards.merge(ata, on=CARD_KEYS, how="left")
        if cs is not None and len(cs):
            out["card_value"] = card_value(cs, ca, cb, alpha)
        out["card_iwd"] = iwd_diff(ca, cb, alpha, cs)
    da, db = agg.by_drafted_gods(sa), agg.by_drafted_gods(sb)
    if (da["god_pair"].astype(str) != "(none)").any() or (db["god_pair"].astype(str) != "(none)").any():
        out["drafted_gods"] = unpaired_diff(da, db, ["strategy", "god_pair"], alpha)  # a game whose cards have gods
    ga, gb = agg.by_gods(sa), agg.by_gods(sb)
    if ga is not None and gb is not None:
        out["gods"] = unpaired_diff(ga["pair_strategy"], gb["pair_strategy"], ["pair", "strategy"], alpha)
    if len(sa["groups"]) and len(sb["groups"]):  # the engine's seat groups (a Valhalla dice Jarl ...)
        from volva.analysis.groups import by_group
        a, b = by_group(sa), by_group(sb)
        parts = [unpaired_diff(a[d]["strategy"], b[d]["strategy"], ["strategy", "value"], alpha).assign(dimension=d)
                 for d in a if d in b]
        if parts:
            g = pd.concat(parts, ignore_index=True)
            out["groups"] = g[["dimension", *[c for c in g.columns if c != "dimension"]]]
    sh = shape_change(sa, sb, alpha)
    if sh is not None:
        out["shape"] = sh
    terms = sa.game.get("terms") if isinstance(sa.game.get("terms"), dict) else {}
    if terms.get("clan_stats", True) is False:  # a game without stat tracks
        return out
    la = agg.rate_table(sa["levels"], ["strategy", "levels"])
    lb = agg.rate_table(sb["levels"], ["strategy", "levels"])
    out["stat_levels"] = unpaired_diff(la, lb, ["strategy", "levels"], alpha)
    pa_ = agg.rate_table(sa["paths"], ["strategy", "path"])
    pb = agg.rate_table(sb["paths"], ["strategy", "path"])
    out["stat_paths"] = unpaired_diff(pa_, pb, ["strategy", "path"], alpha)
    return out


def shape_change(sa: Stats, sb: Stats, alpha: float = 0.05) -> pd.DataFrame | None:
    """How the bots' play moved (analysis.aggregate.game_shape in both arms): per strategy and
    ``(all)``, each counter's mean per clan per game in each arm, the change and its normal
    interval from the two arms' standard errors (unpaired, so conservative for paired games).
    Counters are named in the game's words (engine terms ``shape``). None when an arm has no
    game-shape counts."""
    ra, rb = agg.game_shape(sa), agg.game_shape(sb)
    if ra is None or rb is None:
        return None
    a, b = ra[0].set_index("strategy"), rb[0].set_index("strategy")
    terms = sa.game.get("terms") if isinstance(sa.game.get("terms"), dict) else {}
    names = terms.get("shape") if isinstance(terms.get("shape"), dict) else {k: k for k in E.SHAPE_NAMES}
    z = _st.norm.ppf(1 - alpha / 2)
    rows = []
    for strat in a.index.intersection(b.index):
        for k, label in names.items():
            if k not in a.columns:
                continue
            ma, mb = float(a.at[strat, k]), float(b.at[strat, k])
            se = float(np.hypot(a.at[strat, f"se_{k}"], b.at[strat, f"se_{k}"]))
            rows.append((str(strat), label, ma, mb, mb - ma, mb - ma - z * se, mb - ma + z * se))
    return pd.DataFrame(rows, columns=["strategy", "counter", "base", "variant", "delta", "ci_low", "ci_high"])


def _save(df: pd.DataFrame, path) -> None:
    tmp = path.parent / f".{path.name}.tmp"
    try:
        df.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    except OSError:  # a full disk: the file stays as the last save left it, and no stray file
        tmp.unlink(missing_ok=True)
        raise


def paired_batch(rs_a, rs_b, names, pols, seed: int, first: int, n: int, rotate: bool, points, card: str | None,
                 ages: list[int] | None):
    """Games first..first+n-1 played in both arms -> (arm A's Stats, arm B's Stats, paired sums,
    card sums or None): all :func:`run_paired` keeps of a batch, so a cluster task sends back
    sums only."""
    args = (rs_a, rs_b, names, pols, seed, first, n, rotate, points, card, ages)
    return _paired_finish(_paired_play(*args), *args)


def _paired_play(rs_a, rs_b, names, pols, seed, first, n, rotate, points, card, ages) -> tuple:
    from volva.analysis.runner import play_batch_outs
    return (play_batch_outs(rs_a, names, pols, seed, first, n, rotate),
            play_batch_outs(rs_b, names, pols, seed, first, n, rotate))


def _paired_finish(outs, rs_a, rs_b, names, pols, seed, first, n, rotate, points, card, ages):
    from volva.analysis.pairsums import paired_batch_sums
    from volva.analysis.runner import reduce_batch_outs
    # no row frames: the Stats, paired sums and card sums all come from the engine's arrays
    sa, sb = (reduce_batch_outs(o, rs, points, rows=False).stats for o, rs in ((outs[0], rs_a), (outs[1], rs_b)))
    sums, cards = paired_batch_sums(outs[0], rs_a, outs[1], rs_b, card, ages,
                                    bool(getattr(rs_a.tables, "draft_one", 0)))
    return sa, sb, sums, cards


paired_batch.stages = (_paired_play, _paired_finish)  # analysis.cluster.Batches pipelines them


def run_paired(rs_a, rs_b, names, pols, seed: int, games: int, batch_size: int, rotate: bool,
               wa, wb, card: str | None = None, ages: list[int] | None = None, progress=None,
               stop=None, decide=None, batches=None) -> pd.DataFrame:
    """Play both arms batch by batch on the same games into RunWriters ``wa``/``wb``; returns
    the paired sums (holder = drafted ``card`` in arm A, when given). Paired sums so far are
    saved as ``paired.parquet`` next to the arms whenever the arms save their stats (arm A's
    :class:`~analysis.runner.RunWriter` says when; always at the end and at a stop), and for a
    comparison (no ``card``) the card sums as ``paired_cards.parquet``. ``decide(games, sums)``, called after
    every batch, ends the run early when it returns True (--until-decided). ``batches``
    (:mod:`analysis.cluster`; default: this process) plays the batches, here or on a cluster."""
    import contextlib

    from volva.analysis.cluster import Batches
    from volva.analysis.runner import Frames
    from volva.analysis.suffstats import aligned_batch, checkpoints
    points = checkpoints(games)
    batch_size = aligned_batch(batch_size, names, rotate)  # whole seed blocks (suffstats cluster sums)
    def spans():  # lazily: a run of 10**12 games has 10**8 batches
        return ((first, min(batch_size, games - first)) for first in range(0, games, batch_size))
    tasks = ((first, n, rotate, points, card, ages) for first, n in spans())
    none = pd.DataFrame()
    done = (None, None, 0)  # paired sums, card sums, games: the batches counted in both arms

    def save() -> None:  # both arms and the paired sums, at the same games
        sums, cards, games = done
        wa.save(games)
        wb.save(games)
        if sums is not None:
            _save(sums, wa.out.parent / "paired.parquet")
        if cards is not None:
            _save(cards, wa.out.parent / "paired_cards.parquet")
    try:
        with contextlib.closing((batches or Batches()).map(paired_batch, (rs_a, rs_b, names, pols, seed),
                                                           tasks)) as res:
            for (first, n), (sa, sb, ps, cs) in zip(spans(), res):
                sums = add_sums(done[0], ps)
                cards = add_sums(done[1], cs, CARD_KEYS) if cs is not None else done[1]
                wa.add(Frames(none, none, none, sa), n, save=False)
                wb.add(Frames(none, none, none, sb), n, save=False)
                done = (sums, cards, first + n)  # one assignment: a second signal sees all of it or none
                if wa.due():
                    save()
                if progress is not None:
                    progress(n)
                if stop is not None and stop() and first + n < games:
                    raise KeyboardInterrupt
                if decide is not None and decide(first + n, sums):
                    break
    except BaseException:
        with contextlib.suppress(OSError):  # a disk fault: the files keep the last save
            save()  # the finished batches, whatever stopped the run
        raise
    save()
    return done[0]


def strategy_streams(sums: pd.DataFrame) -> dict[str, tuple[int, float, float]]:
    """Sequential streams of ``compare``: per strategy (n, Σd, Σd²) of the paired change of win
    share (variant − baseline, in wins)."""
    t = strategy_rows(sums).set_index("strategy")
    return {k: (int(r["n"]), r["d"] / WIN_UNIT, r["d2"] / WIN_UNIT ** 2) for k, r in t.iterrows()}


def holder_stream(sums: pd.DataFrame) -> dict[str, tuple[int, float, float]]:
    """Sequential stream of ``ablate``: the clans that drafted the card in the forced arm, forced −
    banned change of win share (n, Σd, Σd²; arm A is forced, so the sign is flipped)."""
    h = sums[(sums["holder"] == 1) & (sums["strategy"] == ALL)][PAIR_SUMS].sum()
    return {"drafted it (forced arm)": (int(h["n"]), -h["d"] / WIN_UNIT, h["d2"] / WIN_UNIT ** 2)}


def write_compare_tables(sa: Stats, sb: Stats, sums: pd.DataFrame, out) -> dict[str, pd.DataFrame]:
    """:func:`compare_tables` (with OUT/paired_cards.parquet when present), each also written as
    OUT/compare_<name>.csv."""
    p = out / "paired_cards.parquet"
    cs = pd.read_parquet(p) if p.is_file() else None
    tabs = compare_tables(sa, sb, sums, cs=cs)
    for k, df in tabs.items():
        df.to_csv(out / f"compare_{k}.csv", index=False)
    return tabs


ABLATE_COLUMNS = ["group", "strategy", "n", "d_win", "se", "ci_low", "ci_high", "p_value", "fixed", "d_glory",
                  "glory_ci_low", "glory_ci_high", "signs_differ"]


def ablate_table(sums: pd.DataFrame, alpha: float = 0.05) -> tuple[pd.DataFrame, int]:
    """Paired sums of an ablation (played as arm A = forced, arm B = banned) -> (forced − banned
    per group: the clans that drafted the card in the forced arm, all of them ('(all)') and per
    strategy, then all clans per strategy; the number of clans that drafted it). Intervals are
    cluster-robust over seed blocks (2–3 holders of one game are dependent). ``signs_differ`` on
    the '(all)' row: two strategies' holder effects are significant with opposite signs, so the
    pooled figure hides the split (read the strategy rows)."""
    flip = sums.assign(d=-sums["d"], gd=-sums["gd"], c_dn=-sums["c_dn"], c_gn=-sums["c_gn"])  # forced - banned
    held = flip[flip["holder"] == 1]
    rows = []
    group = "drafted it (forced arm)"
    per = paired_table(held[held["strategy"] != ALL], ["strategy"], alpha).assign(group=group)
    if len(held):
        pooled = paired_table(held[held["strategy"] == ALL].assign(strategy="(all)"), ["strategy"], alpha)
        sig = per[(per["ci_low"] > 0) | (per["ci_high"] < 0)]
        pooled["signs_differ"] = bool((sig["d_win"] > 0).any() and (sig["d_win"] < 0).any())
        rows += [pooled.assign(group=group), per.assign(signs_differ=False)]
    rows.append(paired_table(strategy_rows(flip), ["strategy"], alpha).assign(group="all clans", signs_differ=False))
    res = pd.concat(rows, ignore_index=True)[ABLATE_COLUMNS]
    n_held = int(held.loc[held["strategy"] == ALL, "n"].sum()) if len(held) else 0
    return res, n_held


def write_ablate_table(sums: pd.DataFrame, out) -> tuple[pd.DataFrame, int]:
    """:func:`ablate_table`, the table also written as OUT/ablate.csv."""
    res, n_held = ablate_table(sums)
    res.to_csv(out / "ablate.csv", index=False)
    return res, n_held
