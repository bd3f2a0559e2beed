"""Batch results -> tidy pandas tables (clans, picks, plays) and their Arrow schemas.

``clans_frame`` and ``picks_frame`` turn one :class:`simulator.core.batch.BatchOut`
(G games, P seats) into long tables (vectorised; no per-row Python loop);
``CLANS_SCHEMA``/``PICKS_SCHEMA`` are the fixed Arrow schemas used when the
CLI appends batches to Parquet (dictionary columns use int32 indices so every
batch has the same schema).  Win rates and their intervals are
:mod:`analysis.aggregate`'s.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from volva.simulator.core import enums as E
from volva.simulator.core.batch import BatchOut


class RunDataError(ValueError):
    """A run file that is missing, unreadable, or lacks the expected columns."""


CLANS_NEEDED = ["game_id", "n_players", "seat", "strategy", "glory", "win_share",
                "rage_level", "axes_level", "horns_level", "stat_path", "gods", *[f"glory_{s}" for s in E.GLORY_SOURCE_NAMES]]
PICKS_NEEDED = ["game_id", "seat", "age", "pick", "card"]


def read_parquet_columns(path: Path, columns: list[str], schema_only: bool = False) -> pd.DataFrame | None:
    """Read ``columns`` of the Parquet file ``path`` (``schema_only``: only check that it is a
    readable Parquet file holding them, return None). Raises RunDataError naming the file."""
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
        if schema_only:
            if pq.ParquetFile(path).metadata.num_rows == 0:
                raise RunDataError(f"{path}: holds no rows")
            return None
        table = pq.read_table(path, columns=columns)
    except RunDataError:
        raise
    except (pa.ArrowException, OSError, ValueError) as exc:
        msg = " ".join(str(exc).split()) or type(exc).__name__
        raise RunDataError(f"{path}: unreadable Parquet file ({msg})") from None
    if table.num_rows == 0:
        raise RunDataError(f"{path}: holds no rows")
    return table.to_pandas()


CLANS_COLUMNS = [
    "game_id", "seed", "ruleset", "n_players", "seat", "strategy", "glory", "rank", "win_share",
    "rage_level", "axes_level", "horns_level", "stat_path", "gods", "figures_at_ragnarok",
    *[f"glory_{s}" for s in E.GLORY_SOURCE_NAMES],
    *E.SHAPE_NAMES,  # game-shape counters (enums SH_*), -1 where the engine does not count them
]
PICKS_COLUMNS = ["game_id", "seat", "age", "pick", "card"]
PLAYS_COLUMNS = ["game_id", "seat", "age", "card", "card_age", "use"]

_DICT = pa.dictionary(pa.int32(), pa.string())
CLANS_SCHEMA = pa.schema([
    ("game_id", pa.int64()), ("seed", pa.uint64()), ("ruleset", _DICT), ("n_players", pa.int8()),
    ("seat", pa.int8()), ("strategy", _DICT), ("glory", pa.int32()), ("rank", pa.int8()),
    ("win_share", pa.float64()), ("rage_level", pa.int8()), ("axes_level", pa.int8()),
    ("horns_level", pa.int8()), ("stat_path", _DICT), ("gods", _DICT),
    ("figures_at_ragnarok", pa.int16()),
    *[(f"glory_{s}", pa.int32()) for s in E.GLORY_SOURCE_NAMES],
    *[(s, pa.int16()) for s in E.SHAPE_NAMES],
])
PICKS_SCHEMA = pa.schema([
    ("game_id", pa.int64()), ("seat", pa.int8()), ("age", pa.int8()), ("pick", pa.int8()), ("card", _DICT),
])
PLAYS_SCHEMA = pa.schema([
    ("game_id", pa.int64()), ("seat", pa.int8()), ("age", pa.int8()), ("card", _DICT), ("card_age", pa.int8()),
    ("use", _DICT),
])


def _categorical(values: list[str], idx: np.ndarray) -> pd.Categorical:
    """Categorical of ``values[idx]`` without building the object array (duplicate values merged)."""
    uniq, inv = np.unique(np.asarray(values, dtype=object), return_inverse=True)
    return pd.Categorical.from_codes(inv.reshape(-1)[idx], categories=pd.Index(uniq, dtype=object))


def stat_path_strings(path: np.ndarray) -> pd.Categorical:
    """int8[R, L] stat codes (-1 padding) -> Categorical[R] of 'axes,rage,...' ('' when empty).

    Codes after the first -1 are ignored.  Raises ValueError for a code outside
    -1..N_STATS-1.
    """
    path = np.asarray(path)
    if path.size and (path.min() < -1 or path.max() >= E.N_STATS):
        raise ValueError(f"path: stat code outside -1..{E.N_STATS - 1}")
    if path.shape[0] == 0 or path.shape[1] == 0:
        return _categorical([""], np.zeros(path.shape[0], np.intp))
    dead = np.maximum.accumulate(path == -1, axis=1)
    clean = np.where(dead, np.int8(-1), path).astype(np.int8)
    keys = np.ascontiguousarray(clean).view(np.dtype((np.void, clean.shape[1]))).reshape(-1)
    ukeys, inv = np.unique(keys, return_inverse=True)
    rows = np.frombuffer(ukeys.tobytes(), np.int8).reshape(len(ukeys), clean.shape[1])
    strs = [",".join(E.STAT_NAMES[c] for c in r[r >= 0]) for r in rows]
    return _categorical(strs, inv.reshape(-1))


def gods_strings(gods: np.ndarray, god_names: list[str]) -> pd.Categorical:
    """int8[G, 2] god indices -> 'odin+thor' per game (gods.toml order), '' without the module;
    int8[G, 3] (Blood Rage: Valhalla, the god of each age) -> 'thor>loki>tyr' in age order."""
    names = [n.lower() for n in god_names]
    if gods.shape[1] == 3:
        key = ((gods[:, 0].astype(np.int64) + 1) * 16 + gods[:, 1] + 1) * 16 + gods[:, 2] + 1
        uniq, inv = np.unique(key, return_inverse=True)
        labels = [">".join(names[i] for i in (k // 256 - 1, k // 16 % 16 - 1, k % 16 - 1) if i >= 0) for k in uniq]
        return _categorical(labels, inv.reshape(-1))
    key = (gods[:, 0].astype(np.int64) + 1) * 16 + (gods[:, 1].astype(np.int64) + 1)
    uniq, inv = np.unique(key, return_inverse=True)
    labels = []
    for k in uniq:
        pair = sorted(i for i in (k // 16 - 1, k % 16 - 1) if i >= 0)
        labels.append("+".join(names[i] for i in pair))
    return _categorical(labels, inv.reshape(-1))


def outcome_columns(batch: BatchOut, game_ids: np.ndarray, seeds: np.ndarray, strategies: list[str]) -> dict:
    """A clan's result per row of a batch (G*P rows, game-major), as :func:`clans_frame` names
    them: game_id int64, seed uint64, n_players int8, seat int8, strategy (categorical), glory
    int32 (the sum of the six sources), rank int8, win_share float64 (1/k for each of the k
    clans ranked 1). The shapes are the caller's to check."""
    G, P = batch.rank.shape
    R = G * P
    rank = np.asarray(batch.rank, np.int8)
    win = rank == 1
    k = win.sum(axis=1, keepdims=True)
    return {
        "game_id": np.repeat(np.asarray(game_ids, np.int64), P),
        "seed": np.repeat(np.asarray(seeds, np.uint64), P),
        "n_players": np.full(R, P, np.int8),
        "seat": np.tile(np.arange(P, dtype=np.int8), G),
        "strategy": _categorical(list(strategies), np.tile(np.arange(P), G)),
        "glory": np.asarray(batch.glory, np.int32).reshape(R, E.N_GLORY_SRC).sum(axis=1, dtype=np.int32),
        "rank": rank.reshape(R),
        "win_share": np.divide(win, k, out=np.zeros((G, P)), where=k > 0).reshape(R),
    }


