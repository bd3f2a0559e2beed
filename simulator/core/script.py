"""Scripted decisions (scenarios): each engine's state record holds per-clan queues ``script``
(int16[P, MAX_SCRIPT]), ``script_n`` and ``script_i``; a clan playing the script policy takes its
next value at each decision, then its usual policy once the queue is empty."""
from numba import njit

from . import enums as E
from .canon import canonical


@canonical("p")
@njit(cache=True)
def script_pop_nb(S, p):
    """Next value of clan p's script queue, or SCRIPT_NONE when it is empty."""
    i = S.script_i[p]
    if i >= S.script_n[p]:
        return E.SCRIPT_NONE
    S.script_i[p] = i + 1
    return S.script[p, i]
