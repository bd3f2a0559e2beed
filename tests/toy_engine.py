"""A toy rule set for the registry test (tests/test_engines.py): each seat draws a number from the
game seed and adds its strategy's strength; the highest total wins. 2-3 players, three cards.

It is an engine package as simulator.engines describes one: load, play_batch, play_game,
replay_text and load_scenario, with no numba.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from volva.simulator.core import enums as E
from volva.simulator.core.batch import game_plan, new_batch_out, rotated
from volva.simulator.core.loading import RulesError, ScenarioError

CARDS = ["Coin", "Dice", "Rune"]


class ToyRules:
    name = engine = "toy"
    card_type_names = ("battle",)
    one_deck = False

    def __init__(self, options: dict):
        self.options = dict(options)
        self.card_names, self.god_names = list(CARDS), []
        self.card_file_sha256, self.patch_file, self.patch_sha256, self.draft_note = "0" * 64, None, None, None
        self.tables = SimpleNamespace(card_god=np.full(3, -1), card_type=np.zeros(3, np.int8),
                                      card_value=np.array([1, 2, 3]), card_age=np.array([1, 2, 3], np.int8))

    def check_players(self, players: int) -> None:
        if not 2 <= players <= 3:
            raise RulesError(f"players: {players}; allowed: 2..3 for the toy rule set")


def load(name="toy", options=None, data_dir=None, cards_path=None, patch=None) -> ToyRules:
    bad = sorted(set(options or {}) - {"bonus"})
    if bad:
        raise RulesError(f"--option {bad[0]}: unknown option; allowed: ['bonus']")
    return ToyRules(options or {})


def resolve(name: str):
    """Strategies of the toy game: 'low' (strength 0) and 'high' (strength 4)."""
    table = {"low": 0.0, "high": 4.0}
    if name not in table:
        raise ValueError(f"unknown strategy {name!r}; allowed: high, low")
    return 0, np.array([table[name]])


def play_batch(rs, lineup, seeds, check=False, game_ids=None, period=1):
    seeds = np.asarray(seeds, np.uint64)
    P = len(lineup)
    out = new_batch_out(len(seeds), P)
    draw = ((seeds[:, None] >> (np.arange(P, dtype=np.uint64) * np.uint64(8))) % np.uint64(8)).astype(np.int32)
    total = draw + np.array([int(p[0]) for _, p in lineup], np.int32)[None, :] + int(rs.options.get("bonus", 0))
    out.glory[:, :, E.G_BATTLE] = total
    out.rank[:] = 1 + (total[:, None, :] > total[:, :, None]).sum(2)
    out.picks[:, :, 0, 0] = (seeds % np.uint64(3)).astype(np.int16)[:, None]
    out.n_turns[:] = 1
    return out


def play_game(rs, lineup, seed, log=True, check=False):
    b = play_batch(rs, lineup, np.array([seed], np.uint64))
    return SimpleNamespace(glory=b.glory[0], rank=b.rank[0])


def replay_text(rs, lineup_names, lineup, master_seed, game_id=0, rotate=True):
    (r, _, seeds), = game_plan(master_seed, np.array([game_id]), len(lineup), rotate)
    S = play_game(rs, rotated(lineup, r), int(seeds[0]))
    names = rotated(lineup_names, r)
    return "\n".join(f"{n}: {int(g.sum())} Glory, rank {int(k)}" for n, g, k in zip(names, S.glory, S.rank))


def load_scenario(path, data, resolve):
    raise ScenarioError(f"{path}: field 'ruleset': the toy rule set has no scenarios")
