"""Games of one batch spread over threads, each thread playing slices in a compiled kernel
that releases the GIL (``nogil=True``).

This replaces a ``prange`` batch kernel: numba compiles a parallel kernel as a gufunc whose
library links, re-optimises and re-emits the whole engine twice more, a tenth of the engine's
cold compile; threads over a serial kernel compile nothing extra and play the same games
(a game is a function of its seed only, and each writes its own record).

The thread count is numba's (``numba.get_num_threads()`` of the calling thread, so
``--threads`` and ``numba.set_num_threads`` keep their meaning). Slices are handed out in
order from a shared queue, several per thread and shorter as the batch runs out, so a thread
that drew short games takes more and the threads finish together.
Python runs once per slice (a few dozen per batch), never per game. A thread with nothing else
to do may join a spread's slices (``leave_a_place`` / ``join_until``: the pipeline's main thread
once it has reduced the last batch); the spread returns only when every slice taken is written.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager

import numba

#: a slice takes 1/(SLICE_SHARE x threads) of the games still to hand out: large slices first,
#: small ones last, so that the threads finish a batch together with few slices in all
SLICE_SHARE = 4

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=max(1, numba.config.NUMBA_NUM_THREADS - 1),
                                       thread_name_prefix="volva-play")
        return _pool


def slices(n: int, threads: int, least: int) -> list[tuple[int, int]]:
    """Contiguous (lo, hi) slices covering 0..n-1, each 1/(SLICE_SHARE x threads) of the games
    after its start (rounded up) but at least ``least`` (the last may be shorter): sizes never
    grow, so the last slices handed out are short and no thread waits long for another at the
    end of a batch (with eight equal slices per thread it waited half a slice on average).
    About SLICE_SHARE x threads x (1 + ln(n / (SLICE_SHARE x threads x least))) slices, Python
    running once for each."""
    out, lo = [], 0
    while lo < n:
        size = max(least, -(-(n - lo) // (threads * SLICE_SHARE)))
        out.append((lo, min(lo + size, n)))
        lo += size
    return out


def spread(n: int, play: Callable[[int, int], None], least: int = 8) -> None:
    """Call ``play(lo, hi)`` once for every slice of games 0..n-1, on numba.get_num_threads()
    threads (the caller's among them). ``play`` must write only the records lo..hi-1 and release
    the GIL while it plays. The first exception any slice raises is raised here, after the
    threads have stopped taking slices."""
    threads = numba.get_num_threads()
    stoppable = getattr(_local, "stop", None) is not None  # a pipeline's batch: slices, so it can stop between them
    if threads == 1 and not stoppable:  # one slice: nothing to balance
        if n > 0:
            play(0, n)
        return
    todo = slices(n, threads, least)
    if len(todo) <= 1 and not stoppable:
        for lo, hi in todo:
            play(lo, hi)
        return
    _share(max(1, min(threads, len(todo))), todo, lambda s: play(*s))


def spread_calls(calls: list[Callable[[], object]]) -> list:
    """``[c() for c in calls]``, the calls shared out over numba.get_num_threads() threads (the
    caller's among them), each call on one thread: for many small batches (a tuning trial's
    lineups of a few dozen games each), whose own slices are too few to keep two threads busy.
    Each call must release the GIL while it plays and return its own result; results come back in
    the order of ``calls``. The first exception any call raises is raised here."""
    threads = min(numba.get_num_threads(), len(calls))
    if threads <= 1:
        return [c() for c in calls]
    out: list = [None] * len(calls)

    def run(i: int) -> None:
        out[i] = calls[i]()
    _share(threads, range(len(calls)), run, one_numba_thread=True)
    return out


class Abandoned(Exception):
    """A pipeline's batch stopped between slices because nobody will read it (see leave_a_place)."""


class _Share:
    """Items taken in order from one queue by the threads that work on it; ``busy`` counts the
    items being run, so the owner can wait for a joiner's last one. Once ``stop`` is set no item
    is taken and the owner raises :class:`Abandoned`."""

    def __init__(self, items, run: Callable, one_numba_thread: bool, stop: threading.Event | None = None):
        self.queue = iter(items)
        self.run = run
        self.one_numba_thread = one_numba_thread
        self.stop = stop
        self.lock = threading.Condition()
        self.busy = 0
        self.error: BaseException | None = None  #: the first item's error (no item is taken after it)

    def work(self) -> None:
        """Run items until none is left or one has failed (its error is kept in ``error``)."""
        before = numba.get_num_threads()
        if self.one_numba_thread:
            numba.set_num_threads(1)  # this thread's count: an item plays its games here, not spread again
        try:
            while True:
                with self.lock:
                    if self.error is None and self.stop is not None and self.stop.is_set():
                        self.error = Abandoned("the pipeline that asked for this batch has stopped")
                    nxt = None if self.error is not None else next(self.queue, None)
                    if nxt is None:
                        return
                    self.busy += 1
                try:
                    self.run(nxt)
                except BaseException as exc:  # noqa: BLE001 - kept, raised by the owner
                    with self.lock:
                        self.error = self.error or exc
                finally:
                    with self.lock:
                        self.busy -= 1
                        self.lock.notify_all()
        finally:
            if self.one_numba_thread:
                numba.set_num_threads(before)

    def idle(self) -> None:
        """Wait until no thread is running an item."""
        with self.lock:
            while self.busy:
                self.lock.wait()


# A pipelined run (analysis.cluster) reduces batch k on its main thread while the engine plays
# batch k+1. With --threads T the engine starts T - 2 helpers beside its own thread
# (``leave_a_place``) and the main thread, once it has reduced, joins the open slices
# (``join_until``): T threads run at any time, never T + 1. One more runnable thread than cores
# cost the two-thread study a tenth of its rate, the threads evicting each other's caches.
_open: list[_Share] = []
_open_changed = threading.Condition()
_local = threading.local()


@contextmanager
def leave_a_place(stop: threading.Event | None = None):
    """Within the block, this thread's spreads start one helper fewer and let a thread calling
    :func:`join_until` take that place; once ``stop`` is set they take no further slice and
    raise :class:`Abandoned` (a batch nobody will read: its pipeline's consumer has gone)."""
    before = getattr(_local, "spare", 0), getattr(_local, "stop", None)
    _local.spare, _local.stop = 1, stop
    try:
        yield
    finally:
        _local.spare, _local.stop = before


def join_until(done: Future) -> None:
    """Work on the slices of the spreads opened under :func:`leave_a_place` until ``done`` is
    done (slices, not whole batches: the thread that opened a spread still returns its result)."""
    wake = lambda _f: _notify()  # noqa: E731
    done.add_done_callback(wake)
    while True:
        with _open_changed:
            while not _open and not done.done():
                _open_changed.wait()
            if done.done():
                return
            share = _open[-1]
        share.work()
        with _open_changed:  # a share with nothing left to take stays listed until its owner closes it
            while _open and _open[-1] is share and not done.done():
                _open_changed.wait()


def _notify() -> None:
    with _open_changed:
        _open_changed.notify_all()


def _share(threads: int, items, run: Callable, one_numba_thread: bool = False) -> None:
    """``run(item)`` for every item, taken in order from a shared queue by ``threads`` threads
    (the caller and pool helpers; under :func:`leave_a_place`, one helper fewer and room for a
    joiner). With ``one_numba_thread`` each thread sees numba's thread count as 1 while it runs
    (restored after). The first exception is raised once every thread has stopped taking items
    and none is running one."""
    share = _Share(items, run, one_numba_thread, getattr(_local, "stop", None))
    spare = min(getattr(_local, "spare", 0), threads - 1)
    if spare:
        with _open_changed:
            _open.append(share)
            _open_changed.notify_all()
    helpers = [_executor().submit(share.work) for _ in range(threads - 1 - spare)]
    try:
        share.work()
    finally:
        if spare:
            with _open_changed:
                _open.remove(share)
                _open_changed.notify_all()
        for f in helpers:
            f.result()
        share.idle()
    if share.error is not None:
        raise share.error
