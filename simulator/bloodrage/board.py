"""Board queries: STR, costs, capacity, presence (DIGEST §1.1, §1.2, §1.4, §1.7).

Small pure kernels over (T: tables record, S: state record); none mutate the state.
"""
import numpy as np
from numba import njit

from ..core import enums as E
from ..core.canon import canonical
from .state import G_NP


@canonical("c")
@njit(cache=True)
def card_op_index_nb(T, c, op):
    """Index k of opcode ``op`` on card c, or -1."""
    if c < 0 or not (T.card_opmask[c] >> op) & 1:  # most look-ups: the card has no such text
        return -1
    for k in range(E.MAX_EFFECTS):
        if T.card_op[c, k] == op:
            return k
    return -1


@canonical("p")
@njit(cache=True)
def upgrade_with_op_nb(T, S, p, op):
    """Card id of clan p's upgrade carrying opcode ``op``, or -1."""
    bit = np.int64(1) << op
    if not S.opmask[p] & bit:  # most look-ups: no upgrade of the clan has it
        return -1
    for s in range(E.N_SLOTS):
        c = S.upg[p, s]
        if c >= 0 and T.card_opmask[c] & bit:
            return c
    return -1


@canonical("p")
@njit(cache=True)
def clan_opmask_nb(T, S, p):
    """Union of the opcode bitmasks (T.card_opmask) of clan p's upgrades: bit ``op`` is set when
    upgrade_with_op_nb(T, S, p, op) >= 0 (int64; the state's S.opmask, kept by sheet_refresh_nb)."""
    return S.opmask[p]


@canonical("p")
@njit(cache=True)
def sheet_opmask_nb(T, S, p):
    """clan_opmask_nb by one pass over the sheet: what S.opmask[p] holds while it is kept."""
    m = np.int64(0)
    for s in range(E.N_SLOTS):
        c = S.upg[p, s]
        if c >= 0:
            m |= T.card_opmask[c]
    return m


@canonical("p")
@njit(cache=True)
def sheet_refresh_nb(T, S, p):
    """S.opmask[p] = sheet_opmask_nb(T, S, p): call after any change to clan p's upgrades (S.upg);
    the invariants check the two agree (INV_OPMASK)."""
    S.opmask[p] = sheet_opmask_nb(T, S, p)


@canonical("p")
@njit(cache=True)
def monster_card_nb(S, p, f):
    """Card id of the Monster figure in slot f (FIG_MONSTER0..), or -1."""
    return S.upg[p, E.SLOT_MONSTER0 + f - E.FIG_MONSTER0]


@njit(cache=True)
def fig_kind_nb(f):
    if f == E.FIG_LEADER:
        return E.KIND_LEADER
    if f == E.FIG_SHIP:
        return E.KIND_SHIP
    if f >= E.FIG_MONSTER0:
        return E.KIND_MONSTER
    return E.KIND_WARRIOR


@canonical("p")
@njit(cache=True)
def is_shiplike_nb(T, S, p, f):
    """True for the Ship and for a Monster with as_ship (Sea Serpent, DIGEST §1.2)."""
    if f == E.FIG_SHIP:
        return True
    if f >= E.FIG_MONSTER0:
        return card_op_index_nb(T, monster_card_nb(S, p, f), E.OP_AS_SHIP) >= 0
    return False


@canonical("p", "where")
@njit(cache=True)
def fig_str_nb(T, S, p, f, where):
    """STR of a non-Warrior figure at location ``where`` (Warriors: warrior_str_nb)."""
    if f == E.FIG_LEADER:
        return T.fig_str[0]
    if f == E.FIG_SHIP:
        return T.fig_str[2]
    c = monster_card_nb(S, p, f)
    k = card_op_index_nb(T, c, E.OP_YGGDRASIL)
    if k >= 0 and where == E.YGGDRASIL:
        return T.card_a[c, k]
    return T.card_value[c]


