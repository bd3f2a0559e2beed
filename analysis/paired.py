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

Paired sums per (strategy, holder): n, d, d2 (d in units of 1/60 win), gd, gd2 (Glory) and the
block sums c_G (blocks), c_nn, c_dd, c_dn, c_gg, c_gn (per block b: n_b clans, D_b and Gd_b their
summed differences; sums of n_b², D_b², D_b n_b, Gd_b², Gd_b n_b). ``holder`` is 1 for clans that
drafted the ablated card in arm A, 0 for the others (always 0 for compare) and -1 for all clans;
strategy '*' is every strategy. Block sums do not add across groups, so each grouping a table
shows has its own rows.

Card sums of ``compare`` (:func:`card_sums`, OUT/paired_cards.parquet), per (strategy, age, card):
the paired change of win rate of the clans that drafted the card in the variant (h_n, h_d, h_c_*:
what the patch did to the clans that hold the card) and of the clans that drafted it in both arms
(k_*: who drafts it held fixed), the cross moments x_* of the variant's holders with their
strategy's totals and s_D, s_T (the **change of what the card is worth to a holder** relative to
the strategy's other clans, :func:`card_value`), and the second
moments q_<x>_<y> over seed blocks of x, y in (wdA, ndA, wdB, ndB: the card's drafters and their
wins in each arm; WA, WB, T: all clans of the strategy and their wins, on the row age 0, card '*')
that give the **paired** variance of the change of IWD.
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
from scipy import stats as _st

from volva.analysis import aggregate as agg
from volva.analysis.suffstats import ALL, WIN_UNIT, Stats
from volva.simulator.core import enums as E

PAIR_KEYS = ["strategy", "holder"]
PAIR_SUMS = ["n", "d", "d2", "gd", "gd2", "c_G", "c_nn", "c_dd", "c_dn", "c_gg", "c_gn"]
ALL_CLANS = -1  #: the holder value of the rows over every clan
CARD_KEYS = ["strategy", "age", "card"]
VARS = ["wdA", "ndA", "wdB", "ndB", "WA", "WB", "T"]  #: per-block variables of the paired IWD variance
UNITS = np.array([WIN_UNIT, 1, WIN_UNIT, 1, WIN_UNIT, WIN_UNIT, 1], float)
CELL_Q = [f"q_{VARS[i]}_{VARS[j]}" for i in range(7) for j in range(i, 7) if i < 4]
STRATEGY_Q = [f"q_{VARS[i]}_{VARS[j]}" for i in range(4, 7) for j in range(i, 7)]
HOLDER_SUMS = ["n", "d", "d2", "c_G", "c_nn", "c_dd", "c_dn"]
VALUE_CROSS = ["x_dD", "x_dT", "x_nD", "x_nT"]  #: variant holders' (D_h, n_h) x the strategy's (D_T, T) per block
STRATEGY_TOTALS = ["s_D", "s_T"]  #: the strategy's summed difference (x60) and clans, on the '*' rows
CARD_SUMS = [*[f"h_{c}" for c in HOLDER_SUMS], *[f"k_{c}" for c in HOLDER_SUMS], *VALUE_CROSS, "c_G", *CELL_Q,
             *STRATEGY_Q, *STRATEGY_TOTALS]


def blocks(clans: pd.DataFrame) -> np.ndarray:
    """Dense seed-block index per clan row (games sharing a seed; game_id without a seed column)."""
    key = clans["seed"].to_numpy(np.uint64) if "seed" in clans else clans["game_id"].to_numpy(np.int64)
    return np.unique(key, return_inverse=True)[1].reshape(-1).astype(np.int64)


