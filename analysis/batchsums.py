"""A batch's sufficient statistics straight from the engine's arrays (no row frames).

:func:`batch_stats` gives the same :class:`~analysis.suffstats.Stats` as
``Stats.from_frames`` on the batch's ``records`` frames (tests/test_batchsums.py checks them
table by table), without building the frames: the clan rows are arrays in (game id, seat)
order, labels are made once per distinct code, and the loops over seat pairs, checkpoints and
card entries are the compiled kernels of :mod:`analysis.kernels`. ``Stats.from_frames`` stays
the reference, and what a report rebuilt from row files uses.
"""
from __future__ import annotations

import numpy as np

from volva.analysis import records as R
from volva.analysis import suffstats as S
from volva.simulator.core import enums as E


def _ranked(key: np.ndarray, label) -> tuple[np.ndarray, np.ndarray]:
    """(codes, labels) of an int64 key per row, codes ranking the labels ``label(k)`` of the
    distinct keys in string order (as ``suffstats._codes`` of the label column)."""
    uniq, inv = S._unique_inverse(key)
    names = np.array([label(int(k)) for k in uniq], dtype=object)
    order = np.argsort(names, kind="stable")
    rank = np.empty(len(uniq), np.int64)
    rank[order] = np.arange(len(uniq))
    return rank[inv], names[order]


