"""Batches on a Dask cluster (issue 14): a run on a 2-worker LocalCluster writes stats identical
(SHA-256 of every file in stats/) to the same run played in this process; a worker killed while it
plays a batch has that batch recomputed, counted once; a run stopped locally resumes on the cluster;
a cluster that cannot be used is one error line and leaves OUT as it was.

Each cluster starts 2 worker processes that load the kernels the local run compiled (same cache)."""
from __future__ import annotations

import hashlib
import os
import signal
import time

import pytest
from typer.testing import CliRunner

from volva.cli import app

runner = CliRunner()
RUN = ["run", "--players", "3", "--games", "1200", "--batch-size", "200", "--no-keep-rows", "--seed", "7"]


def stats_sha256(out) -> dict:
    """SHA-256 of every file of OUT/stats (the tables as Parquet and meta.json)."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted((out / "stats").iterdir())}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("local") / "run"
    res = runner.invoke(app, RUN + ["--out", str(out)])
    assert res.exit_code == 0, res.output
    return out


@pytest.fixture(scope="module")
def cluster():
    from volva.analysis.cluster import DaskBatches
    b = DaskBatches(workers=2, threads=1)
    yield b
    b.close()


def test_two_workers_give_the_local_stats(tmp_path, local_run):
    out = tmp_path / "run"
    res = runner.invoke(app, RUN + ["--out", str(out), "--workers", "2"])
    assert res.exit_code == 0, res.output
    assert stats_sha256(out) == stats_sha256(local_run)
    import json
    meta = json.loads((out / "run.json").read_text())
    assert meta["cluster"] == {"scheduler": "local", "workers": 2} and meta["games_done"] == 1200


class KillOnce:
    """A progress callback that SIGKILLs a worker holding a batch in flight, after the first batch."""

    def __init__(self, client):
        self.client, self.killed = client, None

    def __call__(self, n: int) -> None:
        if self.killed is not None:
            return
        busy = {w: ks for w, ks in self.client.processing().items() if ks}
        if busy:
            w = sorted(busy)[0]
            pid = self.client.run(os.getpid, workers=[w])[w]
            os.kill(pid, signal.SIGKILL)
            self.killed = (w, pid, len(busy[w]))


def test_a_killed_worker_s_batch_is_recomputed_once(tmp_path, local_run, cluster):
    from volva.analysis.play import Run, play_run
    from volva.analysis.session import setup
    rs, names, pols = setup(3, None, [], "blood-rage", None, None, None)
    run = Run(rs, names, pols, 3, 1200, 7, 200, [], True, batches=cluster)
    kill = KillOnce(cluster.client)

    def progress(description, total, completed):
        import contextlib
        return contextlib.nullcontext(kill)

    res = play_run(run, tmp_path / "run", keep_rows=False, progress=progress)
    assert res.status == "complete" and res.games_done == 1200
    assert kill.killed is not None and kill.killed[2] >= 1, "no worker was playing a batch when one was killed"
    assert stats_sha256(tmp_path / "run") == stats_sha256(local_run)
    cluster.client.wait_for_workers(2, timeout=60)  # the nanny restarts the killed worker
    assert kill.killed[1] not in cluster.client.run(os.getpid).values()


class StopAfter:
    """Plays batches here and stops the run (as a signal would) after ``k`` of them."""
    workers = 0

    def __init__(self, k: int):
        self.k = k

    def map(self, fn, shared, tasks):
        for i, t in enumerate(tasks):
            if i == self.k:
                raise KeyboardInterrupt
            yield fn(*shared, *t)

    def describe(self):
        return None

    def close(self):
        pass


def test_a_run_stopped_here_resumes_on_the_cluster(tmp_path, local_run):
    from volva.analysis.play import Run, play_run
    from volva.analysis.session import setup
    rs, names, pols = setup(3, None, [], "blood-rage", None, None, None)
    out = tmp_path / "run"
    res = play_run(Run(rs, names, pols, 3, 1200, 7, 200, [], True, batches=StopAfter(2)), out, keep_rows=False)
    assert res.status == "interrupted" and res.games_done == 400
    res = runner.invoke(app, RUN + ["--out", str(out), "--resume", "--workers", "2"])
    assert res.exit_code == 0, res.output
    assert stats_sha256(out) == stats_sha256(local_run)


@pytest.mark.parametrize("argv, needle", [
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"], "give one"),
    (["--workers", "0"], "--workers 0: allowed: 1.."),
    (["--workers", "100000"], "--workers 100000: allowed: 1.."),
    (["--scheduler", " "], "give the scheduler's address"),
    (["--scheduler", "tcp://127.0.0.1:9"], "cannot connect"),
    (["--workers", "2", "(no --force)"], "already holds results"),
])
def test_a_cluster_that_cannot_be_used_is_one_line_and_keeps_out(tmp_path, local_run, monkeypatch, argv, needle):
    import shutil

    from volva.analysis import cluster
    monkeypatch.setattr(cluster, "JOIN_TIMEOUT_S", 2)
    out = tmp_path / "run"
    shutil.copytree(local_run, out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    force = [] if "(no --force)" in argv else ["--force"]
    res = runner.invoke(app, RUN + ["--out", str(out)] + force + [a for a in argv if a != "(no --force)"])
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], res.stderr
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("argv", [["--workers", "0"], ["--scheduler", "tcp://127.0.0.1:9"]])
def test_a_cluster_that_cannot_be_used_leaves_no_new_out_folder(tmp_path, monkeypatch, argv):
    from volva.analysis import cluster
    monkeypatch.setattr(cluster, "JOIN_TIMEOUT_S", 2)
    out = tmp_path / "new" / "run"
    res = runner.invoke(app, RUN + ["--out", str(out)] + argv)
    assert res.exit_code == 2 and res.stderr.startswith("error: "), res.output
    assert not (tmp_path / "new").exists()


def test_compare_on_the_cluster_gives_the_local_tables(tmp_path):
    argv = ["compare", "--players", "3", "--games", "600", "--batch-size", "200", "--seed", "3",
            "--variant-module", "gods-of-asgard"]
    files = ("baseline/stats", "variant/stats", "paired.parquet", "paired_cards.parquet", "compare_strategy.csv")
    digests = []
    for extra in ([], ["--workers", "2"]):
        out = tmp_path / f"cmp{len(extra)}"
        res = runner.invoke(app, argv + ["--out", str(out)] + extra)
        assert res.exit_code == 0, res.output
        got = {}
        for f in files:
            for p in sorted((out / f).rglob("*")) if (out / f).is_dir() else [out / f]:
                got[str(p.relative_to(out))] = hashlib.sha256(p.read_bytes()).hexdigest()
        digests.append(got)
    assert len(digests[0]) >= 28 and digests[0] == digests[1]


def test_tournament_on_the_cluster_gives_the_local_tables(tmp_path):
    argv = ["tournament", "--strategies", "greedy,random,balanced", "--players", "2", "--games", "400", "--seed", "5"]
    digests = []
    for extra in ([], ["--workers", "2"]):
        out = tmp_path / f"t{len(extra)}"
        res = runner.invoke(app, argv + ["--out", str(out)] + extra)
        assert res.exit_code == 0, res.output
        digests.append({f: hashlib.sha256((out / f).read_bytes()).hexdigest()
                        for f in ("tournament.csv", "ratings.csv", "head_to_head.csv")})
    assert digests[0] == digests[1]


# ----------------------------------------------------------------- the in-process pipeline

def _play(log, t):
    import numba
    log.append(t)
    if t == "bad":
        raise ValueError("bad task")
    return (t, numba.get_num_threads())


def _finish(outs, log, t):
    return outs


def _whole(log, t):
    return _finish(_play(log, t), log, t)


_whole.stages = (_play, _finish)


def test_the_pipeline_keeps_order_threads_and_errors():
    """Batches plays task k+1 in a second thread while the caller reduces task k: results in task
    order, the caller's numba thread count carried over, an engine error raised here, and a
    consumer that stops starts at most the one batch already ahead."""
    import numba

    from volva.analysis.cluster import Batches
    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        log = []
        got = list(Batches().map(_whole, (log,), [(k,) for k in range(5)]))
        assert got == [(k, 1) for k in range(5)] and log == list(range(5))
    finally:
        numba.set_num_threads(old)
    with pytest.raises(ValueError, match="bad task"):
        list(Batches().map(_whole, ([],), [(0,), ("bad",), (2,)]))
    log = []
    it = Batches().map(_whole, (log,), [(k,) for k in range(10)])
    assert next(it) == (0, numba.get_num_threads())
    it.close()
    time.sleep(0.2)
    assert log in ([0, 1], [0]), log


def _play(k, x):
    return k * x


def _finish(outs, k, x):
    return outs + 1


_play_and_finish = lambda k, x: _finish(_play(k, x), k, x)  # noqa: E731
_play_and_finish.stages = (_play, _finish)


def test_batches_read_their_tasks_lazily():
    """A helper session: compare --games 10**12 built a list of its 10**8 batches (21 GB in 8 s).
    Batches.map takes the tasks one ahead of the one it finishes: an endless task stream works,
    pipelined or not, and the results keep task order."""
    import itertools

    from volva.analysis.cluster import Batches

    def stream():  # a task list that must never be read to its end
        for x in itertools.count():
            assert x < 10, "Batches.map read far past the results taken"
            yield (x,)
    for fn in (_play_and_finish, lambda k, x: k * x + 1):
        res = Batches().map(fn, (3,), stream())
        assert list(itertools.islice(res, 5)) == [1, 4, 7, 10, 13]
        res.close()


def _slow_play(log, t):
    """A pipeline's play stage: a batch of 400 games of 1 ms each, spread as the engine spreads."""
    from volva.simulator.core.threads import spread

    def slice_(lo, hi):
        log.append((t, lo, hi))  # when the slice starts
        time.sleep(0.001 * (hi - lo))
    spread(400, slice_, least=10)
    return t


