"""numba kernels of the analysis: the per-card reduction of a batch (the hot loop of a study).

Self-contained (no callees in other files), so numba's own cache check on this file is
enough; the cache directory is the engine's (``simulator`` sets it on import).
"""
import numpy as np
from numba import njit

import simulator  # noqa: F401  (sets numba's cache directory)


@njit(cache=True)
def card_sums_nb(order, rows, cell, pick, clan_game, clan_w, clan_g, tot_T, tot_W, S, per_s, out):
    """Sums per card cell over entries (one entry = one pick or one use of a card by a clan).

    order: int64[E] entry order, by game then clan row; rows: int64[E] clan row of each entry;
    cell: int64[E] cell index, strategy * per_s + (age, card[, use]) part; pick: int64[E] (0 if
    none); clan_game/clan_w/clan_g: int64[R] game index (0-based), win units and Glory of each
    clan row; tot_T/tot_W: int64[n_games * S] clans and wins of each strategy per game.
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
        c = cell[i]
        r = rows[i]
        out[c, 0] += 1
        out[c, 1] += pick[i]
        if last_clan[c] == r:
            continue
        last_clan[c] = r
        gm = clan_game[r]
        if last_game[c] != gm:
            if last_game[c] >= 0:
                _flush(out, c, nj[c], wj[c], last_game[c], c // per_s, tot_T, tot_W, S)
            last_game[c] = gm
            nj[c] = 0
            wj[c] = 0
        w = clan_w[r]
        g = clan_g[r]
        out[c, 2] += 1
        out[c, 3] += w
        out[c, 4] += g
        out[c, 5] += g * g
        nj[c] += 1
        wj[c] += w
    for c in range(ncell):
        if last_game[c] >= 0:
            _flush(out, c, nj[c], wj[c], last_game[c], c // per_s, tot_T, tot_W, S)


@njit(cache=True)
def _flush(out, c, n, w, game, s, tot_T, tot_W, S):
    """Add one game's (n_j, w_j) of cell c, strategy s, to its cluster sums."""
    T = tot_T[game * S + s]
    W = tot_W[game * S + s]
    out[c, 6] += n * n
    out[c, 7] += w * n
    out[c, 8] += w * w
    out[c, 9] += w * W
    out[c, 10] += w * T
    out[c, 11] += n * W
    out[c, 12] += n * T