def _block_moments(df: pd.DataFrame, keys: list[str], value_cols: dict[str, str]) -> pd.DataFrame:
    """Per group of ``keys``: n, and for each value column v (name -> prefix p): the row sums p, p2
    and, over the rows' blocks ('block'), c_G, c_nn, c_<p><p>, c_<p>n."""
    cols = list(value_cols)
    x = df[[*keys, "block", *cols]].copy()
    x["n"] = 1
    for c in cols:
        x[f"{c}2"] = x[c] * x[c]
    per_block = x.groupby([*keys, "block"], sort=True)[["n", *cols, *[f"{c}2" for c in cols]]].sum()
    nb = per_block["n"].to_numpy(np.int64)
    out = pd.DataFrame(index=per_block.index)
    out["n"], out["c_G"], out["c_nn"] = nb, 1, nb * nb
    for c, p in value_cols.items():
        v = per_block[c].to_numpy(np.int64)
        out[p], out[f"{p}2"] = v, per_block[f"{c}2"].to_numpy(np.int64)
        out[f"c_{p}{p}"], out[f"c_{p}n"] = v * v, v * nb
    return out.groupby(level=list(range(len(keys))), sort=True).sum().reset_index()


def paired_sums(a: pd.DataFrame, b: pd.DataFrame, holder: np.ndarray | None = None) -> pd.DataFrame:
    """Sums of the paired differences B - A per (strategy, holder), with the rows of every strategy
    ('*') and of every clan (holder -1); see the module doc.

    a, b: clan rows of the two arms for the same games, both sorted by (game_id, seat);
    holder: bool per row (None: all 0). Raises ValueError if the rows do not pair up."""
    if len(a) != len(b) or not (a["game_id"].to_numpy() == b["game_id"].to_numpy()).all() or \
            not (a["seat"].to_numpy() == b["seat"].to_numpy()).all():
        raise ValueError("paired arms: the two arms' rows are not the same games and seats")
    wa = np.rint(a["win_share"].to_numpy(float) * WIN_UNIT).astype(np.int64)
    wb = np.rint(b["win_share"].to_numpy(float) * WIN_UNIT).astype(np.int64)
    ga, gb = a["glory"].to_numpy(np.int64), b["glory"].to_numpy(np.int64)
    h = np.zeros(len(a), np.int64) if holder is None else np.asarray(holder, np.int64)
    x = pd.DataFrame({"strategy": a["strategy"].astype(str).to_numpy(object), "holder": h, "block": blocks(a),
                      "dv": wb - wa, "gv": gb - ga})
    parts = []
    for s_all in (False, True):
        for h_all in (False, True):
            y = x.assign(**({"strategy": ALL} if s_all else {}), **({"holder": ALL_CLANS} if h_all else {}))
            parts.append(_block_moments(y, PAIR_KEYS, {"dv": "d", "gv": "gd"}))
    out = pd.concat(parts, ignore_index=True).rename(columns={"c_dd": "c_dd", "c_gdgd": "c_gg", "c_gdn": "c_gn"})
    return out[PAIR_KEYS + PAIR_SUMS].sort_values(PAIR_KEYS).reset_index(drop=True)


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


