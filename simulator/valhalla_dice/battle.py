"""Battle kernels of Valhalla, the dice game (003 l.90–130; DIGEST §5.6–5.8).

A battle is the attacker's phase, then the defender's: each side rolls its dice, rerolls (each
paid reroll discards one unplaced die, DIGEST §5.6), may use Push back, New weapons and Weapons
exchange, and arms Warriors at the end of its phase (DIGEST §5.6 item 8). Every side is given
as arrays of its team (one row per Warrior): ``need`` int8[T, 5] specific symbols, ``any_need``
int8[T] Ice Giant symbols (dice.ANY_PAIR: any two different weapons, two_any_reading=wild),
``strength`` int32[T] strength with powers included (powers depend on team composition only,
DIGEST §5.8, so the engine adds them before the battle), ``giant`` bool[T] (the Ice Giant die
power).

Arming policies (``ARM_*``):
- ``ARM_GREEDY``: keep the dice of the best armed set plus those the cheapest unarmed Warrior
  needs; stop when no Warrior can still be completed (the design note's keep rule, §3.3).
- ``ARM_DP``: the exact optimum of :mod:`.dice` (backward induction over dice multisets) for the
  side's objective, recomputed per phase.
- ``ARM_NONE``: no reroll (a baseline for studies).

Objectives: the attacker maximises E[strength] (cheap; the design note measured ≤ 0.5 pp lost
against maximising P(win)); the defender maximises P(strength > the attacker's), or ≥ when it
wins ties (DIGEST §5.6 item 4; a Jarl's ``defender_ties``).
"""
import numpy as np
from numba import njit

from ..core.canon import canonical
from ..core.rng import rand_float_nb
from .dice import ANY_PAIR, BANK_IDENT, FACE_X, NF, armable_nb, best_strength_nb, keeper_value_nb, solve_nb

ARM_GREEDY = 0
ARM_DP = 1
ARM_NONE = 2

# battle outcome codes (battle_nb)
NO_WINNER = 0  #: the attacker armed nobody (003 l.105)
ATTACKER_WINS = 1
DEFENDER_WINS = 2

# a side's phase settings (int64[N_CFG]); the budgets are used up in place
B_REROLLS = 0  #: paid rerolls allowed (9: as the pool allows)
B_FREE = 1  #: free rerolls (Push back: 2 a card; Jarl free_reroll)
B_NEW = 2  #: New weapons cards
B_XWILD = 3  #: X dice counting as any weapon at the end (Weapons exchange x_only: 6; Jarl x_wild;
#: all_one: dice.XW_ALL_ONE)
C_POLICY = 4  #: ARM_*
C_DICE = 5  #: dice rolled (before the opponent's Ice Giant)
C_BONUS = 6  #: strength added when ≥ 1 Warrior is armed (strength Tactics, Jarl strength; 003 l.107)
C_TIES = 7  #: 1: this side wins ties as the defender (Jarl defender_ties; the rule: ties go to the attacker)
C_COLOUR = 8  #: the side's die colour: a row of cum (0 red: attacker and Ragnarök, 1 black: defender)
C_GREY = 9  #: grey dice among the first roll (a Jarl's extra dice, 003 l.72); they and New weapons' roll as grey
N_CFG = 10
GREY = 2  #: cum's row of the grey dice


@njit(cache=True)
def roll_nb(rs, cum, n, pool):
    """Roll n dice with cumulative face probabilities cum (float64[6]) into pool (int8[6] counts)."""
    for _ in range(n):
        u = rand_float_nb(rs)
        f = 0
        while f < NF - 1 and u >= cum[f]:
            f += 1
        pool[f] += 1


@njit(cache=True)
def pool_index_nb(add1, pool):
    """The state index (DiceTables order) of a pool given as counts: one die added at a time."""
    s = 0
    for f in range(NF):
        for _ in range(pool[f]):
            s = add1[s, f]
    return s


@njit(cache=True)
def arm_nb(pool, need, any_need, strength, x_wild):
    """(best total strength, bitmask of the Warriors armed) for the pool at the end of a phase:
    the strongest set of Warriors the dice arm disjointly (003 l.102; ties: fewer Warriors)."""
    T = need.shape[0]
    tot = np.zeros(5, np.int32)
    best, best_mask = 0, 0
    for mask in range(1, 1 << T):
        tot[:] = 0
        a = 0
        st = 0
        for t in range(T):
            if mask >> t & 1:
                for w in range(5):
                    tot[w] += need[t, w]
                a += any_need[t]
                st += strength[t]
        if st > best and armable_nb(pool, tot, a, x_wild):
            best, best_mask = st, mask
    return best, best_mask


