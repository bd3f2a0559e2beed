"""Battle (DIGEST §1.6 steps 3–6, rulings §1.7); the pillage around it is in pillage.py.

Steps of battle_nb: participants → cards played → Thor's Primacy → Heimdall's Watch
(round after round) → late cards → Odin's Smite, then Odin's Tide → compare (tie: all
lose) → losers' texts (Trickery, Poison) → the winner's cards (Poison beats
Prowess) → Axes Glory and win texts → Backstab → losers destroyed and take their cards back →
Loki's Blessing → after-battle Glory (Judgement, Valkyrie, Thor's Glory).
"""
from numba import njit

from ..core import enums as E
from ..core.canon import canonical
from .board import (
    battle_str_nb,
    card_op_index_nb,
    card_value_nb,
    clan_str_nb,
    fig_str_nb,
    fjord_loc_of_nb,
    monster_card_nb,
    present_nb,
    upgrade_with_op_nb,
)
from .clan import add_to_hand_nb, discard_nb, gain_glory_nb, take_from_hand_nb, total_glory_nb
from .effects import destroy_nb, fired_nb, free_warrior_nb, op_arg_nb, text_raise_nb
from .gods import god_acts_nb, god_here_nb
from .policy import choose_card_nb, choose_option_nb, choose_yes_nb
from .state import G_BATTLE_PROV, G_IN_BATTLE, G_NP, G_OPEN_PLAY, log_nb, note_use_nb

MAX_PLAYED = 8  #: cards one clan can have revealed in one battle (state.played width)


@canonical("q")
@njit(cache=True)
def text_card_nb(T, S, q, op):
    """Card id among clan q's revealed cards carrying opcode op, its text not cancelled; -1 if none."""
    if S.cancelled[q]:
        return -1
    for j in range(S.played_n[q]):
        c = S.played[q, j]
        if card_op_index_nb(T, c, op) >= 0:
            return c
    return -1


@njit(cache=True, _nrt=False)
def card_values_nb(T, S, part, out):
    """out[q] = total value of the cards clan q revealed (DIGEST §1.6 step 3, §1.7):
    battle cards their +STR; a Quest card +a with Tyr's Domain/Wrath (a battle card of value a
    for every purpose); Heimdall's Sight the highest opposing card, such a Quest included
    (rulings R9; 0 if cancelled); other cards 0."""
    P = S.gs[G_NP]
    qa = S.w_qa[:]
    qa[:] = 0
    for q in range(P):
        out[q] = 0
        if (S.opmask[q] >> E.OP_QUEST_AS_BATTLE) & 1:  # Tyr's Domain / Wrath (clan_opmask_nb): the best of them
            for s in range(E.N_SLOTS):
                c = S.upg[q, s]
                if c >= 0 and card_op_index_nb(T, c, E.OP_QUEST_AS_BATTLE) >= 0:
                    qa[q] = max(qa[q], op_arg_nb(T, c, E.OP_QUEST_AS_BATTLE))
        for j in range(S.played_n[q]):
            out[q] += revealed_value_nb(T, S.played[q, j], qa[q])
    for q in range(P):
        if S.cancelled[q]:
            continue
        for j in range(S.played_n[q]):
            if card_op_index_nb(T, S.played[q, j], E.OP_COPY_HIGHEST) >= 0:
                m = 0
                for r in range(P):
                    if r != q and part[r]:
                        for i in range(S.played_n[r]):
                            d = S.played[r, i]
                            if card_op_index_nb(T, d, E.OP_COPY_HIGHEST) < 0:
                                m = max(m, revealed_value_nb(T, d, qa[r]))
                out[q] += m


@njit(cache=True)
def revealed_value_nb(T, c, qa):
    """Value of revealed card c for a clan whose Tyr's Domain/Wrath makes a Quest worth qa."""
    return qa if T.card_type[c] == E.CT_QUEST else card_value_nb(T, c)


