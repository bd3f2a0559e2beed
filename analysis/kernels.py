"""numba kernels of the analysis: the per-card reduction of a batch (the hot loop of a study).

Self-contained (no callees in other files), so numba's own cache check on this file is
enough; the cache directory is the engine's (``simulator`` sets it on import).

Every kernel releases the GIL (``nogil=True``): a study reduces one batch while the engine plays
the next in another thread (analysis.cluster), and the engine's threads need the GIL for a moment
between slices of games (simulator.core.threads); a kernel holding it would idle them.
"""
import numpy as np
from numba import njit

from volva import simulator  # noqa: F401  (sets numba's cache directory)


@njit(cache=True, nogil=True)
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
    state = _card_state(out.shape[0])
    by_game = totals.reshape(-1, S, 2)
    for k in range(order.shape[0]):
        i = order[k]
        r = entries[i, 0]
        c = entries[i, 1]
        _card_entry(out, state, c, r, entries[i, 2], clans[r], by_game, c // per_s)
    _card_close(out, state, by_game, per_s)


@njit(cache=True, nogil=True)
def _card_state(ncell):
    """Per cell: last clan row, last game (or block), n_j and w_j of that game so far."""
    state = np.zeros((4, ncell), np.int64)
    state[0, :] = -1
    state[1, :] = -1
    return state


@njit(cache=True, inline="always")  # inlined: a call per entry passing arrays cost 3x the loop
def _card_entry(out, state, c, r, pick, clan, totals, s):
    """One entry in cell c of clan row r (clan: its game, win units, Glory; s: its strategy); a new
    game of the cell flushes the last one's (n_j, w_j) into the cluster sums (totals[game, s])."""
    gm, w, g = clan[0], clan[1], clan[2]
    out[c, 0] += 1
    out[c, 1] += pick
    if state[0, c] != r:
        state[0, c] = r
        if state[1, c] != gm:
            if state[1, c] >= 0:
                _flush(out[c], state[2, c], state[3, c], totals[state[1, c], s])
            state[1, c] = gm
            state[2, c] = 0
            state[3, c] = 0
        out[c, 2] += 1
        out[c, 3] += w
        out[c, 4] += g
        out[c, 5] += g * g
        state[2, c] += 1
        state[3, c] += w


@njit(cache=True, nogil=True)
def _card_close(out, state, totals, per_s):
    """Flush every cell's last game (totals: [game, strategy, 2])."""
    for c in range(out.shape[0]):
        if state[1, c] >= 0:
            _flush(out[c], state[2, c], state[3, c], totals[state[1, c], c // per_s])


@njit(cache=True, nogil=True, inline="always")
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


@njit(cache=True, nogil=True)
def h2h_sums_nb(seats, block, S, out):
    """Head-to-head sums per ordered (strategy, opponent) cell over the games of a batch.

    seats: int64[G, P, 3] per game (any order that keeps a seed block's games together) and seat:
    strategy code (0..S-1), win units, rank; block: int64[G] seed block of each game. out:
    int64[S * S, 10] (zeros), row ``s * S + o``, filled with pairs, games, w, ahead2 and the cluster
    sums over blocks c_G, c_mm, c_aa, c_am, c_ww, c_wm (suffstats module doc: m_b seat pairs,
    a_b their ahead2, w_b the row's win units summed over the pairs).
    """
    G, P = seats.shape[0], seats.shape[1]
    ncell = S * S
    m = np.zeros(ncell, np.int64)
    a = np.zeros(ncell, np.int64)
    w = np.zeros(ncell, np.int64)
    last_game = np.full(ncell, -1, np.int64)
    touched = np.zeros(ncell, np.int64)
    nt = 0
    for t in range(G):
        if t > 0 and block[t] != block[t - 1]:
            nt = _h2h_flush(out, touched, nt, m, a, w)
        for i in range(P):
            for j in range(P):
                if i == j:
                    continue
                c = seats[t, i, 0] * S + seats[t, j, 0]
                if m[c] == 0:
                    touched[nt] = c
                    nt += 1
                ri, rj = seats[t, i, 2], seats[t, j, 2]
                ahead = 2 * (ri < rj) + (ri == rj)
                m[c] += 1
                a[c] += ahead
                w[c] += seats[t, i, 1]
                out[c, 0] += 1
                out[c, 2] += seats[t, i, 1]
                out[c, 3] += ahead
                if last_game[c] != t:
                    last_game[c] = t
                    out[c, 1] += 1
    _h2h_flush(out, touched, nt, m, a, w)


@njit(cache=True, nogil=True)
def _h2h_flush(out, touched, nt, m, a, w):
    """Fold one block's (m_b, a_b, w_b) of the touched cells into the cluster sums; returns 0."""
    for k in range(nt):
        c = touched[k]
        out[c, 4] += 1
        out[c, 5] += m[c] * m[c]
        out[c, 6] += a[c] * a[c]
        out[c, 7] += a[c] * m[c]
        out[c, 8] += w[c] * w[c]
        out[c, 9] += w[c] * m[c]
        m[c] = 0
        a[c] = 0
        w[c] = 0
    return 0


@njit(cache=True, nogil=True)
def block_sums_nb(inv, block, w, out):
    """The cluster sums of each group over seed blocks (suffstats ``BLOCK_SUMS``).

    inv: int64[R] group index per row; block: int64[R] seed block per row, a block's rows
    consecutive; w: int64[R] win units per row; out: int64[G, 4] (zeros) filled per group with
    c_G (blocks it has rows in), c_TT, c_WW, c_WT (sums over those blocks of T_b², W_b², W_b·T_b:
    T_b its rows in block b, W_b their win units).
    """
    G = out.shape[0]
    T = np.zeros(G, np.int64)
    W = np.zeros(G, np.int64)
    touched = np.zeros(G, np.int64)
    nt = 0
    for r in range(inv.shape[0]):
        if r > 0 and block[r] != block[r - 1]:
            nt = _block_flush(out, touched, nt, T, W)
        g = inv[r]
        if T[g] == 0:
            touched[nt] = g
            nt += 1
        T[g] += 1
        W[g] += w[r]
    _block_flush(out, touched, nt, T, W)


@njit(cache=True, nogil=True)
def _block_flush(out, touched, nt, T, W):
    """Fold one block's (T_b, W_b) of the touched groups into their sums; returns 0."""
    for k in range(nt):
        g = touched[k]
        out[g, 0] += 1
        out[g, 1] += T[g] * T[g]
        out[g, 2] += W[g] * W[g]
        out[g, 3] += W[g] * T[g]
        T[g] = 0
        W[g] = 0
    return 0


@njit(cache=True, nogil=True)
def convergence_sums_nb(rows, points, S, out):
    """Cumulative sums per strategy at each checkpoint: the clans of games ``< points[k]``.

    rows: int64[R, 4] per clan row, sorted by game id: game id, seed block, strategy code, win
    units (a block's games are consecutive); points: int64[K] ascending; out: int64[K, S, 6]
    (zeros) filled with n, w, c_G, c_TT, c_WW, c_WT, where a block split by a checkpoint counts
    as the block so far (suffstats ``convergence``).
    """
    R, K = rows.shape[0], points.shape[0]
    done = np.zeros((S, 6), np.int64)  # n, w and the block sums of completed blocks
    T = np.zeros(S, np.int64)  # the current block's clans and win units per strategy
    W = np.zeros(S, np.int64)
    k = 0
    for r in range(R):
        while k < K and rows[r, 0] >= points[k]:
            _convergence_emit(out[k], done, T, W)
            k += 1
        if r > 0 and rows[r, 1] != rows[r - 1, 1]:
            for s in range(S):
                if T[s] > 0:
                    done[s, 2] += 1
                    done[s, 3] += T[s] * T[s]
                    done[s, 4] += W[s] * W[s]
                    done[s, 5] += W[s] * T[s]
                    T[s] = 0
                    W[s] = 0
        s = rows[r, 2]
        done[s, 0] += 1
        done[s, 1] += rows[r, 3]
        T[s] += 1
        W[s] += rows[r, 3]
    while k < K:
        _convergence_emit(out[k], done, T, W)
        k += 1


@njit(cache=True, nogil=True)
def _convergence_emit(row, done, T, W):
    """One checkpoint's sums (row: int64[S, 6]): the completed blocks plus the current one so far."""
    for s in range(done.shape[0]):
        row[s, 0] = done[s, 0]
        row[s, 1] = done[s, 1]
        row[s, 2] = done[s, 2] + (T[s] > 0)
        row[s, 3] = done[s, 3] + T[s] * T[s]
        row[s, 4] = done[s, 4] + W[s] * W[s]
        row[s, 5] = done[s, 5] + W[s] * T[s]


@njit(cache=True, nogil=True)
def card_rows_nb(raw, lut, slots, clans, totals, per_s, out):
    """:func:`card_sums_nb` straight from the engine's per-seat card arrays (no entry list).

    raw: int[R, M] (any integer dtype) per clan row (rows in game order, a seed block's rows
    consecutive) its M slots (picks or uses as the engine stores them), -1 empty; slots:
    int64[M, 2] per slot its row of ``lut`` and its pick number (0 if none); lut: int64[L, V, 2]
    per (lut row, slot value) the cell part (age, card[, use]) of the entry and of a second entry
    (the 'played' use), -1 none; clans: int64[R, 4] seed block, win units, Glory and strategy code
    of each row (cell = strategy * per_s + part); totals: int64[blocks, S, 2] clans and win units
    of each strategy per block; out as card_sums_nb. Raises ValueError for a seed block with more
    than 62 clans of one strategy (a rotation has at most 6 x 6).

    The sums run on the parts ``lut`` can give only, renumbered densely (a card of an age deck
    has one age: a quarter of the parts). Per seed block an entry only sets its clan's bit in the
    cell's mask; then each cell the block touched adds the block's n_j, w_j, Glory and Glory**2,
    looked up by mask in a table of subset sums of the strategy's clans in the block. The sums
    then change once per (block, cell), not per entry, and no step branches on a cell's state
    (an entry-by-entry update, which did, cost 1.2x to 1.3x as much).
    """
    dense = np.full(per_s, -1, np.int64)
    parts = np.zeros(per_s, np.int64)
    nd = 0
    dlut = np.full(lut.shape, -1, np.int64)
    for i in range(lut.shape[0]):
        for v in range(lut.shape[1]):
            for j in range(2):
                p = lut[i, v, j]
                if p >= 0:
                    if dense[p] < 0:
                        dense[p] = nd
                        parts[nd] = p
                        nd += 1
                    dlut[i, v, j] = dense[p]
    S = out.shape[0] // per_s
    cell = np.zeros((S * nd, 14), np.int64)  # out's 13 columns, then the clans' mask in the block
    if not _card_masks(raw, dlut, slots, clans, totals, nd, cell):
        raise ValueError("card_rows_nb: a seed block has more than 62 clans of one strategy")
    for s in range(S):
        for k in range(nd):
            rec, row = cell[s * nd + k], out[s * per_s + parts[k]]
            for j in range(13):
                row[j] = rec[j]


_MASK_BITS = 62  #: clans of one strategy in a seed block card_rows_nb can tell apart (bits of an int64 mask)
_TABULATED = 6  #: up to this many of them, a block's subset sums are tabulated (2**6 masks); more are summed bit by bit


@njit(cache=True, nogil=True)
def _card_masks(raw, dlut, slots, clans, totals, nd, cell):
    """card_rows_nb's loop over seed blocks (cell: int64[S * nd, 14]); False if a block has too
    many clans of a strategy."""
    S = cell.shape[0] // nd
    touched = np.empty(S * nd, np.int64)  # the block's cells
    members_of = np.zeros(S, np.int64)  # the block's clans of each strategy, and their rows
    members = np.zeros((S, _MASK_BITS), np.int64)
    table = np.zeros((S, 1 << _TABULATED, 4), np.int64)  # (n, w, g, g2) of each mask of them
    R = raw.shape[0]
    r0 = 0
    while r0 < R:
        b = clans[r0, 0]
        r1 = r0
        while r1 < R and clans[r1, 0] == b:
            r1 += 1
        members_of[:] = 0
        nt = 0
        for r in range(r0, r1):
            s = clans[r, 3]
            q = members_of[s]
            if q == _MASK_BITS:
                return False
            members_of[s] = q + 1
            members[s, q] = r
            bit = np.int64(1) << q
            for m in range(raw.shape[1]):
                v = raw[r, m]
                if v < 0:
                    continue
                for j in range(2):
                    k = dlut[slots[m, 0], v, j]
                    if k >= 0:
                        rec = cell[s * nd + k]
                        before = rec[13]
                        rec[13] = before | bit
                        rec[0] += 1
                        rec[1] += slots[m, 1] if j == 0 else 0
                        touched[nt] = s * nd + k
                        nt += before == 0  # kept only for the cell's first clan in the block
        for s in range(members_of.shape[0]):
            q = members_of[s]
            if 0 < q <= _TABULATED:
                for i in range(q):  # masks with bit i: those without it, plus clan i
                    r = members[s, i]
                    w, g = clans[r, 1], clans[r, 2]
                    for x in range(1 << i):
                        table[s, x | (1 << i), 0] = table[s, x, 0] + 1
                        table[s, x | (1 << i), 1] = table[s, x, 1] + w
                        table[s, x | (1 << i), 2] = table[s, x, 2] + g
                        table[s, x | (1 << i), 3] = table[s, x, 3] + g * g
        for t in range(nt):
            c = touched[t]
            s = c // nd
            rec = cell[c]
            mask = rec[13]
            rec[13] = 0
            if members_of[s] <= _TABULATED:
                n, w, g, g2 = table[s, mask, 0], table[s, mask, 1], table[s, mask, 2], table[s, mask, 3]
            else:
                n = w = g = g2 = 0
                for i in range(members_of[s]):
                    if (mask >> i) & 1:
                        r = members[s, i]
                        n += 1
                        w += clans[r, 1]
                        g += clans[r, 2]
                        g2 += clans[r, 2] * clans[r, 2]
            rec[2] += n
            rec[3] += w
            rec[4] += g
            rec[5] += g2
            _flush(rec, n, w, totals[b, s])
        r0 = r1
    return True


#: paired_card_sums_nb's columns: the CELL_Q products of (wdA, ndA, wdB, ndB) with (.., WA, WB, T), then
#: the holder sums of the variant's drafters (h_) and of the clans that drafted the card in both arms
#: (k_), the cross moments x_dD, x_dT, x_nD, x_nT, and the blocks the cell was drafted in
PAIRED_CARD_COLS = 22 + 7 + 7 + 4 + 1


@njit(cache=True, nogil=True)
def paired_card_sums_nb(rows, arm_a, arm_b, dims, out):
    """Sums per card cell (strategy, age, card) of a paired batch (analysis.pairsums.card_sums).

    rows: int64[R, 4] per clan row (the same game and seat in both arms; a seed block's rows
    consecutive) its seed block, strategy code, win units in arm A and in arm B; arm_a, arm_b:
    (raw int64[R, M], slot_age int64[M], code int64[V]) the arm's drafted card ids per clan row
    (M slots, -1 empty), the age of each slot and the card code (on the names of both arms) of
    each id, -1 none; dims: (S, NA, C) strategies, ages + 1, card codes (cell = (s * NA + age) * C
    + code); out: int64[S * NA * C, PAIRED_CARD_COLS] (zeros) filled. A clan's repeated draft of
    a card in an age counts once.
    """
    S, NA, C = dims
    per_s = NA * C
    ncell = S * per_s
    acc = np.zeros((ncell, 10), np.int64)  # wdA ndA wdB ndB, then n d d2 of h_ and of k_
    seen = np.full((2, ncell), -1, np.int64)  # the last clan row with the cell, per arm
    stamp = np.full(ncell, -1, np.int64)  # the last block with the cell
    touched = np.zeros(ncell, np.int64)
    tot = np.zeros((S, 3), np.int64)  # per strategy in the block: WA, WB, T
    V = np.zeros(7, np.int64)
    R = rows.shape[0]
    r0 = 0
    while r0 < R:
        blk = rows[r0, 0]
        r1 = r0
        tot[:, :] = 0
        while r1 < R and rows[r1, 0] == blk:
            s = rows[r1, 1]
            tot[s, 0] += rows[r1, 2]
            tot[s, 1] += rows[r1, 3]
            tot[s, 2] += 1
            r1 += 1
        nt = 0
        for r in range(r0, r1):
            nt = _paired_drafts(r, rows, arm_a, arm_b, (per_s, C), (acc, seen, stamp, touched), nt)
        _paired_flush(out, acc, touched, nt, tot, V, per_s)
        r0 = r1


@njit(cache=True, nogil=True, _nrt=False)
def _paired_drafts(r, rows, arm_a, arm_b, dims, work, nt):
    """Clan row r's distinct drafts of each arm into acc; returns the touched count."""
    per_s, C = dims
    acc, seen, stamp, touched = work
    blk, base = rows[r, 0], rows[r, 1] * per_s
    wa, wb = rows[r, 2], rows[r, 3]
    dv = wb - wa
    for arm in range(2):
        raw, slot_age, code = arm_a if arm == 0 else arm_b
        for m in range(raw.shape[1]):
            v = raw[r, m]
            if v < 0 or code[v] < 0:
                continue
            c = base + slot_age[m] * C + code[v]
            if seen[arm, c] == r:
                continue
            seen[arm, c] = r
            if stamp[c] != blk:
                stamp[c] = blk
                touched[nt] = c
                nt += 1
            if arm == 0:
                acc[c, 0] += wa
                acc[c, 1] += 1
            else:
                acc[c, 2] += wb
                acc[c, 3] += 1
                acc[c, 4] += 1
                acc[c, 5] += dv
                acc[c, 6] += dv * dv
                if seen[0, c] == r:  # drafted in both arms
                    acc[c, 7] += 1
                    acc[c, 8] += dv
                    acc[c, 9] += dv * dv
    return nt


@njit(cache=True, nogil=True)
def _paired_flush(out, acc, touched, nt, tot, V, per_s):
    """Fold one block's sums of the touched cells into out (see paired_card_sums_nb); resets acc."""
    for t in range(nt):
        c = touched[t]
        s = c // per_s
        for i in range(4):
            V[i] = acc[c, i]
        for i in range(3):
            V[4 + i] = tot[s, i]
        j = 0
        for x in range(4):
            for y in range(x, 7):
                out[c, j] += V[x] * V[y]
                j += 1
        for k in range(2):  # h_ then k_: n, d, d2, c_G, c_nn, c_dd, c_dn
            n, d, d2 = acc[c, 4 + 3 * k], acc[c, 5 + 3 * k], acc[c, 6 + 3 * k]
            o = 22 + 7 * k
            out[c, o] += n
            out[c, o + 1] += d
            out[c, o + 2] += d2
            out[c, o + 3] += 1 if n > 0 else 0
            out[c, o + 4] += n * n
            out[c, o + 5] += d * d
            out[c, o + 6] += d * n
        n, d = acc[c, 4], acc[c, 5]
        D, T = tot[s, 1] - tot[s, 0], tot[s, 2]
        out[c, 36] += d * D
        out[c, 37] += d * T
        out[c, 38] += n * D
        out[c, 39] += n * T
        out[c, 40] += 1
        acc[c, :] = 0


@njit(cache=True, nogil=True)
def group_sums_nb(inv, vals, out):
    """Integer sums per group: out[inv[r], j] += vals[j, r] (inv: int64[R] group index per row;
    vals: int64[V, R], one row per summed column; out: int64[G, V], zeros). One pass where ``np.bincount``
    takes one per column."""
    for r in range(inv.shape[0]):
        g = inv[r]
        for j in range(vals.shape[0]):
            out[g, j] += vals[j, r]


@njit(cache=True, nogil=True)
def group_moments_nb(inv, vals, out):
    """Rows, sums and sums of squares per group: for each row r with inv[r] >= 0 (inv: int64[R];
    vals: int[R, V] any integer dtype), out[g, 0] += 1, out[g, 1 + j] += vals[r, j] and
    out[g, 1 + V + j] += vals[r, j]**2, g = inv[r] (out: int64[G, 1 + 2V], zeros)."""
    V = vals.shape[1]
    for r in range(vals.shape[0]):
        g = inv[r]
        if g < 0:
            continue
        out[g, 0] += 1
        for j in range(V):
            x = np.int64(vals[r, j])
            out[g, 1 + j] += x
            out[g, 1 + V + j] += x * x


@njit(cache=True, nogil=True)
def god_pair_nb(picks, card_god, NG, code):
    """Each clan row's drafted god pair (suffstats.god_pair_codes): picks: int[R, M] drafted card
    ids (-1 empty); card_god: int64[cards] god index of each card (-1 none); code: int64[R] set to
    -1 (no god card), g * NG + g (one god) or a * NG + b, a < b: the two gods the clan drafted most
    cards of (ties to the lower god index)."""
    counts = np.zeros(NG, np.int64)
    if NG <= 8 and picks.shape[1] < 128:  # a byte per god in one int64: no store per pick
        inc = np.zeros(card_god.shape[0], np.int64)
        for v in range(card_god.shape[0]):
            if card_god[v] >= 0:
                inc[v] = np.int64(1) << (8 * card_god[v])
        for r in range(picks.shape[0]):
            packed = np.int64(0)
            for m in range(picks.shape[1]):
                v = picks[r, m]
                if v >= 0:
                    packed += inc[v]
            for g in range(NG):
                counts[g] = (packed >> (8 * g)) & 255
            code[r] = _top_two(counts, NG)
        return
    for r in range(picks.shape[0]):
        counts[:] = 0
        for m in range(picks.shape[1]):
            v = picks[r, m]
            if v >= 0 and card_god[v] >= 0:
                counts[card_god[v]] += 1
        code[r] = _top_two(counts, NG)


@njit(cache=True, inline="always")
def _top_two(counts, NG):
    """god_pair_nb's code of one clan's god counts."""
    a = 0
    for g in range(1, NG):
        if counts[g] > counts[a]:
            a = g
    b = 1 if a == 0 else 0
    for g in range(NG):
        if g != a and counts[g] > counts[b]:
            b = g
    if counts[a] == 0:
        return -1
    if counts[b] == 0:
        return a * NG + a
    return min(a, b) * NG + max(a, b)
