"""The Action phase's actions: legality and execution (DIGEST §1.5 Action).

legal_actions_nb lists every legal (type, a, b) for a clan; greedy_choice_nb finds greedy's
pick among them without the list; do_action_nb carries one out.  The engine's own legality
check, used by the policies and by tests.
"""
import numpy as np
from numba import njit

from ..core import enums as E
from ..core.canon import canonical
from .board import (
    board_view_nb,
    card_op_index_nb,
    clan_opmask_nb,
    enterable_nb,
    fjord_loc_of_nb,
    horns_nb,
    invade_cost_nb,
    is_shiplike_nb,
    may_enter_yggdrasil_nb,
    monster_card_nb,
    occupancy_nb,
    on_board_nb,
    sheet_refresh_nb,
    upgrade_cost_nb,
    upgrade_cost_with_nb,
    upgrade_with_op_nb,
)
from .clan import discard_nb, take_from_hand_nb
from .effects import destroy_nb, fired_nb, free_warrior_nb, op_arg_nb, text_raise_nb
from .pillage import pillage_nb
from .policy import (
    NEG,
    best_card_value_nb,
    challenge_score,
    choose_free_invade_nb,
    choose_march_nb,
    choose_option_nb,
    choose_yes_nb,
    decision_facts,
    effective_params_nb,
    invade_fjord_score,
    invade_fjord_term,
    invade_province_score,
    invade_str_term,
    march_score,
    pillage_score,
    pillage_worth_nb,
    upgrade_score,
)
from .state import G_NP, log_nb, note_use_nb

MAX_ACTS = E.MAX_ACTS


@njit(inline="always")  # tiny; one body per array type otherwise
def _add(acts, n, t, a, b):
    acts[n, 0] = t
    acts[n, 1] = a
    acts[n, 2] = b
    return n + 1


@njit(cache=True, _nrt=False)
def invade_dests_nb(T, S, p, f, out, occ):
    """Fill out with the locations figure f may invade (fjords for Ships, villages otherwise); returns count."""
    n = 0
    ship = is_shiplike_nb(T, S, p, f)
    ygg = may_enter_yggdrasil_nb(T, S, p, f)
    if ship:
        for fj in range(E.N_FJORDS):
            if enterable_nb(T, S, E.LOC_FJORD0 + fj, occ, ship, ygg):
                out[n] = E.LOC_FJORD0 + fj
                n += 1
    else:
        for pr in range(E.N_PROVINCES):
            if enterable_nb(T, S, pr, occ, ship, ygg):
                out[n] = pr
                n += 1
    return n


@canonical("p")
@njit(cache=True)
def can_act_nb(S, p):
    """True if clan p takes a turn now (DIGEST §1.5 Action): it has Rage and has not passed this
    Action phase (a passed clan that gains Rage later still takes no action)."""
    return S.rage[p] > 0 and S.passed[p] == 0


@njit(cache=True, _nrt=False)
def slot_choices_nb(S, p, ct, out):
    """Clan-sheet slots an upgrade of card type ct may go to (DIGEST §1.5 Upgrade: any slot of the
    type, free or occupied): the first empty one (empty slots of a type are alike), then every
    occupied one. Returns the count; out needs room for the type's slots."""
    if ct == E.CT_LEADER:
        out[0] = E.SLOT_LEADER
        return 1
    if ct == E.CT_WARRIOR:
        out[0] = E.SLOT_WARRIOR
        return 1
    if ct == E.CT_SHIP:
        out[0] = E.SLOT_SHIP
        return 1
    if ct == E.CT_MONSTER:
        s0, ns = E.SLOT_MONSTER0, E.N_MONSTER_SLOTS
    elif ct == E.CT_CLAN:
        s0, ns = E.SLOT_CLAN0, 3
    else:
        return 0
    n = 0
    for s in range(s0, s0 + ns):
        if S.upg[p, s] < 0:
            out[n] = s
            n += 1
            break
    for s in range(s0, s0 + ns):
        if S.upg[p, s] >= 0:
            out[n] = s
            n += 1
    return n


