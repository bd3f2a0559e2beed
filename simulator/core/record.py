"""The state header both engines share, at the same indices, and the kernels that write it.

Each engine's state record starts with ``gs`` (int32[N_GS]): indices 0..N_HEADER-1 mean the
same in every engine (below); an engine numbers its own scalars from N_HEADER on. Both records
carry ``log`` (int32[LOG_ROWS, LOG_WIDTH]), ``uses`` (int16[P5, MAX_USES]) with ``use_n``, and
the seats' policies ``pol_kind`` (int8[P5]) and ``pol_params`` (float64[P5, W]).
"""
from numba import njit

from .canon import canonical

G_NP = 0  #: number of players
G_AGE = 1  #: current age 1..3
G_FIRST = 2  #: seat holding the first-player token
G_TURNS = 3  #: Action-phase turns taken, all ages
G_LOG_N = 4  #: rows written to the log
G_LOG_ON = 5  #: 1 to record the log
G_PHASE = 6  #: current phase (the engine's PH_* codes)
G_CAPPED = 7  #: Action phases cut by the max_actions safety cap
G_LOG_LOST = 8  #: log rows dropped for lack of room
G_CHECK = 9  #: 1 to check invariants after every action and phase
G_VIOLATION = 10  #: first invariant violated (the engine's INV_* code, core.enums ranges), 0 none
G_VIOLATION_AT = 11  #: Action-phase turn count when it was seen
G_FOCAL = 12  #: the seat a one-clan draft rule applies to (volva ablate --estimand one-clan); -1: every seat
N_HEADER = 13  #: first index an engine may use for its own scalars

# Invariant-violation codes are namespaced per engine, so a Rainbow Bridge game's codes say which
# engine raised them: Blood Rage 1..31, Blood Rage: Valhalla 33..63 (each engine's invariants.py).
INV_FIRST_VALHALLA = 32

LOG_WIDTH = 8  #: event, age, player, a, b, c, d, e
LOG_ROWS = 4096  #: log capacity


@canonical("ev", "p", "a", "b", "c", "d", "e")
@njit(cache=True)
def log_nb(S, ev, p, a, b, c, d, e):
    """Append one event row when logging is on (rows past capacity are counted in G_LOG_LOST)."""
    if S.gs[G_LOG_ON] == 0:
        return
    i = S.gs[G_LOG_N]
    if i >= LOG_ROWS:
        S.gs[G_LOG_LOST] += 1
        return
    S.log[i, 0] = ev
    S.log[i, 1] = S.gs[G_AGE]
    S.log[i, 2] = p
    S.log[i, 3] = a
    S.log[i, 4] = b
    S.log[i, 5] = c
    S.log[i, 6] = d
    S.log[i, 7] = e
    S.gs[G_LOG_N] = i + 1


# Copies of a state row into a batch record, as loops: numba's slice assignment from an array
# compiles a formatted shape-mismatch error, whose string code cost seconds of every cold compile.
@njit(inline="always")
def copy1_nb(dst, src):
    """dst[i] = src[i] for every i of 1-D src (dst at least as long)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(inline="always")
def copy2_nb(dst, src):
    """dst[i, j] = src[i, j] for every cell of 2-D src (dst at least as large)."""
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


@njit(inline="always")
def load_policies_nb(S, kinds, params):
    """Copy the seats' policies (int8[P] kinds, float64[P, W] parameters) into the state's
    ``pol_kind``/``pol_params``; returns P. The batch kernels pass the record's views to the game:
    a view of a record owns no memory, so the kernels hand it on without the atomic reference
    count every call costs an array argument (a fifth of a game's time; shared counts also
    serialise the threads)."""
    P = kinds.shape[0]
    for p in range(P):
        S.pol_kind[p] = kinds[p]
        for k in range(params.shape[1]):
            S.pol_params[p, k] = params[p, k]
    return P


@canonical("p", "c")
@njit(cache=True)
def note_use_nb(S, p, c, how):
    """Record that clan p used card c this age (how = USE_*); uses past the capacity are dropped."""
    n = S.use_n[p]
    if n < S.uses.shape[1]:
        S.uses[p, n] = c * 16 + S.gs[G_AGE] * 4 + how
        S.use_n[p] = n + 1


@canonical("code")  # each invariant passes its literal code: one body, not one per code
@njit(cache=True)
def record_violation_nb(S, code):
    """Keep the first invariant violation (``code`` != 0) and the turn count when it was seen."""
    if code != 0 and S.gs[G_VIOLATION] == 0:
        S.gs[G_VIOLATION] = code
        S.gs[G_VIOLATION_AT] = S.gs[G_TURNS]
