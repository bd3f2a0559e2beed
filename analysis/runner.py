"""Playing a run batch by batch into a directory: sufficient statistics always, rows optionally.

``play_batch_frames`` plays games ``first..first+n-1`` of an experiment (seat rotation as
:func:`simulator.core.batch.game_plan`) and returns its row frames and their :class:`Stats`;
``RunWriter`` keeps a run directory up to date as batches finish:

- ``stats/``          sufficient statistics (always; what ``volva report`` reads)
- ``clans.parquet``   one row per clan per game    } only with keep_rows
- ``picks.parquet``   one row per card drafted     } (appended one row group per batch)
- ``plays.parquet``   one row per card used        }
- ``run.json``        the experiment, versions, status and ``games_done``

Row groups are appended after each batch; ``stats/`` and ``run.json`` are saved whole at the end
of the first batch :data:`SAVE_EVERY_S` seconds after the last save (:func:`save_every_s`) while
the run plays (saving 14 tables after every batch of a fast engine cost a tenth of its rate), and
always at its end, at a stop (a signal) and after an error, so a stopped run keeps every finished
batch; only a killed process (SIGKILL, power) loses the batches since the last save. ``resume``
continues a stopped run (stats only) from the games its ``stats/`` holds.
"""
from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from volva.analysis import cluster  # noqa: F401  (fixes this process's code hash as it loads the code)
from volva.analysis import records as R
from volva.analysis.batchsums import batch_stats
from volva.analysis.suffstats import Stats, aligned_batch, checkpoints


@dataclass
class Frames:
    """Row frames of one batch (game order, then seat) and their sums."""
    clans: pd.DataFrame
    picks: pd.DataFrame
    plays: pd.DataFrame
    stats: Stats


def play_batch_outs(rs, names: list[str], pols: list, seed: int, first: int, n: int, rotate: bool) -> list:
    """Play games first..first+n-1 of the experiment (master ``seed``, lineup ``names``/``pols``):
    [(game ids int64[k], seeds uint64[k], the rotated lineup's names, BatchOut)] per seat
    rotation. The engine's stage of a batch: compiled code that releases the GIL."""
    from volva.simulator import engines
    from volva.simulator.core.batch import game_plan, rotated, rotation_period
    period = rotation_period(names) if rotate else 1
    by_id = engines.get(rs).by_game_id  # a god sweep depends on the game id
    outs = []
    for r, ids, seeds in game_plan(seed, np.arange(first, first + n), len(pols), rotate, rotation_period(names)):
        b = (engines.play_batch(rs, rotated(pols, r), seeds, game_ids=ids, period=period) if by_id
             else engines.play_batch(rs, rotated(pols, r), seeds))
        outs.append((ids, seeds, rotated(names, r), b))
    return outs


def reduce_batch_outs(outs: list, rs, points: np.ndarray | None, rows: bool = True, plays: bool = True) -> Frames:
    """The Stats of a batch's :func:`play_batch_outs` (:func:`analysis.batchsums.batch_stats`,
    straight from the engine's arrays) and, with ``rows``, its row frames, sorted by (game_id,
    seat) whatever the rotation (without: empty frames; without ``plays``: no plays frame)."""
    st = batch_stats(outs, rs, points)
    st.cards = R.of_ruleset(rs, "card_info", R.card_info)  # what the report shows of each card (it never loads a rule set)
    st.game = R.of_ruleset(rs, "game_info", R.game_info)
    if not rows:
        return Frames(pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), st)
    cp = [R.clans_frame(b, ids, seeds, rs.name, names, rs.god_names, getattr(rs, "group_names", None))
          for ids, seeds, names, b in outs]
    pp = [R.picks_frame(b, ids, rs) for ids, _, _, b in outs]
    up = [R.plays_frame(b, ids, rs) for ids, _, _, b in outs] if plays else []

    def cat(parts):
        if not parts:
            return pd.DataFrame()
        return pd.concat(parts, ignore_index=True).sort_values(["game_id", "seat"], kind="stable") \
            .reset_index(drop=True)
    return Frames(cat(cp), cat(pp), cat(up), st)


def play_batch_frames(rs, names: list[str], pols: list, seed: int, first: int, n: int, rotate: bool,
                      points: np.ndarray | None) -> Frames:
    """Play games first..first+n-1 of the experiment (master ``seed``, lineup ``names``/``pols``)
    and reduce them. Rows come back sorted by (game_id, seat) whatever the rotation."""
    return reduce_batch_outs(play_batch_outs(rs, names, pols, seed, first, n, rotate), rs, points)


ROW_FILES = {"clans": ("clans.parquet", R.CLANS_SCHEMA), "picks": ("picks.parquet", R.PICKS_SCHEMA),
             "plays": ("plays.parquet", R.PLAYS_SCHEMA)}


SAVE_EVERY_S = 5.0  #: seconds after a save of stats/ and run.json before the next one (at the end of a batch)


