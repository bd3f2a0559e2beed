"""Valhalla dice game Jarls: conditions and what a Jarl gives in one battle (DIGEST §5.1;
jarls.csv abilities named in opcodes.toml, codes in tables.ABILITIES / tables.CONDITIONS)."""
from numba import njit

from ..core.canon import canonical
from .tables import ANY

J_EXTRA_DIE, J_FREE, J_STR, J_XWILD, J_CLAN, J_DRAW_KEEP, J_PAIR, J_WIN_DRAW, J_LOSS_VALHALLA = 0, 1, 2, 3, 4, 5, 6, 7, 8
J_TIES, J_OPP_DIE, J_STEAL, J_SHIELD_GLORY, J_RAG_DIE = 9, 10, 11, 12, 13
# effects of a Jarl in one battle (int64[N_EFF]); clan bonuses at EF_CLAN + clan
EF_DICE, EF_FREE, EF_STR, EF_XWILD, EF_TIES, EF_OPP_DIE, EF_WIN_DRAW, EF_LOSS, EF_STEAL, EF_CLAN = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
N_EFF = 14
ROLE_ATTACK, ROLE_DEFEND, ROLE_RAGNAROK = 0, 1, 2


@canonical("p", "opp", "role")  # literal roles and seats: one body, not five
@njit(cache=True)
def jarl_condition_nb(T, S, j, p, opp, role):
    op = T.j_op[j, 2]
    a = T.j_args[j, 2, 0]
    if op < 0:
        return True
    if op == 0:
        return S.team_n[p] >= a
    if op == 1:
        return T.shields - S.own_shields[p] >= a
    if op == 2:
        return role != ROLE_DEFEND
    if op == 3:
        return role == ROLE_DEFEND
    if op == 4:
        return clans_nb(T, S, p) >= a
    if op == 5:
        return opp >= 0 and S.team_n[p] < S.team_n[opp]
    return S.hand_n[p] >= a


@canonical("p", "opp", "role")
@njit(cache=True)
def ability_on_nb(T, S, j, s, p, opp, role):
    """Whether ability slot s (0 primary, 1 secondary) of seat p's Jarl j acts now (rulings R55):
    'both': the primary always, the secondary when its condition holds; 'either': the secondary
    when its condition holds, else the primary."""
    cond = jarl_condition_nb(T, S, j, p, opp, role)
    if s == 1:
        return cond
    return T.j_combine_both[j] == 1 or not cond


@canonical("p", "op", "opp", "role", "k")
@njit(cache=True)
def ability_arg_nb(T, S, p, op, opp, role, k):
    """Argument k of seat p's Jarl ability ``op`` when it acts now (ability_on_nb); -1 when the
    seat has no Jarl, the Jarl has no such ability, or it does not act."""
    j = S.jarl[p]
    if j < 0:
        return -1
    for s in range(2):
        if T.j_op[j, s] == op and ability_on_nb(T, S, j, s, p, opp, role):
            return T.j_args[j, s, k]
    return -1


@njit(cache=True)
def clans_nb(T, S, p):
    seen = 0
    for i in range(S.team_n[p]):
        seen |= 1 << T.clan[S.team[p, i]]
    n = 0
    while seen:
        n += seen & 1
        seen >>= 1
    return n


@njit(cache=True)
def jarl_effects_nb(T, S, p, opp, role, eff):
    """eff (int64[N_EFF], zeroed here): what p's Jarl gives in this battle. 'both': the primary,
    plus the secondary when its condition holds; 'either': the secondary when its condition
    holds, else the primary (docs/rulings.md)."""
    eff[:] = 0
    j = S.jarl[p]
    if j < 0:
        return
    cond = jarl_condition_nb(T, S, j, p, opp, role)
    for s in range(2):
        if s == 0 and not (T.j_combine_both[j] == 1 or not cond):
            continue
        if s == 1 and not cond:
            continue
        op, a, b = T.j_op[j, s], T.j_args[j, s, 0], T.j_args[j, s, 1]
        when_ok = a == ANY or (a == 0 and role != ROLE_DEFEND) or (a == 1 and role == ROLE_DEFEND)
        if op == J_EXTRA_DIE and when_ok:
            eff[EF_DICE] += b
        elif op == J_FREE and when_ok:
            eff[EF_FREE] += b
        elif op == J_STR and when_ok:
            eff[EF_STR] += b
        elif op == J_XWILD:
            eff[EF_XWILD] += a
        elif op == J_CLAN:
            eff[EF_CLAN + a] += b
        elif op == J_TIES:
            eff[EF_TIES] = 1
        elif op == J_OPP_DIE and role == ROLE_ATTACK:
            eff[EF_OPP_DIE] += a
        elif op == J_WIN_DRAW:
            eff[EF_WIN_DRAW] += a
        elif op == J_LOSS_VALHALLA:
            eff[EF_LOSS] += a
        elif op == J_STEAL:
            eff[EF_STEAL] += a
        elif op == J_RAG_DIE and role == ROLE_RAGNAROK:
            eff[EF_DICE] += a
