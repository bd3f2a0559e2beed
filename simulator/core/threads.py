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
Python runs once per slice (a few dozen per batch), never per game.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

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
    if threads == 1:  # one slice: nothing to balance
        if n > 0:
            play(0, n)
        return
    todo = slices(n, threads, least)
    if len(todo) <= 1:
        for lo, hi in todo:
            play(lo, hi)
        return
    _share(min(threads, len(todo)), todo, lambda s: play(*s))


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


def _share(threads: int, items, run: Callable, one_numba_thread: bool = False) -> None:
    """``run(item)`` for every item, taken in order from a shared queue by ``threads`` threads
    (the caller and pool helpers). With ``one_numba_thread`` each thread sees numba's thread count
    as 1 while it runs (restored after). The first exception (the caller's first) is raised once
    every thread has stopped taking items."""
    queue = iter(items)
    take = threading.Lock()
    stop = threading.Event()

    def worker() -> None:
        before = numba.get_num_threads()
        if one_numba_thread:
            numba.set_num_threads(1)  # this thread's count: an item plays its games here, not spread again
        try:
            while not stop.is_set():
                with take:
                    nxt = next(queue, None)
                if nxt is None:
                    return
                try:
                    run(nxt)
                except BaseException:
                    stop.set()
                    raise
        finally:
            if one_numba_thread:
                numba.set_num_threads(before)

    helpers = [_executor().submit(worker) for _ in range(threads - 1)]
    error = None
    try:
        worker()
    except BaseException as exc:  # noqa: BLE001 - re-raised below, after the helpers stopped
        error = exc
    for f in helpers:
        try:
            f.result()
        except BaseException as exc:  # noqa: BLE001 - the first one wins
            error = error or exc
    if error is not None:
        raise error