def save_every_s() -> float:
    """Seconds between saves: ``VOLVA_SAVE_EVERY_S`` (0: after every batch), else :data:`SAVE_EVERY_S`.
    Raises ValueError naming the variable for a value that is not a finite number >= 0."""
    raw = os.environ.get("VOLVA_SAVE_EVERY_S", "").strip()
    if not raw:
        return SAVE_EVERY_S
    try:
        v = float(raw)
    except ValueError:
        v = -1.0
    if not 0 <= v < float("inf"):  # also NaN
        raise ValueError(f"VOLVA_SAVE_EVERY_S={raw!r}; allowed: a finite number of seconds >= 0 (0: save after every batch)")
    return v


@dataclass
class RunWriter:
    """Keeps ``out`` current as batches finish (see the module doc)."""
    out: Path
    meta: dict
    keep_rows: bool
    stats: Stats = field(default_factory=Stats)
    writers: dict = field(default_factory=dict)
    save_every_s: float = field(default_factory=save_every_s)
    pending: list = field(default_factory=list)  #: (Stats, games done with it) of the batches since the last save
    saved_at: float = field(default_factory=time.monotonic)

    def open(self) -> None:
        import pyarrow.parquet as pq
        self.out.mkdir(parents=True, exist_ok=True)
        if self.keep_rows:
            for k, (fname, schema) in ROW_FILES.items():
                self.writers[k] = pq.ParquetWriter(self.out / fname, schema)
        self.write_meta()
        self.saved_at = time.monotonic()

    def add(self, fr: Frames, n: int, save: bool | None = None) -> bool:
        """Append one batch of ``n`` games: its rows now, its sums with the next :meth:`save`,
        which runs now when ``save``, or (None) when the last one is ``save_every_s`` old.
        Returns whether it saved."""
        if self.keep_rows:
            for k in ROW_FILES:
                self.writers[k].write_table(R.arrow_table(getattr(fr, k), ROW_FILES[k][1]))
        end = (self.pending[-1][1] if self.pending else self.stats.games) + n
        self.pending.append((fr.stats, end))  # end: games counted once this batch is in
        if save is None:
            save = self.due()
        if save:
            self.save()
        return save

    def due(self) -> bool:
        """True when the last save is ``save_every_s`` old."""
        return time.monotonic() - self.saved_at >= self.save_every_s

    def save(self, upto: int | None = None) -> None:
        """Write the sums so far (with ``upto``: of the batches ending at or before that many
        games) to ``stats/``, then ``run.json`` (a crash between them leaves run.json at the
        previous save, which every file holds). Safe to repeat after an interruption anywhere in
        it (a second signal): the totals replace ``self.stats`` in one step after they are
        written, and a pending batch counts only if it ends past them."""
        lim = self.pending[-1][1] if upto is None and self.pending else upto
        new = [st for st, end in self.pending if self.stats.games < end <= (lim or 0)]
        if new:
            total = self.stats.copy().add(*new)
            total.save(self.out, experiment_key(self.meta))
            self.stats = total
        self.pending = [(st, end) for st, end in self.pending if end > self.stats.games]
        if self.meta.get("games_done") != self.stats.games:
            self.meta["games_done"] = self.stats.games
            self.write_meta()
        self.saved_at = time.monotonic()

    def write_meta(self) -> None:
        tmp = self.out / ".run.json.tmp"
        try:
            tmp.write_text(json.dumps(self.meta, indent=2) + "\n")
            os.replace(tmp, self.out / "run.json")
        except OSError:  # a full disk: run.json stays as the last write left it, and no stray file
            tmp.unlink(missing_ok=True)
            raise

    def close(self) -> None:
        """Close the row files; all are tried even if one fails (a full disk), the first error raised."""
        err = None
        for w in self.writers.values():
            try:
                w.close()
            except OSError as exc:
                w.is_open = False  # pyarrow would retry (and print a traceback) when it is collected
                err = err or exc
        self.writers = {}
        if err is not None:
            raise err


def batch_frames(rs, names: list[str], pols: list, seed: int, first: int, n: int, rotate: bool,
                 points: np.ndarray | None, rows: bool = True) -> Frames:
    """:func:`play_batch_frames`, its row frames emptied unless ``rows`` (a task on a cluster then
    sends back only its sums)."""
    return _finish_frames(play_batch_outs(rs, names, pols, seed, first, n, rotate), rs, names, pols, seed, first, n,
                          rotate, points, rows)


def _play_frames(rs, names, pols, seed, first, n, rotate, points, rows=True) -> list:
    return play_batch_outs(rs, names, pols, seed, first, n, rotate)


def _finish_frames(outs, rs, names, pols, seed, first, n, rotate, points, rows=True) -> Frames:
    return reduce_batch_outs(outs, rs, points, rows)


