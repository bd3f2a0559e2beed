"""Disk and directory faults (issue 15): a run whose output disk fills up, or whose output directory is
read-only, stops with one error line (exit 2), keeps stats/ and run.json at the last complete batch,
changes nothing already written, and --resume later gives the statistics an uninterrupted run gives.

The full disk is a size-limited tmpfs (mounted when the tests run as root, as in CI's container);
without the right to mount, a per-process file-size limit (RLIMIT_FSIZE) makes the writes fail
instead, and a directory without write permission stands for the read-only file system."""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pandas.testing as pdt
import pytest

from volva.analysis.suffstats import Stats

RUN = ["run", "--games", "12000", "--batch-size", "2000", "--players", "3", "--no-keep-rows", "--seed", "5"]
VOLVA = [sys.executable, "-c", "from volva.cli import main; main()"]


def _volva(args, limit: int | None = None):
    def pre():
        if limit is not None:  # writes past `limit` bytes fail with EFBIG instead of killing the process
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    # stats/ saved after every batch, as a slower engine's run does: the small disk fills mid-run
    env = dict(os.environ, VOLVA_SAVE_EVERY_S="0")
    return subprocess.run(VOLVA + args, capture_output=True, text=True, preexec_fn=pre, timeout=900, env=env)


def _mount(d: Path, opts: str) -> bool:
    if os.geteuid() != 0:
        return False
    return subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(d)], capture_output=True).returncode == 0


def _remount(d: Path, opts: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{opts}", str(d)], check=True, capture_output=True)


@contextlib.contextmanager
def small_disk(tmp_path):
    d = tmp_path / "disk"
    d.mkdir()
    mounted = _mount(d, "size=200k")
    try:
        yield d, mounted
    finally:
        if mounted:
            subprocess.run(["umount", str(d)], capture_output=True)


def _files(out: Path) -> dict:
    return {p.relative_to(out): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.rglob("*")) if p.is_file()}


def _one_error_line(res, needle: str) -> str:
    assert res.returncode == 2, (res.returncode, res.stderr)
    lines = [x for x in res.stderr.splitlines() if not x.startswith("games ") and "games/s" not in x]  # progress bars
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], res.stderr
    assert "Traceback" not in res.stderr
    return lines[0]


def _same_stats(a: Path, b: Path) -> None:
    sa, sb = Stats.load(a), Stats.load(b)
    assert sa.games == sb.games and sorted(sa.tables) == sorted(sb.tables)
    for k in sa.tables:
        pdt.assert_frame_equal(sa.tables[k], sb.tables[k], check_exact=True)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    out = tmp_path_factory.mktemp("whole") / "run"
    res = _volva(RUN + ["--out", str(out)])
    assert res.returncode == 0, res.stderr
    return out


def test_full_disk_keeps_the_last_batch_and_resumes(tmp_path, uninterrupted):
    with small_disk(tmp_path) as (disk, mounted):
        out = disk / "run"
        res = _volva(RUN + ["--out", str(out)], limit=None if mounted else 20_000)
        line = _one_error_line(res, "cannot write")
        done = Stats.load(out).games if (out / "stats").is_dir() else 0
        assert (f"stats/ holds the last complete batch ({done:,} games)" in line) if done else \
            ("no batch was complete" in line)
        assert done < 12000 and done % 2000 == 0
        if mounted:
            _remount(disk, "size=20m")
            res = _volva(RUN + ["--out", str(out), "--resume"])
        else:
            res = _volva(RUN + ["--out", str(out), "--resume"])
        assert res.returncode == 0, res.stderr
        _same_stats(out, uninterrupted)


def test_read_only_output_directory(tmp_path, uninterrupted):
    """A run into a read-only directory, and a --resume there: one line, nothing changed."""
    with small_disk(tmp_path) as (disk, mounted):
        out = disk / "run"
        if mounted:
            _remount(disk, "size=20m")
        res = _volva(RUN + ["--out", str(out)])
        assert res.returncode == 0, res.stderr
        # as if stopped after its last batch (a complete run's --resume plays and writes nothing)
        meta = json.loads((out / "run.json").read_text())
        (out / "run.json").write_text(json.dumps({**meta, "status": "interrupted"}))
        before = _files(out)
        if mounted:
            _remount(disk, "ro")
        else:
            out.chmod(0o555)
            (out / "stats").chmod(0o555)
        try:
            res = _volva(RUN + ["--out", str(out), "--resume"])
            _one_error_line(res, "cannot write")
            assert _files(out) == before
            res = _volva(RUN + ["--out", str(disk / "new")])
            _one_error_line(res, str(disk))
        finally:
            if mounted:
                _remount(disk, "rw")
            else:
                out.chmod(0o755)
                (out / "stats").chmod(0o755)


def test_failed_replace_leaves_no_temporary_file(tmp_path, monkeypatch):
    """run.json and paired.parquet are written to a hidden temporary file, then replaced: when the
    disk fills in between, the temporary file goes too (a helper session found an empty
    .run.json.tmp left beside a run that stopped on a full disk)."""
    import errno
    import types

    import pandas as pd

    from volva.analysis import paired, runner

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(runner.os, "replace", full)
    w = types.SimpleNamespace(out=tmp_path, meta={"status": "running"})
    with pytest.raises(OSError):
        runner.RunWriter.write_meta(w)
    monkeypatch.setattr(paired.os, "replace", full)
    with pytest.raises(OSError):
        paired._save(pd.DataFrame({"x": [1]}), tmp_path / "paired.parquet")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [
    ["compare", "--variant-option", "gods_of_asgard=true", "--games", "400"],
    ["ablate", "Tyr's Smite", "--games", "400"],
    ["tournament", "--strategies", "greedy,random,balanced,quester,thor-warlord", "--games", "40"],
])
def test_full_disk_in_two_arm_runs_and_tournaments_is_one_error_line(tmp_path, args):
    """A helper session: a full disk during compare or ablate raised an AttributeError from the
    error handler, and one while a tournament wrote its tables a raw OSError traceback."""
    with small_disk(tmp_path) as (disk, mounted):
        if mounted and args[0] == "tournament":  # its tables are small: leave them a few KB
            (disk / "filler").write_bytes(b"\0" * 196 * 1024)
        res = _volva(args + ["--out", str(disk / "out")], limit=None if mounted else 2_000)
        _one_error_line(res, "cannot write")
        assert "--resume" not in res.stderr  # compare, ablate and tournament have none
        if args[0] != "tournament" and "complete batch" in res.stderr:
            assert "paired games" in res.stderr and "again with --force" in res.stderr, res.stderr
