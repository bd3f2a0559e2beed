"""Playing a command's games into its output directory: one run (with resume), or the two arms
of a paired experiment, stopping cleanly on a signal.

The first SIGINT/SIGTERM/SIGHUP lets the batch being played finish and be written, then the
run stops (exit code 128 + signal); a second one stops at once. ``progress(description, total,
completed)`` is a context manager giving ``advance(n)`` (the CLI shows a progress bar); the
caller prints the outcome.
"""
from __future__ import annotations

import contextlib
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path

from volva.analysis.provenance import meta as run_meta
from volva.analysis.provenance import now
from volva.analysis.session import UsageError

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class StopFlag:
    """Set by the first SIGINT/SIGTERM/SIGHUP: the run stops after the batch it is playing."""
    requested = False
    signum = 2  # the signal that asked (exit code 128 + signum)

    def __call__(self) -> bool:
        return self.requested


def stop_on_signals(flag: StopFlag | None = None) -> dict:
    """SIGINT, SIGTERM and SIGHUP stop a run between batches (even when the shell started it with
    SIGINT ignored): the first signal lets the current batch finish and be written, so every
    file stays consistent; a second one stops at once (the files of the last finished batch are
    still whole: each is replaced atomically). Returns the previous handlers."""
    def handler(signum, frame):
        if flag is None or flag.requested:
            raise KeyboardInterrupt
        flag.requested, flag.signum = True, int(signum)
        sys.stderr.write("\nstopping after the current batch (signal again to stop now)\n")

    old = {}
    for sig in SIGNALS:
        try:
            old[sig] = signal.signal(sig, handler)
        except (ValueError, OSError):  # not the main thread
            pass
    return old


def restore_signals(old: dict) -> None:
    for sig, h in old.items():
        signal.signal(sig, h)


@contextlib.contextmanager
def no_progress(description: str, total: int, completed: int = 0):
    yield lambda n: None


@dataclass
class Outcome:
    """How a run ended: exit ``code`` (0, or 128 + signal), ``status`` ('complete' or
    'interrupted'), games done, the Stats of each output (one, or the two arms) and, for a
    paired experiment, its paired sums (None when no batch finished)."""
    code: int
    status: str
    games_done: int
    stats: list = field(default_factory=list)
    sums: object = None


@dataclass
class Run:
    """One experiment to play into ``out``: rule set, lineup names and policies, and its numbers."""
    rs: object
    names: list
    pols: list
    players: int
    games: int
    seed: int
    batch_size: int
    option_args: list
    rotate: bool = True
    #: where the batches are played (:mod:`analysis.cluster`; None: this process)
    batches: object = None

    def meta(self, keep_rows: bool, **extra) -> dict:
        m = run_meta(self.rs, self.names, self.players, self.games, self.seed, self.batch_size,
                     self.option_args, self.rotate, keep_rows, **extra)
        return self.with_cluster(m)

    def with_cluster(self, meta: dict) -> dict:
        """``meta`` with where the batches are played (``cluster``; provenance only: a resume may
        play elsewhere), when not in this process."""
        where = self.batches.describe() if self.batches is not None else None
        if where:
            meta["cluster"] = where
        return meta


def _resume(out: Path, writer, meta: dict) -> tuple[int, bool]:
    """Continue the stopped run in ``out``: load its stats, carry its start; -> (games done,
    whether run.json already says it is complete). Raises UsageError when it is not the same
    experiment."""
    from volva.analysis.runner import check_resume
    from volva.analysis.suffstats import Stats, StatsError
    try:
        old = check_resume(out, meta)
        # stopped before its first batch was written: nothing to load, start from game 0
        done = old.get("games_done")
        if not ((out / "stats").exists() or (out / "stats.new").exists()) and isinstance(done, int) and done > 0:
            import sys
            sys.stderr.write(f"warning: {out / 'stats'}: not found, though {out / 'run.json'} counts "
                             f"{done:,} games done: the run starts again from game 0\n")
        if (out / "stats").exists() or (out / "stats.new").exists():
            writer.stats = Stats.load(out)
            from volva.analysis.runner import check_sums_experiment
            check_sums_experiment(writer.stats, out / "run.json", old)
    except (ValueError, StatsError) as exc:
        raise UsageError(str(exc)) from None
    _check_games(out, writer.stats, meta["games"])
    start = writer.stats.games  # the stats are replaced whole, whole batches: they say how far it got
    meta.update(started=old.get("started"), resumed=(old.get("resumed") or []) + [now()], games_done=start)
    return start, old.get("status") == "complete" and start >= meta["games"]


def _check_games(out: Path, st, games: int) -> None:
    """The games ``stats/meta.json`` counts are those its clans table holds (each game has a
    row per clan) and no more than the run's. Raises UsageError naming the file."""
    c = st.tables["clans"]
    held = int(round(float((c["n"] / c["n_players"]).sum()))) if len(c) else 0
    if held != st.games or st.games > games:
        why = (f"'games' is {st.games:,} but its tables hold {held:,} games" if held != st.games
               else f"'games' is {st.games:,}, more than the run's {games:,}")
        raise UsageError(f"--resume: {out / 'stats' / 'meta.json'}: {why}; restore the run's own stats "
                         "folder or rerun")


