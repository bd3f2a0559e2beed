"""Small queries on a Blood Rage: Valhalla state: figure STR, presence, commonness, clan-sheet
effects, hand and deck moves (rulebook 000 "Figures", "Summon", "Upgrade")."""
from numba import njit

from ..core import enums as E
from .state import G_DECK_N, G_NP, log_nb


@njit(cache=True, _nrt=False)
def fig_kind_nb(f):
    """0 Elite, 1 Warrior, 2 Monster (VH_KIND_NAMES)."""
    if f < E.VH_FIG_WARRIOR0:
        return 0
    if f < E.VH_FIG_MONSTER0:
        return 1
    return 2


@njit(cache=True, _nrt=False)
def battle_op_nb(op):
    """True for an opcode that acts only in a battle (a Monster's upgrade carries it only into the
    battles the Monster fights in: rulings R47)."""
    return op <= E.VOP_DRAW_ON_WIN or op == E.VOP_BATTLE_STR


@njit(cache=True, _nrt=False)
def sheet_scan_nb(T, S, p, op):
    """Sum of argument a of opcode ``op`` over clan p's upgrades on its sheet (committed quests
    excluded). A Monster card counts for every opcode but the battle ones, which act only in
    battles the Monster fights in (battle_effects; rulings R47)."""
    s = 0
    battle_op = battle_op_nb(op)
    for k in range(E.VH_N_SLOTS):
        c = S.slot[p, k]
        if c < 0 or S.slot_quest[p, k] == 1 or (battle_op and T.card_type[c] == E.VCT_MONSTER):
            continue
        for e in range(2):
            if T.card_op[c, e] == op:
                s += T.card_a[c, e]
    return s


@njit(cache=True, _nrt=False)
def sheet_refresh_nb(T, S, p):
    """S.sheet[p, op] = sheet_scan_nb(T, S, p, op) for every opcode, in one pass over the slots:
    call after any change to clan p's upgrades (S.slot, S.slot_quest); the invariants check the
    two agree. S.sheet_ops[p]: bits 1 << op of every opcode an upgrade carries (Monsters' too),
    argument-less ones included."""
    for op in range(E.N_VOPS):
        S.sheet[p, op] = 0
    m = 0
    for k in range(E.VH_N_SLOTS):
        c = S.slot[p, k]
        if c < 0 or S.slot_quest[p, k] == 1:
            continue
        m |= T.card_opmask[c]
        for e in range(2):
            op = T.card_op[c, e]
            if op < 0 or (battle_op_nb(op) and T.card_type[c] == E.VCT_MONSTER):
                continue
            S.sheet[p, op] += T.card_a[c, e]
    S.sheet_ops[p] = m
    board_changed_nb(S, p)  # an Elite upgrade changes its Elites' STR


@njit(cache=True, _nrt=False)
def board_changed_nb(S, p):
    """Clan p's figures' STR changed: view.board_view_nb recomputes its rows of the kept board
    view. Call after every write to S.mon_card or the sheet, and after any write to S.loc not
    made by move_fig_nb."""
    S.view_stale[p] = 1


@njit(cache=True, _nrt=False)
def move_fig_nb(T, S, p, f, dst):
    """S.loc[p, f] = dst (a region, the reserve, a kill pile or the Feast Hall). Clan p's rows of
    the kept board view (view.board_view_nb), when up to date, follow the move: only the two
    regions' counts, STR and strongest figure change (a recount of a clan's rows after each move
    was a twentieth of a game's time). The same integer sums and the same fold for the strongest
    figure as view.view_refresh_nb, so the rows are those a recount gives (the invariants check)."""
    src = S.loc[p, f]
    S.loc[p, f] = dst
    if S.view_stale[p]:
        return
    R = T.n_regions
    v = S.w_fstr[p, f]
    if 0 <= src < R:
        S.w_cnt[p, src] -= 1
        S.w_str[p, src] -= v
        S.w_onb[p] -= 1
        if v >= S.w_fmax[p, src]:  # it may have been the strongest there: fold the rest again
            top = -1
            for g in range(E.VH_NFIG):
                if S.loc[p, g] == src and S.w_fstr[p, g] > top:
                    top = max(S.w_fstr[p, g], 0)
            S.w_fmax[p, src] = top
    if 0 <= dst < R:
        S.w_cnt[p, dst] += 1
        S.w_str[p, dst] += v
        S.w_onb[p] += 1
        if v > S.w_fmax[p, dst]:
            S.w_fmax[p, dst] = max(v, 0)


@njit(cache=True, _nrt=False)
def sheet_sum_nb(T, S, p, op):
    """sheet_scan_nb(T, S, p, op), kept in S.sheet (read in every STR count: a scan of the seven
    slots each time was a tenth of a game's time)."""
    return S.sheet[p, op]


@njit(cache=True, _nrt=False)
def card_op_sum_nb(T, c, op):
    s = 0
    if c < 0:
        return 0
    for e in range(2):
        if T.card_op[c, e] == op:
            s += T.card_a[c, e]
    return s


