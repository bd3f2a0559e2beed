"""Card texts that act outside the battle's own steps: destruction (DIGEST §1.7 order),
Ship deaths, Release, Ragnarök, quests, game end, and the stat raises texts grant.

Each text is an opcode on a card (simulator/data/opcodes.toml); kernels here look
the opcode up on the clan's upgrades or Monsters and act.  Every text that acts
logs EV_TEXT and counts in S.fired[card].
"""
from numba import njit

from ..core import enums as E
from ..core.canon import canonical
from .board import (
    card_op_index_nb,
    fjord_loc_of_nb,
    horns_nb,
    is_shiplike_nb,
    monster_card_nb,
    occupied_nb,
    on_board_nb,
    upgrade_with_op_nb,
)
from .clan import gain_glory_nb, raise_stat_nb, to_valhalla_nb
from .gods import god_acts_nb, god_here_nb
from .policy import choose_stat_nb, choose_yes_nb
from .state import G_BATTLE_PROV, G_IN_BATTLE, log_nb


@canonical("p", "c", "op", "amount", "detail")
@njit(cache=True)
def fired_nb(S, p, c, op, amount, detail):
    """Record that card c's text acted for clan p (log and the per-card count)."""
    S.fired[c] += 1
    log_nb(S, E.EV_TEXT, p, c, op, amount, detail, 0)


@canonical("c")
@njit(cache=True)
def op_arg_nb(T, c, op):
    """First parameter of opcode op on card c (card must carry it)."""
    return T.card_a[c, card_op_index_nb(T, c, op)]


@canonical("p", "c", "op", "exclude")
@njit(cache=True, _nrt=False)
def text_raise_nb(T, S, p, c, op, kinds, params, exclude):
    """A card text's "raise one clan stat" for clan p (policy's choice, not ``exclude``)."""
    s = choose_stat_nb(T, S, p, kinds[p], params[p], exclude)
    if s >= 0:
        raise_stat_nb(S, p, s, E.RAISE_CARD)
    fired_nb(S, p, c, op, 1, s)


@canonical("p")
@njit(cache=True, _nrt=False)
def destroy_nb(T, S, p, f, cause, kinds, params):
    """Destroy figure f of clan p, with the DIGEST §1.7 order: Frigga's Protection (pay Rage,
    not against Ragnarök or a Sacrifice), then the Volur Witch's retreat (battles outside
    Yggdrasil), then Ship-death Glory (Dragons). Returns True if the figure went to Valhalla."""
    l = S.loc[p, f]
    if S.gs[G_IN_BATTLE] == 1:  # Frigga (god, DIGEST §2) blocks every destruction in her battle
        bp = S.gs[G_BATTLE_PROV]
        k = god_here_nb(T, S, bp, E.GP_FRIGGA)
        if k >= 0 and (l == bp or l == fjord_loc_of_nb(T, bp)):
            log_nb(S, E.EV_SAVED, p, f, l, -1, 0, 0)
            god_acts_nb(S, k, 1)
            return False
    if cause == E.CAUSE_BATTLE or cause == E.CAUSE_CARD:
        c = upgrade_with_op_nb(T, S, p, E.OP_PROTECT)
        if c >= 0:
            cost = op_arg_nb(T, c, E.OP_PROTECT)
            if S.rage[p] >= cost and choose_yes_nb(T, S, p, kinds[p], params[p], params[p][E.P_PROTECT] > 0.5):
                S.rage[p] -= cost
                log_nb(S, E.EV_SAVED, p, f, l, c, 0, 0)
                fired_nb(S, p, c, E.OP_PROTECT, cost, f)
                return False
        if f >= E.FIG_MONSTER0 and l != E.YGGDRASIL and 0 <= l < E.N_PROVINCES:
            m = monster_card_nb(S, p, f)
            if card_op_index_nb(T, m, E.OP_RETREAT) >= 0 and S.gs[G_IN_BATTLE] == 1 \
                    and choose_yes_nb(T, S, p, kinds[p], params[p], True):
                S.loc[p, f] = E.YGGDRASIL
                log_nb(S, E.EV_SAVED, p, f, l, m, 0, 0)
                fired_nb(S, p, m, E.OP_RETREAT, 0, l)
                return False
    ship = is_shiplike_nb(T, S, p, f)
    to_valhalla_nb(S, p, f, cause)
    if ship:
        c = upgrade_with_op_nb(T, S, p, E.OP_SHIP_GLORY)
        if c >= 0:
            g = op_arg_nb(T, c, E.OP_SHIP_GLORY)
            gain_glory_nb(S, p, E.G_CARDS, g)
            fired_nb(S, p, c, E.OP_SHIP_GLORY, g, f)
    return True


@canonical("n")
@njit(cache=True)
def release_glory_nb(T, S, p, n):
    """Release Valhalla: Loki's Domain/Eminence/Wrath, a Glory per figure released (each card counts)."""
    for s in range(E.N_SLOTS):
        c = S.upg[p, s]
        if c >= 0 and card_op_index_nb(T, c, E.OP_RELEASE_GLORY) >= 0:
            g = n * op_arg_nb(T, c, E.OP_RELEASE_GLORY)
            gain_glory_nb(S, p, E.G_CARDS, g)
            fired_nb(S, p, c, E.OP_RELEASE_GLORY, g, n)


@canonical("p")
@njit(cache=True)
def glory_multiplier_nb(T, S, p, op, base, src):
    """Extra Glory from a "times a" upgrade (Odin's Inspiration on Ragnarök Glory, Odin's Throne on
    quest Glory): base * (a - 1), booked under the source it multiplies (``src``, rulings R38)."""
    c = upgrade_with_op_nb(T, S, p, op)
    if c >= 0 and base > 0:
        extra = base * (op_arg_nb(T, c, op) - 1)
        gain_glory_nb(S, p, src, extra)
        fired_nb(S, p, c, op, extra, 0)


@canonical("p")
@njit(cache=True, _nrt=False)
def free_warrior_nb(T, S, p, c, op, prov, kinds, params):
    """A text's free Warrior invade into prov (Frigga's Succor, Loki's Blessing): needs a reserve
    Warrior, an empty village and Horns room; the clan may decline; no further texts (R18)."""
    if S.destroyed[prov] or T.prov_villages[prov] <= occupied_nb(S, prov) or on_board_nb(S, p) >= horns_nb(T, S, p):
        return
    for w in range(E.FIG_WARRIOR0, E.FIG_WARRIOR0 + E.N_WARRIORS):
        if S.loc[p, w] == E.LOC_RESERVE:
            if choose_yes_nb(T, S, p, kinds[p], params[p], True):
                S.loc[p, w] = prov
                log_nb(S, E.EV_INVADE, p, w, prov, 0, 1, 0)
                fired_nb(S, p, c, op, 0, prov)
            return


@njit(cache=True)
def conquest_nb(T, S, p):
    """Thor's Conquest: a Glory per figure of clan p on the board at the end of the game."""
    c = upgrade_with_op_nb(T, S, p, E.OP_CONQUEST)
    if c < 0:
        return
    n = 0
    for f in range(E.NFIG):
        if S.loc[p, f] >= 0:
            n += 1
    g = n * op_arg_nb(T, c, E.OP_CONQUEST)
    gain_glory_nb(S, p, E.G_CARDS, g)
    fired_nb(S, p, c, E.OP_CONQUEST, g, n)