def clans_frame(batch: BatchOut, game_ids: np.ndarray, seeds: np.ndarray, ruleset_name: str,
                strategies: list[str], god_names: list[str] | None = None,
                group_names: dict[str, list[str]] | None = None) -> pd.DataFrame:
    """One row per clan per game (G*P rows, game-major), columns ``CLANS_COLUMNS``.

    Args: batch of G games x P seats; game_ids int64[G]; seeds uint64[G];
    strategies: P names, seat order.  ``glory`` is the sum of the six sources,
    ``*_level`` = final step index + 1 (1..6), ``win_share`` = 1/k for each of
    the k clans ranked 1 in a game (0 otherwise); ``gods`` the two Gods of Ásgard in
    play, e.g. ``"odin+thor"`` (``""`` without the module; ``god_names`` from the rule set);
    the game-shape counters ``enums.SHAPE_NAMES`` (Action turns, pillages, battles, quests,
    figures lost; -1 when the engine does not count them); with ``batch.groups`` (int16[G, P, K])
    and ``group_names`` (K dimensions -> value names, the rule set's ``group_names``), one
    categorical column ``GROUP_PREFIX + dimension`` each (kept in the sums, not in the row files).
    Raises ValueError if the array shapes disagree.
    """
    G, P = batch.rank.shape
    if len(game_ids) != G or len(seeds) != G or len(strategies) != P:
        raise ValueError(f"shapes: batch has {G} games x {P} seats, got {len(game_ids)} game_ids, "
                         f"{len(seeds)} seeds, {len(strategies)} strategies")
    R = G * P
    src = np.asarray(batch.glory, np.int32).reshape(R, E.N_GLORY_SRC)
    stats = np.asarray(batch.stats).reshape(R, E.N_STATS)
    o = outcome_columns(batch, game_ids, seeds, strategies)
    df = pd.DataFrame({
        "game_id": o["game_id"],
        "seed": o["seed"],
        "ruleset": pd.Categorical.from_codes(np.zeros(R, np.int8), categories=[ruleset_name]),
        **{c: o[c] for c in ("n_players", "seat", "strategy", "glory", "rank", "win_share")},
        "rage_level": (stats[:, E.STAT_RAGE] + 1).astype(np.int8),
        "axes_level": (stats[:, E.STAT_AXES] + 1).astype(np.int8),
        "horns_level": (stats[:, E.STAT_HORNS] + 1).astype(np.int8),
        "stat_path": stat_path_strings(np.asarray(batch.path).reshape(R, -1)),
        "gods": gods_strings(np.repeat(np.asarray(batch.gods), P, axis=0), god_names or []),
        "figures_at_ragnarok": np.asarray(batch.board_rag, np.int16).reshape(R),
    })
    for i, s in enumerate(E.GLORY_SOURCE_NAMES):
        df[f"glory_{s}"] = src[:, i]
    shape = batch.game_shape if getattr(batch, "game_shape", None) is not None else np.full((G, P, E.N_SHAPE), -1)
    shape = np.asarray(shape, np.int16).reshape(R, E.N_SHAPE)
    for i, s in enumerate(E.SHAPE_NAMES):
        df[s] = shape[:, i]
    groups = getattr(batch, "groups", None)
    if groups is not None and group_names:
        g = np.asarray(groups).reshape(R, -1)
        if g.shape[1] != len(group_names):
            raise ValueError(f"shapes: batch has {g.shape[1]} groups, the rule set names {len(group_names)}")
        for i, (dim, values) in enumerate(group_names.items()):
            df[GROUP_PREFIX + dim] = _categorical(list(values), g[:, i].astype(np.intp))
    return df


