"""Player policies: every decision the engine asks goes through one of these kernels.

kind (int8) selects the policy (POL_RANDOM, POL_GREEDY); params (float64[N_PARAMS])
tunes it.  New strategies plug in as parameter vectors, never as Python callbacks.
Each kernel returns an index into the legal choices it was given (-1 = decline
where declining is allowed).
"""
from numba import njit

from ..core import enums as E
from ..core.canon import canonical
from ..core.rng import rand_int_nb, shuffle_nb
from ..core.script import script_pop_nb, script_refused_nb
from .board import (
    battle_kept_nb,
    battle_str_nb,
    card_value_nb,
    clan_str_nb,
    enemy_mask_nb,
    fig_str_nb,
    free_villages_nb,
    has_enemy_nb,
    max_enemy_str_nb,
    presence_mask_nb,
    present_nb,
    upgrade_cost_nb,
    warrior_str_nb,
)
from .state import G_AGE, G_NP, G_OPEN_PLAY, G_SCRIPT_BAD, G_SCRIPT_BAD_AT

NEG = -1e18


@njit(inline="always")  # no array crosses a call: the kernels run with or without reference counts
def effective_params_nb(S, p, params):
    """The strategy's parameters for clan p now: its ordered rules (Geronimoo-style) are checked in
    order and every rule whose condition holds (age in its mask, Rage within [min, max]) overrides
    its parameters, later rules last. Returns params itself when no rule matches, else the state's
    row S.w_params[p] (float64[N_PARAMS]; no allocation: each caller reads it before clan p
    decides again)."""
    if params[E.P_RULES0] == 0.0:  # no rules (the built-in strategies): no call
        return params
    return S.w_params[p] if apply_rules_nb(S, p, params) else params


@canonical("p")
@njit(cache=True)
def apply_rules_nb(S, p, params):
    """effective_params_nb's work: True when a rule matched and S.w_params[p] holds the result."""
    copied = False
    age_bit = 1 << (S.gs[G_AGE] - 1)
    for r in range(E.MAX_RULES):
        o = E.P_RULES0 + r * E.RULE_W
        if params[o] == 0.0:
            break
        if (int(params[o + 1]) & age_bit) and params[o + 2] <= S.rage[p] <= params[o + 3]:
            if not copied:
                for k in range(E.N_PARAMS):  # not a draft table (draft_table_nb) that follows
                    S.w_params[p, k] = params[k]
                copied = True
            for k in range(int(params[o + 4])):
                S.w_params[p, int(params[o + 5 + 2 * k])] = params[o + 6 + 2 * k]
    return copied


@canonical("n")
@njit(cache=True)
def _find(a, n, v):
    for i in range(n):
        if a[i] == v:
            return i
    return -1


@canonical("p", "n", bools=("allow_decline",))
@njit(cache=True)
def scripted_index_nb(S, p, a, n, allow_decline):
    """POL_SCRIPT: the next scripted value's index in a[:n]; -1 for a scripted decline (value -1,
    when allowed); -2 when the queue is empty or the value is not a legal option (counted in
    G_SCRIPT_BAD) — the caller then falls back to greedy."""
    v = script_pop_nb(S, p)
    if v == E.SCRIPT_NONE:
        return -2
    if v == -1 and allow_decline:
        return -1
    i = _find(a, n, v)
    if i < 0:
        script_refused_nb(S, p, G_SCRIPT_BAD, G_SCRIPT_BAD_AT)
        return -2
    return i


@njit(cache=True)
def _argmax(scores, n):
    best = 0
    for i in range(1, n):
        if scores[i] > scores[best]:
            best = i
    return best


@njit(cache=True)
def token_worth_nb(reward):
    """Greedy's worth of a pillage reward."""
    if reward == E.REWARD_ALL:
        return 4.0
    if reward == E.REWARD_GLORY:
        return 3.0
    return 2.0


@njit(cache=True)
def draft_score_nb(T, c, params):
    """Greedy's draft score of card c: by type and value, plus the strategy's god and card bonuses."""
    bonus = params[E.P_CARD_W0 + c]
    if T.card_god[c] >= 0:
        bonus += params[E.P_GOD_W0 + T.card_god[c]]
    return bonus + _type_score_nb(T, c, params)


