"""Valhalla, the dice-and-cards game (rulebook ``003``; DIGEST §5), the third rule set.

- ``rules``    content (rules, cards, Jarls, opcodes, dice; PROVISIONAL) loaded and validated
- ``dice``     the exact dice-arming solver (multiset tables, backward induction)
- ``battle``   a side's battle phase (DP, greedy keep rule or no reroll) and a two-side battle
- ``tables``   the content as the kernels' tables record; ``state`` the game-state record
- ``piles``, ``jarls``, ``engine`` (setup, the turn), ``fight`` (battles in a game, Ragnarök)
- ``policy``   strategies' parameter vectors and decisions; ``playout`` games, batches, scoring
- ``modules``  Loki's Deception and King of the Hill (modules.toml)
- ``api``      the facade below, as simulator.engines calls it; ``replay`` the log as text
- ``scenario`` `volva scenario` positions and steps

The package is the engine's facade (simulator.engines): load, play_batch, play_game,
replay_text, load_scenario.
"""
from .api import load, play_batch, play_game, replay_text  # noqa: F401


def load_scenario(path, data: dict, resolve):
    """The scenario file ``path`` (parsed: ``data``) set up (scenario.DiceScenario: ``run()``,
    ``result()``); ``resolve``: strategy name -> (kind, params). Raises ScenarioError."""
    from .scenario import load_scenario as setup
    return setup(path, data, resolve)