@canonical("pillager")
@njit(cache=True, _nrt=False)
def play_round_nb(T, S, pillager, prov, part, kinds, params):
    """Every clan in the battle plays one card face down if it has any; all are revealed together.
    With Heimdall (god, DIGEST §2) in the province: face up, one at a time, from the pillager's
    left, the pillager last (each sees the cards before it)."""
    P = S.gs[G_NP]
    hk = god_here_nb(T, S, prov, E.GP_HEIMDALL)
    first = 0
    if hk >= 0:
        S.gs[G_OPEN_PLAY] = 1
        first = 1
        god_acts_nb(S, hk, 0)
    for k in range(first, P + first):
        q = (pillager + k) % P
        if not part[q]:
            continue
        if S.hand_n[q] > 0:
            c = take_from_hand_nb(S, q, choose_card_nb(T, S, q, prov, kinds[q], params[q]))
            S.played[q, S.played_n[q]] = c
            S.played_n[q] += 1
            log_nb(S, E.EV_PLAY, q, c, card_value_nb(T, c), 0, 0, 0)
            note_use_nb(S, q, c, E.USE_BATTLE)
        else:
            log_nb(S, E.EV_NOCARD, q, prov, 0, 0, 0, 0)
    S.gs[G_OPEN_PLAY] = 0


@njit(cache=True, _nrt=False)
def primacy_nb(T, S, part):
    """Thor's Primacy (DIGEST §1.7): it cancels the text of every opponent's card; two clans
    playing it cancel each other (and everyone else)."""
    P = S.gs[G_NP]
    n, who = 0, -1
    for q in range(P):
        S.cancelled[q] = 0
        if part[q]:
            for j in range(S.played_n[q]):
                if card_op_index_nb(T, S.played[q, j], E.OP_PRIMACY) >= 0:
                    n += 1
                    who = q
                    break
    if n == 0:
        return
    for q in range(P):
        if part[q] and (n > 1 or q != who):
            S.cancelled[q] = 1
            for j in range(S.played_n[q]):
                log_nb(S, E.EV_CANCEL, q, S.played[q, j], 0, 0, 0, 0)
    if n == 1:
        for j in range(S.played_n[who]):
            c = S.played[who, j]
            if card_op_index_nb(T, c, E.OP_PRIMACY) >= 0:
                fired_nb(S, who, c, E.OP_PRIMACY, 0, 0)


@canonical("pillager")
@njit(cache=True, _nrt=False)
def watch_nb(T, S, pillager, prov, part, kinds, params):
    """Heimdall's Watch (DIGEST §1.7): every Watch player gains the total value of all revealed
    cards; all revealed cards are discarded; every clan still holding cards plays again.
    Returns True if a Watch acted."""
    P = S.gs[G_NP]
    vals = S.w_vals[:]
    card_values_nb(T, S, part, vals)
    total = 0
    for q in range(P):
        if part[q]:
            total += vals[q]
    acted = False
    for q in range(P):
        if part[q]:
            c = text_card_nb(T, S, q, E.OP_WATCH)
            if c >= 0:
                gain_glory_nb(S, q, E.G_CARDS, total)
                fired_nb(S, q, c, E.OP_WATCH, total, 0)
                acted = True
    if acted:
        for q in range(P):
            for j in range(S.played_n[q]):
                discard_nb(S, S.played[q, j])
            S.played_n[q] = 0
            S.cancelled[q] = 0
        play_round_nb(T, S, pillager, prov, part, kinds, params)
    return acted


@canonical("pillager")
@njit(cache=True, _nrt=False)
def late_cards_nb(T, S, pillager, prov, part, kinds, params):
    """Late cards (Heimdall's Eye, Gaze; DIGEST §1.6 step 4): from the pillager clockwise, round after
    round until nobody adds one. Greedy adds the smallest that makes it strictly strongest."""
    P = S.gs[G_NP]
    opts = S.w_opts[:]
    vals = S.w_vals[:]
    while True:
        added = False
        for k in range(P):
            q = (pillager + k) % P
            if not part[q] or S.played_n[q] >= MAX_PLAYED:
                continue
            n = 0
            for i in range(S.hand_n[q]):
                if card_op_index_nb(T, S.hand[q, i], E.OP_LATE) >= 0:
                    opts[n] = S.hand[q, i]
                    n += 1
            if n == 0:
                continue
            card_values_nb(T, S, part, vals)
            mine = battle_str_nb(T, S, q, prov) + vals[q]
            best = 0
            for r in range(P):
                if r != q and part[r]:
                    best = max(best, battle_str_nb(T, S, r, prov) + vals[r])
            g, gv = -1, 1 << 30
            for i in range(n):
                v = card_value_nb(T, opts[i])
                if mine <= best < mine + v and v < gv:
                    g, gv = i, v
            i = choose_option_nb(T, S, q, opts, n, kinds[q], params[q], g)
            if i >= 0:
                c = opts[i]
                for h in range(S.hand_n[q]):
                    if S.hand[q, h] == c:
                        take_from_hand_nb(S, q, h)
                        break
                S.played[q, S.played_n[q]] = c
                S.played_n[q] += 1
                log_nb(S, E.EV_LATE, q, c, card_value_nb(T, c), 0, 0, 0)
                note_use_nb(S, q, c, E.USE_BATTLE)
                fired_nb(S, q, c, E.OP_LATE, card_value_nb(T, c), 0)
                added = True
        if not added:
            return