GROUP_PREFIX = "group: "  #: clans-frame columns of the engine's seat groups (BatchOut.groups)


def picks_frame(batch: BatchOut, game_ids: np.ndarray, ruleset) -> pd.DataFrame:
    """Draft picks, one row per card drafted: columns ``PICKS_COLUMNS``.

    ``age`` 1..3, ``pick`` 1-based, ``card`` the card name (categorical); the
    -1 padding of ``batch.picks`` (int16[G, P, 3, MAX_PICKS]) is dropped.
    ``ruleset`` is a :class:`simulator.bloodrage.rules.Ruleset` (only ``card_names`` is read).
    Raises ValueError if game_ids does not have G entries.
    """
    picks = np.asarray(batch.picks)
    if len(game_ids) != picks.shape[0]:
        raise ValueError(f"shapes: batch has {picks.shape[0]} games, got {len(game_ids)} game_ids")
    g, p, a, k = np.nonzero(picks >= 0)
    cards = picks[g, p, a, k].astype(np.intp)
    return pd.DataFrame({
        "game_id": np.asarray(game_ids, np.int64)[g],
        "seat": p.astype(np.int8),
        "age": (a + 1).astype(np.int8),
        "pick": (k + 1).astype(np.int8),
        "card": _categorical(list(ruleset.card_names), cards),
    })