batch_frames.stages = (_play_frames, _finish_frames)  # analysis.cluster.Batches pipelines them


def run_batches(rs, names, pols, seed: int, games: int, batch_size: int, rotate: bool, writer: RunWriter,
                start: int = 0, progress=None, stop=None, batches=None) -> int:
    """Play games start..games-1 in batches into ``writer``; returns games done in this call.
    ``progress(n)`` is called after each batch; when ``stop()`` is true after a batch (a signal
    asked to stop), KeyboardInterrupt is raised there, every file written for that batch.
    ``batches`` (:mod:`analysis.cluster`; default: this process) plays them, here or on a cluster;
    they are written in game order either way."""
    from volva.analysis.cluster import Batches
    points = checkpoints(games)
    batch_size = aligned_batch(batch_size, names, rotate)  # whole seed blocks (suffstats cluster sums)
    # each card's god (and, with row files, type and value), for a report rebuilt from the row
    # files (it loads no rule set)
    writer.meta.setdefault("card_gods", R.card_gods(rs))
    if writer.keep_rows:
        writer.meta.setdefault("cards", R.card_info(rs))
    def spans():  # lazily: a run of 10**12 games has 10**8 batches
        return ((first, min(batch_size, games - first)) for first in range(start, games, batch_size))
    tasks = ((first, n, rotate, points, writer.keep_rows) for first, n in spans())
    done = 0
    try:
        with contextlib.closing((batches or Batches()).map(batch_frames, (rs, names, pols, seed), tasks)) as results:
            for (first, n), fr in zip(spans(), results):
                writer.add(fr, n)
                done += n
                if progress is not None:
                    progress(n)
                if stop is not None and stop() and first + n < games:
                    raise KeyboardInterrupt
    except BaseException:
        with contextlib.suppress(OSError):  # a disk fault: stats/ keeps the last save
            writer.save()  # the finished batches, whatever stopped the run
        raise
    writer.save()
    return done


RUN_KEYS = ("ruleset", "options", "seed", "players", "lineup", "rotate", "games")  #: in every run.json
RESUME_KEYS = RUN_KEYS + ("card_file_sha256", "patch_sha256", "draft_rules", "sweep", "mode",
                          "base_card_file_sha256")  # not batch_size: sums do not depend on it


def experiment_key(meta: dict) -> str:
    """SHA-256 of a run's RESUME_KEYS settings (its run.json ``meta``): stats/meta.json keeps it, so
    sums moved from another experiment's folder are refused on --resume and by the report."""
    import hashlib
    import json
    return hashlib.sha256(json.dumps({k: meta.get(k) for k in RESUME_KEYS}, sort_keys=True,
                                     default=str).encode()).hexdigest()


def check_sums_experiment(stats, run_json: Path, meta: dict) -> None:
    """Raise StatsError unless ``stats`` (loaded Stats) were saved by the experiment of ``meta``
    (its run.json, at ``run_json``): Stats.check_experiment with its settings key."""
    stats.check_experiment(run_json, experiment_key(meta), tuple(k for k in RUN_KEYS if k not in meta))


def kept_rows_refusal(run_json: Path) -> str:
    """The --resume refusal of a run that kept rows (its row files would need the interrupted
    batch's rows dropped): what to do instead."""
    return (f"--resume: {run_json}: the run kept rows (--keep-rows); only stats-only runs resume: "
            "play it again with --force (or into another --out)")


def check_resume(out: Path, meta: dict) -> dict:
    """The run.json of a stopped run in ``out`` that ``meta`` may continue. Raises ValueError
    naming the file and the first setting that differs, or when the run kept rows."""
    from volva.analysis.suffstats import read_json_object
    p = out / "run.json"
    try:
        old = read_json_object(p, ValueError, "file not found (nothing to resume)")
    except ValueError as exc:
        raise ValueError(f"--resume: {exc}") from None
    if old.get("keep_rows"):
        raise ValueError(kept_rows_refusal(p))
    for k in RESUME_KEYS:
        a, b = old.get(k), meta.get(k)
        if isinstance(a, dict) and isinstance(b, dict):  # name the option that differs
            for o in sorted(set(a) | set(b)):
                x, y = a.get(o), b.get(o)
                if isinstance(x, dict) and isinstance(y, dict):  # Rainbow Bridge: options per game
                    for o2 in sorted(set(x) | set(y)):
                        if x.get(o2) != y.get(o2):
                            raise ValueError(f"--resume: {p}: option '{o}.{o2}' was {x.get(o2)!r}, now "
                                             f"{y.get(o2)!r}; resume with the same experiment")
                if x != y:
                    raise ValueError(f"--resume: {p}: option '{o}' was {x!r}, now {y!r}; "
                                     "resume with the same experiment")
        if a != b:
            raise ValueError(f"--resume: {p}: '{k}' was {a!r}, now {b!r}; resume with the same experiment")
    return old