def _path_prefix(path: np.ndarray, k: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """(codes, labels) of the first ``k`` raises per row (int8[R, L] stat codes, -1 padding), labels
    as ``suffstats.path_prefix`` ('axes,rage,horns'; '(none)' for a clan that never raised)."""
    p = np.asarray(path)[:, :k].astype(np.int64)
    if p.size and (p.min() < -1 or p.max() >= E.N_STATS):
        raise ValueError(f"path: stat code outside -1..{E.N_STATS - 1}")
    p = np.where(np.maximum.accumulate(p == -1, axis=1), -1, p)  # codes after the first -1 ignored
    base = E.N_STATS + 1
    key = np.zeros(len(p), np.int64)
    for j in range(p.shape[1]):
        key = key * base + (p[:, j] + 1)

    def label(x):
        codes = [(x // base ** (p.shape[1] - 1 - j)) % base - 1 for j in range(p.shape[1])]
        return ",".join(E.STAT_NAMES[c] for c in codes if c >= 0) or "(none)"
    return _ranked(key, label)


def _god_codes(gods: np.ndarray, god_names: list) -> tuple[np.ndarray, np.ndarray]:
    """(codes, labels) of each row's gods (int[R, k], records.gods_strings' input), labels as
    gods_strings gives them: it labels each distinct row once, and rows of one label share a code."""
    g = np.asarray(gods, np.int64)
    key = np.zeros(len(g), np.int64)
    for j in range(g.shape[1]):
        key = key * 32 + (g[:, j] + 1)  # a god index is < 31
    _, first, inv = np.unique(key, return_index=True, return_inverse=True)
    cat = R.gods_strings(g[first], god_names)
    labels = np.asarray(cat.astype(str), dtype=object)  # per distinct row; equal labels merged below
    names, code = np.unique(labels, return_inverse=True)
    return code.reshape(-1)[inv.reshape(-1)].astype(np.int64), names.astype(object)


class ClanRows:
    """A batch's clan rows in (game id, seat) order, from :func:`analysis.runner.play_batch_outs`
    ([(game ids int64[G], seeds uint64[G], the rotated lineup's P names, BatchOut)]): ``n`` rows
    of ``P`` seats; int64[n] ``gid``, ``block`` (seed block, dense from 0; a block's games are
    consecutive in game id, core.batch.game_plan), ``s_code`` (into the sorted ``s_names``),
    ``rank``, ``w`` (win units); ``glory`` int64[n, N_GLORY_SRC]; ``rows(f)`` any per-seat field."""

    def __init__(self, outs: list):
        self.outs = outs
        self.P = P = outs[0][3].rank.shape[1]
        gid = np.concatenate([np.repeat(np.asarray(ids, np.int64), P) for ids, _, _, _ in outs])
        self.order = order = np.argsort(gid, kind="stable")  # a game's seats are in order in its part
        self.n = len(order)
        self.gid = gid[order]
        seed = np.concatenate([np.repeat(np.asarray(sd, np.uint64), P) for _, sd, _, _ in outs])[order]
        self.seed = seed
        self.block = np.concatenate([[0], np.cumsum(seed[1:] != seed[:-1])]).astype(np.int64)
        self.s_names = np.array(sorted(set().union(*(set(o[2]) for o in outs))), dtype=object)
        self.s_code = np.concatenate([np.tile(np.searchsorted(self.s_names, np.array(nm, dtype=object)), len(ids))
                                      for ids, _, nm, _ in outs]).astype(np.int64)[order]
        self.rank = rank = self.rows(lambda b: np.asarray(b.rank, np.int64))
        win = (rank == 1).reshape(-1, P)
        k = win.sum(axis=1, keepdims=True)
        self.w = np.rint(np.divide(win, k, out=np.zeros(win.shape), where=k > 0).reshape(-1) * S.WIN_UNIT) \
            .astype(np.int64)
        self.glory = self.rows(lambda b: np.asarray(b.glory, np.int64))

    def rows(self, f) -> np.ndarray:
        """A per-seat field ``f(BatchOut)`` ([G, P, ...]) as clan rows ([n, ...])."""
        parts = [np.asarray(f(b)) for _, _, _, b in self.outs]
        return np.concatenate([a.reshape(a.shape[0] * self.P, *a.shape[2:]) for a in parts])[self.order]


def batch_stats(outs: list, rs, points: np.ndarray | None) -> S.Stats:
    """Stats of a batch's :func:`analysis.runner.play_batch_outs` ([(game ids int64[G], seeds
    uint64[G], the rotated lineup's P names, BatchOut)]) for rule set ``rs``; ``points``: the
    convergence checkpoints (None: none kept). Equal, table by table, to ``Stats.from_frames`` of
    the batch's clans, picks and plays frames. Raises ValueError as ``records.clans_frame`` does."""
    if not outs or sum(len(o[0]) for o in outs) == 0:
        return S.Stats()
    cr = ClanRows(outs)
    P, n, rows, gid, block, s_code, s_names, rank, w, src = \
        cr.P, cr.n, cr.rows, cr.gid, cr.block, cr.s_code, cr.s_names, cr.rank, cr.w, cr.glory
    order = cr.order
    seat = np.tile(np.arange(P, dtype=np.int64), n // P)
    npl = np.full(n, P, np.int64)
    g = src.sum(axis=1)
    lv = rows(lambda b: np.asarray(b.stats, np.int64)) + 1
    legendary = (lv >= 4).sum(axis=1).astype(np.int64)

    vals = {"n": np.ones(n, np.int64), "w": w, "g": g, "g2": g * g}
    tied = (w > 0) & (w < S.WIN_UNIT)
    cv = dict(vals, figs=rows(lambda b: np.asarray(b.board_rag, np.int64)), legendary=legendary,
              tied=tied.astype(np.int64), tied_w=np.where(tied, w, 0))
    by_src = np.ascontiguousarray(src.T)  # a contiguous row per source: _grouped copies them fast
    sq = by_src * by_src
    for i, name in enumerate(S.SOURCES):
        cv[f"s_{name}"], cv[f"q_{name}"] = by_src[i], sq[i]
    strat = (s_code, s_names)
    t = {"clans": S._grouped("clans", [S._ints(npl), S._ints(seat), strat], cv)}
    levels = _ranked(lv[:, 0] * 100 + lv[:, 1] * 10 + lv[:, 2], lambda x: f"R{x // 100} A{x // 10 % 10} H{x % 10}")
    t["levels"] = S._grouped("levels", [strat, levels, S._ints(legendary)], vals, block)
    t["paths"] = S._grouped("paths", [strat, _path_prefix(rows(lambda b: b.path[..., :3]))], vals, block)
    gods = _god_codes(rows(lambda b: np.repeat(np.asarray(b.gods)[:, None], P, axis=1)), rs.god_names or [])
    gv = dict(vals, **{f"s_{s}": cv[f"s_{s}"] for s in S.SOURCES})
    t["gods"] = S._grouped("gods", [strat, gods], gv, block)
    _card_tables(t, rows, rs, strat, vals, block, gv)
    t["blocks"] = S._blocks_table(npl, seat, s_code, s_names, block, w)
    t["shape"] = _shape(cr, strat)
    t["groups"] = _groups(outs, rs, order, strat, gv, block)
    t["h2h"] = _h2h(s_code, s_names, w, rank, block, P)
    if points is not None:
        t["convergence"] = _convergence(gid, block, s_code, s_names, w, np.asarray(points, np.int64))
    return S.Stats({k: v for k, v in t.items() if v is not None}, n // P)


def _card_tables(t: dict, rows, rs, strat, vals, block, gv) -> None:
    """The draft, drafted_gods and use tables (from the picks and uses arrays) into ``t``; ``rows``
    turns a per-seat field into clan rows. The loop is :func:`analysis.kernels.card_rows_nb`."""
    from volva.analysis.kernels import card_rows_nb, god_pair_nb
    c_names, c_inv, card_god = R.of_ruleset(rs, "card_codes", _card_codes)
    C, V = len(c_names), len(c_inv)
    s_code, s_names = strat
    NS = len(s_names)
    nb = int(block[-1]) + 1
    cell = block * NS + s_code  # (block, strategy); bincount: np.add.at is a Python-speed loop
    tot = np.stack([np.bincount(cell, minlength=nb * NS),
                    np.bincount(cell, weights=vals["w"], minlength=nb * NS).round().astype(np.int64)],
                   axis=1).reshape(nb, NS, 2).astype(np.int64)  # win units < 2**53: exact
    clans = np.stack([block, vals["w"], vals["g"], s_code], axis=1)
    picks = rows(lambda b: b.picks)  # the engine's dtype: the kernels take any integer
    if (picks >= 0).any():
        pair = np.empty(len(picks), np.int64)
        god_pair_nb(picks.reshape(len(picks), -1), card_god, len(E.CARD_GOD_NAMES), pair)
        t["drafted_gods"] = S._grouped("drafted_gods", [strat, S.god_pair_ranked(pair)], gv, block)
        A, K = picks.shape[1], picks.shape[2]
        lut = np.full((A, V, 2), -1, np.int64)
        for a in range(A):
            lut[a, :, 0] = (a + 1) * C + c_inv  # cell part (age, card); one use value
        slots = np.stack([np.repeat(np.arange(A), K), np.tile(np.arange(1, K + 1), A)], axis=1).astype(np.int64)
        out = np.zeros((NS * 4 * C, 13), np.int64)
        card_rows_nb(picks.reshape(len(picks), -1), lut, slots, clans, tot, 4 * C, out)
        t["draft"] = S.card_table("draft", out, s_names, c_names)
    uses = rows(lambda b: b.uses)
    if not (uses >= 0).any():
        return
    u_names, lut = R.of_ruleset(rs, "use_lut", _use_lut)
    U = len(u_names)
    out = np.zeros((NS * 4 * C * U, 13), np.int64)
    card_rows_nb(uses, lut[None], np.zeros((uses.shape[1], 2), np.int64), clans, tot, 4 * C * U, out)
    t["use"] = S.card_table("use", out, s_names, c_names, u_names)


def _card_codes(rs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted card names, int64[V] each card index's code into them, int64[V] each card index's
    god in E.CARD_GOD_NAMES, -1 none): by name through records.card_gods, as the frames are."""
    c_names, c_inv = np.unique(np.asarray(list(rs.card_names), dtype=object), return_inverse=True)
    cg = R.card_gods(rs)
    names = {nm: i for i, nm in enumerate(E.CARD_GOD_NAMES)}
    card_god = np.array([names.get(str(cg.get(x, "")).lower(), -1) for x in rs.card_names], np.int64)
    return c_names, c_inv.reshape(-1).astype(np.int64), card_god


def _use_lut(rs) -> tuple[np.ndarray, np.ndarray]:
    """(sorted use names, 'played' among them; int64[V * 16, 2] card_rows_nb's lut of every value
    a use slot can hold, card * 16 + age * 4 + use: the part (age, card, use) and the part of its
    'played' entry, -1 none)."""
    c_names, c_inv, _ = R.of_ruleset(rs, "card_codes", _card_codes)
    C, V = len(c_names), len(c_inv)
    code = np.arange(V * 16, dtype=np.int64)
    cid = code // 16
    age = code // 4 % 4 if getattr(rs, "one_deck", False) else np.asarray(rs.tables.card_age, np.int64)[cid]
    n0 = np.array(sorted(set(E.USE_NAMES)), dtype=object)
    u_names = np.array(sorted(set(n0) | {"played"}), dtype=object)
    use = np.searchsorted(u_names, np.array(E.USE_NAMES, dtype=object))[code % 4]
    part = (age * C + c_inv[cid]) * len(u_names)
    played = np.isin(np.array(E.USE_NAMES, dtype=object)[code % 4], S.PLAYED_USES)
    lut = np.stack([part + use, np.where(played, part + int(np.searchsorted(u_names, "played")), -1)], axis=1)
    return u_names, lut


def _shape(cr: ClanRows, strat) -> S.Table | None:
    """The shape table (``Stats.from_frames``'s): per strategy, the clans whose game-shape counters
    are all known, and the sums and sums of squares of each counter; None when no clan has them."""
    from volva.analysis.kernels import group_moments_nb
    shape = cr.rows(lambda b: b.game_shape if getattr(b, "game_shape", None) is not None
                    else np.full((*b.rank.shape, E.N_SHAPE), -1, np.int16))
    s_code, s_names = strat
    inv = np.where((shape >= 0).all(axis=1), s_code, -1)
    out = np.zeros((len(s_names), 1 + 2 * E.N_SHAPE), np.int64)
    group_moments_nb(inv, shape, out)
    live = np.nonzero(out[:, 0])[0]
    if not len(live):
        return None
    cols = {"strategy": s_names[live].astype(object), "n": out[live, 0]}
    for i, name in enumerate(E.SHAPE_NAMES):
        cols[f"k_{name}"] = out[live, 1 + i]
    for i, name in enumerate(E.SHAPE_NAMES):
        cols[f"k2_{name}"] = out[live, 1 + E.N_SHAPE + i]
    return S.Table("shape", {k: cols[k] for k in S.KEYS["shape"] + S.SUMS["shape"]})


def _groups(outs, rs, order, strat, gv, block) -> S.Table | None:
    """The engine's seat groups table (``suffstats._groups_table``), or None without groups."""
    names = getattr(rs, "group_names", None)
    if not names or getattr(outs[0][3], "groups", None) is None:
        return None
    g = np.concatenate([np.asarray(b.groups).reshape(-1, len(names)) for _, _, _, b in outs])[order]
    s_code, s_names = strat
    every = np.full(len(s_code), len(s_names), np.int64)
    all_names = np.append(s_names, S.ALL).astype(object)
    parts = []
    for i, (dim, values) in enumerate(names.items()):
        labels, inv = np.unique(np.asarray(list(values), dtype=object), return_inverse=True)
        value = (inv.reshape(-1)[g[:, i].astype(np.intp)].astype(np.int64), labels)
        d_code = np.zeros(len(s_code), np.int64)
        for s in (s_code, every):
            parts.append(S._grouped("groups", [(s, all_names), (d_code, np.array([dim], dtype=object)), value],
                                    gv, block))
    return S._added(parts, "groups")


def _h2h(s_code, s_names, w, rank, block, P) -> S.Table:
    """The h2h table (``Stats._h2h``) by :func:`analysis.kernels.h2h_sums_nb`."""
    from volva.analysis.kernels import h2h_sums_nb
    if P < 2:
        return S.Table.empty("h2h")
    NS = len(s_names)
    seats = np.stack([s_code, w, rank], axis=1).reshape(-1, P, 3)
    out = np.zeros((NS * NS, 10), np.int64)
    h2h_sums_nb(seats, np.ascontiguousarray(block[::P]), NS, out)
    live = np.nonzero(out[:, 0])[0]  # (strategy, opponent) in code order: s_names is sorted
    cols = {"strategy": s_names[live // NS], "opponent": s_names[live % NS]}
    for j, c in enumerate(["pairs", "games", "w", "ahead2", "c_G", "c_mm", "c_aa", "c_am", "c_ww", "c_wm"]):
        cols[c] = out[live, j]
    return S.Table("h2h", cols)


def _convergence(gid, block, s_code, s_names, w, points) -> S.Table:
    """The convergence table (``Stats._convergence``) by :func:`analysis.kernels.convergence_sums_nb`."""
    from volva.analysis.kernels import convergence_sums_nb
    pts = points[points > gid[0]]
    NS = len(s_names)
    out = np.zeros((len(pts), NS, 6), np.int64)
    convergence_sums_nb(np.stack([gid, block, s_code, w], axis=1), pts, NS, out)
    k, s = np.nonzero(out[:, :, 0])
    o = np.lexsort((k, s))  # by strategy, then checkpoint
    k, s = k[o], s[o]
    cols = {"strategy": s_names[s], "games": pts[k].astype(np.int64)}
    for j, c in enumerate(["n", "w", *S.BLOCK_SUMS]):
        cols[c] = out[k, s, j]
    return S.Table("convergence", cols)
