"""Setup and the phases of an age (DIGEST §1.3, §1.5), and the end of the game."""
from numba import njit

from ..core import enums as E
from ..core.draft_rules import rules_bind_nb
from ..core.rng import rand_int_nb, shuffle_nb
from .actions import can_act_nb, do_action_nb, greedy_choice_nb, legal_actions_nb
from .board import clan_str_nb, fjord_loc_of_nb
from .clan import add_to_hand_nb, discard_nb, gain_glory_nb, raise_stat_nb, take_from_hand_nb, total_glory_nb
from .effects import conquest_nb, destroy_nb, glory_multiplier_nb, release_glory_nb
from .invariants import checkpoint_nb
from .policy import choose_keep_nb, choose_stat_nb, draft_pick_nb
from .state import G_AGE, G_CAPPED, G_FIRST, G_NP, G_TURNS, log_nb, note_use_nb


@njit(cache=True)
def setup_nb(T, S):
    """DIGEST §1.3: Ragnarök tokens (3 on the Age track, then the pre-destroyed provinces by
    player count), pillage tokens, first player, the three shuffled age decks."""
    P = S.gs[G_NP]
    rag = S.w_shuf  # the state's buffer: no allocation per game
    for i in range(E.N_OUTER):
        rag[i] = i
    shuffle_nb(S.rs, rag, E.N_OUTER)
    for a in range(3):
        S.doom[a] = rag[a]
        log_nb(S, E.EV_DOOM, -1, rag[a], a + 1, 0, 0, 0)
    k = T.predestroyed[P]
    for i in range(3, 3 + k):
        S.destroyed[rag[i]] = 1
        log_nb(S, E.EV_PREDESTROY, -1, rag[i], 0, 0, 0, 0)
    for i in range(3 + k, E.N_OUTER):
        S.spare_doom[i - 3 - k] = rag[i]
    tok = S.w_shuf  # rag is read no more
    for i in range(E.N_OUTER):
        tok[i] = T.outer_tokens[i]
    shuffle_nb(S.rs, tok, E.N_OUTER)
    for pr in range(E.N_OUTER):
        S.token[pr] = tok[pr]
    S.token[E.YGGDRASIL] = T.ygg_token
    for pr in range(E.N_PROVINCES):
        if S.destroyed[pr] == 0:
            log_nb(S, E.EV_TOKEN, -1, pr, S.token[pr], 0, 0, 0)
    S.gs[G_FIRST] = rand_int_nb(S.rs, P)
    for q in range(P):  # Monster figures exist only once recruited
        for f in range(E.FIG_MONSTER0, E.NFIG):
            S.loc[q, f] = E.LOC_NONE
    for a in range(3):
        n = 0
        for c in range(T.card_age.shape[0]):
            if T.card_age[c] == a + 1:
                for _ in range(T.card_copies[c, P]):
                    S.deck[a, n] = c
                    n += 1
        shuffle_nb(S.rs, S.deck[a], n)
        S.deck_n[a] = n


@njit(cache=True)
def ruled_pick_nb(T, S, q, pack, n, kind, params):
    """Draft pick under the ablation rules of ``T.card_draft`` (volva ablate): a forced card in
    the pack is taken (the first one if several); banned cards are moved to the end of pack[:n]
    and the policy picks among the others (if every card is banned, the policy picks freely).
    Returns the index in pack[:n]. Whom the marks bind: core.draft_rules."""
    bind = rules_bind_nb(T, S, q)
    if bind == 0:
        return draft_pick_nb(T, S, q, pack, n, kind, params)
    nb = 0
    for i in range(n):
        d = T.card_draft[pack[i]]
        if d == E.DRAFT_FORCED and bind == 1:
            return i
        if d == E.DRAFT_BANNED:
            nb += 1
    if nb == 0 or nb == n:
        return draft_pick_nb(T, S, q, pack, n, kind, params)
    k = 0
    for i in range(n):
        if T.card_draft[pack[i]] != E.DRAFT_BANNED:
            c = pack[k]
            pack[k] = pack[i]
            pack[i] = c
            k += 1
    return draft_pick_nb(T, S, q, pack, k, kind, params)


