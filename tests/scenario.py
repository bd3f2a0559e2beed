"""Hand-built positions for the rule tests (tests/test_rules_*.py).

Build a blank state, place figures and cards by hand, then call the kernels
directly.  Province and fjord indices follow simulator/data/blood-rage/board.toml
(DIGEST §1.2 ring order).
"""
from __future__ import annotations

import inspect
from functools import cache

import numpy as np

from volva.simulator.bloodrage.state import G_AGE, G_LOG_N, G_NP, init_state_nb, new_state
from volva.simulator.core import enums as E
from volva.simulator.engines import load_ruleset
from volva.strategies.builtin import resolve

# provinces (DIGEST §1.2)
ELVAGAR, ANGERBODA, MUSPELHEIM, HORGR, UTGARD, ANDLANG, GIMLE, MYRKULOR, YGG = range(9)
# fjord locations
NORTH, EAST, SOUTH, WEST = (E.LOC_FJORD0 + i for i in range(4))
WARRIORS = list(range(E.FIG_WARRIOR0, E.FIG_WARRIOR0 + E.N_WARRIORS))
M0, M1 = E.FIG_MONSTER0, E.FIG_MONSTER0 + 1


@cache
def ruleset(**options):
    return load_ruleset(options=options or None)


def rules(**options):
    """The Blood Rage rule set (cached per options)."""
    return ruleset(**options)


def card(r, name: str, age: int) -> int:
    """Card id of ``name`` in ``age``."""
    for c, n in enumerate(r.card_names):
        if n == name and int(r.tables.card_age[c]) == age:
            return c
    raise KeyError(f"{name} (age {age})")


def _init(S, n, seed):
    npar = len(inspect.signature(init_state_nb.py_func).parameters)
    args = [S, n, np.uint64(seed), True] + [False] * (npar - 4)
    init_state_nb(*args)


def fresh(n_players: int, seed: int = 1):
    """A state straight from init_state_nb (nothing adjusted), as setup_nb expects it."""
    S = new_state()[0]
    _init(S, n_players, seed)
    return S


def blank(n_players: int = 2, age: int = 1, seed: int = 1):
    """A state record with every figure in reserve, Monster slots empty (LOC_NONE),
    no destroyed province, tokens all unpillaged (outer tokens Rage, Yggdrasil all), no cards."""
    S = new_state()[0]
    _init(S, n_players, seed)
    for p in range(E.MAX_PLAYERS):
        S.loc[p, E.FIG_MONSTER0:] = E.LOC_NONE
    S.gs[G_AGE] = age
    S.token[:E.N_OUTER] = E.REWARD_RAGE
    S.token[E.YGGDRASIL] = E.REWARD_ALL
    return S


def give(S, p, cards):
    """Set clan p's hand to exactly ``cards``."""
    S.hand[p, :] = -1
    S.hand[p, :len(cards)] = cards
    S.hand_n[p] = len(cards)


def hand(S, p):
    return sorted(int(c) for c in S.hand[p, :S.hand_n[p]])


def discards(S):
    from volva.simulator.bloodrage.state import G_DISCARD_N
    return sorted(int(c) for c in S.discard[:S.gs[G_DISCARD_N]])


def place(S, p, figs, loc):
    """Put figure slots ``figs`` (int or list) of clan p at ``loc``."""
    if isinstance(figs, (int, np.integer)):
        figs = [figs]
    for f in figs:
        S.loc[p, f] = loc


def monster(S, p, c, loc=E.LOC_RESERVE, slot=0, T=None):
    """Give clan p Monster card c in Monster slot ``slot``; its figure at ``loc``."""
    S.upg[p, E.SLOT_MONSTER0 + slot] = c
    S.loc[p, E.FIG_MONSTER0 + slot] = loc
    sheets(S, T)


def sheets(S, T=None):
    """After a test writes S.upg by hand: every clan's kept opcode mask (S.opmask) refreshed, as
    the engine's upgrade_nb does (board.sheet_refresh_nb); T: the rule set's tables (default: the
    base rule set's; card opcodes do not depend on the options)."""
    from volva.simulator.bloodrage.board import sheet_refresh_nb
    T = ruleset().tables if T is None else T
    for p in range(E.MAX_PLAYERS):
        sheet_refresh_nb(T, S, p)


def policies(n, name="greedy"):
    """(kinds int8[n], params float64[n, N_PARAMS]) for n seats of one builtin strategy."""
    kind, par = resolve(name)
    return np.full(n, kind, np.int8), np.tile(par, (n, 1))


def legal(r, S, p):
    """Set of clan p's legal actions (type, a, b)."""
    from volva.simulator.bloodrage.actions import MAX_ACTS, legal_actions_nb
    acts = np.empty((MAX_ACTS, 3), np.int64)
    n = legal_actions_nb(r.tables, S, p, acts)
    return {tuple(int(x) for x in acts[i]) for i in range(n)}


def log(S, ev=None):
    """Log rows (event, age, player, a..e) as tuples, optionally only event ``ev``."""
    rows = [tuple(int(x) for x in row) for row in S.log[:S.gs[G_LOG_N]]]
    return [row for row in rows if ev is None or row[0] == ev]


def total(S, p):
    return int(S.glory[p].sum())


def n_players(S):
    return int(S.gs[G_NP])