@canonical("p")
@njit(cache=True, _nrt=False)
def legal_actions_nb(T, S, p, acts):
    """Write clan p's legal actions into acts[:, 3] (type, a, b); returns the count (>= 1: Pass).

    Assumes can_act_nb(S, p) (a clan at 0 Rage, or one that passed, takes no action, DIGEST §1.5).
    Invade: one entry per distinct reserve figure (any one Warrior stands for all).
    greedy_choice_nb walks the same actions in the same order: a change here goes there too
    (tests/test_kernel_views.py compares the two over random positions).
    """
    n = 0
    rage, at, here, ops = _position(T, S, p)
    buf, occ, figs = S.w_dest[:], S.w_occ[:], S.w_figs[:]
    for j in range(_invaders(T, S, p, rage, ops, figs)):
        f = figs[j]
        for i in range(invade_dests_nb(T, S, p, f, buf, occ)):
            n = _add(acts, n, E.A_INVADE, f, buf[i])
    if rage >= 1:
        for src in range(E.N_PROVINCES):
            if not (at >> src) & 1:
                continue
            for dst in range(E.N_PROVINCES):
                if _march_ok(T, S, occ, src, dst):
                    n = _add(acts, n, E.A_MARCH, src, dst)
    discount = upgrade_with_op_nb(T, S, p, E.OP_UPGRADE_DISCOUNT) if _has(ops, E.OP_UPGRADE_DISCOUNT) else -1
    for i in range(S.hand_n[p]):
        c = S.hand[p, i]
        ct = T.card_type[c]
        if ct == E.CT_QUEST:
            n = _add(acts, n, E.A_QUEST, i, 0)
        elif ct != E.CT_BATTLE and upgrade_cost_with_nb(T, c, discount) <= rage:
            for k in range(slot_choices_nb(S, p, ct, buf)):
                n = _add(acts, n, E.A_UPGRADE, i, buf[k])
    ch_ok = _challenge_ok(T, S, p, ops, rage)
    for pr in range(E.N_PROVINCES):
        if S.destroyed[pr] == 0 and (here >> pr) & 1:
            t = _pillage_type(S, pr, ch_ok)
            if t >= 0:
                n = _add(acts, n, t, pr, 0)
    if _sacrifice_ok(T, S, p, ops):
        n = _add(acts, n, E.A_SACRIFICE, 0, 0)
    return _add(acts, n, E.A_PASS, 0, 0)