@njit(cache=True)
def draft_nb(T, S, kinds, params):
    """Gods' Gifts (DIGEST §1.5 Draft): deal, keep pick_n and pass left until keep are kept;
    the rest are discarded unseen; then a carried card joins the hand."""
    P = S.gs[G_NP]
    a = S.gs[G_AGE] - 1
    deal = T.deal if T.opts[E.OPT_DRAFT] == 1 else T.keep
    packs, plen = S.w_packs, S.w_plen  # the state's buffers: no allocation per age
    for q in range(P):
        plen[q] = deal
        for j in range(deal):
            S.deck_n[a] -= 1
            packs[q, j] = S.deck[a, S.deck_n[a]]
            S.deck[a, S.deck_n[a]] = -1
    per = T.pick_n[P] if T.opts[E.OPT_DRAFT] == 1 else T.keep
    picked = 0
    for r in range(T.keep // per):
        for q in range(P):
            pk = (q - r) % P  # packs pass left: at round r, q holds the pack dealt to q - r
            for j in range(per):
                if T.draft_rules == 0:
                    i = draft_pick_nb(T, S, q, packs[pk], plen[pk], kinds[q], params[q])
                else:
                    i = ruled_pick_nb(T, S, q, packs[pk], plen[pk], kinds[q], params[q])
                c = packs[pk, i]
                plen[pk] -= 1
                packs[pk, i] = packs[pk, plen[pk]]
                add_to_hand_nb(S, q, c)
                if picked + j < E.MAX_PICKS:
                    S.picks[q, a, picked + j] = c
                log_nb(S, E.EV_PICK, q, c, picked + j + 1, 0, 0, 0)
        picked += per
    for pk in range(P):
        for j in range(plen[pk]):
            discard_nb(S, packs[pk, j])
    for q in range(P):
        if S.carried[q] >= 0:
            add_to_hand_nb(S, q, S.carried[q])
            log_nb(S, E.EV_CARRY, q, S.carried[q], 0, 0, 0, 0)
            S.carried[q] = -1


@njit(cache=True)
def all_pillaged_nb(S):
    for pr in range(E.N_PROVINCES):
        if S.destroyed[pr] == 0 and S.pillaged[pr] == 0:
            return False
    return True


@njit(cache=True, _nrt=False)
def action_phase_nb(T, S, kinds, params):
    """DIGEST §1.5 Action: Rage set to the Rage stat; one action per turn from the first player,
    clockwise, skipping clans that cannot act (0 Rage, or passed: a passed clan that gains Rage
    later still takes no action); ends when no clan can act or every standing province is
    pillaged."""
    P = S.gs[G_NP]
    for q in range(P):
        S.rage[q] = T.track[E.STAT_RAGE, S.stat[q, E.STAT_RAGE]]
        S.passed[q] = 0
    acts = S.w_acts[:]
    q = S.gs[G_FIRST]
    turns = 0
    while True:
        anyone = False
        for r in range(P):
            if can_act_nb(S, r):
                anyone = True
        if not anyone or all_pillaged_nb(S):
            break
        if turns >= T.opts[E.OPT_MAX_ACTIONS]:
            S.gs[G_CAPPED] += 1
            break
        if can_act_nb(S, q):
            if kinds[q] == E.POL_RANDOM:  # choose_action_nb's uniform pick
                i = rand_int_nb(S.rs, legal_actions_nb(T, S, q, acts))
                t, a, b = acts[i, 0], acts[i, 1], acts[i, 2]
            else:  # greedy (and a script, which plays greedy's actions), without a list
                t, a, b = greedy_choice_nb(T, S, q, acts, params[q])
            do_action_nb(T, S, q, t, a, b, kinds, params)
            S.game_shape[q, E.SH_ACTIONS] += 1
            turns += 1
            S.gs[G_TURNS] += 1
            checkpoint_nb(T, S)
        q = (q + 1) % P
    for r in range(P):
        S.rage_end[r] = S.rage[r]


@njit(cache=True, _nrt=False)
def discard_phase_nb(T, S, kinds, params):
    """DIGEST §1.5 Discard: keep at most carry[age] cards (age 3: none); the rest are discarded."""
    keep = T.carry[S.gs[G_AGE] - 1]
    for q in range(S.gs[G_NP]):
        if keep > 0 and S.hand_n[q] > 0:
            i = choose_keep_nb(T, S, q, kinds[q], params[q])
            if i >= 0:
                S.carried[q] = take_from_hand_nb(S, q, i)
                log_nb(S, E.EV_KEEP, q, S.carried[q], 0, 0, 0, 0)
                note_use_nb(S, q, S.carried[q], E.USE_KEEP)
        while S.hand_n[q] > 0:
            c = take_from_hand_nb(S, q, S.hand_n[q] - 1)
            discard_nb(S, c)
            log_nb(S, E.EV_DISCARD, q, c, 0, 0, 0, 0)


@njit(cache=True)
def has_most_str_nb(T, S, p, prov):
    """Strictly more STR in prov than every other clan (DIGEST §1.5 Quest; a tie fails)."""
    if S.destroyed[prov]:
        return False
    mine = clan_str_nb(T, S, p, prov)
    if mine <= 0:
        return False
    for q in range(S.gs[G_NP]):
        if q != p and clan_str_nb(T, S, q, prov) >= mine:
            return False
    return True


@njit(cache=True)
def quest_met_nb(T, S, p, c):
    """Is quest card c met by clan p now? (DIGEST §1.5 Quest, card texts of cards.csv)."""
    for k in range(E.MAX_EFFECTS):
        op = T.card_op[c, k]
        arg = T.card_a[c, k]
        if op == E.OP_QUEST_REGION:
            for pr in range(E.N_PROVINCES):
                if T.prov_region[pr] == arg and has_most_str_nb(T, S, p, pr):
                    return True
            return False
        if op == E.OP_QUEST_YGGDRASIL:
            return has_most_str_nb(T, S, p, E.YGGDRASIL)
        if op == E.OP_QUEST_VALHALLA:
            n = 0
            for f in range(E.NFIG):
                if S.loc[p, f] == E.LOC_VALHALLA:
                    n += 1
            return n >= arg
        if op == E.OP_QUEST_WIDESPREAD:
            n = 0
            for pr in range(E.N_PROVINCES):
                if has_most_str_nb(T, S, p, pr):
                    n += 1
            return n >= arg
    return False


@njit(cache=True, _nrt=False)
def quest_phase_nb(T, S, kinds, params):
    """DIGEST §1.5 Quest: each committed quest met gives its Glory and one stat raise; all are discarded."""
    P = S.gs[G_NP]
    for k in range(P):
        q = (S.gs[G_FIRST] + k) % P
        for j in range(S.quest_n[q]):
            c = S.quests[q, j]
            met = quest_met_nb(T, S, q, c)
            S.game_shape[q, E.SH_QUESTS] += 1
            S.game_shape[q, E.SH_QUESTS_DONE] += 1 if met else 0
            g = T.card_qglory[c] if met else 0
            log_nb(S, E.EV_QUESTRES, q, c, 1 if met else 0, g, 0, 0)
            if met:
                S.fired[c] += 1
                S.quests_age[q] += 1
                gain_glory_nb(S, q, E.G_QUEST, g)
                glory_multiplier_nb(T, S, q, E.OP_QUEST_MULT, g, E.G_QUEST)
                s = choose_stat_nb(T, S, q, kinds[q], params[q], -1)
                if s >= 0:
                    raise_stat_nb(S, q, s, E.RAISE_QUEST)
            discard_nb(S, c)
            S.quests[q, j] = -1
        S.quest_n[q] = 0


@njit(cache=True, _nrt=False)
def ragnarok_nb(T, S, kinds, params):
    """DIGEST §1.5 Ragnarök: the doomed province is destroyed; its figures and the Ships in its
    supporting fjord go to Valhalla for 2/3/4 Glory each by age."""
    a = S.gs[G_AGE]
    for q in range(S.gs[G_NP]):  # board presence at Ragnarök (strategy analysis: board-holders)
        for f in range(E.NFIG):
            if S.loc[q, f] >= 0:
                S.board_rag[q] += 1
    prov = S.doom[a - 1]
    S.destroyed[prov] = 1
    for k in range(2):  # a god on the destroyed province leaves the board until the next placing
        if S.god_loc[k] == prov:
            S.god_loc[k] = -1
    floc = fjord_loc_of_nb(T, prov)
    per = T.ragnarok_glory[a - 1]
    for q in range(S.gs[G_NP]):
        n = 0
        for f in range(E.NFIG):
            l = S.loc[q, f]
            if l == prov or (floc >= 0 and l == floc):
                destroy_nb(T, S, q, f, E.CAUSE_RAGNAROK, kinds, params)
                n += 1
        if n > 0:
            gain_glory_nb(S, q, E.G_RAGNAROK, n * per)
            log_nb(S, E.EV_RAGNAROK, q, prov, n, n * per, 0, 0)
            glory_multiplier_nb(T, S, q, E.OP_RAGNAROK_MULT, n * per, E.G_RAGNAROK)


@njit(cache=True)
def release_nb(T, S):
    """DIGEST §1.5 Release Valhalla: every figure in Valhalla returns to its reserve."""
    for q in range(S.gs[G_NP]):
        n = 0
        for f in range(E.NFIG):
            if S.loc[q, f] == E.LOC_VALHALLA:
                S.loc[q, f] = E.LOC_RESERVE
                n += 1
        if n > 0:
            log_nb(S, E.EV_RELEASE, q, n, 0, 0, 0, 0)
            release_glory_nb(T, S, q, n)


@njit(cache=True)
def end_age_nb(S):
    """Flip pillage tokens back; the first-player token passes left."""
    for pr in range(E.N_PROVINCES):
        S.pillaged[pr] = 0
    S.gs[G_FIRST] = (S.gs[G_FIRST] + 1) % S.gs[G_NP]


@njit(cache=True)
def end_game_nb(T, S, rank):
    """DIGEST §1.4, §1.5 End of game: stat bonuses, then rank (1 = best) with the tie-break option
    (most Rage left at the end of the last Action phase; still tied: shared)."""
    P = S.gs[G_NP]
    for q in range(P):  # Thor's Conquest first, then the stat bonuses (DIGEST §1.5 End of game)
        conquest_nb(T, S, q)
        for s in range(E.N_STATS):
            g = T.bonus[S.stat[q, s]]
            if g > 0:
                gain_glory_nb(S, q, E.G_BONUS, g)
                log_nb(S, E.EV_BONUS, q, s, g, 0, 0, 0)
    by_rage = T.opts[E.OPT_TIE_BREAK] == 0
    for q in range(P):
        gq = total_glory_nb(S, q)
        r = 1
        for o in range(P):
            go = total_glory_nb(S, o)
            if go > gq or (by_rage and go == gq and S.rage_end[o] > S.rage_end[q]):
                r += 1
        rank[q] = r
    for q in range(P):
        log_nb(S, E.EV_FINAL, q, total_glory_nb(S, q), rank[q], S.rage_end[q], 0, 0)


@njit(cache=True)
def start_age_counters_nb(S):
    """Reset the per-age counters the Rainbow Bridge missions read; note each clan's Glory."""
    for p in range(S.gs[G_NP]):
        S.won_age[p] = 0
        S.pillaged_age[p] = 0
        S.quests_age[p] = 0
        t = 0
        for k in range(E.N_GLORY_SRC):
            t += S.glory[p, k]
        S.glory_age0[p] = t


@njit(cache=True)
def missions_nb(T, S):
    """Rainbow Bridge god missions (rulebook 000 "The Rainbow Bridge Module"; DIGEST §4): at the end
    of each age (after Ragnarök) every clan that met a mission's condition this age marks it and
    gains its Glory (each mission once per clan per age)."""
    for p in range(S.gs[G_NP]):
        tot = 0
        for k in range(E.N_GLORY_SRC):
            tot += S.glory[p, k]
        inv = 0
        for f in range(E.NFIG):
            if S.loc[p, f] == E.LOC_VALHALLA:
                inv += 1
        for m in range(T.n_missions):
            op, a = T.mission_op[m], T.mission_a[m]
            if op == E.M_BATTLES:
                met = S.won_age[p] >= a
            elif op == E.M_PILLAGES:
                met = S.pillaged_age[p] >= a
            elif op == E.M_QUESTS:
                met = S.quests_age[p] >= a
            elif op == E.M_VALHALLA:
                met = inv >= a
            else:
                met = tot - S.glory_age0[p] >= a
            if met:
                S.mission_n[p, m] += 1
                S.glory[p, E.G_MISSION] += T.mission_glory[m]
                log_nb(S, E.EV_MISSION, p, m, T.mission_glory[m], 0, 0, 0)
