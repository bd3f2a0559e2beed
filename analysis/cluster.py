"""Where a command's batches are played: in this process, or as tasks on a Dask cluster.

A batch is a pure function of (rule set, lineup, master seed, first game, games), and its sums
are integers, so a batch played on another machine gives the same sums, and adding them in batch
order gives the same totals, whatever the number of workers. :class:`Batches` plays them here;
:class:`DaskBatches` sends each batch to a ``distributed`` cluster as one task and hands the
results back **in batch order**, each exactly once: a worker lost mid-batch has its task
recomputed by the scheduler on another worker, and the client adds a batch's sums only when its
task's single result arrives (a recomputed task replaces, never adds to, the lost one).

Every task carries its own inputs (the rule set and lineup pickle to 3–150 kB), so a worker
needs no disk shared with the client: only the same Volva installed. Each worker process keeps
its own numba cache (``VOLVA_CACHE_DIR``, default ``~/.cache/volva``), compiled on its first task.
"""
from __future__ import annotations

import collections
import contextlib
import hashlib
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

AHEAD = 2  #: tasks in flight per worker: one playing, one queued (bounds the client's memory)
JOIN_TIMEOUT_S = 60  #: how long --scheduler waits for a first worker
CONNECT_TIMEOUT_S = 10  #: how long --scheduler tries to reach the scheduler


class ClusterError(ValueError):
    """A cluster that cannot be reached or used (one line: the option, the address, the reason)."""


def code_hash() -> str:
    """16 hex digits of SHA-256 over the Python sources a batch runs (the engines, the strategies,
    the reduction), as they were when this process first loaded them (:data:`LOADED`): workers
    must run the same code as the client to give the same sums, and a worker started before a
    ``git pull`` still runs the old code."""
    return LOADED


def _source_hash() -> str:
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for sub in ("simulator", "strategies", "analysis"):
        for f in sorted((root / sub).rglob("*.py")):
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


class Batches:
    """Plays batches in this process (the default). A task function with two ``stages``
    (``play``, ``finish``: ``fn(*a) == finish(play(*a), *a)``) is pipelined: a thread plays
    batch k+1 in the engine, which releases the GIL, while this thread reduces batch k, then
    plays slices of batch k+1 beside it (``core.threads.join_until``)."""

    workers = 0  #: worker processes (0: this process)

    def map(self, fn: Callable, shared: tuple, tasks: Iterable[tuple]) -> Iterator:
        """``fn(*shared, *task)`` for each task, in order (lazily: a consumer that stops early
        starts no further batch; the one already playing stops at its next slice)."""
        stages = getattr(fn, "stages", None)
        if stages is None:
            for t in tasks:
                yield fn(*shared, *t)
            return
        yield from _pipelined(stages, shared, tasks)

    def describe(self) -> dict | None:
        """What run.json records of where the games were played (None: here)."""
        return None

    def close(self) -> None:
        pass


