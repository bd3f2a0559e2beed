"""Sufficient statistics of a run: integer sums per group, added batch by batch.

A 10M-game run never holds its rows: each batch's clan, pick and card-use rows are reduced
to small tables of sums (``n`` clan-rows, ``w`` = 60 x the sum of win_share, ``g`` and ``g2``
= sums of Glory and Glory², ...) and added to the running totals.  Every rate, mean and
interval of the report (:mod:`analysis.aggregate`) is a function of these sums.  All sums
are integers (60 x win_share is an integer for ties of 1..5 clans), so the totals, and
everything computed from them, are identical for any batch size, thread count or order.

Tables (key columns -> sum columns; strings for names, ints for seat/age/games):

=============  ==========================================  ===========================================
name           keys                                        sums
=============  ==========================================  ===========================================
clans          n_players, seat, strategy                   n w g g2 figs legendary, s_<src> q_<src>
blocks         n_players, seat, strategy                   c_G c_TT c_WW c_WT (seat -1: all seats;
                                                           strategy '*': all strategies)
levels         strategy, levels ('R3 A6 H1'), legendary    n w g g2 c_*
paths          strategy, path (first 3 raises)             n w g g2 c_*
gods           strategy, gods (Ásgard pair / Valhalla ages)  n w g g2 s_<src> c_*
drafted_gods   strategy, god_pair (the clan's 2 top gods)  n w g g2 s_<src> c_*
draft          strategy, age, card                         times pick_sum n w g g2 c_nn ...
use            strategy, age (the card's), card, use       times n w g g2 c_nn ...  (use also 'played')
h2h            strategy, opponent                          pairs games w ahead2 c_G c_mm c_aa c_am c_ww c_wm
convergence    strategy, games                             n w c_G c_TT c_WW c_WT
shape          strategy                                    n k_<counter> k2_<counter>  (game shape)
groups         strategy, dimension, value                  n w g g2 s_<src> c_*  (strategy '*': all)
=============  ==========================================  ===========================================

``groups`` sums the clans by each of the engine's seat groups (BatchOut.groups; Valhalla dice: the
Jarl, the clan most sent to Valhalla, how the game ended), per strategy and over all strategies
(strategy '*', whose block sums give the pooled rate its clustered interval); optional on load.

``shape`` sums the game-shape counters of the clans table (enums.SHAPE_NAMES: Action turns,
pillages, battles, ties, quests, figures lost) and their squares, over the clans whose engine
counts them (``n``); it is optional on load (stats written before it have none).

Cluster sums (issue 16). The unit of resampling is the **seed block**: the games that share a
seed (seat rotation plays k rotations of one deal; a mirror match or a run without rotation has
blocks of one game), so the clans of one game and the games of one deal are never treated as
independent. Per block b and group: T_b clans of the group, W_b their wins (x60); ``c_G`` = number
of blocks, ``c_TT`` = sum T_b², ``c_WW`` = sum W_b², ``c_WT`` = sum W_b T_b. They give the
cluster-robust (sandwich) variance of a rate, the same as statsmodels' OLS of win_share on a
constant with ``cov_type='cluster'`` grouped by seed. Batches never split a block
(:func:`block_games`), so the sums are the same for any batch size. For a card cell (n_b clans of
the strategy that had the card, w_b their wins; T_b, W_b all clans of the strategy): ``c_nn`` =
sum n_b², ``c_wn`` = sum w_b n_b, ``c_ww`` = sum w_b², ``c_wW``, ``c_wT``, ``c_nW``, ``c_nT``; with
the strategy's rows of ``blocks`` they give the clustered variance of card differences (one copy
drafted by one clan is a copy the others did not get). In ``h2h`` per block: m_b ordered seat pairs
(row strategy, opponent), a_b their ``ahead2``, w_b the row's wins summed over the pairs; ``pairs``
= seat pairs, ``games`` = games where both played.

``tied`` counts the clans that shared first place (win share strictly between 0 and 1) and
``tied_w`` their win shares (x60): over all clans it sums to 60 x the games with a shared first
place. ``legendary`` counts a clan's stats on step 4 or higher (001 "legendary levels": +10/+20
Glory).  ``god_pair``: the two gods with most cards among the clan's draft picks (all
ages), ties broken by god order (odin, thor, tyr, loki, frigga, heimdall); one god if it
drafted only one god's cards, ``(none)`` if none (docs/rulings.md R39).  In ``h2h``,
``ahead2`` is 2 per seat pair where the row strategy finished above the opponent and 1 per tie.
``convergence`` holds cumulative sums over games ``0..games-1`` at fixed checkpoints.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from volva.analysis.records import CLANS_NEEDED, GROUP_PREFIX, PICKS_NEEDED, RunDataError, read_parquet_columns
from volva.simulator.core import enums as E

WIN_UNIT = 60  #: win_share x 60 is an integer for a tie of 1..5 winners
SOURCES = tuple(E.GLORY_SOURCE_NAMES)
KEYS = {
    "clans": ["n_players", "seat", "strategy"],
    "blocks": ["n_players", "seat", "strategy"],
    "levels": ["strategy", "levels", "legendary"],
    "paths": ["strategy", "path"],
    "gods": ["strategy", "gods"],
    "drafted_gods": ["strategy", "god_pair"],
    "draft": ["strategy", "age", "card"],
    "use": ["strategy", "age", "card", "use"],
    "h2h": ["strategy", "opponent"],
    "convergence": ["strategy", "games"],
    "shape": ["strategy"],
    "groups": ["strategy", "dimension", "value"],
}
CLUSTER_SUMS = ["c_nn", "c_wn", "c_ww", "c_wW", "c_wT", "c_nW", "c_nT"]
BLOCK_SUMS = ["c_G", "c_TT", "c_WW", "c_WT"]  #: per group: blocks, sums of T_b², W_b², W_b T_b
ALL = "*"  #: the 'blocks' table's strategy for every strategy (a lineup cannot name a strategy '*')
SUMS = {
    "clans": ["n", "w", "g", "g2", "figs", "legendary", "tied", "tied_w", *[f"s_{s}" for s in SOURCES],
              *[f"q_{s}" for s in SOURCES]],
    "blocks": BLOCK_SUMS,
    "levels": ["n", "w", "g", "g2", *BLOCK_SUMS], "paths": ["n", "w", "g", "g2", *BLOCK_SUMS],
    "gods": ["n", "w", "g", "g2", *[f"s_{s}" for s in SOURCES], *BLOCK_SUMS],
    "drafted_gods": ["n", "w", "g", "g2", *[f"s_{s}" for s in SOURCES], *BLOCK_SUMS],
    "draft": ["times", "pick_sum", "n", "w", "g", "g2", *CLUSTER_SUMS],
    "use": ["times", "n", "w", "g", "g2", *CLUSTER_SUMS],
    "h2h": ["pairs", "games", "w", "ahead2", "c_G", "c_mm", "c_aa", "c_am", "c_ww", "c_wm"],
    "convergence": ["n", "w", *BLOCK_SUMS],
    "shape": ["n", *[f"k_{s}" for s in E.SHAPE_NAMES], *[f"k2_{s}" for s in E.SHAPE_NAMES]],
    "groups": ["n", "w", "g", "g2", *[f"s_{s}" for s in SOURCES], *BLOCK_SUMS],
}
OPTIONAL_TABLES = {"shape", "groups"}  #: tables a stats folder written before them may lack
INT_KEYS = {"n_players", "seat", "legendary", "age", "games"}
USES_COLUMNS = ["game_id", "seat", "age", "card", "card_age", "use"]  #: plays.parquet (records.PLAYS_COLUMNS)
PLAYED_USES = ("battle", "upgrade", "quest")  #: uses that count as 'played' (a 'played' row is kept too)
STATS_DIR = "stats"


class StatsError(RunDataError):
    """A stats directory that is missing, unreadable or not Volva output."""


def read_json_object(path: Path, error: type = None, missing: str = "file not found") -> dict:
    """A JSON object from ``path``; raises ``error`` (default RunDataError) naming the file when it
    is missing (with ``missing`` as the reason), unreadable, not JSON, or not an object."""
    error = error or RunDataError
    try:
        d = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise error(f"{path}: {missing}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise error(f"{path}: unreadable ({' '.join(str(exc).split())})") from None
    if not isinstance(d, dict):
        raise error(f"{path}: not a Volva file (expected a JSON object)")
    return d


def checkpoints(games: int) -> np.ndarray:
    """int64 game counts at which convergence sums are kept: 10, 20, 50, 100, 200, 500, ...
    (1-2-5 steps) below ``games``, and ``games`` itself."""
    pts = [m * 10 ** k for k in range(1, 12) for m in (1, 2, 5) if m * 10 ** k < games]
    return np.array(sorted(set(pts + [int(games)])), np.int64)


def _empty(name: str) -> pd.DataFrame:
    """Table ``name`` with no rows (a copy: callers may add to it)."""
    if name not in _EMPTY:  # built once: a pandas frame of 30 typed columns costs milliseconds
        cols = {k: pd.Series(dtype=np.int64 if k in INT_KEYS else str) for k in KEYS[name]}
        cols.update({s: pd.Series(dtype=np.int64) for s in SUMS[name]})
        _EMPTY[name] = pd.DataFrame(cols)
    return _EMPTY[name].copy()


_EMPTY: dict[str, pd.DataFrame] = {}


class Table:
    """A stats table as numpy columns, rows sorted by the keys: int64 keys (INT_KEYS), object
    arrays of str for the other keys, int64 sums. A batch's tables and a run's running totals
    stay in this form, and :class:`Stats` builds the pandas frame of a table only when it is read
    or saved (:meth:`frame`): a frame with string keys costs about a millisecond, and a batch of
    10,000 games made fourteen of them beside an engine that plays it in half a second."""

    __slots__ = ("name", "cols")

    def __init__(self, name: str, cols: dict[str, np.ndarray]):
        self.name, self.cols = name, cols

    @classmethod
    def empty(cls, name: str) -> Table:
        cols = {k: np.zeros(0, np.int64 if k in INT_KEYS else object) for k in KEYS[name]}
        return cls(name, dict(cols, **{s: np.zeros(0, np.int64) for s in SUMS[name]}))

    def __len__(self) -> int:
        return len(self.cols[SUMS[self.name][0]])

    def frame(self) -> pd.DataFrame:
        """The table as :func:`_empty`'s frame would hold it: int64 keys and sums, str keys."""
        out = {k: (np.asarray(self.cols[k], np.int64) if k in INT_KEYS else pd.array(self.cols[k], dtype="str"))
               for k in KEYS[self.name]}
        return pd.DataFrame(dict(out, **{s: np.asarray(self.cols[s], np.int64) for s in SUMS[self.name]}))


