"""The Pillage action (DIGEST §1.5, §1.6): Call to Battle, the battle (battle.py) or the
unopposed case, the reward and the texts of a successful pillage, and the gods' forced move.
"""
from numba import njit

from ..core import enums as E
from ..core.canon import canonical
from .battle import battle_nb
from .board import (
    card_op_index_nb,
    fjord_loc_of_nb,
    free_villages_nb,
    has_enemy_nb,
    is_shiplike_nb,
    monster_card_nb,
    present_nb,
)
from .clan import apply_reward_nb, raise_stat_nb
from .effects import fired_nb, text_raise_nb
from .gods import god_acts_nb, god_here_nb, move_gods_nb
from .policy import choose_call_nb, choose_option_nb
from .state import G_NP, log_nb


@canonical("pillager")
@njit(cache=True, _nrt=False)
def call_to_battle_nb(T, S, pillager, prov, kinds, params):
    """DIGEST §1.6 step 1: from the pillager's left, the pillager last, each may move one
    figure from an adjacent province into an empty village; rounds repeat until a full
    round of passes or no village is left."""
    P = S.gs[G_NP]
    cand = S.w_cand[:]
    free = free_villages_nb(T, S, prov)  # less one per figure called in (none leaves)
    while True:
        moved = False
        for k in range(1, P + 1):
            q = (pillager + k) % P
            if free <= 0:
                return
            if q != pillager and kinds[q] != E.POL_SCRIPT and kinds[q] != E.POL_RANDOM \
                    and not present_nb(T, S, q, prov):
                continue  # greedy calls nobody into a battle it is not in (choose_call_nb)
            nc = 0
            for f in range(E.NFIG):
                l = S.loc[q, f]
                if 0 <= l < E.N_PROVINCES and l != prov and T.adj[l, prov] == 1 \
                        and not is_shiplike_nb(T, S, q, f):
                    cand[nc] = f
                    nc += 1
            if nc == 0:
                continue
            i = choose_call_nb(T, S, q, pillager, prov, cand[:nc], kinds[q], params[q])
            if i >= 0:
                f = cand[i]
                log_nb(S, E.EV_CALL, q, f, S.loc[q, f], prov, 0, 0)
                S.loc[q, f] = prov
                free -= 1
                moved = True
        if not moved:
            return


@canonical("p")
@njit(cache=True, _nrt=False)
def pillage_success_nb(T, S, p, prov, fought, texts, kinds, params):
    """The pillager's reward (DIGEST §1.6) and the texts of a successful pillage: Frost Giant
    (reward twice), Frigga's Grace (another stat), Lords of Axes/Spears/Hammers (Leader fought).
    texts: the pillager's revealed battle cards whose texts act (empty when cancelled)."""
    reward = S.token[prov]
    S.pillaged_age[p] += 1
    log_nb(S, E.EV_REWARD, p, prov, reward, 0, 0, 0)
    apply_reward_nb(T, S, p, reward)
    k = god_here_nb(T, S, prov, E.GP_ODIN)  # Odin (god): the reward twice
    if k >= 0:
        apply_reward_nb(T, S, p, reward)
        god_acts_nb(S, k, reward)
    for f in range(E.FIG_MONSTER0, E.NFIG):
        m = monster_card_nb(S, p, f)
        if fought[p, f] and m >= 0 and card_op_index_nb(T, m, E.OP_DOUBLE_REWARD) >= 0:
            apply_reward_nb(T, S, p, reward)
            fired_nb(S, p, m, E.OP_DOUBLE_REWARD, reward, prov)
            break
    for j in range(texts.shape[0]):
        c = texts[j]
        if card_op_index_nb(T, c, E.OP_GRACE) >= 0:
            excl = reward if reward <= E.REWARD_HORNS else -1
            text_raise_nb(T, S, p, c, E.OP_GRACE, kinds, params, excl)
    if S.loc[p, E.FIG_LEADER] != prov:
        return
    lc = S.upg[p, E.SLOT_LEADER]
    if lc < 0:
        return
    k = card_op_index_nb(T, lc, E.OP_LEADER_RAISE)
    if k >= 0:
        if T.card_a[lc, k] >= 3:
            for s in range(E.N_STATS):
                raise_stat_nb(S, p, s, E.RAISE_CARD)
            fired_nb(S, p, lc, E.OP_LEADER_RAISE, 3, 0)
        else:
            text_raise_nb(T, S, p, lc, E.OP_LEADER_RAISE, kinds, params, -1)
    if card_op_index_nb(T, lc, E.OP_LEADER_MOVE) >= 0:
        dests = S.w_prov[:]
        n, g = 0, -1
        for pr in range(E.N_PROVINCES):
            if pr != prov and T.adj[prov, pr] == 1 and free_villages_nb(T, S, pr) > 0:
                dests[n] = pr
                if g < 0 and S.pillaged[pr] == 0:
                    g = n
                n += 1
        if n > 0:
            i = choose_option_nb(T, S, p, dests, n, kinds[p], params[p], g)
            if i >= 0:
                S.loc[p, E.FIG_LEADER] = dests[i]
                fired_nb(S, p, lc, E.OP_LEADER_MOVE, 0, dests[i])


@canonical("p")
@njit(cache=True, _nrt=False)
def pillage_nb(T, S, p, prov, kinds, params):
    """The Pillage action (DIGEST §1.5, §1.6); also Tyr's Challenge and Thor's Domain pillages.
    Returns True if the pillage succeeded (the token is flipped)."""
    P = S.gs[G_NP]
    log_nb(S, E.EV_PILLAGE, p, prov, S.token[prov], 0, 0, 0)
    S.game_shape[p, E.SH_PILLAGES] += 1
    call_to_battle_nb(T, S, p, prov, kinds, params)
    fought = S.w_fought[:P]
    fought[:] = 0
    if has_enemy_nb(T, S, p, prov):
        winner = battle_nb(T, S, p, prov, kinds, params, fought)
        texts, texts_n, canc = S.w_texts[:], S.w_texts_n[:], S.w_canc[:]
        ok = winner == p
        S.game_shape[p, E.SH_PILLAGE_TIES] += 1 if winner < 0 else 0
    else:
        log_nb(S, E.EV_NOBATTLE, p, prov, 0, 0, 0, 0)
        S.game_shape[p, E.SH_UNOPPOSED] += 1
        floc = fjord_loc_of_nb(T, prov)
        for f in range(E.NFIG):
            fought[p, f] = S.loc[p, f] == prov or (floc >= 0 and S.loc[p, f] == floc)
        texts, texts_n, canc = S.w_texts[:], S.w_texts_n[:], S.w_canc[:]  # no card revealed
        texts_n[:] = 0
        canc[:] = 0
        ok = True
    if ok:
        S.game_shape[p, E.SH_PILLAGES_WON] += 1
        pillage_success_nb(T, S, p, prov, fought, texts[p, :0] if canc[p] else texts[p, :texts_n[p]], kinds, params)
        S.pillaged[prov] = 1
    move_gods_nb(T, S, p, prov, kinds, params)  # after any pillage attempt (DIGEST §2)
    return ok