@canonical("p")
@njit(cache=True, _nrt=False)
def greedy_choice_nb(T, S, p, acts, params):
    """The action (type, a, b) policy.choose_action_nb picks for clan p from legal_actions_nb's
    list with ``params`` (float64[N_PARAMS], before effective_params_nb), found without listing:
    legal_actions_nb's actions walked in its order, each scored with policy._action_score's
    pieces, the first of equals kept; candidates that cannot score above NEG are skipped (a
    March neither into nor out of the doomed province), the Invades are scored last and only
    when _invade_cap says one could beat the rest, and each figure's Invade destinations are
    scored from one summary of the destinations per decision (their scores differ only by the
    figure's term). ``acts`` (int64[MAX_ACTS, 3]) is written only when no action scores
    above NEG: greedy then takes the first one listed."""
    params = effective_params_nb(S, p, params)
    rage, at, here, ops = _position(T, S, p)
    buf, occ, figs = S.w_dest[:], S.w_occ[:], S.w_figs[:]
    doomed, late = decision_facts(S, p, params)
    best = (NEG - 1.0, -1, 0, 0)  # (score, type, a, b); NEG - 1.0 == NEG: an action must beat NEG
    if rage >= 1 and 0 <= doomed < E.N_PROVINCES:  # policy.march_score: NEG but into or out of doomed
        for src in range(E.N_PROVINCES):
            if not (at >> src) & 1:
                continue
            if src != doomed:
                if (late or params[E.P_DOOM] > 2.0) and _march_ok(T, S, occ, src, doomed):
                    best = _keep(best, march_score(S, src, doomed, params, doomed, late), E.A_MARCH, src, doomed)
            elif not late:
                for dst in range(E.N_PROVINCES):  # all score 2.5: the first one listed
                    if _march_ok(T, S, occ, src, dst) and S.pillaged[dst] == 0:
                        best = _keep(best, march_score(S, src, dst, params, doomed, late), E.A_MARCH, src, dst)
                        break
    discount = upgrade_with_op_nb(T, S, p, E.OP_UPGRADE_DISCOUNT) if _has(ops, E.OP_UPGRADE_DISCOUNT) else -1
    for i in range(S.hand_n[p]):
        c = S.hand[p, i]
        ct = T.card_type[c]
        if ct == E.CT_QUEST:
            best = _keep(best, 7.0, E.A_QUEST, i, 0)
        elif ct != E.CT_BATTLE:
            cost = upgrade_cost_with_nb(T, c, discount)
            if cost <= rage:
                for k in range(slot_choices_nb(S, p, ct, buf)):
                    best = _keep(best, upgrade_score(T, c, S.upg[p, buf[k]], cost), E.A_UPGRADE, i, buf[k])
    ch_ok = _challenge_ok(T, S, p, ops, rage)
    enemies, best_card = -1, 0  # read at the first pillage
    for pr in range(E.N_PROVINCES):
        if S.destroyed[pr] == 0 and (here >> pr) & 1:
            t = _pillage_type(S, pr, ch_ok)
            if t < 0:
                continue
            if enemies < 0:  # enemy_mask_nb
                enemies, best_card = 0, best_card_value_nb(T, S, p)
                for q in range(S.gs[G_NP]):
                    if q != p:
                        enemies |= S.w_here[q]
            sc = pillage_score(T, S, p, pr, params, (enemies >> pr) & 1 == 1, best_card)
            best = _keep(best, challenge_score(sc) if t == E.A_CHALLENGE else sc, t, pr, 0)
    # Frigga's Sacrifice scores NEG: never chosen over another
    best = _keep(best, params[E.P_PASS_RAGE], E.A_PASS, 0, 0)
    # The Invades are listed first but scored last, only when they might beat the rest: an Invade
    # equal to the best of the rest is chosen (the first of equals), so the skip needs cap < best.
    if _invade_cap(T, params, doomed, late, ops) >= best[0]:
        inv = (NEG - 1.0, -1, 0, 0)
        nf = _invaders(T, S, p, rage, ops, figs)
        if nf > 0:
            dests = _dest_summary(T, S, occ, params, doomed, late, here)
            for j in range(nf):
                inv = _best_invade(T, S, p, figs[j], inv, dests, (params, doomed, late, here))
        if inv[1] >= 0 and inv[0] >= best[0]:
            best = inv
    if best[1] < 0:  # nothing above NEG: the first action listed
        legal_actions_nb(T, S, p, acts)
        return acts[0, 0], acts[0, 1], acts[0, 2]
    return best[1], best[2], best[3]


@njit(inline="always")
def _invade_cap(T, params, doomed, late, ops):
    """At least greedy's score of any Invade of a clan with upgrade opcodes ``ops`` now, by the
    same floating-point steps as policy.invade_province_score + invade_str_term (a province:
    3 + 0.5 x the best token + 0.5 for presence, or the doomed one's; T.str_cap for the figure)
    and invade_fjord_score + invade_fjord_term (at most 4.9, + 3 for a Monster as a Ship):
    rounding is monotone, so no score computed from smaller terms exceeds it."""
    doom = (6.0 if late else 0.5) + params[E.P_DOOM] if 0 <= doomed < E.N_PROVINCES else 0.0
    prov = max(3.0 + 0.5 * 4.0, doom) + 0.5 + 0.3 * T.str_cap
    return max(prov, 5.0 + (3.0 if _has(ops, E.OP_AS_SHIP) else 0.0))


@njit(inline="always")
def _keep(best, sc, t, a, b):
    """greedy's running pick (score, t, a, b) after candidate (t, a, b) listed next scores sc."""
    return (sc, t, a, b) if sc > best[0] else best


@njit(inline="always")
def _position(T, S, p):
    """What an action decision of clan p reads first: (its Rage, board_view_nb's masks of where it
    has figures and where it is present, its upgrades' opcode mask); S.w_occ holds occupancy."""
    board_view_nb(T, S)
    return S.rage[p], S.w_at[p], S.w_here[p], clan_opmask_nb(T, S, p)