@canonical("q")
@njit(cache=True, _nrt=False)
def kill_nb(T, S, q, f, cause, kinds, params, dead):
    """Destroy one figure in the battle and count it for the after-battle texts."""
    if destroy_nb(T, S, q, f, cause, kinds, params):
        dead[q] += 1


@canonical("pillager")
@njit(cache=True, _nrt=False)
def smite_tide_nb(T, S, pillager, prov, part, kinds, params, dead):
    """Before STR is compared (DIGEST §1.7): Odin's Smite first (a Warrior of each opponent),
    then Odin's Tide (every clan keeps one figure of its choice, Ships included)."""
    P = S.gs[G_NP]
    floc = fjord_loc_of_nb(T, prov)
    for k in range(P):
        q = (pillager + k) % P
        c = text_card_nb(T, S, q, E.OP_DESTROY_ENEMY_WARRIORS) if part[q] else -1
        if c < 0:
            continue
        fired_nb(S, q, c, E.OP_DESTROY_ENEMY_WARRIORS, op_arg_nb(T, c, E.OP_DESTROY_ENEMY_WARRIORS), 0)
        for r in range(P):
            if r == q or not part[r]:
                continue
            left = op_arg_nb(T, c, E.OP_DESTROY_ENEMY_WARRIORS)
            for f in range(E.FIG_WARRIOR0, E.FIG_WARRIOR0 + E.N_WARRIORS):
                if left > 0 and S.loc[r, f] == prov:
                    kill_nb(T, S, r, f, E.CAUSE_CARD, kinds, params, dead)
                    left -= 1
    tide = -1
    for k in range(P):
        q = (pillager + k) % P
        if part[q] and text_card_nb(T, S, q, E.OP_TIDE) >= 0:
            tide = q
            break
    if tide < 0:
        return
    fired_nb(S, tide, text_card_nb(T, S, tide, E.OP_TIDE), E.OP_TIDE, 0, 0)
    figs = S.w_figs[:]
    for k in range(P):
        q = (pillager + k) % P
        n, g, gs = 0, 0, -1
        for f in range(E.NFIG):
            l = S.loc[q, f]
            if l == prov or (floc >= 0 and l == floc):
                figs[n] = f
                s = fig_str_nb(T, S, q, f, l) if (f < E.FIG_WARRIOR0 or f >= E.FIG_WARRIOR0 + E.N_WARRIORS) else 1
                if s > gs:
                    g, gs = n, s
                n += 1
        if n <= 1:
            continue
        keep = choose_option_nb(T, S, q, figs, n, kinds[q], params[q], g)
        if keep < 0:
            keep = g
        for i in range(n):
            if i != keep:
                kill_nb(T, S, q, figs[i], E.CAUSE_CARD, kinds, params, dead)


@njit(cache=True, _nrt=False)
def blessing_nb(T, S, q, prov, kinds, params):
    """Loki's Blessing: a loser may invade the battle's province with a reserve Warrior for free
    (no further texts, rulings R18)."""
    c = upgrade_with_op_nb(T, S, q, E.OP_BLESSING)
    if c >= 0:
        free_warrior_nb(T, S, q, c, E.OP_BLESSING, prov, kinds, params)


@canonical("pillager", "winner")
@njit(cache=True, _nrt=False)
def resolve_losers_texts_nb(T, S, pillager, winner, part):
    """Loki's Trickery (takes Rage from the winner before Tyr's Prowess is paid; losers from the
    pillager clockwise, DIGEST §1.6 step 4) and Poison: the first Poison loser clockwise from the
    winner (DIGEST §1.7) is returned (-1 none)."""
    P = S.gs[G_NP]
    for k in range(P):
        q = (pillager + k) % P
        if not part[q] or q == winner:
            continue
        c = text_card_nb(T, S, q, E.OP_STEAL_RAGE_ON_LOSE)
        if c >= 0:
            x = min(op_arg_nb(T, c, E.OP_STEAL_RAGE_ON_LOSE), S.rage[winner])
            S.rage[winner] -= x
            S.rage[q] += x
            fired_nb(S, q, c, E.OP_STEAL_RAGE_ON_LOSE, x, winner)
    poisoner = -1
    for k in range(1, P):
        q = (winner + k) % P
        if not part[q]:
            continue
        c = text_card_nb(T, S, q, E.OP_POISON)
        if c >= 0 and poisoner < 0:
            poisoner = q
            fired_nb(S, q, c, E.OP_POISON, S.played_n[winner], winner)
    return poisoner


