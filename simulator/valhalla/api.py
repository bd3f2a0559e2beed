"""Facade of the Blood Rage: Valhalla engine (registered in simulator.engines): the BatchOut of
simulator.core.batch, with ``gods`` int8[G, 3] (the god of each age, gods.toml index) and
``board_rag`` = figures on the board when Prove Valor begins, summed over the ages."""
from __future__ import annotations

import numpy as np

from ..core import enums as E
from ..core.batch import BatchOut, batch_dtype, play_in_blocks, policy_arrays
from ..core.coldstart import compile_cold
from .sweep import god_plan_for, sweep_combos  # noqa: F401  (god_plan_for: the sweep's plan)

#: Valhalla's batch record: 256 cards, the god of each age, 8 god powers (core.batch.batch_dtype)
VBATCH_DTYPE = batch_dtype(E.VH_MAX_CARDS, 3, E.VH_N_GODS_MAX)
PLAN = f"{__package__}.compile_plan"  #: the two-process cold compile (simulator.core.coldstart)
#: what a game starts from besides its seed (one record per game)
GAME_IN_DTYPE = np.dtype([
    ("god_plan", np.int8, (4,)),  # gods of ages 1..3 (gods.toml index, -1 drawn at random), then 1 to shuffle them
    ("start", np.int16, (E.MAX_PLAYERS,)),  # starting Glory per seat (Rainbow Bridge), 0 otherwise
    ("rewards", np.int16, (E.MAX_PLAYERS, E.MAX_MISSIONS)),  # Rainbow Bridge Reward Cards per seat, -1 none
])


def game_inputs(G: int, P: int, god_plan=None, start=None, rewards=None) -> np.ndarray:
    """GAME_IN_DTYPE[G] from god_plan int8[G, 4], start int16[G, P], rewards int16[G, P, 3]
    (None: no plan, 0, none). Raises ValueError for other shapes."""
    gin = np.zeros(G, GAME_IN_DTYPE)
    gin["god_plan"] = -1
    gin["rewards"] = -1
    for name, v, shape in (("god_plan", god_plan, (G, 4)), ("start", start, (G, P)),
                           ("rewards", rewards, (G, P, E.MAX_MISSIONS))):
        if v is not None:
            v = np.asarray(v)
            if v.shape != shape:
                raise ValueError(f"{name} {v.shape}; expected {shape}")
            if name == "god_plan":
                gin[name] = v
            else:
                gin[name][:, :P] = v
    return gin


def play_batch(ruleset, lineup, seeds, check: bool = False, game_ids=None, period: int = 1, god_plan=None,
               start=None, rewards=None) -> BatchOut:
    """One complete game per seed; seat i plays lineup[i] = (VPOL_* kind, float64[VP_N] params).

    god_plan: int8[G, 4] per game, the gods of ages 1..3 (gods.toml index; -1 = drawn at random)
    and a 1 to shuffle their order; start: int16[G, P] starting Glory and rewards: int16[G, P, 3]
    Reward Card ids (-1 none) of the Rainbow Bridge. Without god_plan, game_ids (int64[G]) and the
    rotation period give the god sweep's plan (:func:`god_plan_for`).
    Raises RulesError for a player count outside 3..5."""
    from .playout import play_chunk_nb
    from .state import VSTATE_DTYPE
    P = len(lineup)
    ruleset.check_players(P)
    kinds, params = policy_arrays(lineup)
    G = len(seeds)
    if god_plan is None and game_ids is not None:
        god_plan = god_plan_for(ruleset, game_ids, period)
    gin = game_inputs(G, P, god_plan, start, rewards)
    seeds = np.asarray(seeds, np.uint64)
    compile_cold(PLAN)

    def play(lo: int, hi: int, rec: np.ndarray, buf: np.ndarray) -> None:
        play_chunk_nb(ruleset.tables_arr, seeds[lo:hi], kinds, params, check, gin[lo:hi], rec, buf)

    return play_in_blocks(G, P, VBATCH_DTYPE, VSTATE_DTYPE, play)


def play_game(ruleset, lineup, seed: int, log: bool = True, check: bool = False, god_plan=None, start=None,
              rewards=None):
    """Play one game; return its final state record (VSTATE_DTYPE)."""
    from .playout import play_game_nb
    from .state import new_state
    ruleset.check_players(len(lineup))
    kinds, params = policy_arrays(lineup)
    S = new_state()[0]
    P = len(lineup)
    gin = game_inputs(1, P, None if god_plan is None else np.asarray(god_plan)[None],
                      None if start is None else np.asarray(start)[None],
                      None if rewards is None else np.asarray(rewards)[None])
    compile_cold(PLAN)
    play_game_nb(ruleset.tables, S, np.uint64(seed), kinds, params, log, check, gin[0])
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