def _pipelined(stages: tuple, shared: tuple, tasks: Iterable[tuple]) -> Iterator:
    """``finish(play(*a), *a)`` per task, ``play`` one task ahead in a second thread. ``tasks`` is
    read lazily (a run of 10**12 games has 10**8 batches: no list of them). A consumer that stops
    (an early decision, an interrupt) leaves the batch ahead unread: it stops between slices."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import numba

    from volva.simulator.core.threads import join_until, leave_a_place
    play, finish = stages
    threads = numba.get_num_threads()  # numba's thread count is per thread: carry --threads over
    stop = threading.Event()

    def ahead(t: tuple):
        numba.set_num_threads(threads)
        with leave_a_place(stop):  # a place for this thread once it has reduced (join_until below)
            return play(*shared, *t)

    pool = ThreadPoolExecutor(1, thread_name_prefix="volva-engine")
    todo = iter(tasks)
    try:
        t = next(todo, None)
        nxt = pool.submit(ahead, t) if t is not None else None
        while t is not None:
            if threads > 1:
                join_until(nxt)
            outs = nxt.result()
            following = next(todo, None)
            nxt = pool.submit(ahead, following) if following is not None else None
            yield finish(outs, *shared, *t)
            t = following
    finally:  # the consumer is done (or gone): a batch still playing stops at its next slice
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)


def _on_worker(threads: int | None, fn: Callable, *args):
    """One task on a worker: ``fn(*args)`` on ``threads`` numba threads (None: as the worker is).
    Set here, per task, because numba fixes its pool size when a process first launches it."""
    if threads is not None:
        import numba
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    return fn(*args)


class DaskBatches(Batches):
    """Plays batches as tasks on a Dask cluster: a scheduler at ``address``, or a local cluster
    of ``workers`` processes (``threads`` numba threads each; default: this machine's cores
    shared out). Raises ClusterError when the scheduler cannot be reached in ``timeout`` s, no
    worker joins, or a worker runs other Volva code."""

    def __init__(self, address: str | None = None, workers: int | None = None, threads: int | None = None,
                 timeout: float | None = None):
        import logging

        from distributed import Client, LocalCluster
        timeout = JOIN_TIMEOUT_S if timeout is None else timeout
        self.cluster = None
        self.address = address
        flag = f"--scheduler {address}" if address else f"--workers {workers}"
        #: numba threads a task sets on its worker (None: the worker's default, all its cores)
        self.threads = None
        if address is None:
            n = int(workers or 1)
            self.threads = int(threads or max(1, (os.cpu_count() or 1) // n))
            # dashboard ":0": any free port (the HTTP server takes 8787 otherwise, and a second cluster warns)
            self.cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                                        silence_logs=logging.ERROR)
            self.client = Client(self.cluster)
        else:
            try:
                self.client = Client(address, timeout=min(timeout, CONNECT_TIMEOUT_S))
            except (OSError, TimeoutError, ValueError) as exc:
                raise ClusterError(f"{flag}: cannot connect to the scheduler: {exc}") from None
        try:
            self.client.wait_for_workers(1, timeout=timeout)
        except TimeoutError:
            self.close()
            raise ClusterError(f"{flag}: no worker joined the scheduler within {timeout:g} s (start one with: "
                               f"dask worker {address} --nworkers 1 --nthreads 1)") from None
        self._check_code(flag)

    def _check_code(self, flag: str) -> None:
        mine = code_hash()
        try:
            theirs = self.client.run(code_hash)
        except Exception as exc:  # a worker without Volva cannot even unpickle the function
            self.close()
            raise ClusterError(f"{flag}: a worker cannot run Volva ({type(exc).__name__}: {exc}); "
                               "install the same Volva on every worker") from None
        other = {w: h for w, h in theirs.items() if h != mine}
        if other:
            self.close()
            w, h = next(iter(other.items()))
            raise ClusterError(f"{flag}: worker {w} runs other Volva code (code hash {h}, here {mine}); "
                               "install the same commit on every worker")

    @property
    def workers(self) -> int:
        return len(self.client.scheduler_info(n_workers=-1)["workers"])

    def map(self, fn: Callable, shared: tuple, tasks: Iterable[tuple]) -> Iterator:
        """As :meth:`Batches.map`, with up to AHEAD tasks per worker in flight; results come
        back in task order. Tasks not yet collected are cancelled when the consumer stops."""
        todo = iter(tasks)  # read lazily: no list of every batch of a huge run
        ahead = AHEAD * max(self.workers, 1)
        futures: collections.deque = collections.deque()

        def submit() -> None:
            t = next(todo, None)
            if t is not None:
                futures.append(self.client.submit(_on_worker, self.threads, fn, *shared, *t, pure=False))

        try:
            for _ in range(ahead):
                submit()
            while futures:
                res = futures.popleft().result()
                submit()
                yield res
        finally:
            for f in futures:
                f.cancel()

    def describe(self) -> dict:
        return {"scheduler": self.address or "local", "workers": self.workers}

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close()
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close()


def batches_for(scheduler: str | None, workers: int | None, threads: int | None = None) -> Batches:
    """The executor of --scheduler ADDRESS / --workers N (neither: this process). Raises
    ClusterError for both at once, a count below 1 or a cluster that cannot be used."""
    if scheduler is not None and workers is not None:
        raise ClusterError("--scheduler and --workers: give one (--workers starts a local cluster, "
                           "--scheduler joins a running one)")
    cores = os.cpu_count() or 1
    if workers is not None and not 1 <= workers <= cores:
        raise ClusterError(f"--workers {workers}: allowed: 1..{cores} (this machine's cores; more machines: "
                           "--scheduler)")
    if scheduler is not None and not scheduler.strip():
        raise ClusterError(f"--scheduler {scheduler!r}: give the scheduler's address, e.g. tcp://10.0.0.5:8786")
    if scheduler is None and workers is None:
        return Batches()
    return DaskBatches(scheduler, workers, threads)


#: :func:`code_hash` of this process: taken when the module is first imported, which a worker
#: does with its first task or code check (every task runs through :func:`_on_worker`)
LOADED = _source_hash()
