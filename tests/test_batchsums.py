"""The compiled reduction of a batch (analysis.batchsums, issue 14 item 2) gives the reference's
sums: ``Stats.from_frames`` of the same batch's row frames, table by table, cluster sums included."""
from __future__ import annotations

import numpy as np
import pytest

from volva.analysis import records as R
from volva.analysis import runner, session
from volva.analysis.batchsums import batch_stats
from volva.analysis.suffstats import KEYS, Stats, checkpoints

CASES = {  # (players, lineup, modules, rule set, sweep, mode)
    "base-rotated": (4, "balanced,ragnarok-diver,thor-warlord,loki-martyr", None, "blood-rage", None, None),
    "base-mirror-asgard": (4, None, ["gods-of-asgard"], "blood-rage", None, None),
    "base-3p": (3, "balanced,greedy,greedy", None, "blood-rage", None, None),
    "valhalla-gods": (4, "thor,loki,quester,warlord", None, "valhalla", "gods", None),
    "valhalla-dice-groups": (4, "greedy,raider,turtle,greedy-dp", None, "valhalla-dice", None, None),
    "rainbow-bridge": (4, None, None, "blood-rage", None, "rainbow-bridge"),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("first,n,rotate", [(0, 240, True), (240, 122, True), (30, 90, False)])
def test_batch_stats_equal_the_reference_from_frames(case, first, n, rotate):
    players, lineup, modules, ruleset, sweep, mode = CASES[case]
    rs, names, pols = session.setup(players, lineup, session.option_args(None, modules), ruleset, None, sweep, mode)
    points = checkpoints(600)
    outs = runner.play_batch_outs(rs, names, pols, 7, first, n, rotate)
    fr = runner.reduce_batch_outs(outs, rs, points)
    ref = Stats.from_frames(fr.clans, fr.picks, fr.plays, R.card_gods(rs), points)
    got = batch_stats(outs, rs, points)
    assert got.games == ref.games == n
    for k in KEYS:
        a, b = ref.tables[k].reset_index(drop=True), got.tables[k].reset_index(drop=True)
        assert list(a.columns) == list(b.columns) and (a.dtypes == b.dtypes).all(), k
        assert a.equals(b), f"table {k} differs"
    assert len(got["draft"]) and len(got["h2h"]) and len(got["convergence"])  # the cases exercise them
    assert fr.stats.equals(ref)  # what the runner keeps is the compiled one


def test_a_batch_without_rows_keeps_the_same_stats():
    rs, names, pols = session.setup(4, None, None, "blood-rage", None, None, None)
    outs = runner.play_batch_outs(rs, names, pols, 3, 0, 40, True)
    with_rows, without = runner.reduce_batch_outs(outs, rs, None), runner.reduce_batch_outs(outs, rs, None, rows=False)
    assert len(with_rows.clans) == 160 and len(without.clans) == 0
    assert with_rows.stats.equals(without.stats) and len(without.stats["convergence"]) == 0


def test_path_prefix_codes_match_the_strings_and_refuse_a_bad_code():
    from volva.analysis.batchsums import _path_prefix
    from volva.analysis.suffstats import path_prefix
    rng = np.random.default_rng(1)
    path = rng.integers(-1, 3, size=(300, 8)).astype(np.int8)
    codes, labels = _path_prefix(path)
    import pandas as pd
    want = path_prefix(pd.Series(R.stat_path_strings(path)), 3)
    assert (labels[codes] == want).all() and "(none)" in set(want)
    path[5, 0] = 3
    with pytest.raises(ValueError, match="stat code outside"):
        _path_prefix(path)


def test_stats_add_equals_the_pandas_sum_of_both_tables():
    """Stats.add (numpy) gives suffstats._sum of the concatenated tables, dtypes included, also for
    tables read back from Parquet (a resumed run adds to what it loaded)."""
    import pandas as pd

    from volva.analysis.suffstats import _sum
    rs, names, pols = session.setup(4, "balanced,ragnarok-diver,thor-warlord,loki-martyr", None, "blood-rage",
                                    None, None, None)
    pts = checkpoints(900)
    a, b = (batch_stats(runner.play_batch_outs(rs, names, pols, 2, f, 300, True), rs, pts) for f in (0, 300))
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as d:
        a.save(Path(d))
        loaded = Stats.load(Path(d))
    for first in (a, loaded):
        total = Stats(dict(first.tables), first.games).add(b)
        for k in KEYS:
            if len(first[k]) and len(b[k]):
                want = _sum(pd.concat([first[k], b[k]], ignore_index=True), k)
                assert total[k].equals(want) and list(total[k].columns) == list(want.columns), k
    assert total.games == 600


def test_grouping_by_counting_equals_sorting():
    """suffstats._unique_inverse (counting over a small key range, np.unique over a wide one) gives
    np.unique's answer; the block sums kernel (a block's rows consecutive) gives the sorted path's."""
    from volva.analysis import suffstats as S
    rng = np.random.default_rng(3)
    for key in (rng.integers(-5, 40, 1000), rng.integers(0, 2**40, 1000), np.array([7, 7, 7]), np.zeros(0, np.int64)):
        key = key.astype(np.int64)
        uniq, inv = S._unique_inverse(key)
        u2, i2 = np.unique(key, return_inverse=True)
        assert np.array_equal(uniq, u2) and np.array_equal(inv, i2.reshape(-1))
    block = np.repeat(np.arange(300), rng.integers(1, 6, 300))  # consecutive blocks: the kernel
    inv = rng.integers(0, 7, len(block))
    w = rng.integers(0, 61, len(block))
    fast = S._block_sums(inv, 7, block, w)
    perm = rng.permutation(len(block))  # blocks scattered: the sorting path
    slow = S._block_sums(inv[perm], 7, block[perm], w[perm])
    assert all(np.array_equal(fast[k], slow[k]) for k in S.BLOCK_SUMS) and fast["c_G"].sum() > 300


@pytest.mark.parametrize("slots", [9, 130])  # a byte per god in one int64; more picks than a byte counts
def test_god_pair_kernel_equals_the_sorting_reference(slots):
    """analysis.kernels.god_pair_nb (a clan's two most-drafted gods, ties to the lower god, from
    its picks) gives suffstats.god_pair_codes of the per-god counts, ties and god-less cards included."""
    from volva.analysis import suffstats as S
    from volva.analysis.kernels import god_pair_nb
    from volva.simulator.core import enums as E
    NG = len(E.CARD_GOD_NAMES)
    rng = np.random.default_rng(5)
    card_god = rng.integers(-1, NG, 40)  # 40 card ids, some with no god
    picks = rng.integers(-1, 40, (3000, slots)).astype(np.int16)
    picks[:50] = -1  # clans with no pick
    picks[50:80, 1:] = -1  # one card each
    code = np.empty(len(picks), np.int64)
    god_pair_nb(picks, card_god, NG, code)
    counts = np.zeros((len(picks), NG), np.int64)
    for r, v in zip(*np.nonzero(picks >= 0)):
        if card_god[picks[r, v]] >= 0:
            counts[r, card_god[picks[r, v]]] += 1
    got, want = S.god_pair_ranked(code), S.god_pair_codes(counts)
    assert np.array_equal(got[0], want[0]) and list(got[1]) == list(want[1])
    assert "(none)" in set(want[1]) and any("+" not in x for x in want[1][1:])  # none, one-god and pairs seen


def test_group_moments_kernel_skips_unknown_rows():
    """group_moments_nb: rows, sums and sums of squares per group, rows of group -1 left out."""
    from volva.analysis.kernels import group_moments_nb, group_sums_nb
    vals = np.array([[1, 2], [3, -4], [5, 6]], np.int16)
    out = np.zeros((2, 5), np.int64)
    group_moments_nb(np.array([1, -1, 1], np.int64), vals, out)
    assert out.tolist() == [[0, 0, 0, 0, 0], [2, 6, 8, 26, 40]]
    sums = np.zeros((2, 2), np.int64)
    group_sums_nb(np.array([0, 1, 0], np.int64), vals.T.astype(np.int64).copy(), sums)
    assert sums.tolist() == [[6, 8], [3, -4]]


def _card_case(rng, sizes, S, M, V, L):
    """Random clan rows in seed blocks of the given sizes: (raw, lut, slots, clans, totals)."""
    block = np.repeat(np.arange(len(sizes)), sizes)
    R = len(block)
    s_code = rng.integers(0, S, R)
    w, g = rng.integers(0, 61, R), rng.integers(0, 120, R)
    raw = rng.integers(-1, V, (R, M)).astype(np.int16)
    raw[:, 1] = raw[:, 0]  # the same card twice in a clan: one clan of the cell
    per_s = 12
    lut = rng.integers(-1, per_s, (L, V, 2))
    slots = np.stack([rng.integers(0, L, M), rng.integers(0, 9, M)], axis=1).astype(np.int64)
    clans = np.stack([block, w, g, s_code], axis=1).astype(np.int64)
    tot = np.zeros((len(sizes), S, 2), np.int64)
    np.add.at(tot, (block, s_code, 0), 1)
    np.add.at(tot, (block, s_code, 1), w)
    return raw, lut, slots, clans, tot, per_s


@pytest.mark.parametrize("sizes,tabulated", [([4] * 30, True), ([16, 3, 1, 40, 9, 150, 7], False)])
def test_card_rows_kernel_equals_the_entry_list_reference(sizes, tabulated):
    """analysis.kernels.card_rows_nb (a mask of clans per cell and seed block, subset sums by table,
    or bit by bit for more than 6 clans of a strategy in a block) gives card_sums_nb of the same
    entries listed one by one: a clan with the same card twice counted once, second ('played')
    entries, empty slots, lut misses."""
    from volva.analysis.kernels import card_rows_nb, card_sums_nb
    rng = np.random.default_rng(11)
    S = 3
    raw, lut, slots, clans, tot, per_s = _card_case(rng, sizes, S, M=7, V=9, L=2)
    got = np.zeros((S * per_s, 13), np.int64)
    card_rows_nb(raw, lut, slots, clans, tot, per_s, got)
    entries = [(r, clans[r, 3] * per_s + lut[slots[m, 0], raw[r, m], j], slots[m, 1] if j == 0 else 0)
               for r in range(len(raw)) for m in range(raw.shape[1]) if raw[r, m] >= 0
               for j in range(2) if lut[slots[m, 0], raw[r, m], j] >= 0]
    entries = np.array(entries, np.int64)
    want = np.zeros_like(got)
    card_sums_nb(np.arange(len(entries), dtype=np.int64), entries, clans[:, :3].copy(),
                 tot.reshape(-1, 2), S, per_s, want)
    assert want[:, 0].sum() == len(entries) > 0 and (want[:, 6] > want[:, 2]).any()  # blocks with n_j > 1 seen
    assert np.array_equal(got, want)
    most = tot[:, :, 0].max()  # clans of one strategy in one block: the table's 6, or more (bit by bit)
    assert (most <= 6) == tabulated and most <= 62


def test_card_rows_kernel_refuses_a_block_past_its_mask():
    from volva.analysis.kernels import card_rows_nb
    raw, lut, slots, clans, tot, per_s = _card_case(np.random.default_rng(2), [70], 1, M=3, V=4, L=1)
    with pytest.raises(ValueError, match="more than 62 clans"):
        card_rows_nb(raw, lut, slots, clans, tot, per_s, np.zeros((per_s, 13), np.int64))