@canonical("pillager", "winner")
@njit(cache=True, _nrt=False)
def backstab_nb(T, S, pillager, winner, part):
    """Loki's Backstab: each losing clan, from the pillager clockwise (DIGEST §1.6 step 4), takes a
    Glory from the winner, after the winner's Axes Glory and win texts (rulings R20), never more
    than the winner has."""
    P = S.gs[G_NP]
    for k in range(P):
        q = (pillager + k) % P
        c = text_card_nb(T, S, q, E.OP_STEAL_GLORY_ON_LOSE) if part[q] and q != winner else -1
        if c >= 0:
            x = min(op_arg_nb(T, c, E.OP_STEAL_GLORY_ON_LOSE), total_glory_nb(S, winner))
            gain_glory_nb(S, winner, E.G_CARDS, -x)
            gain_glory_nb(S, q, E.G_CARDS, x)
            fired_nb(S, q, c, E.OP_STEAL_GLORY_ON_LOSE, x, winner)


@canonical("q", "best")
@njit(cache=True, _nrt=False)
def resolve_winner_nb(T, S, q, prov, best, poisoner, kinds, params):
    """The winner: its revealed cards go to a Poison loser, or are kept with Tyr's Prowess
    (a Rage each) or discarded; then Axes Glory and its cards' win texts."""
    pw = upgrade_with_op_nb(T, S, q, E.OP_PROWESS)
    for j in range(S.played_n[q]):
        c = S.played[q, j]
        if poisoner >= 0:
            add_to_hand_nb(S, poisoner, c)
        elif pw >= 0 and S.rage[q] >= op_arg_nb(T, pw, E.OP_PROWESS) and \
                choose_yes_nb(T, S, q, kinds[q], params[q], card_value_nb(T, c) >= 3):
            S.rage[q] -= op_arg_nb(T, pw, E.OP_PROWESS)
            add_to_hand_nb(S, q, c)
            fired_nb(S, q, pw, E.OP_PROWESS, op_arg_nb(T, pw, E.OP_PROWESS), c)
        else:
            discard_nb(S, c)
    axes = T.track[E.STAT_AXES, S.stat[q, E.STAT_AXES]]
    if god_here_nb(T, S, prov, E.GP_LOKI) >= 0 and T.opts[E.OPT_LOKI_GOD] == 0:
        axes = 0  # Loki (god): the winner gains no battle Glory
    gain_glory_nb(S, q, E.G_BATTLE, axes)
    S.won_age[q] += 1
    log_nb(S, E.EV_WIN, q, prov, axes, best, 0, 0)
    if S.cancelled[q]:
        return
    for j in range(S.played_n[q]):
        c = S.played[q, j]
        for k in range(E.MAX_EFFECTS):
            op = T.card_op[c, k]
            a = T.card_a[c, k]
            if op == E.OP_GLORY_ON_WIN:
                gain_glory_nb(S, q, E.G_CARDS, a)
                fired_nb(S, q, c, op, a, 0)
            elif op == E.OP_RAGE_ON_WIN:
                S.rage[q] += a
                fired_nb(S, q, c, op, a, 0)
            elif op == E.OP_RAISE_ON_WIN:
                text_raise_nb(T, S, q, c, op, kinds, params, -1)


