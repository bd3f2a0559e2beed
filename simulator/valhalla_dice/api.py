"""Valhalla dice game: the Python face of the engine (load, play one game, play a batch)."""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..core.loading import RulesError
from . import dice as D
from .policy import VDPOL_GREEDY, VDPOL_RANDOM, greedy_params
from .rules import Content, load_content
from .state import N_CNT, new_state
from .tables import build_tables


class Results(NamedTuple):
    """Per-game results of a batch (G games, P seats)."""
    glory: np.ndarray  #: int32[G, P] final Glory
    rank: np.ndarray  #: int8[G, P] 1 = winner
    cnt: np.ndarray  #: int32[G, P, N_CNT] counters (state.C_*)
    jarl: np.ndarray  #: int16[G, P] Jarl (jarls.csv row), -1 none
    own: np.ndarray  #: int8[G, P] own shields left
    turns: np.ndarray  #: int32[G]
    end: np.ndarray  #: int8[G] end trigger (state.END_*)
    violation: np.ndarray  #: int8[G] first invariant violated (playout.INV_*), 0 none


def new_results(G: int, P: int) -> Results:
    return Results(np.zeros((G, P), np.int32), np.zeros((G, P), np.int8), np.zeros((G, P, N_CNT), np.int32),
                   np.full((G, P), -1, np.int16), np.zeros((G, P), np.int8), np.zeros(G, np.int32),
                   np.zeros(G, np.int8), np.zeros(G, np.int8))


class Ruleset:
    """The loaded rule set: content, kernel tables (``tables``: the record), dice tables."""

    def __init__(self, content: Content):
        self.content = content
        self.tables_arr = build_tables(content)
        self.tables = self.tables_arr[0]
        lo, hi = content.rules["min_players"], content.rules["max_players"]
        self.players = (lo, hi)
        self.dice = D.tables(9, content.dice["red"])  # the DP policy's pools: 6 dice + 3 grey

    def check_players(self, P: int) -> None:
        lo, hi = self.players
        if not lo <= P <= hi:
            raise RulesError(f"players: {P}; allowed: {lo}..{hi} for Valhalla (dice game)")


def load(data_dir: Path | None = None, options: dict | None = None) -> Ruleset:
    return Ruleset(load_content(data_dir, options))


STRATEGIES = {"random": (VDPOL_RANDOM, greedy_params), "greedy": (VDPOL_GREEDY, greedy_params)}


def lineup_arrays(lineup) -> tuple[np.ndarray, np.ndarray]:
    """[(kind, params)] -> (int8[P], float64[P, VD_N])."""
    return (np.array([k for k, _ in lineup], np.int8), np.array([p for _, p in lineup], np.float64))


def resolve(name: str):
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; allowed: {', '.join(STRATEGIES)}")
    k, f = STRATEGIES[name]
    return k, f()


def play_game(rs: Ruleset, lineup, seed: int, log: bool = True, check: bool = True):
    """One game; returns the final state record (state.VDSTATE_DTYPE)."""
    from .playout import play_game_nb
    rs.check_players(len(lineup))
    kinds, params = lineup_arrays(lineup)
    S = new_state()
    play_game_nb(rs.tables, S, rs.dice.arrays, np.uint64(seed), kinds, params, log, check)
    return S


def play_batch(rs: Ruleset, lineup, seeds, check: bool = False) -> Results:
    """One game per seed (uint64[G]); seat i plays lineup[i] = (kind, params)."""
    from .playout import play_batch_nb
    rs.check_players(len(lineup))
    kinds, params = lineup_arrays(lineup)
    seeds = np.asarray(seeds, np.uint64)
    out = new_results(len(seeds), len(lineup))
    play_batch_nb(rs.tables_arr, rs.dice.arrays, seeds, kinds, params, check, out)
    return out