def play_run(run: Run, out: Path, keep_rows: bool = True, resume: bool = False, extra_meta=None,
             progress=no_progress) -> Outcome:
    """Play the batches of ``run`` into OUT (stats always, rows with keep_rows; see
    analysis.runner), continuing a stopped run with ``resume``. Raises UsageError (resume)."""
    from volva.analysis.runner import RunWriter, run_batches
    meta = run.meta(keep_rows, **(extra_meta or {}))
    writer = RunWriter(out, meta, keep_rows)  # VOLVA_SAVE_EVERY_S: checked by session.set_threads
    start, done = _resume(out, writer, meta) if resume else (0, False)
    if done:  # a complete run: nothing to play, and its run.json stays as it is
        return Outcome(0, "complete", start, [writer.stats])
    status, code = "complete", 0
    stop = StopFlag()
    old_sig = stop_on_signals(stop)
    try:
        writer.open()
        with progress("games", run.games, start) as advance:
            run_batches(run.rs, run.names, run.pols, run.seed, run.games, run.batch_size, run.rotate, writer,
                        start, progress=advance, stop=stop, batches=run.batches)
    except KeyboardInterrupt:
        status, code = "interrupted", 128 + stop.signum
    except OSError as exc:  # a disk fault writing OUT: full, read-only, gone
        status = "failed"
        raise UsageError(disk_fault(out, exc, meta["games_done"], keep_rows)) from None
    except BaseException as exc:
        status = "failed"
        meta["error"] = f"{type(exc).__name__}: {exc}"
        raise
    finally:
        restore_signals(old_sig)
        meta.update(finished=now(), status=status)
        _quietly(writer.close, writer.write_meta)
    return Outcome(code, status, meta["games_done"], [writer.stats])


def disk_fault(out: Path, exc: OSError, games: int, keep_rows: bool, paired: bool = False) -> str:
    """The one-line error of a run (``paired``: a paired experiment's arms) that could not write
    OUT (no space, read-only, ...): what failed and what is left (stats/ and run.json are replaced
    whole, so they hold the last complete batch)."""
    why = exc.strerror or str(exc)
    where = exc.filename or out
    whose, kind = ("each arm's ", "paired games") if paired else ("", "games")
    left = f"{whose}stats/ holds the last complete batch ({games:,} {kind})" if games else "no batch was complete"
    rows = "; the row files after it may be incomplete" if keep_rows else ""
    import errno
    fix = {errno.ENOSPC: "free space", errno.EDQUOT: "free space", errno.EFBIG: "allow larger files",
           errno.EROFS: "make it writable", errno.EACCES: "make it writable", errno.EPERM: "make it writable"}
    hint = fix.get(exc.errno, "fix the disk") if exc.errno else ("free space" if "space" in why else "fix the disk")
    again = (f" ({hint} or pick another --out, then run it again with --force: a paired experiment does not resume)"
             if paired else f" ({hint} or pick another --out; --resume continues a stats-only run)")
    return f"{where}: cannot write: {why}; {left}{rows}{again}"


def _quietly(*steps) -> None:
    """Run the clean-up ``steps``, each even if an earlier one failed on a full or read-only disk:
    the files they would update are left as the last complete batch wrote them."""
    for step in steps:
        try:
            step()
        except OSError:
            pass


def _arm_writers(run: Run, arms, rule_sets, out: Path, variant_args=()) -> list:
    from volva.analysis.runner import RunWriter
    writers = []
    for k, (rs, arm) in enumerate(zip(rule_sets, arms)):
        d = out / arm
        d.mkdir(parents=True, exist_ok=True)
        args = list(run.option_args) + (list(variant_args) if k == 1 else [])
        meta = run_meta(rs, run.names, run.players, run.games, run.seed, run.batch_size, args,
                        run.rotate, False, arm=arm)
        run.with_cluster(meta)
        meta["draft_rules"] = getattr(rs, "draft_note", None)
        writers.append(RunWriter(d, meta, False))
    return writers


def play_arms(run: Run, rs_b, arms: tuple[str, str], out: Path, card=None, ages=None,
              progress=no_progress, decide=None, variant_args=()) -> Outcome:
    """Play arm A (``run.rs``) and arm B (``rs_b``) on the same games into OUT/<arm>/ (stats;
    report-ready) and OUT/paired.parquet. A stopped run keeps the sums of its finished batches.
    ``decide(games, sums)`` may end the run early (``analysis.paired.run_paired``);
    ``variant_args``: arm B's own rule options ('key=value', recorded in its run.json)."""
    from volva.analysis.paired import run_paired
    writers = _arm_writers(run, arms, (run.rs, rs_b), out, variant_args)
    code, status, sums = 0, "complete", None
    stop = StopFlag()
    old = stop_on_signals(stop)
    try:
        for w in writers:
            w.open()
        with progress("paired games", run.games, 0) as advance:
            sums = run_paired(run.rs, rs_b, run.names, run.pols, run.seed, run.games, run.batch_size, run.rotate,
                              writers[0], writers[1], card, ages, progress=advance, stop=stop, decide=decide,
                              batches=run.batches)
    except KeyboardInterrupt:
        code, status = 128 + stop.signum, "interrupted"
        sums = _saved_sums(out)
    except OSError as exc:  # a disk fault writing OUT
        status = "failed"
        raise UsageError(disk_fault(out, exc, writers[1].meta["games_done"], False, paired=True)) from None
    finally:
        restore_signals(old)
        for w in writers:
            w.meta.update(finished=now(), status=status)
            _quietly(w.close, w.write_meta)
    return Outcome(code, status, writers[1].meta["games_done"], [w.stats for w in writers], sums)


def _saved_sums(out: Path):
    """The paired sums of the batches written before a stop (None if none was)."""
    import pandas as pd
    p = out / "paired.parquet"
    return pd.read_parquet(p) if p.is_file() else None
