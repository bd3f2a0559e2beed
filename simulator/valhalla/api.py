"""Facade of the Blood Rage: Valhalla engine (registered in simulator.engines): the BatchOut of
simulator.core.batch, with ``gods`` int8[G, 3] (the god of each age, gods.toml index) and
``board_rag`` = figures on the board when Prove Valor begins, summed over the ages."""
from __future__ import annotations

import numpy as np

from ..core import enums as E
from ..core.batch import BatchOut, new_batch_out, policy_arrays
from .sweep import god_plan_for, sweep_combos  # noqa: F401  (god_plan_for: the sweep's plan)


def play_batch(ruleset, lineup, seeds, check: bool = False, game_ids=None, period: int = 1, god_plan=None,
               start=None, rewards=None) -> BatchOut:
    """One complete game per seed; seat i plays lineup[i] = (VPOL_* kind, float64[VP_N] params).

    god_plan: int8[G, 4] per game, the gods of ages 1..3 (gods.toml index; -1 = drawn at random)
    and a 1 to shuffle their order; start: int16[G, P] starting Glory and rewards: int16[G, P, 3]
    Reward Card ids (-1 none) of the Rainbow Bridge. Without god_plan, game_ids (int64[G]) and the
    rotation period give the god sweep's plan (:func:`god_plan_for`).
    Raises RulesError for a player count outside 3..5."""
    from .playout import play_batch_nb
    P = len(lineup)
    ruleset.check_players(P)
    kinds, params = policy_arrays(lineup)
    G = len(seeds)
    if god_plan is None and game_ids is not None:
        god_plan = god_plan_for(ruleset, game_ids, period)
    out = new_batch_out(G, P, E.VH_MAX_CARDS, 3, E.VH_N_GODS_MAX)
    god_plan = np.full((G, 4), -1, np.int8) if god_plan is None else np.ascontiguousarray(god_plan, np.int8)
    start = np.zeros((G, P), np.int16) if start is None else np.ascontiguousarray(start, np.int16)
    rewards = (np.full((G, P, E.MAX_MISSIONS), -1, np.int16) if rewards is None
               else np.ascontiguousarray(rewards, np.int16))
    if god_plan.shape != (G, 4) or start.shape != (G, P) or rewards.shape != (G, P, E.MAX_MISSIONS):
        raise ValueError(f"god_plan {god_plan.shape} / start {start.shape}; expected ({G}, 4) / ({G}, {P})")
    play_batch_nb(ruleset.tables_arr, np.asarray(seeds, np.uint64), kinds, params, check, god_plan, start,
                  rewards, *out[:-1])
    return out


def play_game(ruleset, lineup, seed: int, log: bool = True, check: bool = False, god_plan=None, start=None,
              rewards=None):
    """Play one game; return its final state record (VSTATE_DTYPE)."""
    from .playout import play_game_nb
    from .state import new_state
    ruleset.check_players(len(lineup))
    kinds, params = policy_arrays(lineup)
    S = new_state()[0]
    gp = np.full(4, -1, np.int8) if god_plan is None else np.asarray(god_plan, np.int8)
    st = np.zeros(len(lineup), np.int16) if start is None else np.asarray(start, np.int16)
    rw = np.full((len(lineup), E.MAX_MISSIONS), -1, np.int16) if rewards is None else np.asarray(rewards, np.int16)
    play_game_nb(ruleset.tables, S, np.uint64(seed), kinds, params, log, check, gp, st, rw)
    return S


def default_params() -> np.ndarray:
    """The greedy Valhalla strategy's parameter vector (float64[VP_N])."""
    v = np.zeros(E.VP_N)
    v[E.VP_W_BATTLE] = 1.0
    v[E.VP_W_MONSTER] = 1.2
    v[E.VP_W_QUEST] = 3.0
    v[E.VP_W_UPGRADE] = 3.5
    v[E.VP_CONTEST_MARGIN] = 1.0
    v[E.VP_OPP_CARD] = 2.5
    v[E.VP_STAT0], v[E.VP_STAT1], v[E.VP_STAT2] = E.STAT_AXES, E.STAT_HORNS, E.STAT_RAGE
    v[E.VP_VALOR] = 1.0
    v[E.VP_PASS] = 0.5
    return v


def load_scenario(path, data: dict, resolve):
    """Set up a Valhalla scenario (simulator.valhalla.scenario) from its parsed file; ``resolve``
    maps a strategy name to (kind, params). Raises ScenarioError."""
    from .scenario import load_scenario as load
    return load(path, data, resolve)
