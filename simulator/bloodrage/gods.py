"""Gods of Ásgard module (DIGEST §2; rule option gods_of_asgard).

Two gods are drawn per game, placed on provinces named by leftover Ragnarök tokens
(never a destroyed one, never both on one), placed anew at the start of ages 2 and 3,
and moved by the pillager after any pillage attempt in their province.  Their powers
act in battles in their province (battle.py, effects.py) and on its pillage.
"""
from numba import njit

from ..core import enums as E
from ..core.canon import canonical
from ..core.rng import shuffle_nb
from .board import clan_str_nb
from .policy import choose_option_nb
from .state import log_nb


@canonical("prov")
@njit(cache=True)
def god_here_nb(T, S, prov, power):
    """Slot (0/1) of a god with ``power`` on province prov, or -1 (always -1 with the module off)."""
    if T.opts[E.OPT_GODS] == 0 or prov < 0:
        return -1
    for k in range(2):
        if S.god[k] >= 0 and S.god_loc[k] == prov and T.god_power[S.god[k]] == power:
            return k
    return -1


@canonical("amount")
@njit(cache=True)
def god_acts_nb(S, k, amount):
    """Record that god slot k's power acted (log and per-god count)."""
    S.god_fired[S.god[k]] += 1
    log_nb(S, E.EV_GOD, -1, S.god[k], S.god_loc[k], amount, 0, 0)


@njit(cache=True)
def draw_gods_nb(T, S):
    """Draw the gods in play (distinct, uniformly) at setup."""
    idx = S.w_shuf  # the state's buffer: no allocation per game
    for i in range(T.n_gods):
        idx[i] = i
    shuffle_nb(S.rs, idx, T.n_gods)
    for k in range(T.gods_in_play):
        S.god[k] = idx[k]


@njit(cache=True)
def place_gods_nb(T, S):
    """Place both gods on provinces named by leftover Ragnarök tokens, skipping destroyed provinces
    (DIGEST §2); a god with no token left stays off the board."""
    toks = S.w_shuf  # the state's buffer: no allocation per age
    n = 0
    for i in range(E.N_OUTER):
        pr = S.spare_doom[i]
        if pr >= 0 and S.destroyed[pr] == 0:
            toks[n] = pr
            n += 1
    shuffle_nb(S.rs, toks, n)
    for k in range(T.gods_in_play):
        S.god_loc[k] = toks[k] if k < n else -1
        log_nb(S, E.EV_GOD_PLACE, -1, S.god[k], S.god_loc[k], 0, 0, 0)


@canonical("p")
@njit(cache=True, _nrt=False)
def move_gods_nb(T, S, p, prov, kinds, params):
    """After any pillage attempt in a god's province the pillager moves the god to a province with
    no god, not pillaged and not destroyed (if none, it stays). Greedy: where it is strongest."""
    if T.opts[E.OPT_GODS] == 0:
        return
    dests = S.w_prov[:]
    for k in range(2):
        if S.god[k] < 0 or S.god_loc[k] != prov:
            continue
        n, g, gs = 0, 0, -1
        for pr in range(E.N_PROVINCES):
            if S.destroyed[pr] or S.pillaged[pr] or pr == S.god_loc[0] or pr == S.god_loc[1]:
                continue
            dests[n] = pr
            s = clan_str_nb(T, S, p, pr)
            if s > gs:
                g, gs = n, s
            n += 1
        if n == 0:
            continue
        i = choose_option_nb(T, S, p, dests, n, kinds[p], params[p], g)
        if i < 0:
            i = g  # the move is compulsory
        log_nb(S, E.EV_GOD_MOVE, p, S.god[k], prov, dests[i], 0, 0)
        S.god_loc[k] = dests[i]

