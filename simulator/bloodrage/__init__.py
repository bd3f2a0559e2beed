"""Blood Rage (2-5 players, with the Gods of Ásgard module; rulebook 001, DIGEST §1-2).

- ``rules``    data files -> :class:`Ruleset` (tables record + names), validated on load; ``patches``
- ``state``    the game-state record (STATE_DTYPE)
- ``board`` ``clan`` ``effects`` ``gods`` ``actions`` ``pillage`` ``battle`` ``phases``  the kernels
- ``policy``   the scripted strategies' choices
- ``playout``  complete games and numba-parallel batches; ``invariants`` the checks after every step
- ``replay``   a game's log as text; ``scenario``/``scenario_position`` positions a referee sets up
- ``api``      the facade below, as simulator.engines calls it

The package is the engine's facade (simulator.engines): load, play_batch, play_game,
replay_text, load_scenario.
"""
from .api import play_batch, play_game  # noqa: F401
from .replay import replay_text  # noqa: F401
from .rules import load_blood_rage as load  # noqa: F401


def load_scenario(path, data: dict, resolve):
    """Set up a Blood Rage scenario (simulator.bloodrage.scenario; docs/scenarios.md) from its parsed file;
    ``resolve`` maps a strategy name to (kind, params). Raises ScenarioError."""
    from .scenario import load_scenario as setup
    return setup(path, data, resolve)
