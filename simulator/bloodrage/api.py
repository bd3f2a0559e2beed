"""Facade of the Blood Rage engine (registered in simulator.engines): load a rule set, play
batches and single games, replay one as text. Seeds, the rotation plan and the batch result
are simulator.core.batch's.
"""
from __future__ import annotations

import numpy as np

from ..core import enums as E
from ..core.batch import BATCH_DTYPE, BatchOut, play_in_blocks, policy_arrays
from ..core.coldstart import compile_cold
from .rules import Ruleset

PLAN = f"{__package__}.compile_plan"  #: the two-process cold compile (simulator.core.coldstart)


def _check_seats(P: int) -> None:
    if not 2 <= P <= E.MAX_PLAYERS:
        raise ValueError(f"players: {P}; allowed: 2..{E.MAX_PLAYERS}")


def play_batch(ruleset: Ruleset, lineup: list[tuple[int, np.ndarray]], seeds: np.ndarray,
               check: bool = False, game_ids: np.ndarray | None = None, period: int = 1) -> BatchOut:
    """Play one complete game per seed; seat i uses lineup[i]; ``check`` runs the invariant checks.

    Args: ruleset from load; lineup of length P (2..5) of (POL_* kind, float64[N_PARAMS]);
    seeds uint64[G]; game_ids/period unused (a Blood Rage game depends on its seed only).
    Raises ValueError for a player count outside 2..5, RulesError for decks too small.
    """
    from .playout import play_chunk_nb
    from .state import STATE_DTYPE
    P = len(lineup)
    _check_seats(P)
    ruleset.check_players(P)
    kinds, params = policy_arrays(lineup)
    seeds = np.asarray(seeds, np.uint64)
    compile_cold(PLAN)

    def play(lo: int, hi: int, rec: np.ndarray, buf: np.ndarray) -> None:
        play_chunk_nb(ruleset.tables_arr, seeds[lo:hi], kinds, params, check, rec, buf)

    return play_in_blocks(len(seeds), P, BATCH_DTYPE, STATE_DTYPE, play)


def play_game(ruleset: Ruleset, lineup: list[tuple[int, np.ndarray]], seed: int, log: bool = True,
              check: bool = False):
    """Play one game; return its final state record (STATE_DTYPE: .glory, .rank, .log, ...)."""
    from .playout import play_game_nb
    from .state import new_state
    _check_seats(len(lineup))
    kinds, params = policy_arrays(lineup)
    S = new_state()[0]
    compile_cold(PLAN)
    play_game_nb(ruleset.tables, S, np.uint64(seed), kinds, params, log, check)
    return S