@njit(cache=True)
def _plain_worth_nb(T, c):
    """A card's worth to any clan (hate-drafting): battle +STR, Monster STR, quest Glory / 3, upgrades 2
    (T.card_plain, rules.make_tables)."""
    return T.card_plain[c]


@njit(cache=True)
def pick_score_nb(T, S, p, c, params):
    """Draft score of card c for clan p: draft_score_nb plus synergy with the god's cards it holds
    or has on its sheet, plus the hate-draft weight times the card's plain worth."""
    g = T.card_god[c]
    n = 0
    if g >= 0:
        for i in range(S.hand_n[p]):
            if T.card_god[S.hand[p, i]] == g:
                n += 1
        for k in range(E.N_SLOTS):
            if S.upg[p, k] >= 0 and T.card_god[S.upg[p, k]] == g:
                n += 1
    return pick_score_with(T, c, params, n)


@njit(inline="always")  # per card of a pack
def pick_score_with(T, c, params, same_god):
    """pick_score_nb given ``same_god``: the clan's cards (hand and sheet) of card c's god."""
    return _with_synergy(T, c, params, _plain_pick_score(T, c, params), same_god)


@njit(inline="always")
def _plain_pick_score(T, c, params):
    """pick_score_with before the synergy term: what draft_table_nb keeps per card."""
    s = draft_score_nb(T, c, params)
    if params[E.P_HATE] != 0.0:  # adding 0.0 would change no comparison
        s += params[E.P_HATE] * _plain_worth_nb(T, c)
    return s


@njit(inline="always")
def _with_synergy(T, c, params, s, same_god):
    if T.card_god[c] >= 0 and params[E.P_SYNERGY] != 0.0:
        s += params[E.P_SYNERGY] * same_god
    return s


@njit(cache=True, _nrt=False)
def draft_table_nb(T, S, P):
    """Each seat's draft scores before synergy (_plain_pick_score), for the batch path: columns
    N_PARAMS + c of S.pol_params[p] (float64[N_PARAMS + MAX_CARDS]) for every card c < T.n_cards,
    from the parameters in its first N_PARAMS columns (load_policies_nb's). draft_pick_nb reads
    them when it is given such a row, instead of scoring the same cards again at every pick."""
    for p in range(P):
        params = S.pol_params[p]
        for c in range(T.n_cards):
            S.pol_params[p, E.N_PARAMS + c] = _plain_pick_score(T, c, params)


@canonical("p")
@njit(cache=True, _nrt=False)
def god_counts_nb(T, S, p, out):
    """out[g] = clan p's cards (hand and sheet) of card god g, int64[len(CARD_GOD_NAMES)]."""
    out[:] = 0
    for i in range(S.hand_n[p]):
        g = T.card_god[S.hand[p, i]]
        if g >= 0:
            out[g] += 1
    for k in range(E.N_SLOTS):
        if S.upg[p, k] >= 0:
            g = T.card_god[S.upg[p, k]]
            if g >= 0:
                out[g] += 1


@njit(cache=True)
def _type_score_nb(T, c, params):
    """By type: P_W_BATTLE x +STR (X: 3), P_W_MONSTER x STR, P_W_QUEST x Glory / 3, P_W_UPGRADE x
    2.5 (Warrior) or 1.5 (other upgrades), from the card's derived columns (rules.make_tables)."""
    return params[T.card_wparam[c]] * T.card_wqty[c] / T.card_wdiv[c]