@njit(cache=True, _nrt=False)
def after_battle_nb(T, S, part, fought, dead, texts, texts_n, canc):
    """After-battle Glory: Odin's Judgement (every figure destroyed), Valkyrie (enemy figures,
    even if she died), Thor's Glory (at least b enemy figures)."""
    P = S.gs[G_NP]
    all_dead = 0
    for q in range(P):
        all_dead += dead[q]
    for q in range(P):
        if not part[q]:
            continue
        enemy = all_dead - dead[q]
        if not canc[q]:
            for j in range(texts_n[q]):
                c = texts[q, j]
                if card_op_index_nb(T, c, E.OP_GLORY_PER_DESTROYED) >= 0:
                    g = all_dead * op_arg_nb(T, c, E.OP_GLORY_PER_DESTROYED)
                    gain_glory_nb(S, q, E.G_CARDS, g)
                    fired_nb(S, q, c, E.OP_GLORY_PER_DESTROYED, g, all_dead)
        for f in range(E.FIG_MONSTER0, E.NFIG):
            if fought[q, f]:
                m = monster_card_nb(S, q, f)
                if m >= 0 and card_op_index_nb(T, m, E.OP_VALKYRIE) >= 0 and enemy > 0:
                    g = enemy * op_arg_nb(T, m, E.OP_VALKYRIE)
                    gain_glory_nb(S, q, E.G_CARDS, g)
                    fired_nb(S, q, m, E.OP_VALKYRIE, g, enemy)
        c = upgrade_with_op_nb(T, S, q, E.OP_ENEMIES_GLORY)
        if c >= 0:
            k = card_op_index_nb(T, c, E.OP_ENEMIES_GLORY)
            if enemy >= T.card_b[c, k]:
                gain_glory_nb(S, q, E.G_CARDS, T.card_a[c, k])
                fired_nb(S, q, c, E.OP_ENEMIES_GLORY, T.card_a[c, k], enemy)


@canonical("winner")
@njit(cache=True, _nrt=False)
def god_battle_glory_nb(T, S, prov, part, winner, dead):
    """Gods' battle Glory (DIGEST §2): Thor, the winner gains thor_glory per enemy figure destroyed;
    Loki, each losing clan gains its own Axes value as battle Glory."""
    P = S.gs[G_NP]
    k = god_here_nb(T, S, prov, E.GP_THOR)
    if k >= 0 and winner >= 0:
        enemy = 0
        for q in range(P):
            if q != winner:
                enemy += dead[q]
        if enemy > 0:
            gain_glory_nb(S, winner, E.G_BATTLE, enemy * T.thor_glory)
            god_acts_nb(S, k, enemy * T.thor_glory)
    k = god_here_nb(T, S, prov, E.GP_LOKI)
    if k >= 0:
        for q in range(P):
            if part[q] and q != winner:
                axes = T.track[E.STAT_AXES, S.stat[q, E.STAT_AXES]]
                gain_glory_nb(S, q, E.G_BATTLE, axes)
                god_acts_nb(S, k, axes)


@njit(cache=True, _nrt=False)
def count_static_nb(T, S, prov, part, cardv):
    """Count the static texts that shaped this battle's totals (S.fired): Heimdall's Sight worth
    more than 0, Tyr's Domain/Wrath on a revealed Quest, a Warrior upgrade with Warriors here,
    the Dark Elf in Yggdrasil, the Sea Serpent in the fjord."""
    floc = fjord_loc_of_nb(T, prov)
    for q in range(S.gs[G_NP]):
        if not part[q]:
            continue
        quest = False
        for j in range(S.played_n[q]):
            c = S.played[q, j]
            quest = quest or T.card_type[c] == E.CT_QUEST
            if not S.cancelled[q] and card_op_index_nb(T, c, E.OP_COPY_HIGHEST) >= 0 and cardv[q] > 0:
                S.fired[c] += 1
        if quest:
            c = upgrade_with_op_nb(T, S, q, E.OP_QUEST_AS_BATTLE)
            if c >= 0:
                S.fired[c] += 1
        w = S.upg[q, E.SLOT_WARRIOR]
        for f in range(E.NFIG):
            l = S.loc[q, f]
            if E.FIG_WARRIOR0 <= f < E.FIG_WARRIOR0 + E.N_WARRIORS:
                if l == prov and w >= 0:
                    S.fired[w] += 1
                    w = -1
            elif f >= E.FIG_MONSTER0 and (l == prov or (floc >= 0 and l == floc)):
                m = monster_card_nb(S, q, f)
                if (l == E.YGGDRASIL and card_op_index_nb(T, m, E.OP_YGGDRASIL) >= 0) or \
                        (l == floc and card_op_index_nb(T, m, E.OP_AS_SHIP) >= 0):
                    S.fired[m] += 1