def card_sums(fa, fb) -> pd.DataFrame:
    """Per (strategy, age, card) of one batch of both arms (frames with ``clans`` and ``picks``,
    rows paired as in :func:`paired_sums`): CARD_SUMS (module doc), rows sorted by CARD_KEYS, the
    strategy's row (age 0, card '*') first. Integer sums (wins x60), so they add exactly over
    batches. Groups are integer codes summed by counting (no pandas groupby: a batch has about a
    million drafter rows per arm); tests/test_paired_cards.py checks it against the frame version."""
    from volva.analysis.suffstats import _codes, _unique_inverse
    a, b = fa.clans, fb.clans
    blk = blocks(a)
    NB = int(blk.max()) + 1 if len(blk) else 1
    s_code, s_names = _codes(a["strategy"])
    NS = len(s_names)
    wa = np.rint(a["win_share"].to_numpy(float) * WIN_UNIT).astype(np.int64)
    wb = np.rint(b["win_share"].to_numpy(float) * WIN_UNIT).astype(np.int64)
    dv = wb - wa
    (ra, ga, ka, key_a), (rb, gb, kb, key_b), c_names = _drafter_codes(fa, fb)
    NA = int(max(ga.max(initial=0), gb.max(initial=0))) + 1
    C = len(c_names)

    def total(key, v=None, n=None):  # integer sums per key 0..n-1 (bincount's float sums are exact here)
        return np.rint(np.bincount(key, weights=None if v is None else v.astype(float), minlength=n)).astype(np.int64)

    # per (strategy, block) over every clan of the strategy: WA, WB, T and D = WB - WA (x60)
    sb = s_code * NB + blk
    WA, WB, T = (total(sb, v, NS * NB) for v in (wa, wb, None))
    D = WB - WA
    cell_a, cell_b = ((s_code[r] * NA + g) * C + k for r, g, k in ((ra, ga, ka), (rb, gb, kb)))
    # every cell a clan drafted in either arm, and each (cell, block) of those drafts
    cb_all = np.concatenate([cell_a * NB + blk[ra], cell_b * NB + blk[rb]])
    u, inv = _unique_inverse(cb_all)
    ia, ib = inv[:len(cell_a)], inv[len(cell_a):]
    cells, cinv = _unique_inverse(u // NB)
    s_of, b_of = u // NB // (NA * C), u % NB
    n_u, n_c = len(u), len(cells)
    starts = np.flatnonzero(np.concatenate([[True], cinv[1:] != cinv[:-1]])) if n_u else cinv

    def per_cell(v):  # sums over each cell's (cell, block) groups: u is sorted, so a cell's are consecutive
        return np.add.reduceat(np.asarray(v, np.int64), starts) if n_u else np.zeros(0, np.int64)
    V = {"wdA": total(ia, wa[ra], n_u), "ndA": total(ia, None, n_u), "wdB": total(ib, wb[rb], n_u),
         "ndB": total(ib, None, n_u), "WA": WA[s_of * NB + b_of], "WB": WB[s_of * NB + b_of], "T": T[s_of * NB + b_of]}
    out = {}
    for q in CELL_Q:
        x, y = q[2:].split("_")
        out[q] = per_cell(V[x] * V[y])
    # holders: the variant's drafters (h_), and the clans that drafted the card in both arms (k_)
    at = np.minimum(np.searchsorted(key_a, key_b), max(len(key_a) - 1, 0))
    both = key_a[at] == key_b if len(key_a) else np.zeros(len(key_b), bool)
    for pre, sel in (("h_", np.ones(len(rb), bool)), ("k_", both)):
        gi = ib[sel]
        nb, db, d2 = total(gi, None, n_u), total(gi, dv[rb[sel]], n_u), total(gi, dv[rb[sel]] ** 2, n_u)
        live = nb > 0
        for name, v in (("n", nb), ("d", db), ("d2", d2), ("c_G", live.astype(np.int64)), ("c_nn", nb * nb),
                        ("c_dd", db * db), ("c_dn", db * nb)):
            out[pre + name] = per_cell(v)
        if pre == "h_":  # the variant holders' (D_h, n_h) x the strategy's (D, T) per block
            Dsb = D[s_of * NB + b_of]
            for name, v in (("x_dD", db * Dsb), ("x_dT", db * V["T"]), ("x_nD", nb * Dsb), ("x_nT", nb * V["T"])):
                out[name] = per_cell(v)
    s_c, rest = cells // (NA * C), cells % (NA * C)
    keys = {"strategy": s_names[s_c], "age": (rest // C).astype(np.int64), "card": c_names[rest % C]}
    # the strategy rows (age 0, card '*'): over the blocks where the strategy has clans
    has = T > 0
    st_s = np.nonzero(has)[0] // NB
    srow = {"c_G": total(st_s, None, NS), "s_D": total(st_s, D[has], NS), "s_T": total(st_s, T[has], NS)}
    per_sb = {"WA": WA[has], "WB": WB[has], "T": T[has]}
    for q in STRATEGY_Q:
        x, y = q[2:].split("_")
        srow[q] = total(st_s, per_sb[x] * per_sb[y], NS)
    present = np.nonzero(total(s_code, None, NS))[0]
    df = pd.DataFrame({"strategy": np.concatenate([keys["strategy"], s_names[present]]),
                       "age": np.concatenate([keys["age"], np.zeros(len(present), np.int64)]),
                       "card": np.concatenate([keys["card"], np.full(len(present), ALL, dtype=object)])})
    for k in CARD_SUMS:
        df[k] = np.concatenate([out.get(k, np.zeros(n_c, np.int64)), srow.get(k, np.zeros(NS, np.int64))[present]])
    return df.sort_values(CARD_KEYS, kind="stable").reset_index(drop=True)


def _drafter_codes(fa, fb) -> tuple:
    """Per arm (clan row, age, card code) of each distinct card a clan drafted in an age, the card
    codes on the sorted union of both arms' card names (a patch may add a card): ((rows, ages,
    cards, keys) of A, the same of B, names); keys ascending, one per (row, age, card)."""
    from volva.analysis.suffstats import _codes, _row_index
    parts = []
    for fr in (fa, fb):
        pk = fr.picks
        found, rows = _row_index(fr.clans, pk["game_id"].to_numpy(), pk["seat"].to_numpy())
        code, names = _codes(pk["card"])
        parts.append((rows, pk["age"].to_numpy(np.int64)[found], code[found], names))
    c_names = np.array(sorted(set(parts[0][3]) | set(parts[1][3])), dtype=object)
    out = []
    for rows, ages, code, names in parts:
        k = np.searchsorted(c_names, names)[code] if len(code) else code
        key = np.sort((rows * 16 + ages) * len(c_names) + k)  # ages < 16; a sort: np.unique hashes, 5x slower here
        key = key[np.concatenate([[True], key[1:] != key[:-1]])] if len(key) else key
        out.append((key // len(c_names) // 16, key // len(c_names) % 16, key % len(c_names), key))
    return out[0], out[1], c_names


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


def holders(fr_a, card: str, ages: list[int] | None, one_clan: bool = False) -> np.ndarray:
    """bool per clan row of arm A: the clan drafted ``card`` (in ``ages``, default any), or holds it
    as the value of one of the engine's seat groups (a Valhalla dice Jarl); with ``one_clan``, only
    the clan the draft rule binds (seat seed % P, core.draft_rules)."""
    from volva.analysis.records import GROUP_PREFIX
    from volva.analysis.suffstats import _row_index
    pk = fr_a.picks
    h = np.zeros(len(fr_a.clans), bool)
    if len(pk):
        m = (pk["card"].astype(str) == card).to_numpy().copy()
        if ages:
            m &= np.isin(pk["age"].to_numpy(), ages)
        found, rows = _row_index(fr_a.clans, pk["game_id"].to_numpy()[m], pk["seat"].to_numpy()[m])
        h[rows] = True
    for col in [c for c in fr_a.clans.columns if str(c).startswith(GROUP_PREFIX)]:
        h |= (fr_a.clans[col].astype(str) == card).to_numpy()
    if one_clan:
        c = fr_a.clans
        h &= (c["seed"].to_numpy(np.uint64) % c["n_players"].to_numpy(np.uint64)) == c["seat"].to_numpy(np.uint64)
    return h


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
    from volva.analysis.runner import reduce_batch_outs
    # clans and picks frames: all the paired and card sums read (no plays frame)
    fa, fb = (reduce_batch_outs(o, rs, points, plays=False) for o, rs in ((outs[0], rs_a), (outs[1], rs_b)))
    h = holders(fa, card, ages, bool(getattr(rs_a.tables, "draft_one", 0))) if card is not None else None
    cards = card_sums(fa, fb) if card is None and len(fa.picks) and len(fb.picks) else None
    return fa.stats, fb.stats, paired_sums(fa.clans, fb.clans, h), cards


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
    spans = [(first, min(batch_size, games - first)) for first in range(0, games, batch_size)]
    tasks = [(first, n, rotate, points, card, ages) for first, n in spans]
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
            for (first, n), (sa, sb, ps, cs) in zip(spans, res):
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