@canonical("n")
@njit(cache=True)
def draft_pick_nb(T, S, p, pack, n, kind, params):
    """Index in pack[:n] of the card clan p keeps (DIGEST §1.5 Draft). Script: a card id.
    params: float64[N_PARAMS], or a batch row that also carries draft_table_nb's scores."""
    if kind == E.POL_RANDOM:
        return rand_int_nb(S.rs, n)
    if kind == E.POL_SCRIPT:
        i = scripted_index_nb(S, p, pack, n, False)
        if i >= 0:
            return i
    params = effective_params_nb(S, p, params)
    table = params.shape[0] > E.N_PARAMS  # draft_table_nb's (a row of rules applied has none)
    gods = S.w_gods[:]
    if params[E.P_SYNERGY] != 0.0:  # else no count is read
        god_counts_nb(T, S, p, gods)  # once per pick, not once per card of the pack
    best, bs = 0, NEG
    for i in range(n):
        c = pack[i]
        g = T.card_god[c]
        s = params[E.N_PARAMS + c] if table else _plain_pick_score(T, c, params)
        s = _with_synergy(T, c, params, s, gods[g] if g >= 0 else 0)
        if s > bs:
            best, bs = i, s
    return best


@njit(cache=True)
def best_card_value_nb(T, S, p):
    """Highest +STR among clan p's hand cards."""
    m = 0
    for i in range(S.hand_n[p]):
        v = card_value_nb(T, S.hand[p, i])
        if v > m:
            m = v
    return m


@canonical("p")
@njit(cache=True)
def pillage_worth_nb(T, S, p, prov, params):
    """Greedy's score for pillaging prov now (> 0: worth it): unopposed, or its STR plus its best
    card beats the strongest enemy plus an assumed card by the margin."""
    return pillage_score(T, S, p, prov, params, has_enemy_nb(T, S, p, prov), best_card_value_nb(T, S, p))


@njit(inline="always")  # the body of pillage_worth_nb, its clan-wide terms given
def pillage_score(T, S, p, prov, params, enemy, best_card):
    if not enemy:
        return 10.0 + token_worth_nb(S.token[prov])
    mine = clan_str_nb(T, S, p, prov) + best_card
    theirs = max_enemy_str_nb(T, S, p, prov) + params[E.P_OPP_CARD]
    if mine >= theirs + params[E.P_PILLAGE_MARGIN]:
        return 8.0 + token_worth_nb(S.token[prov])
    return NEG


@njit(inline="always")
def _action_view(T, S, p, view, t):
    """What _action_score reads of clan p's position, the same for every action of one decision:
    (presence_mask_nb, enemy_mask_nb, best_card_value_nb) of p. ``view`` is the one so far, -1
    where not yet computed: the enemies and the best card only once a pillage asks for them."""
    present, enemies, best_card = view
    if present < 0:
        present = presence_mask_nb(T, S, p)
    if enemies < 0 and (t == E.A_PILLAGE or t == E.A_CHALLENGE):
        enemies = enemy_mask_nb(T, S, p)
        best_card = best_card_value_nb(T, S, p)
    return present, enemies, best_card


@canonical("p")
@njit(cache=True)
def _action_score(T, S, p, t, a, b, params, view):
    """Greedy's score of action (t, a, b); ``view``: _action_view's for this decision."""
    present, enemies, best_card = view
    doomed, late = decision_facts(S, p, params)
    if t == E.A_PASS:
        return params[E.P_PASS_RAGE]
    if t == E.A_QUEST:
        return 7.0
    if t == E.A_PILLAGE:
        return pillage_score(T, S, p, a, params, (enemies >> a) & 1 == 1, best_card)
    if t == E.A_CHALLENGE:
        return challenge_score(pillage_score(T, S, p, a, params, (enemies >> a) & 1 == 1, best_card))
    if t == E.A_SACRIFICE:
        return NEG
    if t == E.A_UPGRADE:
        c = S.hand[p, a]
        return upgrade_score(T, c, S.upg[p, b], upgrade_cost_nb(T, S, p, c))
    if t == E.A_INVADE:
        return invade_score(T, S, p, a, b, params, (doomed, late), present)
    if t == E.A_MARCH:
        return march_score(S, a, b, params, doomed, late)
    return NEG


# The pieces of _action_score, shared with actions.greedy_choice_nb (which scores the actions as it
# walks them, without a list): one formula each, so the two cannot drift apart. Inlined: they run
# per candidate.
@njit(inline="always")
def decision_facts(S, p, params):
    """(doomed province of this age, clan p plays for the end: Rage <= P_LATE_RAGE)."""
    return S.doom[S.gs[G_AGE] - 1], S.rage[p] <= params[E.P_LATE_RAGE]


