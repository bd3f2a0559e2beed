"""The sums a paired batch keeps (``volva compare``, ``volva ablate``): integers that add over
batches, from which :mod:`analysis.paired` builds its tables and intervals.

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

:func:`paired_batch_sums` gives both straight from the engine's arrays (no row frames; the card
cells are summed by :func:`analysis.kernels.paired_card_sums_nb`); :func:`paired_sums` and
:func:`card_sums` give the same from row frames (tests/test_paired_cards.py checks the three
against pandas versions).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from volva.analysis.batchsums import ClanRows
from volva.analysis.suffstats import ALL, WIN_UNIT, _unique_inverse

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


def pair_block_sums(s_code: np.ndarray, s_names: np.ndarray, holder: np.ndarray, block: np.ndarray,
                    dv: np.ndarray, gv: np.ndarray) -> pd.DataFrame:
    """PAIR_KEYS + PAIR_SUMS per (strategy, holder) of paired clan rows, with the rows of every
    strategy ('*') and of every clan (holder -1), sorted by PAIR_KEYS (see the module doc).

    s_code: int64[R] index into ``s_names`` (object[S]); holder: int64[R] 0/1; block: int64[R]
    seed block (any labels >= 0); dv, gv: int64[R] the paired differences B - A of win units and
    Glory. Integer sums, so they add exactly over batches."""
    R, S = len(s_code), len(s_names)
    blk = np.asarray(block, np.int64)
    NB = int(blk.max()) + 1 if R else 1
    parts = []
    for s_all in (False, True):
        for h_all in (False, True):
            g = (np.full(R, S, np.int64) if s_all else np.asarray(s_code, np.int64)) * 3 + \
                (np.zeros(R, np.int64) if h_all else np.asarray(holder, np.int64) + 1)
            parts.append(g)
    g = np.concatenate(parts)
    u, inv = _unique_inverse(g * NB + np.tile(blk, 4))
    per = {"n": np.bincount(inv, minlength=len(u))}
    for name, v in (("d", dv), ("gd", gv)):
        v = np.tile(np.asarray(v, np.int64), 4)
        per[name], per[name + "2"] = (np.bincount(inv, weights=x.astype(float), minlength=len(u)) for x in (v, v * v))
    per = {k: np.rint(v).astype(np.int64) for k, v in per.items()}  # float sums of ints < 2**53: exact
    grp, ginv = _unique_inverse(u // NB)
    n = per["n"]

    def total(v):
        return np.rint(np.bincount(ginv, weights=v.astype(float), minlength=len(grp))).astype(np.int64)
    cols = {"strategy": np.append(s_names, ALL).astype(object)[grp // 3], "holder": grp % 3 - 1}
    for k in ("n", "d", "d2", "gd", "gd2"):
        cols[k] = total(per[k])
    cols["c_G"] = total(np.ones(len(u), np.int64))
    for k, v in (("c_nn", n * n), ("c_dd", per["d"] ** 2), ("c_dn", per["d"] * n), ("c_gg", per["gd"] ** 2),
                 ("c_gn", per["gd"] * n)):
        cols[k] = total(v)
    out = pd.DataFrame(cols)
    return out[PAIR_KEYS + PAIR_SUMS].sort_values(PAIR_KEYS).reset_index(drop=True)


def paired_sums(a: pd.DataFrame, b: pd.DataFrame, holder: np.ndarray | None = None) -> pd.DataFrame:
    """Sums of the paired differences B - A per (strategy, holder), with the rows of every strategy
    ('*') and of every clan (holder -1); see the module doc (:func:`pair_block_sums` of the rows).

    a, b: clan rows of the two arms for the same games, both sorted by (game_id, seat);
    holder: bool per row (None: all 0). Raises ValueError if the rows do not pair up."""
    from volva.analysis.suffstats import _codes
    if len(a) != len(b) or not (a["game_id"].to_numpy() == b["game_id"].to_numpy()).all() or \
            not (a["seat"].to_numpy() == b["seat"].to_numpy()).all():
        raise ValueError("paired arms: the two arms' rows are not the same games and seats")
    wa = np.rint(a["win_share"].to_numpy(float) * WIN_UNIT).astype(np.int64)
    wb = np.rint(b["win_share"].to_numpy(float) * WIN_UNIT).astype(np.int64)
    ga, gb = a["glory"].to_numpy(np.int64), b["glory"].to_numpy(np.int64)
    h = np.zeros(len(a), np.int64) if holder is None else np.asarray(holder, np.int64)
    s_code, s_names = _codes(a["strategy"])
    return pair_block_sums(s_code, s_names, h, blocks(a), wb - wa, gb - ga)


def card_sums(fa, fb) -> pd.DataFrame:
    """Per (strategy, age, card) of one batch of both arms (frames with ``clans`` and ``picks``,
    rows paired as in :func:`paired_sums`): :func:`card_block_sums` of their rows and drafts.
    tests/test_paired_cards.py checks it against a pandas version."""
    from volva.analysis.suffstats import _codes, _row_index
    a, b = fa.clans, fb.clans
    blk = blocks(a)
    perm = np.argsort(blk, kind="stable")  # a block's rows consecutive
    rank = np.empty(len(perm), np.int64)
    rank[perm] = np.arange(len(perm))
    s_code, s_names = _codes(a["strategy"])
    w = [np.rint(c["win_share"].to_numpy(float) * WIN_UNIT).astype(np.int64) for c in (a, b)]
    rows = np.stack([blk, s_code, w[0], w[1]], axis=1)[perm]
    parts = []
    for fr in (fa, fb):
        pk = fr.picks
        found, r = _row_index(fr.clans, pk["game_id"].to_numpy(), pk["seat"].to_numpy())
        code, names = _codes(pk["card"])
        parts.append((rank[r], pk["age"].to_numpy(np.int64)[found], code[found], names))
    c_names = np.array(sorted(set(parts[0][3]) | set(parts[1][3])), dtype=object)
    NA = max([int(p[1].max()) + 1 for p in parts if len(p[1])] + [1])
    arms = []
    for r, age, code, names in parts:
        k = np.searchsorted(c_names, names)[code] if len(code) else code
        key = r * NA + age
        order = np.argsort(key, kind="stable")
        starts = np.searchsorted(key[order], key[order])  # first of each (row, age) group
        j = np.arange(len(order)) - starts  # position within its (row, age)
        K = int(j.max()) + 1 if len(j) else 1
        raw = np.full((len(rows), NA * K), -1, np.int64)
        raw[r[order], age[order] * K + j] = k[order]
        arms.append((raw, np.repeat(np.arange(NA, dtype=np.int64), K), np.arange(len(c_names), dtype=np.int64)))
    return card_block_sums(rows, arms[0], arms[1], s_names, c_names, NA)


def card_block_sums(rows: np.ndarray, arm_a: tuple, arm_b: tuple, s_names: np.ndarray, c_names: np.ndarray,
                    NA: int) -> pd.DataFrame:
    """CARD_SUMS per (strategy, age, card) of a paired batch (module doc), rows sorted by CARD_KEYS,
    each strategy's row (age 0, card '*') first. Integer sums (wins x60), so they add exactly
    over batches.

    rows: int64[R, 4] per clan row, a seed block's rows consecutive: seed block (dense, 0..), strategy
    code (into ``s_names``), win units in arm A, in arm B; arm_a, arm_b: (raw int64[R, M], slot age
    int64[M] (< NA), card code int64[V] (into ``c_names``; -1: none) of each raw value) the cards each
    clan drafted (:func:`analysis.kernels.paired_card_sums_nb`, which sums the cells)."""
    from volva.analysis.kernels import PAIRED_CARD_COLS, paired_card_sums_nb
    S, C = len(s_names), len(c_names)
    out = np.zeros((S * NA * C, PAIRED_CARD_COLS), np.int64)
    if len(rows):
        paired_card_sums_nb(np.ascontiguousarray(rows, np.int64), arm_a, arm_b, (S, NA, C), out)
    used = np.flatnonzero(out[:, -1])
    cols = dict(zip(CELL_Q + [f"h_{c}" for c in HOLDER_SUMS] + [f"k_{c}" for c in HOLDER_SUMS] + VALUE_CROSS,
                    out[used, :-1].T))
    # the strategy rows (age 0, card '*'): over the blocks where the strategy has clans
    blk, s_code = rows[:, 0], rows[:, 1]
    NB = int(blk.max()) + 1 if len(rows) else 1

    def total(key, v=None, n=None):  # integer sums per key 0..n-1 (bincount's float sums are exact here)
        return np.rint(np.bincount(key, weights=None if v is None else v.astype(float), minlength=n)).astype(np.int64)
    sb = s_code * NB + blk
    WA, WB, T = (total(sb, v, S * NB) for v in (rows[:, 2], rows[:, 3], None))
    has = T > 0
    st_s = np.nonzero(has)[0] // NB
    srow = {"c_G": total(st_s, None, S), "s_D": total(st_s, (WB - WA)[has], S), "s_T": total(st_s, T[has], S)}
    per_sb = {"WA": WA[has], "WB": WB[has], "T": T[has]}
    for q in STRATEGY_Q:
        x, y = q[2:].split("_")
        srow[q] = total(st_s, per_sb[x] * per_sb[y], S)
    present = np.nonzero(total(s_code, None, S))[0]
    df = {"strategy": np.concatenate([s_names[used // (NA * C)], s_names[present]]).astype(object),
          "age": np.concatenate([used // C % NA, np.zeros(len(present), np.int64)]).astype(np.int64),
          "card": np.concatenate([c_names[used % C], np.full(len(present), ALL, dtype=object)])}
    for k in CARD_SUMS:  # one frame of all columns (a column set at a time: 70 copies of the frame)
        df[k] = np.concatenate([cols.get(k, np.zeros(len(used), np.int64)),
                                srow.get(k, np.zeros(S, np.int64))[present]]).astype(np.int64)
    return pd.DataFrame(df).sort_values(CARD_KEYS, kind="stable").reset_index(drop=True)


def paired_batch_sums(outs_a: list, rs_a, outs_b: list, rs_b, card: str | None = None,
                      ages: list[int] | None = None, one_clan: bool = False) -> tuple:
    """(paired sums, card sums or None) of a batch played in both arms (each arm's
    :func:`analysis.runner.play_batch_outs` for rule sets ``rs_a``/``rs_b``), straight from the
    engine's arrays: :func:`pair_block_sums` with holder = :func:`holders` of
    ``card`` in arm A (None: no holder, and the card sums :func:`card_block_sums`
    when both arms drafted). Equal to ``paired_sums``/``card_sums`` of the batch's frames
    (tests/test_paired_cards.py). Raises ValueError if the arms are not the same games."""
    A, B = ClanRows(outs_a), ClanRows(outs_b)
    if A.P != B.P or not np.array_equal(A.gid, B.gid) or not np.array_equal(A.s_code, B.s_code):
        raise ValueError("paired arms: the two arms' rows are not the same games and seats")
    h = holders(A, rs_a, card, ages, one_clan) if card is not None else np.zeros(A.n, bool)
    sums = pair_block_sums(A.s_code, A.s_names, h.astype(np.int64), A.block, B.w - A.w,
                              B.glory.sum(axis=1) - A.glory.sum(axis=1))
    if card is not None:
        return sums, None
    pk = [c.rows(lambda b: b.picks).reshape(c.n, -1).astype(np.int64) for c in (A, B)]
    if not all((p >= 0).any() for p in pk):
        return sums, None
    c_names = np.array(sorted(set(rs_a.card_names) | set(rs_b.card_names)), dtype=object)
    K = outs_a[0][3].picks.shape[3]
    slot_age = np.repeat(np.arange(1, outs_a[0][3].picks.shape[2] + 1, dtype=np.int64), K)
    arms = [(p, slot_age, np.searchsorted(c_names, np.array(list(rs.card_names), dtype=object)).astype(np.int64))
            for p, rs in zip(pk, (rs_a, rs_b))]
    rows = np.stack([A.block, A.s_code, A.w, B.w], axis=1)
    return sums, card_block_sums(rows, arms[0], arms[1], A.s_names, c_names, len(slot_age) // K + 1)


def holders(cr: ClanRows, rs, card: str, ages: list[int] | None, one_clan: bool = False) -> np.ndarray:
    """bool[n] per clan row of ``cr`` (rule set ``rs``): the clan drafted ``card`` (in ``ages``,
    default any), or holds it as the value of one of the engine's seat groups (a Valhalla dice
    Jarl); with ``one_clan``, only the clan the draft rule binds (seat == seed % P,
    core.draft_rules)."""
    ids = np.flatnonzero(np.array(list(rs.card_names), dtype=object) == card)
    pk = cr.rows(lambda b: b.picks)
    m = np.isin(pk, ids)
    if ages:
        m &= np.isin(np.arange(1, pk.shape[1] + 1), ages)[None, :, None]
    h = m.any(axis=(1, 2))
    names = getattr(rs, "group_names", None)
    if names and getattr(cr.outs[0][3], "groups", None) is not None:
        g = cr.rows(lambda b: b.groups).reshape(cr.n, -1).astype(np.intp)
        for i, values in enumerate(names.values()):
            h |= np.array(list(values), dtype=object)[g[:, i]] == card
    if one_clan:
        h &= cr.seed % np.uint64(cr.P) == np.tile(np.arange(cr.P, dtype=np.uint64), cr.n // cr.P)
    return h