@njit(inline="always")
def _invaders(T, S, p, rage, ops, figs):
    """The figures clan p may invade with now, in legal_actions_nb's order, into figs (int64[NFIG]);
    returns their count: none at its Horns limit; those in the reserve whose cost its Rage pays,
    then, with Frigga's Domain, those in Valhalla (its cost); any one Warrior of a place stands
    for all there (DIGEST §1.5 Invade, §1.7)."""
    if on_board_nb(S, p) >= horns_nb(T, S, p):
        return 0
    fd = upgrade_with_op_nb(T, S, p, E.OP_VALHALLA_INVADE) if _has(ops, E.OP_VALHALLA_INVADE) else -1
    n = 0
    for src in (E.LOC_RESERVE, E.LOC_VALHALLA):
        if src == E.LOC_VALHALLA and fd < 0:
            continue
        warrior_seen = False
        for f in range(E.NFIG):
            if S.loc[p, f] != src:
                continue
            if E.FIG_WARRIOR0 <= f < E.FIG_WARRIOR0 + E.N_WARRIORS:
                if warrior_seen:
                    continue
                warrior_seen = True
            cost = invade_cost_nb(T, S, p, f) if src == E.LOC_RESERVE else op_arg_nb(T, fd, E.OP_VALHALLA_INVADE)
            if cost <= rage:
                figs[n] = f
                n += 1
    return n


@njit(inline="always")
def _march_ok(T, S, occ, src, dst):
    """A March from province src (clan's figures there) to dst: standing, with a free village."""
    return dst != src and S.destroyed[dst] == 0 and T.prov_villages[dst] > occ[dst]


@njit(inline="always")
def _challenge_ok(T, S, p, ops, rage):
    """Tyr's Challenge (pillage a pillaged province again) is open to clan p."""
    ch = upgrade_with_op_nb(T, S, p, E.OP_CHALLENGE) if _has(ops, E.OP_CHALLENGE) else -1
    return ch >= 0 and rage >= op_arg_nb(T, ch, E.OP_CHALLENGE)


@njit(inline="always")
def _pillage_type(S, pr, ch_ok):
    """A_PILLAGE for an unpillaged province, A_CHALLENGE for a pillaged one when open, else -1."""
    return E.A_PILLAGE if S.pillaged[pr] == 0 else (E.A_CHALLENGE if ch_ok else -1)


@njit(inline="always")
def _sacrifice_ok(T, S, p, ops):
    """Frigga's Sacrifice is open: enough figures on the board and a stat below its top."""
    c = upgrade_with_op_nb(T, S, p, E.OP_SACRIFICE) if _has(ops, E.OP_SACRIFICE) else -1
    return c >= 0 and on_board_nb(S, p) >= op_arg_nb(T, c, E.OP_SACRIFICE) and \
        (S.stat[p, 0] < E.N_STEPS - 1 or S.stat[p, 1] < E.N_STEPS - 1 or S.stat[p, 2] < E.N_STEPS - 1)


@njit(inline="always")  # once per decision in which a figure may invade
def _dest_summary(T, S, occ, params, doomed, late, here):
    """Where a figure may invade and greedy's score of each before the figure's term, summed up:
    (of the enterable provinces but Yggdrasil: the first of the best, its invade_province_score,
    the best score of those listed before it (-inf: none); Yggdrasil enterable, its score; the
    same three for the usable fjords, with invade_fjord_score). -1: no such place."""
    lb, ls, lp = -1, 0.0, -np.inf
    for pr in range(E.YGGDRASIL):
        if enterable_nb(T, S, pr, occ, False, False):
            sc = invade_province_score(S, pr, params, doomed, late, here)
            if lb < 0 or sc > ls:  # a new best: all listed so far are before it
                lb, ls, lp = pr, sc, (ls if lb >= 0 else lp)
    ygg = enterable_nb(T, S, E.YGGDRASIL, occ, False, True)
    ys = invade_province_score(S, E.YGGDRASIL, params, doomed, late, here)
    fb, fs, fp = -1, 0.0, -np.inf
    for fj in range(E.N_FJORDS):
        if enterable_nb(T, S, E.LOC_FJORD0 + fj, occ, True, False):
            sc = invade_fjord_score(T, S, fj, doomed, late)
            if fb < 0 or sc > fs:
                fb, fs, fp = fj, sc, (fs if fb >= 0 else fp)
    return lb, ls, lp, ygg, ys, fb, fs, fp