@njit(inline="always")
def challenge_score(worth):
    """Tyr's Challenge: a pillage's worth less the Rage it costs."""
    return worth - 4.0 if worth > 0 else NEG


@njit(inline="always")  # equal scores: the free slot wins, being listed first (slot_choices_nb)
def upgrade_score(T, c, old, cost):
    """Upgrade card c over card ``old`` (-1: a free slot) for ``cost`` Rage."""
    if old >= 0 and T.card_value[old] >= T.card_value[c]:
        return NEG
    ct = T.card_type[c]
    base = 5.0 if ct == E.CT_MONSTER else (4.5 if ct == E.CT_WARRIOR else 3.0)
    return base + 0.3 * T.card_value[c] - 0.4 * cost


@njit(inline="always")
def invade_score(T, S, p, f, b, params, facts, present):
    """Invading location b with figure f (a fjord or a province); facts: decision_facts'."""
    doomed, late = facts
    if b >= E.LOC_FJORD0:
        return invade_fjord_score(T, S, b - E.LOC_FJORD0, doomed, late) + invade_fjord_term(f)
    return invade_province_score(S, b, params, doomed, late, present) + invade_str_term(T, S, p, f, b)


@njit(inline="always")
def invade_fjord_score(T, S, fj, doomed, late):
    """Invading fjord fj, before invade_fjord_term: its standing unpillaged provinces, the doomed one."""
    s = 1.0
    for k in range(2):
        pr = T.fjord_prov[fj, k]
        if S.destroyed[pr] == 0 and S.pillaged[pr] == 0:
            s += 1.2
        if pr == doomed:
            s += 1.5 if late else -1.0
    return s


@njit(inline="always")
def invade_fjord_term(f):
    return 3.0 if f >= E.FIG_MONSTER0 else 0.0


@njit(inline="always")
def invade_province_score(S, b, params, doomed, late, present):
    """Invading province b, before invade_str_term: doom, the reward token, presence."""
    s = 3.0
    if b == doomed:
        s = (6.0 if late else 0.5) + params[E.P_DOOM]
    elif S.pillaged[b] == 0:
        s += 0.5 * token_worth_nb(S.token[b])
    if (present >> b) & 1:
        s += 0.5
    return s


@njit(inline="always")
def invade_str_term(T, S, p, f, b):
    # fig_str_nb reads a Warrior slot other than the first as if it were a Monster's (a known quirk
    # of greedy's, kept: the games stay those of the golden digests)
    return 0.3 * fig_str_nb(T, S, p, f, b) if f != E.FIG_WARRIOR0 else 0.3


@njit(inline="always")
def march_score(S, a, b, params, doomed, late):
    """March from province a to b: towards the doomed province late, or out of it early."""
    if b == doomed and a != doomed and (late or params[E.P_DOOM] > 2.0):
        return 4.5 + params[E.P_DOOM]
    if a == doomed and not late and S.pillaged[b] == 0:
        return 2.5
    return NEG


@canonical("p")
@njit(cache=True)
def choose_action_nb(T, S, p, acts, n, kind, params):
    """Index in acts[:n] (rows: type, a, b) of clan p's action (DIGEST §1.5 Action): greedy's pick
    scored over the whole list, the definition actions.greedy_choice_nb (what the engine plays)
    is checked against (tests/test_kernel_views.py)."""
    if kind == E.POL_RANDOM:
        return rand_int_nb(S.rs, n)
    params = effective_params_nb(S, p, params)
    view = (-1, -1, -1)
    best, bs = 0, NEG - 1.0
    for i in range(n):
        view = _action_view(T, S, p, view, acts[i, 0])
        s = _action_score(T, S, p, acts[i, 0], acts[i, 1], acts[i, 2], params, view)
        if s > bs:
            best, bs = i, s
    return best