def plays_frame(batch: BatchOut, game_ids: np.ndarray, ruleset) -> pd.DataFrame:
    """Cards used, one row per use: columns ``PLAYS_COLUMNS``.

    ``age`` 1..3 the age of use, ``card`` the card name, ``card_age`` the age of its deck (a
    card kept at Discard is used an age later), ``use`` one of ``enums.USE_NAMES`` (battle: revealed
    in a battle; upgrade: placed on the clan sheet; quest: committed; keep: carried over at
    Discard), decoded from ``batch.uses`` (int16[G, P, MAX_USES], card * 16 + age * 4 + use,
    -1 padding). Raises ValueError if game_ids does not have G entries.
    """
    uses = np.asarray(batch.uses)
    if len(game_ids) != uses.shape[0]:
        raise ValueError(f"shapes: batch has {uses.shape[0]} games, got {len(game_ids)} game_ids")
    g, p, k = np.nonzero(uses >= 0)
    code = uses[g, p, k].astype(np.int64)
    cid = (code // 16).astype(np.intp)
    return pd.DataFrame({
        "game_id": np.asarray(game_ids, np.int64)[g],
        "seat": p.astype(np.int8),
        "age": (code // 4 % 4).astype(np.int8),
        "card": _categorical(list(ruleset.card_names), cid),
        # one deck for all ages (Blood Rage: Valhalla): a card's age is the age it is used in
        "card_age": ((code // 4 % 4).astype(np.int8) if getattr(ruleset, "one_deck", False)
                     else np.asarray(ruleset.tables.card_age, np.int8)[cid]),
        "use": _categorical(list(E.USE_NAMES), (code % 4).astype(np.intp)),
    })


_held: tuple = ()  #: ((rule set, {name: value}), ...): the last rule sets of_ruleset saw, newest first


def of_ruleset(ruleset, name: str, make):
    """``make(ruleset)``, made once while the same rule set object comes back (a run reduces
    every batch with one, a compare with two: card labels and lookup tables are not rebuilt per
    batch). Keeps the last four rule sets; safe across threads (the list is replaced whole, never
    changed in place). The value is shared: callers must not change it."""
    global _held
    held = _held
    made = next((m for r, m in held if r is ruleset), None)
    if made is None:
        made = {}
        _held = ((ruleset, made),) + held[:3]
    if name not in made:
        made[name] = make(ruleset)
    return made[name]


def card_info(ruleset) -> dict[str, dict]:
    """Card name -> {"type", "god" ('' none), "value"} as the report shows them, written into the
    run's statistics so a report never loads a rule set. A name in several ages with different
    values lists them ("2/3")."""
    t = ruleset.tables
    out: dict[str, dict] = {}
    for i, n in enumerate(ruleset.card_names):
        g = int(t.card_god[i])
        d = out.setdefault(n, {"type": ruleset.card_type_names[int(t.card_type[i])],
                               "god": E.CARD_GOD_NAMES[g] if g >= 0 else "", "values": set()})
        d["values"].add(int(t.card_value[i]))
    return {n: {"type": d["type"], "god": d["god"], "value": "/".join(str(v) for v in sorted(d.pop("values")))}
            for n, d in out.items()}


def game_info(ruleset) -> dict:
    """The engine's name, title and terms (simulator.engines) for the report's wording."""
    from volva.simulator import engines
    e = engines.get(ruleset)
    return {"engine": e.name, "title": e.title, "terms": dict(e.terms)}


def card_gods(ruleset) -> dict[str, str]:
    """Card name -> its god's name ('' for none), for the drafted god pair."""
    t = ruleset.tables
    return {n: (E.CARD_GOD_NAMES[int(t.card_god[i])] if t.card_god[i] >= 0 else "")
            for i, n in enumerate(ruleset.card_names)}


def arrow_table(df: pd.DataFrame, schema: pa.Schema) -> pa.Table:
    """DataFrame -> Arrow table with exactly ``schema`` (for appending with ParquetWriter)."""
    return pa.Table.from_pandas(df, schema=schema, preserve_index=False)
