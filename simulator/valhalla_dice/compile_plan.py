"""Valhalla (the dice game)'s cold compile on two processes (simulator.core.coldstart).

The helper compiles an attack (battle_game_nb: both sides' arming phases, the DP and greedy
keep rules, Tactics, the shield and the Valhalla sends; about 40 % of the engine's compile)
while this process compiles setup (the Jarl deal, the draft, table Warriors), the action choice
and the draw; then the callers (the action, the turn, the end of the game with Ragnarök, which
reuses the helper's battle kernels from the cache, the game and the batch kernel) compile here.
Each signature is the one the batch kernel calls the kernel with (tests/test_coldstart.py fails
when one drifts).
"""
from __future__ import annotations

import numba
from numba import types as nt

TITLE = "Valhalla (dice game)"  #: in the notice a person at a terminal sees
#: (module, kernel, argument types) compiled by the helper process, in this order
HELPER = [
    ("fight", "battle_game_nb", "T S dts i64 i64 kinds params"),
]
#: compiled by this process meanwhile
MAIN = [
    ("playout", "init_state_nb", "S i64 u64 false bool"),
    ("engine", "setup_nb", "T S kinds params"),
    ("engine", "start_turn_nb", "T S i64"),
    ("engine", "choose_action_nb", "T S i64 i8 weights"),
    ("piles", "draw_keep_nb", "T S i64 i64 i64 i8 weights"),
]


def arg_types() -> dict:
    """The plan's argument type names -> numba types (T: tables record, S: state record, dts: the
    arming DP's dice tables, typed from a stand-in bank of the same array types)."""
    from .dice import stand_in_bank
    from .state import VDSTATE_DTYPE
    from .tables import VDTABLES_DTYPE
    return {
        "T": numba.from_dtype(VDTABLES_DTYPE), "S": numba.from_dtype(VDSTATE_DTYPE),
        "dts": numba.typeof(stand_in_bank()),
        "i64": nt.int64, "i8": nt.int8, "u64": nt.uint64, "bool": nt.boolean, "false": nt.literal(False),
        "kinds": nt.Array(nt.int8, 1, "C"), "params": nt.Array(nt.float64, 2, "C"),
        "weights": nt.Array(nt.float64, 1, "C"),
    }