@njit(inline="always")
def _best_invade(T, S, p, f, best, dests, facts):
    """greedy's running pick after figure f's Invade actions (invade_dests_nb's, in its order);
    ``facts``: (params, doomed province, late, clan p's presence mask) of the decision.
    A figure's score of a place is the place's score plus the figure's term (Yggdrasil's its own),
    so its first best is the places' first best, unless rounding the sum makes an earlier place's
    score equal to it: then every place is scored as listed."""
    lb, ls, lp, ygg, ys, fb, fs, fp = dests
    params, doomed, late, here = facts
    occ = S.w_occ  # board_view_nb's
    if is_shiplike_nb(T, S, p, f):
        if fb >= 0:
            t = invade_fjord_term(f)
            if fp + t == fs + t:
                for fj in range(E.N_FJORDS):
                    if enterable_nb(T, S, E.LOC_FJORD0 + fj, occ, True, False):
                        best = _keep(best, invade_fjord_score(T, S, fj, doomed, late) + t,
                                     E.A_INVADE, f, E.LOC_FJORD0 + fj)
            else:
                best = _keep(best, fs + t, E.A_INVADE, f, E.LOC_FJORD0 + fb)
        return best
    if lb >= 0:
        t = invade_str_term(T, S, p, f, 0)  # its STR anywhere but in Yggdrasil
        if lp + t == ls + t:
            for pr in range(E.YGGDRASIL):
                if enterable_nb(T, S, pr, occ, False, False):
                    best = _keep(best, invade_province_score(S, pr, params, doomed, late, here) + t,
                                 E.A_INVADE, f, pr)
        else:
            best = _keep(best, ls + t, E.A_INVADE, f, lb)
    if ygg and may_enter_yggdrasil_nb(T, S, p, f):  # Yggdrasil is listed last
        best = _keep(best, ys + invade_str_term(T, S, p, f, E.YGGDRASIL), E.A_INVADE, f, E.YGGDRASIL)
    return best


@njit(inline="always")
def _has(ops, op):
    return (ops >> op) & 1 == 1


@canonical("p", bools=("free",))
@njit(cache=True, _nrt=False)
def invade_nb(T, S, p, f, dest, free, kinds, params):
    """Invade: put figure f (reserve, or Valhalla with Frigga's Domain) at dest, paying its cost unless
    ``free``; then the invade texts: Troll / Fire Giant, Frigga's Succor, Thor's Domain."""
    if free:
        cost = 0
    elif S.loc[p, f] == E.LOC_VALHALLA:
        c = upgrade_with_op_nb(T, S, p, E.OP_VALHALLA_INVADE)
        cost = op_arg_nb(T, c, E.OP_VALHALLA_INVADE)
        fired_nb(S, p, c, E.OP_VALHALLA_INVADE, cost, f)
    else:
        cost = invade_cost_nb(T, S, p, f)
    S.rage[p] -= cost
    S.loc[p, f] = dest
    log_nb(S, E.EV_INVADE, p, f, dest, cost, 1 if free else 0, 0)
    if f >= E.FIG_MONSTER0:  # the Monsters' static texts count as acting when they shape an invade
        m = monster_card_nb(S, p, f)
        for op in (E.OP_FREE_FIGURE, E.OP_AS_SHIP, E.OP_YGGDRASIL):
            if card_op_index_nb(T, m, op) >= 0 and (op != E.OP_YGGDRASIL or dest == E.YGGDRASIL) \
                    and (op != E.OP_FREE_FIGURE or not free):
                S.fired[m] += 1
    if dest >= E.N_PROVINCES:
        return
    if f >= E.FIG_MONSTER0:
        invade_destroy_nb(T, S, p, f, dest, kinds, params)
    sc = upgrade_with_op_nb(T, S, p, E.OP_SUCCOR)
    if sc >= 0:
        free_warrior_nb(T, S, p, sc, E.OP_SUCCOR, dest, kinds, params)
    dm = upgrade_with_op_nb(T, S, p, E.OP_DOMAIN_PILLAGE)
    if dm >= 0 and S.pillaged[dest] == 0 and S.rage[p] >= op_arg_nb(T, dm, E.OP_DOMAIN_PILLAGE) and \
            choose_yes_nb(T, S, p, kinds[p], params[p], pillage_worth_nb(T, S, p, dest, params[p]) > 0):
        S.rage[p] -= op_arg_nb(T, dm, E.OP_DOMAIN_PILLAGE)
        fired_nb(S, p, dm, E.OP_DOMAIN_PILLAGE, op_arg_nb(T, dm, E.OP_DOMAIN_PILLAGE), dest)
        pillage_nb(T, S, p, dest, kinds, params)