@njit(cache=True)
def keep_pairs_nb(pool, keep, pairs):
    """Add to keep (int8[6]) two dice of different weapons per pair, the most plentiful spare
    weapons first; returns the dice it could not find."""
    lack = 0
    for _ in range(pairs):
        first = -1
        for _ in range(2):
            bw, bc = -1, 0
            for w in range(5):
                if w != first and pool[w] - keep[w] > bc:
                    bw, bc = w, pool[w] - keep[w]
            if bw < 0:
                lack += 1
            else:
                keep[bw] += 1
                first = bw
    return lack


@njit(cache=True)
def _greedy_keep_nb(pool, need, any_need, strength, keep):
    """The greedy keep rule: ``keep`` (int8[6]) gets the dice of the best armed set plus the dice
    the cheapest still-unarmed Warrior can use; returns how many more dice that Warrior lacks
    (0: nothing to chase, -1: no Warrior left to chase)."""
    T = need.shape[0]
    _, mask = arm_nb(pool, need, any_need, strength, 0)
    keep[:] = 0
    anyk = 0
    pairs = 0
    for t in range(T):
        if mask >> t & 1:
            for w in range(5):
                keep[w] += need[t, w]
            anyk += any_need[t] % ANY_PAIR
            pairs += any_need[t] // ANY_PAIR
    keep_pairs_nb(pool, keep, pairs)
    # Ice Giant symbols of the armed set take the most plentiful spare weapons
    for _ in range(anyk):
        bw, bc = -1, 0
        for w in range(5):
            if pool[w] - keep[w] > bc:
                bw, bc = w, pool[w] - keep[w]
        if bw >= 0:
            keep[bw] += 1
    best_t, best_lack = -1, 99
    for t in range(T):
        if mask >> t & 1:
            continue
        if any_need[t] >= ANY_PAIR:  # two different weapons (two_any_reading=wild)
            lack = keep_pairs_nb(pool, keep.copy(), 1)  # a copy only here: the usual path allocates nothing
            if lack < best_lack or (lack == best_lack and best_t >= 0 and strength[t] > strength[best_t]):
                best_t, best_lack = t, lack
            continue
        lack = any_need[t]
        for w in range(5):
            have = pool[w] - keep[w]
            lack += max(0, need[t, w] - max(0, have))
        if any_need[t] > 0:  # spare weapons cover any-symbols
            spare = 0
            for w in range(5):
                spare += max(0, pool[w] - keep[w] - need[t, w])
            lack -= min(any_need[t], spare)
        if lack < best_lack or (lack == best_lack and best_t >= 0 and strength[t] > strength[best_t]):
            best_t, best_lack = t, lack
    if best_t < 0:
        return -1
    if any_need[best_t] >= ANY_PAIR:
        keep_pairs_nb(pool, keep, 1)
        return best_lack
    anyt = any_need[best_t]
    for w in range(5):
        k = min(need[best_t, w], pool[w] - keep[w])
        keep[w] += k
    for w in range(5):
        while anyt > 0 and pool[w] - keep[w] > 0:
            keep[w] += 1
            anyt -= 1
    return best_lack


@njit(cache=True)
def stop_now_nb(pool, need, any_need, strength, x_wild, target):
    """Whether the first roll already reaches the phase's best outcome (every Warrior armed, or the
    target met), so stopping is optimal and the DP need not be solved (it would stop too)."""
    st, _ = arm_nb(pool, need, any_need, strength, x_wild)
    if target > 0:
        return st >= target
    total = 0
    for t in range(strength.shape[0]):
        total += max(strength[t], 0)
    return st >= total


@njit(cache=True)
def layout_tables_nb(bank, li):
    """The DiceTables.arrays of layout li of a :func:`.dice.arming_bank` (views, no copy)."""
    size, add1, sub_ptr, sub_idx, roll_ptr, roll_dst, roll_p, pair_a, pair_b, pair_p, cnt, off = bank
    o = off[li]
    return (size[o[0]:o[11]], add1[o[1]:o[12]], sub_ptr[o[2]:o[13]], sub_idx[o[3]:o[14]], roll_ptr[o[4]:o[15]],
            roll_dst[o[5]:o[16]], roll_p[o[6]:o[17]], pair_a[o[7]:o[18]], pair_b[o[8]:o[19]], pair_p[o[9]:o[20]],
            cnt[o[10]:o[21]])


