"""Blood Rage's cold compile on two processes (simulator.core.coldstart).

The helper compiles the deepest branch of the Action phase, battle -> pillage -> invade ->
upgrade (about 40 % of the engine's compile), while this process compiles the kernels of the
other phases and of legal-move generation; then the callers of both (do_action, the Action
phase, the batch kernel) compile here. No kernel of MAIN calls one of HELPER (so neither process
compiles the other's branch); each signature is the one the batch kernel calls the kernel with
(tests/test_coldstart.py fails when one drifts).
"""
from __future__ import annotations

import numba
from numba import types as nt

TITLE = "Blood Rage"  #: in the notice a person at a terminal sees
#: (module, kernel, argument types) compiled by the helper process, in this order
HELPER = [
    ("battle", "battle_nb", "T S i64 i64 kinds params fought"),
    ("pillage", "pillage_nb", "T S i64 i64 kinds params"),
    ("actions", "invade_nb", "T S i64 i64 i64 bool kinds params"),
    ("actions", "upgrade_nb", "T S i64 i64 i64 kinds params"),
]
#: compiled by this process meanwhile
MAIN = [
    ("playout", "start_game_nb", "T S u64 i64 false bool"),
    ("playout", "start_age_nb", "T S i64"),
    ("playout", "_phase", "T S i64"),
    ("phases", "draft_nb", "T S kinds params"),
    ("actions", "legal_actions_nb", "T S i64 acts"),
    ("actions", "greedy_choice_nb", "T S i64 acts weights"),
    ("actions", "march_nb", "T S i64 i64 i64 kinds params"),
    ("actions", "sacrifice_nb", "T S i64 kinds params"),
    ("phases", "discard_phase_nb", "T S kinds params"),
    ("phases", "quest_phase_nb", "T S kinds params"),
    ("phases", "ragnarok_nb", "T S kinds params"),
    ("phases", "release_nb", "T S"),
    ("phases", "missions_nb", "T S"),
]


def arg_types() -> dict:
    """The plan's argument type names -> numba types (T: tables record, S: state record)."""
    from .rules import TABLES_DTYPE
    from .state import STATE_DTYPE
    return {
        "T": numba.from_dtype(TABLES_DTYPE), "S": numba.from_dtype(STATE_DTYPE),
        "i64": nt.int64, "u64": nt.uint64, "bool": nt.boolean, "false": nt.literal(False),
        "kinds": nt.Array(nt.int8, 1, "C"), "params": nt.Array(nt.float64, 2, "C"),
        "fought": nt.Array(nt.int8, 2, "C"), "acts": nt.Array(nt.int64, 2, "C"),
        "weights": nt.Array(nt.float64, 1, "C"),
    }
