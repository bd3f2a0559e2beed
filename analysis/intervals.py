"""Intervals and tests of Volva's tables, on sums (no rows): the estimators behind every figure
:mod:`analysis.aggregate`, :mod:`analysis.paired` and :mod:`analysis.tournament` print.

- :func:`cluster_mean` / :func:`cluster_rate`: a ratio of per-block sums with the cluster-robust
  (sandwich) standard error over seed blocks, statsmodels' ``OLS(y, 1, cov_type='cluster')``, and a
  Student t interval with G − 1 degrees of freedom; ``fixed`` when it cannot vary;
- :func:`cluster_var`: the same for a difference of two rates (a card's IWD), by the delta method;
- :func:`wilson`, :func:`t_interval`, :func:`two_proportion_z`: independent rows;
- :func:`too_small` (not tested) and :func:`correct` (BH and Holm over the tested rows).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as _st
from statsmodels.stats.proportion import proportion_confint

from volva.analysis.suffstats import WIN_UNIT

SMALL_N = 100  #: a group under this many clans is 'small' (shown, not tested)
ALPHA = 0.05


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


def cluster_mean(total, n, c_vv, c_vn, c_nn, groups, alpha: float = ALPHA):
    """Cluster-robust mean ``total / n`` of a per-row value (a ratio of per-block sums), e.g. a paired
    difference of win share: sums over blocks b of V_b² (c_vv), V_b n_b (c_vn) and n_b² (c_nn),
    ``groups`` blocks. Variance ``G/(G-1) Σ_b (V_b − m n_b)² / n²`` (statsmodels' cluster OLS on a
    constant); interval and two-sided p-value (mean = 0) from Student's t with G − 1 df. Returns
    float arrays (mean, se, ci_low, ci_high, p_value, fixed): ``fixed`` where V_b = m n_b in every
    block of two or more (a difference 0 by construction), with se 0, no interval and p NaN; one
    block gives se, interval and p NaN."""
    total, n, c_vv, c_vn, c_nn, groups = (np.atleast_1d(np.asarray(x, float)) for x in
                                          (total, n, c_vv, c_vn, c_nn, groups))
    with np.errstate(divide="ignore", invalid="ignore"):
        m = np.where(n > 0, total / np.where(n > 0, n, 1), np.nan)
        num = c_vv - 2 * m * c_vn + m * m * c_nn
        # one block has no spread to judge: its residual is 0 whatever the value (not fixed)
        fixed = (n > 0) & (groups > 1) & (np.abs(num) <= 1e-9 * (c_vv + m * m * c_nn) + 1e-300)
        var = np.where(groups > 1, groups / np.maximum(groups - 1, 1) * np.clip(num, 0, None) / (n * n), np.nan)
        var = np.where(fixed, 0.0, var)
        se = np.sqrt(var)
        df = np.maximum(groups - 1, 1)
        half = _st.t.ppf(1 - alpha / 2, df) * se
        p = np.where(se > 0, 2 * _st.t.sf(np.abs(m / np.where(se > 0, se, 1)), df), np.nan)
    lo, hi = np.where(fixed, np.nan, m - half), np.where(fixed, np.nan, m + half)
    return m, se, lo, hi, p, fixed


def cluster_rate(wins, n, c_ww, c_wt, c_tt, groups, alpha: float = ALPHA):
    """Cluster-robust rate ``wins / n`` (a ratio of per-block sums) and its 95% interval.

    wins, n: totals (wins in wins, not x60); c_ww, c_wt, c_tt: sums over the blocks of W_b², W_b T_b,
    T_b² (wins in wins); groups: the number of blocks. The variance is the sandwich
    ``G/(G-1) · Σ_b (W_b − p T_b)² / n²``, the same as statsmodels' ``OLS(win_share, 1)`` with
    ``cov_type='cluster'`` (its (N−1)/(N−K) factor is 1 with one regressor). Returns float arrays
    (rate, se, ci_low, ci_high, fixed, small):

    - ``fixed``: the rate does not vary between blocks (W_b = p T_b in every block: a mirror lineup's
      1/P, a strategy holding every seat), judged from two blocks or more and at least 5 wins and 5
      losses; se 0, no interval (NaN). No wins (or no losses) in every block is an observed
      extreme, not a rate fixed by construction: it is ``small``, as is a rate that happened not to
      vary over fewer wins or losses;
    - ``small``: n < SMALL_N or fewer than 5 wins or 5 losses, where the normal interval is unreliable:
      the interval is Wilson's at the effective sample size n / deff (deff = clustered variance over
      the binomial one, at least 1), never of zero width;
    - otherwise the Wald interval rate ± t·se, t the quantile of Student's t with G − 1 degrees of
      freedom (statsmodels' normal interval once G is in the thousands; better coverage with few blocks).
    """
    wins, n, groups = (np.atleast_1d(np.asarray(x, float)) for x in (wins, n, groups))
    # Student t with G−1 degrees of freedom (as Stata's clustered intervals): the sandwich is biased
    # low with few blocks; with the thousands of a real run it is the normal interval statsmodels gives
    p, se, lo, hi, _, fixed = cluster_mean(wins, n, c_ww, c_wt, c_tt, groups, alpha)
    few = (wins < 5) | (n - wins < 5)
    fixed = fixed & ~few
    var = se * se
    small = ~fixed & ((n < SMALL_N) | few)
    lo, hi = np.clip(lo, 0, 1), np.clip(hi, 0, 1)
    if small.any():
        with np.errstate(divide="ignore", invalid="ignore"):
            binom = p * (1 - p) / n
            deff = np.where((binom > 0) & np.isfinite(var), np.maximum(var / binom, 1.0), 1.0)
        ne = n[small] / deff[small]
        lo[small], hi[small] = wilson(p[small] * ne, ne, alpha)
    lo, hi = np.where(fixed, np.nan, lo), np.where(fixed, np.nan, hi)
    return p, se, lo, hi, fixed, small


def rate_from_rows(df: pd.DataFrame, keys: list[str], value: str = "win_share", cluster: str = "seed",
                   alpha: float = ALPHA) -> pd.DataFrame:
    """Rate of ``value`` (0..1 per row) per group of ``keys`` from row data, with the cluster-robust
    interval of :func:`cluster_rate` over the rows' ``cluster`` column (a seed: games sharing a deal).
    Columns keys, n, wins, win_rate, se, ci_low, ci_high, fixed, small."""
    x = df[[*keys, cluster]].copy()
    x["_v"] = df[value].to_numpy(float)
    b = x.groupby([*keys, cluster], sort=True, observed=True)["_v"].agg(["sum", "size"]).reset_index()
    b["ww"], b["wt"], b["tt"] = b["sum"] ** 2, b["sum"] * b["size"], b["size"] ** 2
    t = b.groupby(keys, sort=True, observed=True).agg(n=("size", "sum"), wins=("sum", "sum"), ww=("ww", "sum"),
                                                     wt=("wt", "sum"), tt=("tt", "sum"), G=("size", "size"))
    t = t.reset_index()
    t["win_rate"], t["se"], t["ci_low"], t["ci_high"], t["fixed"], t["small"] = cluster_rate(
        t["wins"], t["n"], t["ww"], t["wt"], t["tt"], t["G"], alpha)
    return t[[*keys, "n", "wins", "win_rate", "se", "ci_low", "ci_high", "fixed", "small"]]


def _sd(s, s2, n):
    """Sample sd from sum, sum of squares and n (0 where n < 2)."""
    s, s2, n = (np.asarray(x, float) for x in (s, s2, n))
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.where(n > 1, (s2 - s * s / np.where(n > 0, n, 1)) / (n - 1), 0.0)
    return np.sqrt(np.clip(var, 0, None))


def too_small(n1, w1, n2, w2) -> np.ndarray:
    """bool per row: a two-group comparison whose normal approximation is unreliable: either group
    under SMALL_N clans, or fewer than 5 expected wins or 5 expected losses in either group under
    the pooled rate (w = wins). Such rows are shown, flagged ``small`` and not tested."""
    n1, w1, n2, w2 = (np.asarray(x, float) for x in (n1, w1, n2, w2))
    with np.errstate(divide="ignore", invalid="ignore"):
        p0 = (w1 + w2) / (n1 + n2)
        exp = np.minimum(np.minimum(n1 * p0, n1 * (1 - p0)), np.minimum(n2 * p0, n2 * (1 - p0)))
    return (n1 < SMALL_N) | (n2 < SMALL_N) | ~(exp >= 5)


def correct(p_value, tested, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """(p_adj, p_holm): Benjamini–Hochberg (statsmodels ``multipletests``) and Holm (:func:`holm`)
    over the tested rows only (the family); NaN for rows not tested."""
    from statsmodels.stats.multitest import multipletests
    p_value, tested = np.asarray(p_value, float), np.asarray(tested, bool)
    bh, holm_p = np.full(len(p_value), np.nan), np.full(len(p_value), np.nan)
    if tested.any():
        bh[tested] = multipletests(p_value[tested], alpha=alpha, method="fdr_bh")[1]
        holm_p[tested] = holm(p_value[tested])
    return bh, holm_p


def holm(p_value) -> np.ndarray:
    """Holm's step-down adjusted p-values, float64[m] in the order given: the k-th smallest times
    (m - k + 1), made non-decreasing, at most 1. The values of statsmodels' ``multipletests(...,
    method='holm')`` (tests/test_aggregate.py), without the ``gc.collect()`` it runs on every call
    (67 ms in a process holding a run's tables; a compare's report calls it eight times)."""
    p = np.asarray(p_value, float)
    order = np.argsort(p, kind="stable")
    adj = np.minimum(np.maximum.accumulate(p[order] * np.arange(len(p), 0, -1)), 1.0)
    out = np.empty_like(adj)
    out[order] = adj
    return out


def cluster_var(t: pd.DataFrame, cl: pd.DataFrame, games) -> np.ndarray:
    """Cluster-robust variance (seed blocks) of (win rate with the card − win rate without it)
    per row of a card table (sums n, w and the cluster sums c_*, with the strategy's n_tot, w_tot,
    c_TT, c_WW, c_WT merged in); ``games``: the number of blocks G (scalar or per row).
    Linearised (delta-method) sandwich estimator with the G/(G-1) small-sample factor, the same as
    statsmodels' OLS of win_share on 'drafted' with ``cov_type='cluster'`` grouped by seed up to
    its (N−1)/(N−2) factor; see analysis.suffstats for the sums."""
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
    G = np.maximum(np.asarray(games, float), 2)
    return np.clip(var, 0, None) * G / (G - 1) / WIN_UNIT ** 2