def _slow_finish(outs, log, t):
    return outs


def _slow_whole(log, t):
    return _slow_finish(_slow_play(log, t), log, t)


_slow_whole.stages = (_slow_play, _slow_finish)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_batch_nobody_will_read_stops_between_slices(threads):
    """A helper session: after `compare --until-decided` decided, the batch already ahead played to
    its end (2.6 s at --batch-size 25000, on one thread) before the process could exit. When the
    consumer stops, the batch ahead now takes no further slice (it ends with core.threads.Abandoned,
    read by nobody), on one thread and on two."""
    import numba

    from volva.analysis.cluster import Batches
    old = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        log = []
        it = Batches().map(_slow_whole, (log,), [(k,) for k in range(5)])
        assert next(it) == 0
        for _ in range(5000):  # until batch 1 (0.4 s of games on one thread) has started
            if any(t == 1 for t, _, _ in log):
                break
            time.sleep(0.001)
        it.close()
        time.sleep(0.8)
        games = {k: sorted(g for t, lo, hi in log if t == k for g in range(lo, hi)) for k in range(5)}
        assert games[0] == list(range(400))  # batch 0: every game, once
        assert 0 < len(games[1]) <= 300, len(games[1])  # batch 1: the slices started by the close
        assert not any(games[k] for k in range(2, 5))
    finally:
        numba.set_num_threads(old)
