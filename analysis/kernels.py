"""numba kernels of the analysis: the per-card reduction of a batch (the hot loop of a study).

Self-contained (no callees in other files), so numba's own cache check on this file is
enough; the cache directory is the engine's (``simulator`` sets it on import).
"""
import numpy as np
from numba import njit

from volva import simulator  # noqa: F401  (sets numba's cache directory)


@njit(cache=True)
def card_sums_nb(order, entries, clans, totals, S, per_s, out):
    """Sums per card cell over entries (one entry = one pick or one use of a card by a clan).

    order: int64[E] entry order, by game then clan row; entries: int64[E, 3] per entry its clan
    row, cell index (strategy * per_s + (age, card[, use]) part) and pick (0 if none); clans:
    int64[R, 3] per clan row its game index (0-based), win units and Glory; totals:
    int64[n_games * S, 2] clans and wins of each strategy per game (row game * S + strategy).
    out: int64[ncell, 13] (zeros) filled with, per cell: times, pick_sum, n, w, g, g2 (over
    distinct clans), then the cluster sums c_nn, c_wn, c_ww, c_wW, c_wT, c_nW, c_nT (per game
    n_j, w_j of the clans that had it; T_j, W_j of the strategy in that game).
    """
    ncell = out.shape[0]
    last_clan = np.full(ncell, -1, np.int64)
    last_game = np.full(ncell, -1, np.int64)
    nj = np.zeros(ncell, np.int64)
    wj = np.zeros(ncell, np.int64)
    for k in range(order.shape[0]):
        i = order[k]
        r = entries[i, 0]
        c = entries[i, 1]
        out[c, 0] += 1
        out[c, 1] += entries[i, 2]
        if last_clan[c] == r:
            continue
        last_clan[c] = r
        gm = clans[r, 0]
        if last_game[c] != gm:
            if last_game[c] >= 0:
                _flush(out[c], nj[c], wj[c], totals[last_game[c] * S + c // per_s])
            last_game[c] = gm
            nj[c] = 0
            wj[c] = 0
        w = clans[r, 1]
        g = clans[r, 2]
        out[c, 2] += 1
        out[c, 3] += w
        out[c, 4] += g
        out[c, 5] += g * g
        nj[c] += 1
        wj[c] += w
    for c in range(ncell):
        if last_game[c] >= 0:
            _flush(out[c], nj[c], wj[c], totals[last_game[c] * S + c // per_s])


@njit(cache=True)
def _flush(row, n, w, tot):
    """Add one game's (n_j, w_j) of a cell to its cluster sums (row: the cell's out row; tot: the
    strategy's (T_j, W_j) in that game)."""
    T = tot[0]
    W = tot[1]
    row[6] += n * n
    row[7] += w * n
    row[8] += w * w
    row[9] += w * W
    row[10] += w * T
    row[11] += n * W
    row[12] += n * T