@njit(cache=True)
def lump_nb(bank, nmax, need, any_need, x_wild, colmap):
    """The bank layout of a side (see dice.arming_bank): fills colmap (int64[6], each rolled face's
    column in the lumped die) and returns the layout index. The used weapons keep their order."""
    T = need.shape[0]
    k = 0
    for w in range(5):
        used = False
        for t in range(T):
            used = used or need[t, w] > 0
        colmap[w] = k if used else -1
        k += 1 if used else 0
    giants = False
    pairs = False
    for t in range(T):
        giants = giants or any_need[t] > 0
        pairs = pairs or any_need[t] >= ANY_PAIR
    sep = 1 if giants or x_wild > 0 else 0
    if pairs:  # any two different weapons: every weapon counts apart, the full die (k = 5)
        k = 5
    li = (min(max(nmax, 6), 9) - 6) * 12 + k * 2 + sep
    if pairs or bank[11][li, BANK_IDENT] == 1:  # the full die
        for x in range(NF):
            colmap[x] = x
        return li
    for w in range(5):
        if colmap[w] < 0:
            colmap[w] = k if sep else FACE_X
    colmap[FACE_X] = FACE_X
    return li


@njit(cache=True)
def lumped_nb(colmap, pool, out):
    """out (int8[6]) = the pool's counts in the lumped die's columns."""
    out[:] = 0
    for x in range(NF):
        out[colmap[x]] += pool[x]


@njit(cache=True)
def next_keeper_nb(pool, K):
    """The next sub-multiset K of pool (int8[6] each) in DiceTables' keeper order (the last face
    counts fastest); False after the last."""
    for x in range(NF - 1, -1, -1):
        if K[x] < pool[x]:
            K[x] += 1
            return True
        K[x] = 0
    return False


@njit(cache=True)
def dp_keep_nb(dt, colmap, V, pool, fresh_less, bv, keep):
    """The first keeper (DiceTables order, over the dice as rolled) attaining bv when the dice not
    kept are rerolled less ``fresh_less`` discarded: written to keep (int8[6]); False if none."""
    size, add1, _, _, roll_ptr, roll_dst, roll_p, _, _, _, _ = dt
    nmax = roll_ptr.shape[0] // size.shape[0] - 1
    n = 0
    for x in range(NF):
        n += pool[x]
    lk = np.zeros(NF, np.int8)
    keep[:] = 0
    while True:
        m = 0
        for x in range(NF):
            m += keep[x]
        if m <= n - 1 - fresh_less:
            lumped_nb(colmap, keep, lk)
            q = pool_index_nb(add1, lk)
            if keeper_value_nb(roll_ptr, roll_dst, roll_p, V, q, n - fresh_less - m, nmax) >= bv - 1e-12:
                return True
        if not next_keeper_nb(pool, keep):
            return False