def _sum(df: pd.DataFrame, name: str) -> pd.DataFrame:
    """Group ``df`` (key + sum columns of table ``name``) by its keys and add the sums."""
    keys = KEYS[name]
    if len(df) == 0:
        return _empty(name)
    for k in keys:
        if k not in INT_KEYS:
            df[k] = df[k].astype(str)
    out = df.groupby(keys, sort=True, observed=True)[SUMS[name]].sum().reset_index()
    for s in SUMS[name]:
        out[s] = out[s].astype(np.int64)
    for k in keys:
        out[k] = out[k].astype(np.int64) if k in INT_KEYS else out[k].astype(str)
    return out


def _col(t, k: str) -> np.ndarray:
    """Column ``k`` of a :class:`Table` or a frame as a numpy array (strings as objects)."""
    return t.cols[k] if isinstance(t, Table) else t[k].to_numpy()


def _added(parts: list, name: str) -> Table:
    """Tables ``name`` (Tables or frames, one or more) added: the sums per distinct key, rows
    sorted by the keys (as :func:`_sum`), in numpy (a study adds its batches' tables to its
    totals; pandas' groupby cost a few milliseconds per table)."""
    keys, sums = KEYS[name], SUMS[name]
    key, cols = np.zeros(sum(len(t) for t in parts), np.int64), []
    for k in keys:
        v = np.concatenate([_col(t, k) for t in parts])
        if k in INT_KEYS:
            v = v.astype(np.int64)
            code = v - v.min()
        else:
            v = v.astype(object)
            code = np.unique(v, return_inverse=True)[1].reshape(-1)  # string order, as groupby's sort
        key = key * (int(code.max()) + 1) + code
        cols.append(v)
    uniq, first, inv = np.unique(key, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    starts = np.concatenate([[0], np.cumsum(np.bincount(inv, minlength=len(uniq)))[:-1]])
    vals = np.stack([np.concatenate([np.asarray(_col(t, s), np.int64) for t in parts]) for s in sums], axis=1)
    tot = np.add.reduceat(vals[np.argsort(inv, kind="stable")], starts, axis=0)
    out = {k: c[first] for k, c in zip(keys, cols)}
    out.update({s: tot[:, j] for j, s in enumerate(sums)})
    return Table(name, out)


def level_labels(clans: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """('R3 A6 H1' per row, legendary count per row) from rage/axes/horns_level (1..6)."""
    lv = np.stack([clans[f"{s}_level"].to_numpy(np.int64) for s in E.STAT_NAMES], axis=1)
    key = lv[:, 0] * 100 + lv[:, 1] * 10 + lv[:, 2]
    uniq, inv = np.unique(key, return_inverse=True)
    labels = np.array([f"R{k // 100} A{k // 10 % 10} H{k % 10}" for k in uniq], dtype=object)
    return labels[inv.reshape(-1)], (lv >= 4).sum(axis=1)


def path_prefix(stat_path: pd.Series, k: int) -> np.ndarray:
    """First ``k`` raises of 'axes,rage,...' per row ('(none)' for a clan that never raised)."""
    cats = stat_path.astype(str).astype("category")
    names = np.array([",".join(str(c).split(",")[:k]) if str(c) else "(none)" for c in cats.cat.categories],
                     dtype=object)
    return names[cats.cat.codes.to_numpy()]


def _row_index(clans: pd.DataFrame, game_id: np.ndarray, seat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Clan row of each (game_id, seat); returns (found mask, row index of the found ones)."""
    ckey = clans["game_id"].to_numpy(np.int64) * 8 + clans["seat"].to_numpy(np.int64)
    order = np.argsort(ckey, kind="stable")
    skey = ckey[order]
    key = np.asarray(game_id, np.int64) * 8 + np.asarray(seat, np.int64)
    if len(skey) == 0:
        return np.zeros(len(key), bool), np.zeros(0, np.int64)
    pos = np.minimum(np.searchsorted(skey, key), len(skey) - 1)
    found = skey[pos] == key
    return found, order[pos[found]]


def _god_pairs(n_rows: int, rows: np.ndarray, gods: np.ndarray) -> np.ndarray:
    """The clan's drafted god pair per row (see module doc); rows/gods: clan row and god code
    (-1 none) of each pick."""
    NG = len(E.CARD_GOD_NAMES)
    ok = gods >= 0
    return god_pair_labels(np.bincount(rows[ok] * NG + gods[ok], minlength=n_rows * NG).reshape(n_rows, NG))


def god_pair_labels(counts: np.ndarray) -> np.ndarray:
    """The drafted god pair (module doc) per row of int64[R, 6] cards drafted of each god."""
    code, labels = god_pair_codes(counts)
    return labels[code]


def god_pair_codes(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int64 codes, labels in string order) of :func:`god_pair_labels` (as ``_codes`` of them)."""
    NG = len(E.CARD_GOD_NAMES)
    # rank by count, then god order: score = count * NG + (NG - 1 - god)
    score = counts * NG + (NG - 1 - np.arange(NG))[None, :]
    top = np.argsort(-score, axis=1, kind="stable")[:, :2]
    c1 = np.take_along_axis(counts, top[:, :1], 1)[:, 0]
    c2 = np.take_along_axis(counts, top[:, 1:2], 1)[:, 0]
    a, b = np.minimum(top[:, 0], top[:, 1]), np.maximum(top[:, 0], top[:, 1])
    return god_pair_ranked(np.where(c1 == 0, -1, np.where(c2 == 0, top[:, 0] * NG + top[:, 0], a * NG + b)))


def god_pair_ranked(code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int64 codes, labels in string order) of int64 god pair codes (-1 none, g * NG + g one god,
    a * NG + b two gods; NG = len(CARD_GOD_NAMES)): :func:`god_pair_codes` after its pairing."""
    NG = len(E.CARD_GOD_NAMES)
    uniq, inv = _unique_inverse(code)
    labels = []
    for k in uniq:
        if k < 0:
            labels.append("(none)")
        elif k // NG == k % NG:
            labels.append(E.CARD_GOD_NAMES[k // NG])
        else:
            labels.append(f"{E.CARD_GOD_NAMES[k // NG]}+{E.CARD_GOD_NAMES[k % NG]}")
    labels = np.array(labels, dtype=object)
    order = np.argsort(labels, kind="stable")
    rank = np.empty(len(labels), np.int64)
    rank[order] = np.arange(len(labels))
    return rank[inv], labels[order]


def _codes(col) -> tuple[np.ndarray, np.ndarray]:
    """(int64 codes, object array of labels) of a column (categorical or not); labels sorted."""
    c = col.astype(str).astype("category") if not isinstance(col.dtype, pd.CategoricalDtype) else col
    cats = np.array([str(x) for x in c.cat.categories], dtype=object)
    order = np.argsort(cats, kind="stable")
    rank = np.empty(len(cats), np.int64)
    rank[order] = np.arange(len(cats))
    return rank[c.cat.codes.to_numpy(np.int64)], cats[order]


def _ints(a: np.ndarray) -> tuple[np.ndarray, None]:
    return np.asarray(a, np.int64), None


def block_games(lineup: list, rotate: bool) -> int:
    """Games per seed block: the lineup's rotation period with seat rotation, else 1. Batches are
    whole blocks (a multiple of this), so the cluster sums do not depend on the batch size."""
    from volva.simulator.core.batch import rotation_period
    return rotation_period(list(lineup)) if rotate else 1


def aligned_batch(batch_size: int, lineup: list, rotate: bool) -> int:
    """``batch_size`` rounded up to whole seed blocks (:func:`block_games`)."""
    k = block_games(lineup, rotate)
    return -(-int(batch_size) // k) * k


def _unique_inverse(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_inverse=True)`` of an int64 key, by counting when its range is
    small (the group keys of a batch: no sort of its rows)."""
    if not len(key):
        return key[:0].copy(), np.zeros(0, np.intp)
    lo, hi = int(key.min()), int(key.max())
    if hi - lo > max(4 * len(key), 1 << 16):
        uniq, inv = np.unique(key, return_inverse=True)
        return uniq, inv.reshape(-1)
    present = np.bincount(key - lo, minlength=hi - lo + 1) > 0
    return np.flatnonzero(present).astype(np.int64) + lo, (np.cumsum(present) - 1)[key - lo]


def _block_sums(inv: np.ndarray, n_groups: int, block: np.ndarray, w: np.ndarray) -> dict[str, np.ndarray]:
    """Per group (``inv``: group index per row): the BLOCK_SUMS over the seed blocks (``block``:
    dense block index per row, ``w``: wins x60 per row)."""
    B = int(block.max()) + 1 if len(block) else 1
    if len(block) and np.count_nonzero(block[1:] != block[:-1]) + 1 == B:  # each block's rows together
        from volva.analysis.kernels import block_sums_nb
        out = np.zeros((n_groups, 4), np.int64)
        block_sums_nb(np.asarray(inv, np.int64), np.asarray(block, np.int64), np.asarray(w, np.int64), out)
        return {name: out[:, j] for j, name in enumerate(BLOCK_SUMS)}
    kb, inv2 = np.unique(inv.astype(np.int64) * B + block, return_inverse=True)
    inv2 = inv2.reshape(-1)
    T = np.bincount(inv2, minlength=len(kb)).astype(np.int64)
    W = np.rint(np.bincount(inv2, weights=w.astype(float), minlength=len(kb))).astype(np.int64)
    owner = kb // B
    s = lambda v: np.bincount(owner, weights=v.astype(float), minlength=n_groups)  # noqa: E731
    return {"c_G": np.rint(s(np.ones(len(kb)))).astype(np.int64), "c_TT": np.rint(s(T * T)).astype(np.int64),
            "c_WW": np.rint(s(W * W)).astype(np.int64), "c_WT": np.rint(s(W * T)).astype(np.int64)}


def _grouped(name: str, keys: list, values: dict, block: np.ndarray | None = None) -> Table:
    """Table ``name``: sums of ``values`` (int64 arrays) per distinct combination of ``keys``,
    each (codes, labels) with labels None for an integer key (codes are the values); with
    ``block`` (dense seed-block index per row), also the BLOCK_SUMS of ``values['w']``."""
    if not len(next(iter(values.values()))):
        return Table.empty(name)
    cols, key = [], np.zeros(len(keys[0][0]), np.int64)
    for codes, labels in keys:
        lo = int(codes.min())
        span = int(codes.max()) - lo + 1
        key = key * span + (codes - lo)
        cols.append((labels, lo, span))
    uniq, inv = _unique_inverse(key)
    out, rest = {}, uniq
    for kname, (labels, lo, span) in reversed(list(zip(KEYS[name], cols))):  # the key's digits, last first
        c = rest % span + lo
        rest = rest // span
        out[kname] = c.astype(np.int64) if labels is None else labels[c].astype(object)
    out = {k: out[k] for k in KEYS[name]}
    per_group = _block_sums(inv, len(uniq), block, values["w"]) if block is not None else {}
    ints = [v for v in SUMS[name] if v not in per_group and np.asarray(values[v]).dtype.kind in "biu"]
    if ints:  # integer columns: one compiled pass (exact), where bincount takes one per column
        from volva.analysis.kernels import group_sums_nb
        mat = np.empty((len(ints), len(inv)), np.int64)
        for j, vname in enumerate(ints):
            mat[j] = values[vname]
        sums = np.zeros((len(uniq), len(ints)), np.int64)
        group_sums_nb(np.asarray(inv, np.int64), mat, sums)
        per_group = dict(per_group, **{vname: sums[:, j] for j, vname in enumerate(ints)})
    for vname in SUMS[name]:
        if vname in per_group:
            out[vname] = per_group[vname]
            continue
        v = values[vname]
        out[vname] = np.rint(np.bincount(inv, weights=v.astype(float), minlength=len(uniq))).astype(np.int64)
    return Table(name, out)


def _card_table(name, s_code, s_names, vals, rows, age, c_code, c_names, gid, pick=None, use=None) -> Table:
    """Per (strategy, age, card[, use]): times = entries, pick_sum, n/w/g/g2 over distinct clans,
    and the cluster sums per game (module doc); ``gid``: 0-based game index per clan row.
    The loop is :func:`analysis.kernels.card_sums_nb`."""
    from volva.analysis.kernels import card_sums_nb
    C = len(c_names)
    U = len(use[1]) if use is not None else 1
    uc = use[0] if use is not None else np.zeros(len(rows), np.int64)
    S = len(s_names)
    per_s = 4 * C * U
    rows = np.asarray(rows, np.int64)
    cell = s_code[rows] * per_s + ((np.asarray(age, np.int64) * C + c_code) * U + uc)
    key = gid[rows] * (len(gid) + 1) + rows  # by game, then clan
    order = np.arange(len(rows)) if np.all(key[1:] >= key[:-1]) else np.argsort(key, kind="stable")
    n_games = int(gid.max()) + 1 if len(gid) else 1
    tot_T = np.bincount(gid * S + s_code, minlength=n_games * S).astype(np.int64)
    tot_W = np.rint(np.bincount(gid * S + s_code, weights=vals["w"].astype(float),
                                minlength=n_games * S)).astype(np.int64)
    out = np.zeros((S * per_s, 13), np.int64)
    pick = np.zeros(len(rows), np.int64) if pick is None else np.asarray(pick, np.int64)
    entries = np.stack([rows, cell.astype(np.int64), pick], axis=1)
    clans = np.stack([gid.astype(np.int64), vals["w"].astype(np.int64), vals["g"].astype(np.int64)], axis=1)
    card_sums_nb(order.astype(np.int64), entries, clans, np.stack([tot_T, tot_W], axis=1), S, per_s, out)
    return card_table(name, out, s_names, c_names, use[1] if use is not None else None)


def card_table(name: str, out: np.ndarray, s_names, c_names, u_names=None) -> Table:
    """Table ``name`` (draft or use) from the kernel's int64[S * 4 * C * U, 13] cell sums
    (:func:`analysis.kernels.card_sums_nb`); cells with no entry are left out."""
    C, U = len(c_names), (len(u_names) if u_names is not None else 1)
    per_s = 4 * C * U
    live = np.nonzero(out[:, 0])[0]
    s_i, rest = live // per_s, live % per_s
    a_i, rest = rest // (C * U), rest % (C * U)
    c_i, u_i = rest // U, rest % U
    cols = ["times", "pick_sum", "n", "w", "g", "g2", *CLUSTER_SUMS]
    keys = [(s_i, s_names), (a_i, None), (c_i, c_names)] + ([(u_i, u_names)] if u_names is not None else [])
    # rows by (strategy, age, card[, use]) in string order of the names (the cells are in code order)
    order = np.lexsort([_label_rank(lb)[c] if lb is not None else c for c, lb in reversed(keys)])
    df = {k: (c[order].astype(np.int64) if lb is None else np.asarray(lb, dtype=object)[c[order]])
          for k, (c, lb) in zip(KEYS[name], keys)}
    for j, cname in enumerate(cols):
        if cname in SUMS[name]:
            df[cname] = out[live[order], j]
    return Table(name, df)


def _label_rank(labels) -> np.ndarray:
    """Rank of each label in string order."""
    rank = np.empty(len(labels), np.int64)
    rank[np.argsort(np.asarray(labels, dtype=str), kind="stable")] = np.arange(len(labels))
    return rank


def _blocks_table(npl, seat, s_code, s_names, block, w) -> Table:
    """The 'blocks' table: BLOCK_SUMS per (n_players, strategy) over all seats (seat -1), per
    (n_players, seat) over all strategies (strategy '*') and per (n_players, seat, strategy)."""
    names = np.append(s_names, ALL).astype(object)
    every = np.full(len(seat), len(s_names), np.int64)
    parts = [_grouped("blocks", [_ints(npl), _ints(s), (c, names)], {"w": w}, block)
             for s, c in ((np.full(len(seat), -1, np.int64), s_code), (seat, every), (seat, s_code))]
    return _added(parts, "blocks")


def _groups_table(clans: pd.DataFrame, dims: list[str], s_code, s_names, values: dict, block) -> Table:
    """The 'groups' table: per (strategy, dimension, value) and per ('*', dimension, value)."""
    names = np.append(s_names, ALL).astype(object)
    every = np.full(len(s_code), len(s_names), np.int64)
    parts = []
    for col in dims:
        dim = str(col)[len(GROUP_PREFIX):]
        d_code = np.zeros(len(s_code), np.int64)
        for s in (s_code, every):
            parts.append(_grouped("groups", [(s, names), (d_code, np.array([dim], dtype=object)), _codes(clans[col])],
                                  values, block))
    return _added(parts, "groups")


class Stats:
    """Running sums of a run (see the module doc for the tables).

    ``Stats.from_frames`` reduces one batch; ``a.add(b)`` adds two; ``save``/``load`` keep
    them as ``stats/<table>.parquet`` plus ``stats/meta.json`` (games counted).
    """

    def __init__(self, tables: dict[str, pd.DataFrame | Table] | None = None, games: int = 0,
                 cards: dict | None = None, game: dict | None = None):
        #: per table a frame, a Table (a frame built when read) or None (no rows)
        self._t = {k: (tables or {}).get(k) for k in KEYS}
        self.games = int(games)
        #: card name -> {"type", "god", "value"} of the run's rule set (records.card_info)
        self.cards = dict(cards or {})
        #: the engine's name, title and terms (simulator.engines.Engine), for the report's wording
        self.game = dict(game or {})

    def _frame(self, name: str) -> pd.DataFrame:
        t = self._t[name]
        return t if isinstance(t, pd.DataFrame) else (t.frame() if t is not None else _empty(name))

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table as a pandas frame, rows sorted by the keys (built on the first read)."""
        for k in KEYS:
            self._t[k] = self._frame(k)
        return self._t

    def __getitem__(self, name: str) -> pd.DataFrame:
        self._t[name] = self._frame(name)
        return self._t[name]

    def copy(self) -> Stats:
        """A Stats with the same sums (tables are never changed in place, only replaced)."""
        return Stats(dict(self._t), self.games, self.cards, self.game)

    def add(self, *others: Stats) -> Stats:
        """Add the sums of ``others`` into self (in place; several at once cost about what one
        does); returns self."""
        for k in KEYS:
            parts = [t for t in (self._t[k], *(o._t[k] for o in others)) if t is not None and len(t)]
            one = parts[0].copy() if parts and isinstance(parts[0], pd.DataFrame) else (parts[0] if parts else None)
            self._t[k] = _added(parts, k) if len(parts) > 1 else one
        for o in others:
            self.games += o.games
            self.cards = self.cards or dict(o.cards)
            self.game = self.game or dict(o.game)
        return self

    def equals(self, other: Stats) -> bool:
        """True if every table holds the same sums (row order as stored: sorted by keys)."""
        return self.games == other.games and all(
            self[k].reset_index(drop=True).equals(other[k].reset_index(drop=True)) for k in KEYS)

    # ------------------------------------------------------------------ building

    @classmethod
    def from_frames(cls, clans: pd.DataFrame, picks: pd.DataFrame | None = None,
                    uses: pd.DataFrame | None = None, card_gods: dict | None = None,
                    points: np.ndarray | None = None) -> Stats:
        """Sums of one batch.

        clans: rows of ``clans.parquet`` (CLANS_COLUMNS); picks: ``picks.parquet`` rows
        (game_id, seat, age, pick, card); uses: ``plays.parquet`` rows (game_id, seat, age,
        card, use); card_gods: card name -> god name ('' none) for the drafted god pair;
        points: convergence checkpoints (game counts; default: none kept).
        """
        R = len(clans)
        s_code, s_names = _codes(clans["strategy"])
        st = s_names[s_code]
        w = np.rint(clans["win_share"].to_numpy(float) * WIN_UNIT).astype(np.int64)
        g = clans["glory"].to_numpy(np.int64)
        levels, legendary = level_labels(clans)
        vals = {"n": np.ones(R, np.int64), "w": w, "g": g, "g2": g * g}
        gid = clans["game_id"].to_numpy(np.int64)
        # the seed block of each row (games sharing a seed), dense 0..blocks-1; rows without a seed
        # column (hand-made frames) are one block per game
        bkey = clans["seed"].to_numpy(np.uint64) if "seed" in clans else gid
        block = np.unique(bkey, return_inverse=True)[1].reshape(-1).astype(np.int64)
        t = {}
        tied = (w > 0) & (w < WIN_UNIT)  # a clan sharing first place (ties split the win)
        cv = dict(vals, figs=clans["figures_at_ragnarok"].to_numpy(np.int64), legendary=legendary,
                  tied=tied.astype(np.int64), tied_w=np.where(tied, w, 0))
        for s in SOURCES:
            v = clans[f"glory_{s}"].to_numpy(np.int64)
            cv[f"s_{s}"], cv[f"q_{s}"] = v, v * v
        npl, seat = clans["n_players"].to_numpy(np.int64), clans["seat"].to_numpy(np.int64)
        t["clans"] = _grouped("clans", [_ints(npl), _ints(seat), (s_code, s_names)], cv)
        lv_code, lv_names = _codes(pd.Series(levels))
        t["levels"] = _grouped("levels", [(s_code, s_names), (lv_code, lv_names), _ints(legendary)], vals, block)
        t["paths"] = _grouped("paths", [(s_code, s_names), _codes(pd.Series(path_prefix(clans["stat_path"], 3)))],
                              vals, block)
        gods = clans["gods"] if "gods" in clans else pd.Series([""] * R)
        gv = dict(vals, **{f"s_{s}": cv[f"s_{s}"] for s in SOURCES})
        t["gods"] = _grouped("gods", [(s_code, s_names), _codes(gods)], gv, block)
        if picks is not None and len(picks):
            found, rows = _row_index(clans, picks["game_id"].to_numpy(), picks["seat"].to_numpy())
            c_code, c_names = _codes(picks["card"])
            c_code = c_code[found]
            age = picks["age"].to_numpy(np.int64)[found]
            pick = picks["pick"].to_numpy(np.int64)[found]
            names = {n: i for i, n in enumerate(E.CARD_GOD_NAMES)}
            cg = card_gods or {}
            god_of = np.array([names.get(str(cg.get(x, "")).lower(), -1) for x in c_names] + [-1], np.int64)
            god_pair = _god_pairs(R, rows, god_of[c_code])
            t["drafted_gods"] = _grouped("drafted_gods", [(s_code, s_names), _codes(pd.Series(god_pair))], gv, block)
            t["draft"] = _card_table("draft", s_code, s_names, dict(vals, s=s_code), rows, age, c_code, c_names,
                                     block, pick=pick)
        if uses is not None and len(uses):
            found, rows = _row_index(clans, uses["game_id"].to_numpy(), uses["seat"].to_numpy())
            c_code, c_names = _codes(uses["card"])
            c_code = c_code[found]
            u0, n0 = _codes(uses["use"])
            u0 = u0[found]
            age = uses["card_age" if "card_age" in uses else "age"].to_numpy(np.int64)[found]
            # 'played' = used in a battle, as an upgrade or as a quest; one row per clan and card
            # even when it played two copies two ways
            u_names = np.array(sorted(set(n0) | {"played"}), dtype=object)
            remap = np.searchsorted(u_names, n0)
            played_code = int(np.searchsorted(u_names, "played"))
            pl = np.isin(u0, [i for i, n in enumerate(n0) if n in PLAYED_USES])
            u_code = np.concatenate([remap[u0], np.full(int(pl.sum()), played_code, np.int64)])
            t["use"] = _card_table("use", s_code, s_names, dict(vals, s=s_code), np.concatenate([rows, rows[pl]]),
                                   np.concatenate([age, age[pl]]), np.concatenate([c_code, c_code[pl]]), c_names,
                                   block, use=(u_code, u_names))
        if R:
            t["blocks"] = _blocks_table(npl, seat, s_code, s_names, block, w)
        if R and all(c in clans for c in E.SHAPE_NAMES):
            k = clans[list(E.SHAPE_NAMES)].to_numpy(np.int64)
            ok = (k >= 0).all(axis=1)  # -1: the engine does not count the game shape
            if ok.any():
                sv = {"n": np.ones(int(ok.sum()), np.int64)}
                for i, name in enumerate(E.SHAPE_NAMES):
                    sv[f"k_{name}"], sv[f"k2_{name}"] = k[ok, i], k[ok, i] ** 2
                t["shape"] = _grouped("shape", [(s_code[ok], s_names)], sv)
        dims = [c for c in clans.columns if str(c).startswith(GROUP_PREFIX)]
        if R and dims:
            t["groups"] = _groups_table(clans, dims, s_code, s_names, gv, block)
        t["h2h"] = cls._h2h(clans, st, w, block)
        if points is not None:
            t["convergence"] = cls._convergence(clans, st, w, np.asarray(points, np.int64), block)
        games = int(clans["game_id"].nunique()) if R else 0
        return cls(t, games)

    @staticmethod
    def _h2h(clans, st, w, block):
        """Per ordered pair of seats in each game: the row strategy's win share and places, summed
        per (strategy, opponent) with the cluster sums over seed blocks (module doc)."""
        gid = clans["game_id"].to_numpy(np.int64)
        order = np.lexsort((clans["seat"].to_numpy(np.int64), gid))
        P = int(clans["n_players"].iloc[0]) if len(clans) else 0
        if len(clans) == 0 or P < 2 or len(clans) % P or not (np.diff(gid[order].reshape(-1, P), axis=1) == 0).all():
            return _empty("h2h")
        S = st[order].reshape(-1, P)
        W = w[order].reshape(-1, P)
        Rk = clans["rank"].to_numpy(np.int64)[order].reshape(-1, P)
        G, B = gid[order].reshape(-1, P)[:, 0], block[order].reshape(-1, P)[:, 0]
        parts = []
        for i in range(P):
            for j in range(P):
                if i != j:
                    parts.append(pd.DataFrame({
                        "strategy": S[:, i], "opponent": S[:, j], "game": G, "block": B, "m": np.ones(len(S), np.int64),
                        "w": W[:, i], "a": 2 * (Rk[:, i] < Rk[:, j]) + (Rk[:, i] == Rk[:, j])}))
        x = pd.concat(parts, ignore_index=True)
        keys = ["strategy", "opponent"]
        games = x.groupby(keys, sort=True)["game"].nunique()
        b = x.groupby([*keys, "block"], sort=True)[["m", "w", "a"]].sum()
        m, wb, a = (b[c].to_numpy(np.int64) for c in ("m", "w", "a"))
        b = pd.DataFrame({"pairs": m, "w": wb, "ahead2": a, "c_G": np.ones(len(b), np.int64), "c_mm": m * m,
                          "c_aa": a * a, "c_am": a * m, "c_ww": wb * wb, "c_wm": wb * m}, index=b.index)
        out = b.groupby(level=[0, 1], sort=True).sum()
        out["games"] = games.reindex(out.index).to_numpy(np.int64)
        return _sum(out.reset_index(), "h2h")

    @staticmethod
    def _convergence(clans, st, w, points, block):
        """Cumulative sums of each strategy's clans of games ``< point`` at each checkpoint (the
        cluster sums count a block split by a checkpoint as the block so far)."""
        gid = clans["game_id"].to_numpy(np.int64)
        first = int(gid.min()) if len(gid) else 0
        pts = points[points > first]
        rows = []
        for s in np.unique(st):
            m = st == s
            g, ws, bs = gid[m], w[m], block[m]
            for pt in pts:
                k = g < pt
                if k.any():
                    inv = np.zeros(int(k.sum()), np.int64)
                    cs = _block_sums(inv, 1, bs[k], ws[k])
                    rows.append({"strategy": s, "games": int(pt), "n": int(k.sum()), "w": int(ws[k].sum()),
                                 **{c: int(v[0]) for c, v in cs.items()}})
        return _sum(pd.DataFrame(rows), "convergence") if rows else _empty("convergence")

    # ------------------------------------------------------------------ files

    def save(self, run_dir: Path, experiment: str | None = None) -> None:
        """Write ``run_dir/stats/`` as a whole: every table and meta.json go to ``stats.new/``,
        which then replaces ``stats/`` by two renames, so the folder always holds one batch's
        complete sums (``load`` falls back on ``stats.new`` between the renames). ``experiment``:
        the run's settings key (runner.experiment_key), kept in meta.json for :meth:`check_experiment`."""
        import shutil
        run_dir = Path(run_dir)
        new, cur, old = run_dir / f"{STATS_DIR}.new", run_dir / STATS_DIR, run_dir / f"{STATS_DIR}.old"
        shutil.rmtree(new, ignore_errors=True)
        new.mkdir(parents=True)
        import hashlib
        sha = {}
        try:
            for k in KEYS:  # the frames of Tables are built here, not kept (the totals stay arrays)
                df = self._frame(k)
                df.to_parquet(new / f"{k}.parquet", index=False)
                sha[k] = hashlib.sha256((new / f"{k}.parquet").read_bytes()).hexdigest()
            (new / "meta.json").write_text(json.dumps({"format": "volva-stats-4", "games": self.games,
                                                       "sha256": sha, "cards": self.cards,
                                                       "game": self.game,
                                                       **({"experiment": experiment} if experiment else {})},
                                                      indent=1) + "\n")
        except OSError:  # a full disk: stats/ keeps the last complete sums; free what was written
            shutil.rmtree(new, ignore_errors=True)
            raise
        shutil.rmtree(old, ignore_errors=True)
        if cur.exists():
            os.replace(cur, old)
        os.replace(new, cur)
        shutil.rmtree(old, ignore_errors=True)

    @classmethod
    def load(cls, run_dir: Path) -> Stats:
        """Read ``run_dir/stats/``. Raises StatsError naming the file."""
        import pyarrow as pa
        import pyarrow.parquet as pq
        d = Path(run_dir) / STATS_DIR
        if not d.is_dir() and (Path(run_dir) / f"{STATS_DIR}.new" / "meta.json").is_file():
            d = Path(run_dir) / f"{STATS_DIR}.new"  # stopped between the two renames of save()
        mp = d / "meta.json"
        meta = read_json_object(mp, StatsError)
        if meta.get("format") != "volva-stats-4":
            got = meta.get("format")
            raise StatsError(f"{mp}: not a Volva stats file of this version (format {got!r}, expected volva-stats-4)"
                             + ("; re-run the experiment with this version" if str(got).startswith("volva-stats")
                                else ""))
        import hashlib
        if not isinstance(meta.get("games"), int) or not isinstance(meta.get("sha256"), dict):
            raise StatsError(f"{mp}: not a Volva stats file (expected 'games' and 'sha256')")
        tables = {}
        for k in KEYS:
            p = d / f"{k}.parquet"
            if not p.is_file() and k in OPTIONAL_TABLES and k not in meta["sha256"]:
                continue
            if not p.is_file():
                raise StatsError(f"{p}: file not found")
            try:
                df = pq.read_table(p).to_pandas()
            except (pa.ArrowException, OSError, ValueError) as exc:
                raise StatsError(f"{p}: unreadable Parquet file ({' '.join(str(exc).split())})") from None
            missing = [c for c in KEYS[k] + SUMS[k] if c not in df.columns]
            if missing:
                raise StatsError(f"{p}: not a Volva stats table (missing columns: {', '.join(missing)})")
            bad = [c for c in SUMS[k] + [x for x in KEYS[k] if x in INT_KEYS]
                   if not pd.api.types.is_integer_dtype(df[c])]
            if bad:
                raise StatsError(f"{p}: not a Volva stats table (column '{bad[0]}' is {df[bad[0]].dtype}, "
                                 "expected integers)")
            if hashlib.sha256(p.read_bytes()).hexdigest() != meta["sha256"].get(k):
                raise StatsError(f"{p}: does not match {mp} (SHA-256): a table from another run or an "
                                 "edited file; rerun, or restore the run's own stats folder")
            tables[k] = df[KEYS[k] + SUMS[k]]
        cards = meta.get("cards") if isinstance(meta.get("cards"), dict) else {}  # absent before issue 11
        game = meta.get("game") if isinstance(meta.get("game"), dict) else {}
        st = cls(tables, int(meta["games"]), cards, game)
        st.experiment = meta.get("experiment") if isinstance(meta.get("experiment"), str) else None
        st.meta_path = mp
        return st

    def check_experiment(self, run_json: Path, key: str, missing: tuple = ()) -> None:
        """Raise StatsError unless these loaded sums were saved by the experiment whose run.json
        (``run_json``, settings key ``key``: runner.check_sums_experiment) they sit next to (stats
        saved before the key was kept pass); a run.json ``missing`` a setting is named as such,
        not as another experiment's."""
        exp = getattr(self, "experiment", None)
        if exp is not None and exp != key:
            if missing:
                raise StatsError(f"{run_json}: field '{missing[0]}' missing (an edited or cut file); restore the "
                                 "run's own run.json, or rerun")
            raise StatsError(f"{getattr(self, 'meta_path', STATS_DIR)}: the sums of another experiment than "
                             f"{run_json} (seed, lineup, rule set, options or games differ); restore the run's "
                             "own stats folder, or rerun")


def stats_from_rows(run_dir: Path, card_gods: dict | None = None, games: int | None = None) -> Stats:
    """Stats of a run that kept rows (clans/picks[/plays].parquet), read one row group at a time
    (a batch of ``volva run``) so memory stays bounded. Raises RunDataError naming the file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    run_dir = Path(run_dir)
    cp, pp, up = run_dir / "clans.parquet", run_dir / "picks.parquet", run_dir / "plays.parquet"
    read_parquet_columns(cp, CLANS_NEEDED + ["rank", "figures_at_ragnarok"], schema_only=True)
    read_parquet_columns(pp, PICKS_NEEDED, schema_only=True)
    have_uses = up.is_file()
    if have_uses:
        read_parquet_columns(up, USES_COLUMNS, schema_only=True)

    def groups(path, cols):
        try:
            f = pq.ParquetFile(path)
            for i in range(f.num_row_groups):
                yield f.read_row_group(i, columns=cols).to_pandas()
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise RunDataError(f"{path}: unreadable Parquet file ({' '.join(str(exc).split())})") from None

    have_shape = set(E.SHAPE_NAMES) <= set(pq.read_schema(cp).names)
    have_seed = "seed" in pq.read_schema(cp).names
    clans_it = groups(cp, CLANS_NEEDED + ["rank", "figures_at_ragnarok"] + (list(E.SHAPE_NAMES) if have_shape else [])
                      + (["seed"] if have_seed else []))
    picks_all = groups(pp, PICKS_NEEDED)
    uses_all = groups(up, USES_COLUMNS) if have_uses else None
    total = Stats()
    pts = None
    pend_p = pd.DataFrame(columns=PICKS_NEEDED)
    pend_u = pd.DataFrame(columns=USES_COLUMNS)
    for clans in clans_it:
        if pts is None:
            pts = checkpoints(games) if games else None
        hi = int(clans["game_id"].max())
        pend_p = _take_until(pend_p, picks_all, hi)
        pk, pend_p = pend_p[pend_p["game_id"] <= hi], pend_p[pend_p["game_id"] > hi]
        uk = None
        if uses_all is not None:
            pend_u = _take_until(pend_u, uses_all, hi)
            uk, pend_u = pend_u[pend_u["game_id"] <= hi], pend_u[pend_u["game_id"] > hi]
        total.add(Stats.from_frames(clans, pk, uk, card_gods, pts))
    if total.games == 0:
        raise RunDataError(f"{cp}: holds no rows")
    return total



def _take_until(pending: pd.DataFrame, it, hi: int) -> pd.DataFrame:
    """Append row groups of ``it`` to ``pending`` until a row past game ``hi`` is seen (or the end)."""
    parts = [pending]
    last = int(pending["game_id"].max()) if len(pending) else -1
    while last <= hi:
        nxt = next(it, None)
        if nxt is None:
            break
        parts.append(nxt)
        if len(nxt):
            last = int(nxt["game_id"].max())
    parts = [p for p in parts if len(p)]
    return pd.concat(parts, ignore_index=True) if parts else pending
