"""core.threads.spread: the slices of a batch cover every game once, on numba's thread count,
and an error in any slice reaches the caller (the engines' batch path, issue 14); spread_calls: many
small batches shared out over the threads, one per thread at a time."""
import math
import threading
import time

import numba
import pytest

from volva.simulator.core.threads import SLICE_SHARE, slices, spread, spread_calls


@pytest.mark.parametrize("n,threads,least", [(0, 2, 8), (1, 2, 8), (40, 2, 8), (20_000, 2, 8), (50_000, 2, 8),
                                             (1001, 3, 8), (7, 1, 8)])
def test_slices_cover_each_game_once_shorter_as_the_batch_runs_out(n, threads, least):
    """Every game once, in order; no slice but the last under ``least``, none longer than the one
    before (so the last handed out are short: the threads finish a batch together), the first
    1/(SLICE_SHARE x threads) of the batch, and few slices in all (Python runs once for each)."""
    s = slices(n, threads, least)
    covered = [g for lo, hi in s for g in range(lo, hi)]
    assert covered == list(range(n))
    sizes = [hi - lo for lo, hi in s]
    assert all(k >= least for k in sizes[:-1])
    assert all(a >= b for a, b in zip(sizes, sizes[1:]))
    k = threads * SLICE_SHARE
    if n >= k * least:
        assert sizes[0] == -(-n // k) and sizes[-1] <= least
        assert len(s) <= k * (2 + math.log(n / (k * least)))
    if n == 50_000:
        assert 40 <= len(s) <= 60 and sum(sizes[-4:]) <= 100  # the last four slices: 100 games at most


def test_spread_plays_every_slice_once_on_several_threads():
    calls, names = [], set()
    lock = threading.Lock()

    def play(lo, hi):
        with lock:
            calls.append((lo, hi))
            names.add(threading.current_thread().name)
        time.sleep(0.005)  # releases the GIL, as the nogil kernels do

    old = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        spread(1000, play)
    finally:
        numba.set_num_threads(old)
    t = min(2, numba.config.NUMBA_NUM_THREADS)
    assert sorted(calls) == (slices(1000, t, 8) if t > 1 else [(0, 1000)])  # one thread: one slice
    assert len(names) == min(2, numba.config.NUMBA_NUM_THREADS)  # the caller and one helper


@pytest.mark.parametrize("threads", [1, 2])
def test_spread_raises_the_error_of_a_slice(threads):
    """The error of the slice holding game 500 reaches the caller, on one thread (one slice) and
    on two."""
    def play(lo, hi):
        if lo <= 500 < hi:
            raise ValueError(f"slice {lo}")

    old = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        with pytest.raises(ValueError, match="slice"):
            spread(1000, play)
    finally:
        numba.set_num_threads(old)


def test_spread_calls_returns_each_result_in_order_with_one_numba_thread_per_call():
    """core.threads.spread_calls (many small batches, e.g. a tuning trial's lineups): every call
    once, results in the order of the calls, each call seeing one numba thread (so its own batch
    is not spread again), and the caller's thread count restored."""
    seen, names = [], set()
    lock = threading.Lock()

    def call(i):
        def run():
            with lock:
                seen.append((i, numba.get_num_threads()))
                names.add(threading.current_thread().name)
            time.sleep(0.005)
            return i * i
        return run

    old = numba.get_num_threads()
    two = min(2, numba.config.NUMBA_NUM_THREADS)
    numba.set_num_threads(two)
    try:
        out = spread_calls([call(i) for i in range(12)])
        assert numba.get_num_threads() == two
    finally:
        numba.set_num_threads(old)
    assert out == [i * i for i in range(12)]
    assert sorted(i for i, _ in seen) == list(range(12))
    assert {n for _, n in seen} == ({1} if two > 1 else {two})
    assert len(names) == two


def test_spread_calls_raises_the_error_of_a_call():
    def bad():
        raise ValueError("call 3")

    with pytest.raises(ValueError, match="call 3"):
        spread_calls([lambda: 1, lambda: 2, bad, lambda: 4])


def test_play_in_blocks_copies_each_game_of_each_block_to_its_row():
    """core.batch.play_in_blocks: games played into a reused block buffer land in their own output
    rows, P seats; a field never written keeps new_batch_record's value (-1 padding or 0)."""
    import numpy as np

    from volva.simulator.core.batch import BATCH_DTYPE, RECORD_BLOCK, play_in_blocks

    G, P = 3 * RECORD_BLOCK + 17, 3  # blocks of every slice, the last short
    seen = []

    def play(lo, hi, rec, buf):
        assert rec.shape[0] == hi - lo <= RECORD_BLOCK and buf.shape == (1,)
        seen.append((lo, hi))
        g = np.arange(lo, hi)
        rec["n_turns"] = g
        rec["glory"][:, :, 0] = g[:, None] * 10 + np.arange(rec["glory"].shape[1])
        rec["fired"][:, 5] = g % 7

    old = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        out = play_in_blocks(G, P, BATCH_DTYPE, np.dtype(np.int64), play)
    finally:
        numba.set_num_threads(old)
    assert sorted(g for lo, hi in seen for g in range(lo, hi)) == list(range(G))
    assert out.n_turns.tolist() == list(range(G))
    assert out.glory.shape == (G, P, BATCH_DTYPE["glory"].shape[1])
    assert (out.glory[:, :, 0] == np.arange(G)[:, None] * 10 + np.arange(P)).all()
    assert (out.glory[:, :, 1:] == 0).all() and (out.fired[:, 5] == np.arange(G) % 7).all()
    assert (out.picks == -1).all() and (out.uses == -1).all() and (out.rank == 0).all()


def _opened_spread(n, play, finished=()):
    """spread(n, play) on two numba threads under leave_a_place, in a thread of its own: (the
    future of (its thread's name, len(finished) when spread returned), the pool)."""
    from concurrent.futures import ThreadPoolExecutor

    from volva.simulator.core.threads import leave_a_place

    def owner():
        numba.set_num_threads(2)
        with leave_a_place():
            spread(n, play)
        return threading.current_thread().name, len(finished)
    pool = ThreadPoolExecutor(1, thread_name_prefix="owner")
    return pool.submit(owner), pool


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
def test_a_joiner_takes_the_place_left_and_the_owner_waits_for_its_last_slice():
    """The pipeline's main thread joins the engine's slices once it has reduced (join_until): under
    leave_a_place the owner starts no helper, the joiner plays slices beside it, every slice once,
    and the owner returns only after the joiner's last slice is written, so a batch is never
    handed on with games missing."""
    from volva.simulator.core.threads import join_until

    calls, names, finished = [], set(), []
    lock = threading.Lock()

    def play(lo, hi):
        with lock:
            calls.append((lo, hi))
            names.add(threading.current_thread().name)
        time.sleep(0.02 if threading.current_thread() is threading.main_thread() else 0.005)
        with lock:
            finished.append((lo, hi))

    done, pool = _opened_spread(1000, play, finished)
    time.sleep(0.03)  # the owner plays alone first (as while this thread reduces)
    join_until(done)
    owner, n_done = done.result()  # n_done: slices written when the owner's spread returned
    pool.shutdown()
    assert sorted(calls) == slices(1000, 2, 8) and n_done == len(calls)
    assert names == {owner, threading.main_thread().name}  # the owner and the joiner, no pool helper


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
def test_an_error_in_a_joined_slice_reaches_the_owner():
    """A slice that fails on the joining thread fails the owner's spread (and so the batch), and
    join_until returns once the owner is done."""
    from volva.simulator.core.threads import join_until

    def play(lo, hi):
        if threading.current_thread() is threading.main_thread():
            raise ValueError(f"joined slice {lo}")
        time.sleep(0.005)

    done, pool = _opened_spread(1000, play)
    join_until(done)
    with pytest.raises(ValueError, match="joined slice"):
        done.result()
    pool.shutdown()


def test_join_until_returns_at_once_for_a_done_future():
    from concurrent.futures import Future

    from volva.simulator.core.threads import join_until
    f = Future()
    f.set_result(1)
    join_until(f)
    assert f.result() == 1