@njit(cache=True, _nrt=False)
def card_has_op_nb(T, c, op):
    if c < 0:
        return False
    return T.card_op[c, 0] == op or T.card_op[c, 1] == op


@njit(cache=True, _nrt=False)
def fig_str_nb(T, S, p, f):
    """STR of clan p's figure f ("Figures": Elites and Warriors 1, Monsters their card's STR;
    Elite upgrades add)."""
    k = fig_kind_nb(f)
    if k == 0:
        return T.fig_str[0] + sheet_sum_nb(T, S, p, E.VOP_ELITE_STR)
    if k == 1:
        return T.fig_str[1]
    c = S.mon_card[p, f - E.VH_FIG_MONSTER0]
    return T.card_value[c] if c >= 0 else 0


@njit(cache=True, _nrt=False)
def str_in_nb(T, S, p, r):
    """Total STR of clan p's figures in region r."""
    s = 0
    for f in range(E.VH_NFIG):
        if S.loc[p, f] == r:
            s += fig_str_nb(T, S, p, f)
    return s


@njit(cache=True, _nrt=False)
def count_in_nb(S, p, r):
    n = 0
    for f in range(E.VH_NFIG):
        if S.loc[p, f] == r:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def on_board_nb(S, p):
    n = 0
    for f in range(E.VH_NFIG):
        if S.loc[p, f] >= 0:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def has_enemy_nb(S, p, r):
    for q in range(S.gs[G_NP]):
        if q != p and count_in_nb(S, q, r) > 0:
            return True
    return False


@njit(cache=True, _nrt=False)
def is_common_nb(T, S, r):
    """Rulebook "Summon": common = no Region Token, no god; Valhalla is never common."""
    return r != T.valhalla and S.token[r] == 0 and S.god_at[r] < 0


@njit(cache=True, _nrt=False)
def contestable_nb(T, S, r):
    """A region whose reward is still available this age: no Region Token, not claimed."""
    return 0 <= r < T.n_regions and S.token[r] == 0 and S.claimed[r] < 0


@njit(cache=True, _nrt=False)
def free_slot_nb(S, p):
    for k in range(E.VH_N_SLOTS):
        if S.slot[p, k] < 0:
            return k
    return -1


@njit(cache=True, _nrt=False)
def free_base_nb(T, S, p):
    for k in range(T.monster_bases):
        if S.mon_card[p, k] < 0:
            return k
    return -1


@njit(cache=True, _nrt=False)
def hand_add_nb(S, p, c):
    n = S.hand_n[p]
    if n < S.hand.shape[1]:
        S.hand[p, n] = c
        S.hand_n[p] = n + 1


@njit(cache=True, _nrt=False)
def hand_take_nb(S, p, i):
    """Remove and return hand[p, i] (order of the rest kept)."""
    c = S.hand[p, i]
    n = S.hand_n[p]
    for j in range(i, n - 1):
        S.hand[p, j] = S.hand[p, j + 1]
    S.hand[p, n - 1] = -1
    S.hand_n[p] = n - 1
    return c


@njit(cache=True, _nrt=False)
def draw_nb(S):
    """Top card of the deck, -1 if the deck is empty."""
    n = S.gs[G_DECK_N]
    if n == 0:
        return -1
    c = S.deck[n - 1]
    S.deck[n - 1] = -1
    S.gs[G_DECK_N] = n - 1
    return c


@njit(cache=True, _nrt=False)
def deck_bottom_nb(S, c):
    """Put card c at the bottom of the deck (Draft: the last card of each pack)."""
    n = S.gs[G_DECK_N]
    for j in range(n, 0, -1):
        S.deck[j] = S.deck[j - 1]
    S.deck[0] = c
    S.gs[G_DECK_N] = n + 1


@njit(cache=True, _nrt=False)
def add_glory_nb(S, p, amount, src):
    S.glory[p, src] += amount
    if amount != 0:
        log_nb(S, E.VEV_GLORY, p, amount, src, 0, 0, 0)


@njit(cache=True, _nrt=False)
def total_glory_nb(S, p):
    t = 0
    for k in range(E.N_GLORY_SRC):
        t += S.glory[p, k]
    return t


@njit(cache=True, _nrt=False)
def raise_stat_nb(S, p, st, cause):
    """Raise stat st one step (a raise beyond the last step is lost); returns True if it rose."""
    if S.stat[p, st] >= E.N_STEPS - 1:
        return False
    S.stat[p, st] += 1
    n = S.path_n[p]
    if n < S.path.shape[1]:
        S.path[p, n] = st
        S.path_n[p] = n + 1
    log_nb(S, E.VEV_RAISE, p, st, S.stat[p, st], cause, 0, 0)
    return True


@njit(cache=True, _nrt=False)
def note_fired_nb(S, c, p, op, amount):
    S.fired[c] += 1
    log_nb(S, E.VEV_TEXT, p, c, op, amount, 0, 0)