@canonical("p")
@njit(cache=True)
def choose_march_nb(T, S, p, src, dst, cand, kind, params):
    """Order cand (figure slots in src) so the first k march to dst; returns k (1..min(len(cand),
    free villages of dst)). Script: k, then k figure slots."""
    nc = cand.shape[0]
    m = min(nc, free_villages_nb(T, S, dst))
    if kind == E.POL_SCRIPT:
        k = script_pop_nb(S, p)
        if 1 <= k <= m:
            for j in range(k):
                i = scripted_index_nb(S, p, cand[j:], nc - j, False)
                if i < 0:
                    return m
                t = cand[j]
                cand[j] = cand[j + i]
                cand[j + i] = t
            return k
        if k != E.SCRIPT_NONE:
            script_refused_nb(S, p, G_SCRIPT_BAD, G_SCRIPT_BAD_AT)
    if kind == E.POL_RANDOM:
        shuffle_nb(S.rs, cand, nc)
        return 1 + rand_int_nb(S.rs, m)
    return m  # greedy: everything that fits


@canonical("p")
@njit(cache=True)
def choose_free_invade_nb(T, S, p, f, dests, nd, kind, params):
    """After an upgrade: index in dests[:nd] to invade with f for free, or -1 to decline.
    Script: a loc code, or -1."""
    if kind == E.POL_SCRIPT:
        i = scripted_index_nb(S, p, dests, nd, True)
        if i >= -1:
            return i
    if kind == E.POL_RANDOM:
        i = rand_int_nb(S.rs, nd + 1)
        return i if i < nd else -1
    params = effective_params_nb(S, p, params)
    present = presence_mask_nb(T, S, p)
    facts = decision_facts(S, p, params)
    best, bs = -1, 0.0
    for i in range(nd):  # _action_score's invade (without its other actions: less to compile)
        s = invade_score(T, S, p, f, dests[i], params, facts, present)
        if s > bs:
            best, bs = i, s
    return best


@canonical("pillager")
@njit(cache=True)
def choose_call_nb(T, S, q, pillager, prov, cand, kind, params):
    """Call to Battle (DIGEST §1.6 step 1): index in cand (figure slots) to move in, or -1 to pass.
    Script: a figure slot, or -1."""
    nc = cand.shape[0]
    if kind == E.POL_SCRIPT:
        i = scripted_index_nb(S, q, cand, nc, True)
        if i >= -1:
            return i
    if kind == E.POL_RANDOM:
        i = rand_int_nb(S.rs, nc + 1)
        return i if i < nc else -1
    if q != pillager and not present_nb(T, S, q, prov):
        return -1
    params = effective_params_nb(S, q, params)
    mine = clan_str_nb(T, S, q, prov)
    if mine > max_enemy_str_nb(T, S, q, prov) + params[E.P_OPP_CARD] + params[E.P_CALL_MARGIN]:
        return -1
    best, bs = -1, 0
    for i in range(nc):
        f = cand[i]
        s = fig_str_nb(T, S, q, f, prov) if (f < E.FIG_WARRIOR0 or f >= E.FIG_WARRIOR0 + E.N_WARRIORS) \
            else warrior_str_nb(T, S, q, 1)
        if s > bs:
            best, bs = i, s
    return best


@njit(cache=True)
def choose_card_nb(T, S, q, prov, kind, params):
    """Hand index of the card clan q plays in a battle in prov (hand_n[q] > 0; DIGEST §1.6 step 3).

    Greedy: the smallest card that beats the strongest opponent's figures plus an
    assumed card; if none does, the largest (a loser takes it back).
    """
    n = S.hand_n[q]
    if kind == E.POL_RANDOM:
        return rand_int_nb(S.rs, n)
    if kind == E.POL_SCRIPT:
        i = scripted_index_nb(S, q, S.hand[q], n, False)
        if i >= 0:
            return i
    params = effective_params_nb(S, q, params)
    mine = battle_str_nb(T, S, q, prov)
    theirs = 0.0
    for r in range(S.gs[G_NP]):
        if r != q and (S.w_part[r] == 1 if battle_kept_nb(S, prov) else present_nb(T, S, r, prov)):
            guess = params[E.P_OPP_CARD] if S.hand_n[r] > 0 else 0.0
            if S.gs[G_OPEN_PLAY] == 1 and S.played_n[r] > 0:  # Heimdall (god): cards face up
                guess = 0.0
                for j in range(S.played_n[r]):
                    guess += card_value_nb(T, S.played[r, j])
            s = battle_str_nb(T, S, r, prov) + guess
            if s > theirs:
                theirs = s
    win_i, win_v, big_i, big_v, small_i, small_v = -1, 1 << 30, 0, -1, 0, 1 << 30
    for i in range(n):
        c = S.hand[q, i]
        v = card_value_nb(T, c)
        if T.card_value[c] < 0 and T.card_type[c] == E.CT_BATTLE:
            v = int(params[E.P_OPP_CARD])  # Heimdall's Sight: expect a copy of a typical card
        if mine + v > theirs and v < win_v:
            win_i, win_v = i, v
        if v > big_v:
            big_i, big_v = i, v
        if v < small_v:
            small_i, small_v = i, v
    if win_i >= 0:
        return win_i
    return small_i if params[E.P_HOLD_BIG] > 0.5 else big_i