@canonical("p", "n")
@njit(cache=True)
def warrior_str_nb(T, S, p, n):
    """STR of n of clan p's Warriors standing in one province (Brothers/Experts/Masters, DIGEST §1.7)."""
    c = upgrade_with_op_nb(T, S, p, E.OP_WARRIOR_STR)
    if c < 0:
        return n * T.fig_str[1]
    k = card_op_index_nb(T, c, E.OP_WARRIOR_STR)
    return (n // 2) * T.card_a[c, k] + (n % 2) * T.card_b[c, k]


@canonical("prov")
@njit(cache=True)
def fjord_loc_of_nb(T, prov):
    """loc code of the fjord supporting ``prov``, or -1 (Yggdrasil has none)."""
    f = T.prov_fjord[prov]
    return -1 if f < 0 else E.LOC_FJORD0 + f


@canonical("p")
@njit(cache=True)
def clan_str_nb(T, S, p, prov):
    """Clan p's STR in province ``prov``: its figures there plus its Ships in the supporting fjord (DIGEST §1.2)."""
    floc = fjord_loc_of_nb(T, prov)
    total = 0
    nw = 0
    for f in range(E.FIG_WARRIOR0, E.FIG_WARRIOR0 + E.N_WARRIORS):  # counted, without a branch
        l = S.loc[p, f]
        nw += l == prov
        if l == floc and floc >= 0:  # (no Warrior stands in a fjord; counted as any figure there)
            total += fig_str_nb(T, S, p, f, l)
    for f in range(E.NFIG):
        if E.FIG_WARRIOR0 <= f < E.FIG_WARRIOR0 + E.N_WARRIORS:
            continue
        l = S.loc[p, f]
        if l == prov or (floc >= 0 and l == floc):
            total += fig_str_nb(T, S, p, f, l)
    return total + warrior_str_nb(T, S, p, nw) if nw > 0 else total  # no Warriors: no look-up


@njit(inline="always")
def battle_kept_nb(S, prov):
    """battle.battle_nb's table of the battle in prov holds (S.w_bstr, S.w_part): from the start
    of that battle until its texts may destroy figures."""
    return S.w_bprov == prov + 1


@njit(inline="always")
def battle_str_nb(T, S, q, prov):
    """clan_str_nb of clan q in prov, from battle.battle_nb's table while it holds (battle_kept_nb)."""
    return S.w_bstr[q] if battle_kept_nb(S, prov) else clan_str_nb(T, S, q, prov)


@canonical("p")
@njit(cache=True)
def present_nb(T, S, p, prov):
    """True if clan p has a figure in prov or a Ship in its supporting fjord."""
    floc = fjord_loc_of_nb(T, prov)
    for f in range(E.NFIG):
        l = S.loc[p, f]
        if l == prov or (floc >= 0 and l == floc):
            return True
    return False


@canonical("p")
@njit(cache=True)
def presence_mask_nb(T, S, p):
    """present_nb for every province at once: bit ``prov`` set where clan p has a figure in prov
    or a Ship in its supporting fjord (int64 bitmask; one pass over the figures)."""
    return province_masks_nb(T, S, p)[1]


@canonical("p")
@njit(cache=True)
def province_masks_nb(T, S, p):
    """(at, present) int64 bitmasks of clan p: bit ``prov`` of ``at`` where p has a figure in prov,
    of ``present`` where it also counts a Ship in the supporting fjord (presence_mask_nb)."""
    at = 0  # provinces with a figure of p
    fj = 0  # fjords with a figure of p
    for f in range(E.NFIG):
        l = S.loc[p, f]
        if 0 <= l < E.N_PROVINCES:
            at |= np.int64(1) << l  # int64 shifts in plain Python too (NUMBA_DISABLE_JIT: l is int8)
        elif E.LOC_FJORD0 <= l < E.LOC_FJORD0 + E.N_FJORDS:
            fj |= np.int64(1) << (l - E.LOC_FJORD0)
    return at, at | fjord_support(T, fj)


@njit(inline="always")
def fjord_support(T, fj):
    """Provinces (int64 bitmask) supported by the fjords of bitmask fj (DIGEST §1.2): T.fjord_here,
    from T.prov_fjord (rules.make_tables)."""
    return T.fjord_here[fj]


@njit(cache=True, _nrt=False)
def board_view_nb(T, S):
    """occupancy_nb and every clan's province_masks_nb in one pass over the figures, into the
    state's work buffers: S.w_occ[prov] figures in each province, S.w_at[q] and S.w_here[q] the
    (at, present) bitmasks of clan q (int64). Read by the choice of an action (actions.legal_actions_nb,
    greedy_choice_nb)."""
    # Branch-free and in registers: per clan, a bit and a 4-bit count for each of the 16 loc codes
    # (shifted past the negative ones; a clan has 12 figures < 16); the counts of all clans are
    # summed in 8-bit lanes, even codes in one word and odd codes in the other.
    lanes = np.int64(0x0F0F0F0F0F0F0F0F)
    even, odd = np.int64(0), np.int64(0)
    for q in range(S.gs[G_NP]):
        m, n = np.int64(0), np.int64(0)
        for f in range(E.NFIG):
            k = np.int64(S.loc[q, f]) - E.LOC_NONE
            m |= np.int64(1) << k
            n += np.int64(1) << (4 * k)
        even += n & lanes
        odd += (n >> 4) & lanes
        at = (m >> -E.LOC_NONE) & ((1 << E.N_PROVINCES) - 1)
        S.w_at[q] = at
        S.w_here[q] = at | fjord_support(T, (m >> (E.LOC_FJORD0 - E.LOC_NONE)) & ((1 << E.N_FJORDS) - 1))
    for prov in range(E.N_PROVINCES):
        k = prov - E.LOC_NONE
        S.w_occ[prov] = ((even if k % 2 == 0 else odd) >> (8 * (k // 2))) & 0xFF


@canonical("p")
@njit(cache=True)
def enemy_mask_nb(T, S, p):
    """has_enemy_nb for every province at once: the union of the other clans' presence masks."""
    m = 0
    for q in range(S.gs[G_NP]):
        if q != p:
            m |= presence_mask_nb(T, S, q)
    return m


@njit(cache=True)
def occupied_nb(S, prov):
    """Figures of all clans in province ``prov`` (villages taken)."""
    n = 0
    for p in range(S.gs[G_NP]):
        for f in range(E.NFIG):
            if S.loc[p, f] == prov:
                n += 1
    return n


@njit(cache=True, _nrt=False)
def occupancy_nb(S, occ):
    """occ[prov] = figures of all clans in each province (one pass over the figures)."""
    occ[:] = 0
    for p in range(S.gs[G_NP]):
        for f in range(E.NFIG):
            l = S.loc[p, f]
            if 0 <= l < E.N_PROVINCES:
                occ[l] += 1


@njit(cache=True)
def free_villages_nb(T, S, prov):
    """Empty villages in prov (0 if destroyed; Yggdrasil effectively unlimited)."""
    if S.destroyed[prov]:
        return 0
    return T.prov_villages[prov] - occupied_nb(S, prov)


@canonical("p")
@njit(cache=True)
def on_board_nb(S, p):
    """Clan p's figures on the board (provinces and fjords)."""
    n = 0
    for f in range(E.NFIG):
        if S.loc[p, f] >= 0:
            n += 1
    return n


@canonical("p")
@njit(cache=True)
def horns_nb(T, S, p):
    """Most figures clan p may have on the board (Horns stat, DIGEST §1.4)."""
    return T.track[E.STAT_HORNS, S.stat[p, E.STAT_HORNS]]


@njit(cache=True)
def fjord_usable_nb(T, S, fj):
    """A fjord is usable while one of its two provinces stands (DIGEST §1.2)."""
    return S.destroyed[T.fjord_prov[fj, 0]] == 0 or S.destroyed[T.fjord_prov[fj, 1]] == 0


@njit(cache=True)
def invade_cost_nb(T, S, p, f):
    """Rage to invade with figure f (DIGEST §1.1, §1.7: Leader option, Warrior upgrade value, free Monsters)."""
    if f == E.FIG_LEADER:
        return T.opts[E.OPT_LEADER_INVADE_COST]
    if f == E.FIG_SHIP:
        return T.fig_str[2]
    if f >= E.FIG_MONSTER0:
        c = monster_card_nb(S, p, f)
        if card_op_index_nb(T, c, E.OP_FREE_FIGURE) >= 0:
            return 0
        return T.card_value[c]
    c = S.upg[p, E.SLOT_WARRIOR]
    return T.card_value[c] if c >= 0 else T.fig_str[1]


@njit(cache=True)
def upgrade_cost_nb(T, S, p, c):
    """Rage to put upgrade card c on the clan sheet (free Monsters 0; Charm discount, not below 0)."""
    return upgrade_cost_with_nb(T, c, upgrade_with_op_nb(T, S, p, E.OP_UPGRADE_DISCOUNT))


@canonical("c", "d")
@njit(cache=True)
def upgrade_cost_with_nb(T, c, d):
    """upgrade_cost_nb given the clan's discount card d (upgrade_with_op_nb's for
    OP_UPGRADE_DISCOUNT, -1 for none): one look-up per decision instead of one per card."""
    v = T.card_value[c]
    if card_op_index_nb(T, c, E.OP_FREE_FIGURE) >= 0:
        v = 0
    if d >= 0:
        v -= T.card_a[d, card_op_index_nb(T, d, E.OP_UPGRADE_DISCOUNT)]
    return max(v, 0)


@njit(cache=True)
def can_enter_nb(T, S, p, f, dest, occ):
    """May figure f be placed at ``dest`` by an invade (ignoring Rage and Horns)? occ: occupancy_nb."""
    return enterable_nb(T, S, dest, occ, is_shiplike_nb(T, S, p, f), may_enter_yggdrasil_nb(T, S, p, f))


@canonical("p")
@njit(cache=True)
def may_enter_yggdrasil_nb(T, S, p, f):
    """True for a Monster whose card lets it invade Yggdrasil (DIGEST §1.7)."""
    return f >= E.FIG_MONSTER0 and card_op_index_nb(T, monster_card_nb(S, p, f), E.OP_YGGDRASIL) >= 0


@njit(inline="always")  # per destination; the figure's two facts are the caller's, once per figure
def enterable_nb(T, S, dest, occ, shiplike, yggdrasil):
    """can_enter_nb for a figure that is ``shiplike`` (fjords only) and may enter ``yggdrasil``."""
    if shiplike:
        return dest >= E.LOC_FJORD0 and fjord_usable_nb(T, S, dest - E.LOC_FJORD0)
    if dest >= E.LOC_FJORD0:
        return False
    if dest == E.YGGDRASIL and not yggdrasil:
        return False
    return S.destroyed[dest] == 0 and T.prov_villages[dest] > occ[dest]


@njit(cache=True)
def has_enemy_nb(T, S, p, prov):
    """True if any clan other than p is present in prov or its supporting fjord."""
    for q in range(S.gs[G_NP]):
        if q != p and present_nb(T, S, q, prov):
            return True
    return False


@canonical("p")
@njit(cache=True)
def max_enemy_str_nb(T, S, p, prov):
    """Highest STR among the other clans in prov."""
    m = 0
    for q in range(S.gs[G_NP]):
        if q != p:
            s = clan_str_nb(T, S, q, prov)
            if s > m:
                m = s
    return m


@canonical("c")
@njit(cache=True)
def card_value_nb(T, c):
    """Printed +STR of card c in battle: battle cards their value, others 0 (X counts 0 here)."""
    if T.card_type[c] != E.CT_BATTLE or T.card_value[c] < 0:
        return 0
    return T.card_value[c]