@canonical("pillager")
@njit(cache=True, _nrt=False)
def battle_nb(T, S, pillager, prov, kinds, params, fought):
    """DIGEST §1.6 steps 3–6 with the texts of §1.7. ``fought[q, f]`` is set for every figure in
    the battle when cards are played. Returns the winner, or -1 when the top totals tie (all lose);
    the cards revealed, for the texts of a successful pillage, in S.w_texts, w_texts_n, w_canc."""
    P = S.gs[G_NP]
    S.gs[G_IN_BATTLE] = 1
    S.gs[G_BATTLE_PROV] = prov
    part = S.w_part[:P]
    floc = fjord_loc_of_nb(T, prov)
    for q in range(P):
        part[q] = present_nb(T, S, q, prov)
        S.w_bstr[q] = clan_str_nb(T, S, q, prov) if part[q] else 0  # no figure moves before the texts
        S.played_n[q] = 0
        S.cancelled[q] = 0
        for f in range(E.NFIG):
            fought[q, f] = S.loc[q, f] == prov or (floc >= 0 and S.loc[q, f] == floc)
    S.w_bprov = prov + 1
    play_round_nb(T, S, pillager, prov, part, kinds, params)
    for _ in range(4):  # Watch may be answered by a new Watch; each round uses up cards
        primacy_nb(T, S, part)
        if not watch_nb(T, S, pillager, prov, part, kinds, params):
            break
    late_cards_nb(T, S, pillager, prov, part, kinds, params)
    S.w_bprov = 0  # the texts may destroy figures from here on
    dead = S.w_dead[:P]
    dead[:] = 0
    smite_tide_nb(T, S, pillager, prov, part, kinds, params, dead)
    cardv = S.w_cardv[:]
    card_values_nb(T, S, part, cardv)
    count_static_nb(T, S, prov, part, cardv)
    tyr = god_here_nb(T, S, prov, E.GP_TYR)  # Tyr (god): figures STR 0, only cards count
    if tyr >= 0:
        god_acts_nb(S, tyr, 0)
    best, nbest, winner = -1, 0, -1
    for k in range(P):
        q = (pillager + k) % P
        if not part[q]:
            continue
        fs = 0 if tyr >= 0 else clan_str_nb(T, S, q, prov)
        tot = fs + cardv[q]
        log_nb(S, E.EV_TOTAL, q, fs, cardv[q], tot, 0, 0)
        if tot > best:
            best, nbest, winner = tot, 1, q
        elif tot == best:
            nbest += 1
    if nbest > 1:
        winner = -1  # DIGEST §1.6 step 5: on a tie every clan loses
        log_nb(S, E.EV_TIE, pillager, prov, best, 0, 0, 0)
    for q in range(P):
        if part[q]:
            S.game_shape[q, E.SH_BATTLES] += 1
            S.game_shape[q, E.SH_BATTLE_TIES] += 1 if nbest > 1 else 0
    if winner >= 0:
        S.game_shape[winner, E.SH_BATTLES_WON] += 1
    texts, texts_n, canc = S.w_texts[:], S.w_texts_n[:], S.w_canc[:]  # the revealed cards, for
    for q in range(texts.shape[0]):  # the after-battle texts
        texts_n[q] = S.played_n[q]
        canc[q] = S.cancelled[q]
        for j in range(texts.shape[1]):
            texts[q, j] = S.played[q, j]
    poisoner = -1
    if winner >= 0:
        poisoner = resolve_losers_texts_nb(T, S, pillager, winner, part)
        resolve_winner_nb(T, S, winner, prov, best, poisoner, kinds, params)
        backstab_nb(T, S, pillager, winner, part)
    for k in range(P):
        q = (pillager + k) % P
        if not part[q] or q == winner:
            continue
        for j in range(S.played_n[q]):
            add_to_hand_nb(S, q, S.played[q, j])  # losers take their cards back
        for f in range(E.NFIG):
            l = S.loc[q, f]
            if l == prov or (floc >= 0 and l == floc):
                kill_nb(T, S, q, f, E.CAUSE_BATTLE, kinds, params, dead)
    for q in range(P):
        S.played_n[q] = 0
    for k in range(P):
        q = (pillager + k) % P
        if part[q] and q != winner:
            blessing_nb(T, S, q, prov, kinds, params)
    after_battle_nb(T, S, part, fought, dead, texts, texts_n, canc)
    god_battle_glory_nb(T, S, prov, part, winner, dead)
    S.gs[G_IN_BATTLE] = 0
    return winner  # the revealed texts stay in S.w_texts, w_texts_n, w_canc for the pillage
