"""Blood Rage: Valhalla's cold compile on two processes (simulator.core.coldstart).

The helper compiles a contest (Call to Battle, the battle, its win effects and rewards: about a
third of the engine's compile) while this process compiles setup, the draft, the other actions
and the later phases; then the callers (one action, the Action phase, the game and the batch
kernel) compile here. No kernel of MAIN calls contest_nb; each signature is the one the batch
kernel calls the kernel with (tests/test_coldstart.py fails when one drifts).
"""
from __future__ import annotations

import numba
from numba import types as nt

TITLE = "Blood Rage: Valhalla"  #: in the notice a person at a terminal sees
#: (module, kernel, argument types) compiled by the helper process, in this order
HELPER = [
    ("contest", "contest_nb", "T S i64 i64 kinds params"),
]
#: compiled by this process meanwhile
MAIN = [
    ("state", "init_state_nb", "S i64 u64 false bool"),
    ("engine", "setup_nb", "T S god_plan start"),
    ("playout", "_phase", "T S i64"),
    ("engine", "god_arrives_nb", "T S"),
    ("engine", "draft_nb", "T S kinds params"),
    ("policy", "choose_action_nb", "T S i64 i8 weights act"),
    ("engine", "summon_action_nb", "T S i64 i64 i64"),
    ("policy", "march_dest_nb", "T S i64 i64 i64 i64 i8 weights"),
    ("engine", "march_nb", "T S i64 i64 dests"),
    ("engine", "upgrade_nb", "T S i64 i64"),
    ("engine", "quest_nb", "T S i64 i64"),
    ("engine", "quest_phase_nb", "T S kinds params"),
    ("engine", "valor_phase_nb", "T S"),
    ("engine", "release_nb", "T S"),
    ("engine", "end_age_nb", "T S kinds params"),
    ("engine", "end_game_nb", "T S"),
]


def arg_types() -> dict:
    """The plan's argument type names -> numba types (T: tables record, S: state record; act,
    dests: the state's work arrays; god_plan, start: fields of a game's setup record)."""
    from .api import GAME_IN_DTYPE
    from .rules import VTABLES_DTYPE
    from .state import VSTATE_DTYPE
    S, gin = numba.from_dtype(VSTATE_DTYPE), numba.from_dtype(GAME_IN_DTYPE)
    return {
        "T": numba.from_dtype(VTABLES_DTYPE), "S": S,
        "i64": nt.int64, "i8": nt.int8, "u64": nt.uint64, "bool": nt.boolean, "false": nt.literal(False),
        "kinds": nt.Array(nt.int8, 1, "C"), "params": nt.Array(nt.float64, 2, "C"),
        "weights": nt.Array(nt.float64, 1, "C"),
        "act": S.typeof("w_act"), "dests": S.typeof("w_dests"),
        "god_plan": gin.typeof("god_plan"), "start": gin.typeof("start"),
    }