@canonical("p")
@njit(cache=True, _nrt=False)
def invade_destroy_nb(T, S, p, f, prov, kinds, params):
    """Troll (a=0): destroy every enemy Warrior in the province; Fire Giant (a=1): every enemy
    non-Monster figure in it and in its supporting fjord (DIGEST §1.7)."""
    m = monster_card_nb(S, p, f)
    k = card_op_index_nb(T, m, E.OP_INVADE_DESTROY)
    if k < 0:
        return
    mode = T.card_a[m, k]
    floc = fjord_loc_of_nb(T, prov)
    n = 0
    for q in range(S.gs[G_NP]):
        if q == p:
            continue
        for g in range(E.FIG_MONSTER0):
            l = S.loc[q, g]
            warrior = E.FIG_WARRIOR0 <= g < E.FIG_WARRIOR0 + E.N_WARRIORS
            if (l == prov and (warrior or mode == 1)) or (mode == 1 and floc >= 0 and l == floc):
                if destroy_nb(T, S, q, g, E.CAUSE_CARD, kinds, params):
                    n += 1
    if n > 0:
        fired_nb(S, p, m, E.OP_INVADE_DESTROY, n, prov)


@canonical("p")
@njit(cache=True, _nrt=False)
def march_nb(T, S, p, src, dst, kinds, params):
    """March (DIGEST §1.5): pay 1 Rage, move some of p's figures from src to empty villages of dst."""
    S.rage[p] -= 1
    cand = S.w_cand[:]
    nc = 0
    for f in range(E.NFIG):
        if S.loc[p, f] == src:
            cand[nc] = f
            nc += 1
    k = choose_march_nb(T, S, p, src, dst, cand[:nc], kinds[p], params[p])
    for i in range(k):
        S.loc[p, cand[i]] = dst
    log_nb(S, E.EV_MARCH, p, src, dst, k, 0, 0)


@canonical("p")
@njit(cache=True, _nrt=False)
def upgrade_nb(T, S, p, hi, slot, kinds, params):
    """Upgrade (DIGEST §1.5): pay, place the card in ``slot`` (discarding the old one; a replaced
    Monster leaves the game), then offer the free invade with that kind of figure."""
    c = S.hand[p, hi]
    cost = upgrade_cost_nb(T, S, p, c)
    S.rage[p] -= cost
    if cost < T.card_value[c]:  # a free Monster, or Frigga's Charm's discount, acted
        if card_op_index_nb(T, c, E.OP_FREE_FIGURE) >= 0:
            S.fired[c] += 1
        else:
            d = upgrade_with_op_nb(T, S, p, E.OP_UPGRADE_DISCOUNT)
            if d >= 0:
                fired_nb(S, p, d, E.OP_UPGRADE_DISCOUNT, T.card_value[c] - cost, c)
    take_from_hand_nb(S, p, hi)
    old = S.upg[p, slot]
    ct = T.card_type[c]
    fig = -1
    if ct == E.CT_MONSTER:
        fig = E.FIG_MONSTER0 + slot - E.SLOT_MONSTER0
    if old >= 0:
        discard_nb(S, old)
        if fig >= 0 and S.loc[p, fig] != E.LOC_NONE:
            log_nb(S, E.EV_DESTROY, p, fig, S.loc[p, fig], E.CAUSE_REPLACED, 0, 0)
            S.loc[p, fig] = E.LOC_NONE
    S.upg[p, slot] = c
    sheet_refresh_nb(T, S, p)
    log_nb(S, E.EV_UPGRADE, p, c, slot, cost, old, 0)
    note_use_nb(S, p, c, E.USE_UPGRADE)
    if fig >= 0:
        S.loc[p, fig] = E.LOC_RESERVE
    elif ct == E.CT_LEADER:
        fig = E.FIG_LEADER
    elif ct == E.CT_SHIP:
        fig = E.FIG_SHIP
    elif ct == E.CT_WARRIOR:
        for f in range(E.FIG_WARRIOR0, E.FIG_WARRIOR0 + E.N_WARRIORS):
            if S.loc[p, f] == E.LOC_RESERVE:
                fig = f
                break
    if fig < 0 or S.loc[p, fig] != E.LOC_RESERVE or on_board_nb(S, p) >= horns_nb(T, S, p):
        return
    dests = S.w_dest[:]  # legal_actions_nb's are spent: the action is chosen
    occ = S.w_occ[:]
    occupancy_nb(S, occ)
    nd = invade_dests_nb(T, S, p, fig, dests, occ)
    if nd > 0:
        i = choose_free_invade_nb(T, S, p, fig, dests, nd, kinds[p], params[p])
        if i >= 0:
            invade_nb(T, S, p, fig, dests[i], True, kinds, params)


