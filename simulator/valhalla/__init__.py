"""Blood Rage: Valhalla (rulebook 000_…txt; DIGEST §3): its own board, contests, kill piles and
the Feast Hall, on the same record-of-arrays design as the base engine.

- ``rules``    data files -> :class:`VRuleset` (tables record + names), validated on load
- ``state``    the game-state record (VSTATE_DTYPE)
- ``engine``   kernels: setup, God Arrives, draft, actions, Quest, Prove Valor, Release
- ``contest``  Call to Battle, the battle and its card texts, rewards and god tiles
- ``policy``   the scripted strategies' choices (random, greedy)
- ``playout``  complete games and numba-parallel batches
- ``sweep``    the god sweep (every combination equally often)
- ``api``      the facade below, as simulator.engines calls it

The package is the engine's facade (simulator.engines): load, play_batch, play_game,
replay_text, load_scenario.
"""
from .api import play_batch, play_game  # noqa: F401
from .replay import replay_text  # noqa: F401
from .rules import load_valhalla as load  # noqa: F401


def load_scenario(path, data: dict, resolve):
    """Set up a Valhalla scenario (simulator.valhalla.scenario) from its parsed file;
    ``resolve`` maps a strategy name to (kind, params). Raises ScenarioError."""
    from .scenario import load_scenario as setup
    return setup(path, data, resolve)
