"""What both engines share about batches: per-game seeds, the seat-rotation plan, the batch
result (``BatchOut``) and the policy arrays a lineup becomes.

A game is a pure function of (rule set tables, lineup policies, game seed); the seed of game
``g`` in an experiment with master seed ``s`` is ``game_seeds(s, g, 1)``, so results do not
depend on batch size, thread count or the order games are played in.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import enums as E

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def game_seeds(master_seed: int, first_game: int, n: int) -> np.ndarray:
    """uint64[n] seeds of games first_game..first_game+n-1 (splitmix64 of (master, id))."""
    with np.errstate(over="ignore"):
        g = np.arange(first_game, first_game + n, dtype=np.uint64)
        z = np.uint64(master_seed & 0xFFFFFFFFFFFFFFFF) * _GOLDEN + (g + np.uint64(1)) * np.uint64(0xD1B54A32D192ED03)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def rotation_period(lineup: list) -> int:
    """Smallest k >= 1 with the lineup rotated by k equal to itself (P for distinct strategies,
    1 for a mirror match, 2 for a,b,a,b): the rotations that give different games."""
    P = len(lineup)
    for k in range(1, P + 1):
        if P % k == 0 and all(lineup[i] == lineup[(i + k) % P] for i in range(P)):
            return k
    return P


def game_plan(master_seed: int, game_ids: np.ndarray, n_players: int, rotate: bool, period: int | None = None):
    """Seat rotation (issue 4): game g plays rotation r = g mod k on seed index g div k, so every
    strategy sits in every seat equally often, on the same seeds (a paired design). k is the
    lineup's ``period`` (:func:`rotation_period`; default P): rotations that repeat the lineup
    would replay the same game, so a mirror match (k = 1) gives every game its own seed.
    Without rotation, rotation 0 and seed index g.

    Returns [(r, game_ids of that rotation int64[k], seeds uint64[k])] for the rotations present.
    """
    game_ids = np.asarray(game_ids, np.int64)
    if not rotate:
        return [(0, game_ids, game_seeds(master_seed, int(game_ids[0]), len(game_ids)))] if len(game_ids) else []
    k = n_players if period is None else int(period)
    if not 1 <= k <= n_players or n_players % k:
        raise ValueError(f"period {k}: must divide the player count {n_players}")
    out = []
    for r in range(k):
        ids = game_ids[game_ids % k == r]
        if len(ids):
            out.append((r, ids, game_seeds(master_seed, int(ids[0] // k), len(ids))))
    return out


def rotated(seq: list, r: int) -> list:
    """Seat i gets seq[(i - r) mod P]: rotation r of a lineup."""
    P = len(seq)
    return [seq[(i - r) % P] for i in range(P)]


class BatchOut(NamedTuple):
    """Per-game, per-seat results of one batch (G games, P seats)."""
    glory: np.ndarray  #: int32[G, P, N_GLORY_SRC] Glory by source (GLORY_SOURCE_NAMES order)
    stats: np.ndarray  #: int8[G, P, 3] final step index 0..5 of Rage, Axes, Horns
    path: np.ndarray  #: int8[G, P, MAX_PATH] stat codes in raise order, -1 padding
    rage_end: np.ndarray  #: int16[G, P] Rage left at the end of the last Action phase
    picks: np.ndarray  #: int16[G, P, 3, MAX_PICKS] drafted card ids by age and pick, -1 padding
    rank: np.ndarray  #: int8[G, P] 1 = winner; tied clans share a rank
    n_turns: np.ndarray  #: int32[G] turns taken in Action phases (all ages)
    violation: np.ndarray  #: int8[G] first invariant violated (INV_*: Blood Rage 1..31, Valhalla 33..63), 0 none
    fired: np.ndarray  #: int16[G, MAX_CARDS] times each card's text acted in the game (card ids = rows of cards.csv)
    gods: np.ndarray  #: int8[G, 2] Gods of Ásgard in play (gods.toml index), -1 none; Valhalla [G, 3]: each age's god
    god_fired: np.ndarray  #: int16[G, N_GODS_MAX] times each god's power acted
    board_rag: np.ndarray  #: int16[G, P] figures on the board at Ragnarök (Valhalla: Prove Valor), summed over ages
    uses: np.ndarray  #: int16[G, P, MAX_USES] cards used in order, card * 16 + age * 4 + USE_*, -1 padding
    missions: np.ndarray  #: int8[G, P, MAX_MISSIONS] ages each Rainbow Bridge mission was completed in (0 without)
    game_shape: np.ndarray | None = None  #: int16[G, P, N_SHAPE] game-shape counters (SHAPE_NAMES), -1: not counted
    #: int16[G, P, K] each seat's value index in K grouping dimensions of the engine (the rule set's
    #: ``group_names``, e.g. Valhalla dice: Jarl, Valhalla clan, game end); None: the engine has none
    groups: np.ndarray | None = None


def new_batch_out(G: int, P: int, cards: int = E.MAX_CARDS, gods: int = 2, god_powers: int = E.N_GODS_MAX) -> BatchOut:
    """Empty outputs of a batch of G games x P seats (the kernels fill them); ``cards``,
    ``gods`` and ``god_powers`` size the fired, gods and god_fired arrays (Valhalla: 256, 3, 8)."""
    return BatchOut(
        glory=np.zeros((G, P, E.N_GLORY_SRC), np.int32), stats=np.zeros((G, P, 3), np.int8),
        path=np.full((G, P, E.MAX_PATH), -1, np.int8), rage_end=np.zeros((G, P), np.int16),
        picks=np.full((G, P, 3, E.MAX_PICKS), -1, np.int16), rank=np.zeros((G, P), np.int8),
        n_turns=np.zeros(G, np.int32), violation=np.zeros(G, np.int8),
        fired=np.zeros((G, cards), np.int16), gods=np.full((G, gods), -1, np.int8),
        god_fired=np.zeros((G, god_powers), np.int16), board_rag=np.zeros((G, P), np.int16),
        uses=np.full((G, P, E.MAX_USES), -1, np.int16), missions=np.zeros((G, P, E.MAX_MISSIONS), np.int8),
        game_shape=np.full((G, P, E.N_SHAPE), -1, np.int16),
    )


#: BatchOut fields with one row per seat (the record holds MAX_PLAYERS rows; the first P are in play)
PER_SEAT = ("glory", "stats", "path", "rage_end", "picks", "rank", "board_rag", "uses", "missions", "game_shape")


def batch_dtype(cards: int = E.MAX_CARDS, gods: int = 2, god_powers: int = E.N_GODS_MAX) -> np.dtype:
    """The structured dtype of one game's results, as the playout kernels write it (one record
    per game, fields as :class:`BatchOut` with MAX_PLAYERS seat rows). ``cards``, ``gods`` and
    ``god_powers`` size fired, gods and god_fired (an engine's capacities)."""
    P5 = E.MAX_PLAYERS
    return np.dtype([
        ("glory", np.int32, (P5, E.N_GLORY_SRC)), ("stats", np.int8, (P5, 3)), ("path", np.int8, (P5, E.MAX_PATH)),
        ("rage_end", np.int16, (P5,)), ("picks", np.int16, (P5, 3, E.MAX_PICKS)), ("rank", np.int8, (P5,)),
        ("n_turns", np.int32), ("violation", np.int8), ("fired", np.int16, (cards,)), ("gods", np.int8, (gods,)),
        ("god_fired", np.int16, (god_powers,)), ("board_rag", np.int16, (P5,)), ("uses", np.int16, (P5, E.MAX_USES)),
        ("missions", np.int8, (P5, E.MAX_MISSIONS)), ("game_shape", np.int16, (P5, E.N_SHAPE)),
    ])


BATCH_DTYPE = batch_dtype()  #: Blood Rage's batch record


def new_batch_record(G: int, dtype: np.dtype = BATCH_DTYPE) -> np.ndarray:
    """G empty game records (-1 in path, picks, gods, uses and game_shape, 0 elsewhere) for a playout
    kernel; an engine that does not count the game shape leaves game_shape at -1."""
    rec = np.zeros(G, dtype)
    for f in ("path", "picks", "gods", "uses", "game_shape"):
        rec[f] = -1
    return rec


#: games a thread plays into its own small record buffer before copying them out: the buffer
#: (~0.4 MB) stays in the core's cache, and a batch needs no record of all its games
RECORD_BLOCK = 256


def play_in_blocks(G: int, P: int, rec_dtype: np.dtype, state_dtype: np.dtype, play) -> BatchOut:
    """The BatchOut of G games x P seats played by ``play(lo, hi, rec, buf)`` (games lo..hi-1 into
    records rec[0..hi-lo-1], on the 1-element state buffer ``buf`` of ``state_dtype``), called on
    blocks of at most RECORD_BLOCK games of core.threads.spread's slices.

    Each thread plays a block into a reused buffer of :func:`new_batch_record` records and copies
    its fields (P seats) into the output, allocated empty: the output's pages are first touched by
    the threads that fill them, and no whole-batch record is zeroed or copied on one thread. A
    field ``play`` never writes keeps new_batch_record's value in every game, as in a batch record.
    """
    from .threads import spread
    fields = [f for f in BatchOut._fields if f in rec_dtype.names]
    out = BatchOut(**{f: np.empty((G, P) + rec_dtype[f].shape[1:] if f in PER_SEAT else (G,) + rec_dtype[f].shape,
                                  rec_dtype[f].base) for f in fields})

    def play_slice(lo: int, hi: int) -> None:
        rec = new_batch_record(min(RECORD_BLOCK, hi - lo), rec_dtype)
        buf = np.empty(1, state_dtype)  # held for every block (see play_chunk_nb)
        for a in range(lo, hi, RECORD_BLOCK):
            b = min(a + RECORD_BLOCK, hi)
            r = rec[:b - a]
            play(a, b, r, buf)
            for f in fields:
                getattr(out, f)[a:b] = r[f][:, :P] if f in PER_SEAT else r[f]

    spread(G, play_slice)
    return out


def policy_arrays(lineup: list[tuple[int, np.ndarray]]):
    """[(POL_* kind, float64[N_PARAMS] params)] per seat -> (int8[P], float64[P, N_PARAMS])."""
    kinds = np.array([k for k, _ in lineup], np.int8)
    params = np.stack([np.asarray(p, np.float64) for _, p in lineup])
    return kinds, params