@njit(cache=True)
def dp_phase_nb(bank, rs, cum, side, cfg, n_dice, target, pool):
    """The DP policy's rerolls after the first roll (phase_nb's arguments; pool holds the roll).
    Solves the lumped die of the side's layout, then plays the real dice by its values: the keeper
    is the first in the full die's order that attains the optimum. Returns the dice discarded."""
    need, any_need, strength, _ = side
    budget = cfg
    colmap = np.empty(NF, np.int64)
    li = lump_nb(bank, cfg[C_DICE] + budget[B_NEW], need, any_need, budget[B_XWILD], colmap)
    dt = layout_tables_nb(bank, li)
    size, add1, _, _, _, _, _, _, _, _, cnt = dt
    needc = np.zeros((need.shape[0], 5), np.int8)
    for t in range(need.shape[0]):
        for w in range(5):
            if need[t, w] > 0:
                needc[t, colmap[w]] += need[t, w]
    best = best_strength_nb(cnt, add1, needc, any_need, strength, budget[B_XWILD])
    stop = np.empty(size.shape[0])
    for s in range(size.shape[0]):
        stop[s] = best[s] if target <= 0 else (1.0 if best[s] >= target else 0.0)
    # a pool of n dice allows n - 1 paid rerolls (each discards one): with at least that many
    # allowed, one layer solved by pool size (solve_nb's rerolls < 0)
    unlimited = budget[B_REROLLS] >= n_dice + budget[B_NEW] - 1
    k, f, g = (-1 if unlimited else budget[B_REROLLS]), budget[B_FREE], budget[B_NEW]
    V = solve_nb(dt, stop, k, f, g)
    if unlimited:
        k = 0
    discarded = 0
    lp = np.zeros(NF, np.int8)
    keep = np.zeros(NF, np.int8)
    while True:
        lumped_nb(colmap, pool, lp)
        c = pool_index_nb(add1, lp)
        n = size[c]
        bv = V[k, f, g, c]
        kn = k if unlimited else k - 1  # the layer after a paid reroll
        if bv <= stop[c] + 1e-12:
            break  # stopping is optimal (ties: stop, no needless reroll)
        # the option that attains V, in solve_nb's order: paid keep, free keep, New weapons
        act = 2
        if (unlimited or k > 0) and n >= 2 and dp_keep_nb(dt, colmap, V[kn, f, g], pool, 1, bv, keep):
            act = 0
        elif f > 0 and dp_keep_nb(dt, colmap, V[k, f - 1, g], pool, 0, bv, keep):
            act = 1
        if act == 2:  # New weapons: roll two grey dice, keep the better one by V
            if g <= 0:
                break
            g -= 1
            budget[B_NEW] -= 1
            two = np.zeros(NF, np.int8)
            roll_nb(rs, cum[GREY], 2, two)
            fa, fb = -1, -1
            for x in range(NF):
                for _ in range(two[x]):
                    if fa < 0:
                        fa = x
                    else:
                        fb = x
            # ties (within rounding) keep the first face: the lumped and full dice agree
            better = V[k, f, g, add1[c, colmap[fa]]] >= V[k, f, g, add1[c, colmap[fb]]] - 1e-12
            pool[fa if better else fb] += 1
            continue
        m = 0
        for x in range(NF):
            m += keep[x]
        fresh = n - m - (1 if act == 0 else 0)
        if act == 0:  # discard one unplaced die, reroll the rest (DIGEST §5.6)
            k = kn
            budget[B_REROLLS] -= 1
            discarded += 1
        else:  # Push back: reroll without discarding (DIGEST §5.7)
            f -= 1
            budget[B_FREE] -= 1
        pool[:] = keep
        roll_nb(rs, cum[cfg[C_COLOUR]], fresh, pool)  # rerolled dice (a grey one too) as the side's colour
    return discarded


@canonical("n_dice", "target")  # target is the constant 0 for an attacker: one body, not two
@njit(cache=True)
def phase_nb(bank, rs, cum, side, cfg, n_dice, target, pool):
    """One side's battle phase: roll ``n_dice``, reroll by cfg[C_POLICY], arm.

    bank: :func:`.dice.arming_bank` (the DP policy's tables; layouts hold pools of up to 9 dice, so
    n_dice + cfg[B_NEW] ≤ 9); cum: float64[3, 6] cumulative face probabilities of the red, black
    and grey dice (the first n_dice - cfg[C_GREY] roll as row cfg[C_COLOUR], the grey ones and New
    weapons' as grey; rerolls as the side's colour, R68); side: (need, any_need, strength, giant); cfg int64[N_CFG] (budgets
    used up in place); target: the objective, 0 = E[strength], t > 0 = P(strength ≥ t); pool:
    int8[6], the dice at the end of the phase (written). Returns (strength, armed mask, dice
    discarded); no C_BONUS included."""
    need, any_need, strength, giant = side
    budget, policy = cfg, cfg[C_POLICY]
    pool[:] = 0
    grey = min(cfg[C_GREY], n_dice)
    roll_nb(rs, cum[cfg[C_COLOUR]], n_dice - grey, pool)
    roll_nb(rs, cum[GREY], grey, pool)
    discarded = 0
    if policy == ARM_DP and not stop_now_nb(pool, need, any_need, strength, budget[B_XWILD], target):
        discarded = dp_phase_nb(bank, rs, cum, side, cfg, n_dice, target, pool)
    elif policy == ARM_GREEDY:
        keep = np.zeros(NF, np.int8)
        while True:
            n = 0
            for x in range(NF):
                n += pool[x]
            lack = _greedy_keep_nb(pool, need, any_need, strength, keep)
            if lack <= 0:
                break
            kn = 0
            for x in range(NF):
                kn += keep[x]
            free = budget[B_FREE] > 0
            if free:
                if n - kn < 1:
                    break
                budget[B_FREE] -= 1
                fresh = n - kn
            else:
                if budget[B_REROLLS] <= 0 or n - kn < 2 or lack > n - kn - 1:
                    break  # the chased Warrior cannot be completed with the dice left
                budget[B_REROLLS] -= 1
                discarded += 1
                fresh = n - kn - 1
            pool[:] = keep
            roll_nb(rs, cum[cfg[C_COLOUR]], fresh, pool)
    st, mask = arm_nb(pool, need, any_need, strength, budget[B_XWILD])
    return st, mask, discarded


