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


@canonical("p")
@njit(cache=True)
def script_refused_nb(S, p, g_bad, g_at):
    """Clan p's scripted value just taken (script_pop_nb) named no legal option: counted in
    S.gs[g_bad]; the first such value since S.gs[g_at] was cleared is kept there as
    1 + p * MAX_SCRIPT + its index in the clan's queue, for the scenario to name it. The caller
    then decides as its usual policy would."""
    S.gs[g_bad] += 1
    if S.gs[g_at] == 0:
        S.gs[g_at] = 1 + p * E.MAX_SCRIPT + S.script_i[p] - 1
