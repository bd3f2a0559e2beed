"""Built-in strategies: name -> (policy kind, parameter vector).

A strategy is a ``(POL_* kind, float64[N_PARAMS] params)`` pair, the per-seat
element of the ``lineup`` list that :func:`simulator.api.play_batch` takes.
"""
from __future__ import annotations

import numpy as np

from simulator import enums as E


def _greedy_params() -> np.ndarray:
    p = np.zeros(E.N_PARAMS, np.float64)
    p[E.P_W_BATTLE] = 1.0
    p[E.P_W_MONSTER] = 1.2
    p[E.P_W_QUEST] = 2.5
    p[E.P_W_UPGRADE] = 1.5
    p[E.P_PILLAGE_MARGIN] = 1.0
    p[E.P_OPP_CARD] = 2.0
    p[E.P_LATE_RAGE] = 2.0
    p[E.P_STAT0] = E.STAT_AXES
    p[E.P_STAT1] = E.STAT_RAGE
    p[E.P_STAT2] = E.STAT_HORNS
    return p


#: name -> (POL_* kind, float64[N_PARAMS] default parameters); treat as read-only.
BUILTIN: dict[str, tuple[int, np.ndarray]] = {
    "random": (E.POL_RANDOM, np.zeros(E.N_PARAMS, np.float64)),
    "greedy": (E.POL_GREEDY, _greedy_params()),
}


def resolve(name: str) -> tuple[int, np.ndarray]:
    """Strategy name -> (POL_* kind, fresh float64[N_PARAMS] copy of its params).

    Raises ValueError for an unknown name (the message lists the allowed names).
    """
    key = name.strip()
    if key not in BUILTIN:
        raise ValueError(f"unknown strategy {name!r}; allowed: {', '.join(sorted(BUILTIN))}")
    kind, params = BUILTIN[key]
    return kind, params.copy()


def parse_lineup(text: str, n_players: int) -> list[str]:
    """'greedy,greedy,random,random' -> list of n_players strategy names.

    Names are stripped and checked with :func:`resolve`.  Raises ValueError if
    the count differs from ``n_players`` (naming both counts) or a name is unknown.
    """
    names = [s.strip() for s in text.split(",")]
    if len(names) != n_players:
        raise ValueError(f"lineup {text!r} names {len(names)} strategies but --players is {n_players}")
    for n in names:
        resolve(n)
    return names