@canonical("p")
@njit(cache=True, _nrt=False)
def do_action_nb(T, S, p, t, a, b, kinds, params):
    """Carry out legal action (t, a, b) for clan p."""
    if t == E.A_INVADE:
        invade_nb(T, S, p, a, b, False, kinds, params)
    elif t == E.A_MARCH:
        march_nb(T, S, p, a, b, kinds, params)
    elif t == E.A_UPGRADE:
        upgrade_nb(T, S, p, a, b, kinds, params)
    elif t == E.A_QUEST:
        c = take_from_hand_nb(S, p, a)
        S.quests[p, S.quest_n[p]] = c
        S.quest_n[p] += 1
        log_nb(S, E.EV_QUEST, p, c, 0, 0, 0, 0)
        note_use_nb(S, p, c, E.USE_QUEST)
    elif t == E.A_PILLAGE:
        pillage_nb(T, S, p, a, kinds, params)
    elif t == E.A_CHALLENGE:
        c = upgrade_with_op_nb(T, S, p, E.OP_CHALLENGE)
        S.rage[p] -= op_arg_nb(T, c, E.OP_CHALLENGE)
        fired_nb(S, p, c, E.OP_CHALLENGE, op_arg_nb(T, c, E.OP_CHALLENGE), a)
        pillage_nb(T, S, p, a, kinds, params)
    elif t == E.A_SACRIFICE:
        sacrifice_nb(T, S, p, kinds, params)
    else:
        log_nb(S, E.EV_PASS, p, S.rage[p], 0, 0, 0, 0)
        S.rage[p] = 0
        S.passed[p] = 1


@canonical("p")
@njit(cache=True, _nrt=False)
def sacrifice_nb(T, S, p, kinds, params):
    """Frigga's Sacrifice: destroy a of your figures on the board (your choice; greedy: the weakest
    first) to raise one clan stat."""
    c = upgrade_with_op_nb(T, S, p, E.OP_SACRIFICE)
    figs = S.w_figs[:]
    for _ in range(op_arg_nb(T, c, E.OP_SACRIFICE)):
        n, g = 0, 0
        for f in range(E.NFIG):
            if S.loc[p, f] >= 0:
                figs[n] = f
                if E.FIG_WARRIOR0 <= f < E.FIG_WARRIOR0 + E.N_WARRIORS and not \
                        (E.FIG_WARRIOR0 <= figs[g] < E.FIG_WARRIOR0 + E.N_WARRIORS):
                    g = n
                n += 1
        i = choose_option_nb(T, S, p, figs, n, kinds[p], params[p], g)
        destroy_nb(T, S, p, figs[i if i >= 0 else g], E.CAUSE_SACRIFICE, kinds, params)
    text_raise_nb(T, S, p, c, E.OP_SACRIFICE, kinds, params, -1)