@canonical("p", "exclude")
@njit(cache=True)
def choose_stat_nb(T, S, p, kind, params, exclude):
    """Stat (0..2) clan p raises, one that can still rise and is not ``exclude``; -1 if none.
    Script: a stat code."""
    if kind == E.POL_SCRIPT:
        v = script_pop_nb(S, p)
        if 0 <= v < 3 and v != exclude and S.stat[p, v] < E.N_STEPS - 1:
            return v
        if v != E.SCRIPT_NONE:
            script_refused_nb(S, p, G_SCRIPT_BAD, G_SCRIPT_BAD_AT)
    if kind == E.POL_RANDOM:  # uniform over the stats that may rise: the k-th of them
        n = 0
        for s in range(3):
            if s != exclude and S.stat[p, s] < E.N_STEPS - 1:
                n += 1
        if n == 0:
            return -1
        k = rand_int_nb(S.rs, n)
        for s in range(3):
            if s != exclude and S.stat[p, s] < E.N_STEPS - 1:
                if k == 0:
                    return s
                k -= 1
    for k in range(3):
        s = int(params[E.P_STAT0 + k])
        if s != exclude and S.stat[p, s] < E.N_STEPS - 1:
            return s
    return -1


@njit(cache=True)
def choose_keep_nb(T, S, p, kind, params):
    """Hand index of the card clan p carries into the next age (DIGEST §1.5 Discard), -1 for none."""
    n = S.hand_n[p]
    if n == 0:
        return -1
    if kind == E.POL_RANDOM:
        return rand_int_nb(S.rs, n)
    if kind == E.POL_SCRIPT:
        i = scripted_index_nb(S, p, S.hand[p], n, True)
        if i >= -1:
            return i
    params = effective_params_nb(S, p, params)
    best, bs = 0, NEG
    for i in range(n):
        s = draft_score_nb(T, S.hand[p, i], params)
        if s > bs:
            best, bs = i, s
    return best


@canonical("p", bools=("greedy_yes",))
@njit(cache=True)
def choose_yes_nb(T, S, p, kind, params, greedy_yes):
    """A yes/no a card offers (use Protection, retreat the Witch, ...). Script: 1 or 0."""
    if kind == E.POL_SCRIPT:
        v = script_pop_nb(S, p)
        if v == 0 or v == 1:
            return v == 1
        if v != E.SCRIPT_NONE:
            script_refused_nb(S, p, G_SCRIPT_BAD, G_SCRIPT_BAD_AT)
    if kind == E.POL_RANDOM:
        return rand_int_nb(S.rs, 2) == 1
    return greedy_yes


@canonical("p", "n", "greedy_i")
@njit(cache=True)
def choose_option_nb(T, S, p, opts, n, kind, params, greedy_i):
    """One of opts[:n] (a figure slot or a loc a card asks for), or -1 to decline where
    greedy_i may be -1. Script: the value itself, or -1."""
    if kind == E.POL_SCRIPT:
        i = scripted_index_nb(S, p, opts, n, True)
        if i >= -1:
            return i
    if kind == E.POL_RANDOM:
        i = rand_int_nb(S.rs, n + (1 if greedy_i < 0 else 0))
        return i if i < n else -1
    return greedy_i