@njit(cache=True)
def battle_nb(bank, rs, cum, att, dfn, cfg):
    """One battle between two sides (003 l.90–130; DIGEST §5.6): cfg int64[2, N_CFG], row 0 the
    attacker's, row 1 the defender's. The attacker plays for E[strength]; the defender, knowing
    it, for P(win). Returns (outcome NO_WINNER / ATTACKER_WINS / DEFENDER_WINS, attacker strength,
    defender strength, attacker armed mask, defender armed mask); strengths include C_BONUS."""
    pool = np.zeros(NF, np.int8)
    sa, ma, _ = phase_nb(bank, rs, cum, att, cfg[0], cfg[0, C_DICE], 0, pool)
    if ma == 0:
        return NO_WINNER, 0, 0, 0, 0  # no Warrior activated: no winner (003 l.105)
    sa += cfg[0, C_BONUS]
    nd = cfg[1, C_DICE]
    giant = att[3]
    for t in range(giant.shape[0]):
        if ma >> t & 1 and giant[t]:
            nd -= 1  # an attacking Ice Giant: the defender rolls one die fewer, once (003 l.394)
            break
    ties = cfg[1, C_TIES]
    target = max(1, sa + 1 - ties - cfg[1, C_BONUS])
    sd, md, _ = phase_nb(bank, rs, cum, dfn, cfg[1], max(nd, 0), target, pool)
    if md == 0:
        return ATTACKER_WINS, sa, 0, ma, 0  # the defender armed nobody (003 l.116)
    sd += cfg[1, C_BONUS]
    if sd > sa or (ties and sd == sa):
        return DEFENDER_WINS, sa, sd, ma, md
    return ATTACKER_WINS, sa, sd, ma, md  # a tie goes to the attacker (003 l.119)


@njit(cache=True)
def simulate_phases_nb(bank, seed, cum, side, cfg, target, n):
    """n independent phases (the cfg copied each time): int32[n, 2] of (strength, dice discarded).
    Game i draws from the stream seeded seed + i, so results do not depend on n's batching."""
    out = np.zeros((n, 2), np.int32)
    rs = np.zeros(1, np.uint64)
    cums = np.empty((3, NF))
    for r in range(3):
        cums[r] = cum  # cum float64[6]: every colour alike
    c = np.empty_like(cfg)
    pool = np.zeros(NF, np.int8)
    for i in range(n):
        rs[0] = np.uint64(seed + i)
        c[:] = cfg
        st, _, disc = phase_nb(bank, rs, cums, side, c, c[C_DICE], target, pool)
        out[i, 0] = st
        out[i, 1] = disc
    return out


@njit(cache=True)
def simulate_battles_nb(bank, seed, cum, att, dfn, cfg, n):
    """n independent battles: int32[n, 3] of (outcome, attacker strength, defender strength)."""
    out = np.zeros((n, 3), np.int32)
    rs = np.zeros(1, np.uint64)
    cums = np.empty((3, NF))
    for r in range(3):
        cums[r] = cum
    c = np.empty_like(cfg)
    for i in range(n):
        rs[0] = np.uint64(seed + i)
        c[:, :] = cfg
        o, sa, sd, _, _ = battle_nb(bank, rs, cums, att, dfn, c)
        out[i, 0] = o
        out[i, 1] = sa
        out[i, 2] = sd
    return out


def side_arrays(team, giant=None) -> tuple:
    """A dice.Team as the kernels' side tuple (need, any_need, strength int32, giant bool)."""
    g = np.zeros(len(team.strength), np.bool_) if giant is None else np.asarray(giant, np.bool_)
    return (team.need, team.any_need, team.strength.astype(np.int32), g)


def phase_cfg(policy=ARM_DP, dice=6, rerolls=9, free=0, new=0, x_wild=0, bonus=0, ties=0, colour=0,
              grey=0) -> np.ndarray:
    """int64[N_CFG] phase settings (see the C_* and B_* slots)."""
    c = np.zeros(N_CFG, np.int64)
    c[C_COLOUR], c[C_GREY] = colour, grey
    c[B_REROLLS], c[B_FREE], c[B_NEW], c[B_XWILD] = rerolls, free, new, x_wild
    c[C_POLICY], c[C_DICE], c[C_BONUS], c[C_TIES] = policy, dice, bonus, ties
    return c
