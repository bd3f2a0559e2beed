"""Complete games: one seeded game, and batches of them over numba threads.

A game is a pure function of (tables, seed, policies): each game owns its
random stream, so batches give identical results for any thread count,
batch size or order.
"""
from numba import njit

from ..core import enums as E
from ..core.draft_rules import focal_seat_nb
from ..core.record import copy1_nb, copy2_nb, load_policies_nb
from .gods import draw_gods_nb, place_gods_nb
from .invariants import checkpoint_nb
from .phases import (
    action_phase_nb,
    discard_phase_nb,
    draft_nb,
    end_age_nb,
    end_game_nb,
    missions_nb,
    quest_phase_nb,
    ragnarok_nb,
    release_nb,
    setup_nb,
    start_age_counters_nb,
)
from .policy import draft_table_nb
from .state import G_AGE, G_FIRST, G_FOCAL, G_PHASE, G_TURNS, G_VIOLATION, init_state_nb, log_nb


@njit(cache=True)
def _phase(T, S, ph):
    checkpoint_nb(T, S)  # the previous phase's end state
    S.gs[G_PHASE] = ph
    log_nb(S, E.EV_PHASE, -1, ph, 0, 0, 0, 0)


@njit(cache=True)
def start_game_nb(T, S, seed, P, log_on, check_on):
    """Setup (DIGEST §1.3; Gods of Ásgard §2): a fresh state for P clans from ``seed``, Ragnarök and
    pillage tokens, provinces destroyed by player count, first player, shuffled age decks, the
    gods drawn. ``volva scenario``'s setup step calls it too."""
    init_state_nb(S, P, seed, log_on, check_on)
    S.gs[G_FOCAL] = focal_seat_nb(T, seed, P)
    setup_nb(T, S)
    if T.opts[E.OPT_GODS] == 1:
        draw_gods_nb(T, S)


@njit(cache=True)
def start_age_nb(T, S, age):
    """Age ``age`` begins: its counters, the log line, and the gods placed (at setup and anew at
    ages 2 and 3, DIGEST §2)."""
    S.gs[G_AGE] = age
    start_age_counters_nb(S)
    log_nb(S, E.EV_AGE, -1, S.gs[G_FIRST], 0, 0, 0, 0)
    if T.opts[E.OPT_GODS] == 1:
        place_gods_nb(T, S)


# Inlined into the batch kernel: one compiled level fewer on the batch path (numba re-optimises
# and re-emits a kernel's whole call tree at every level that is compiled on its own).
@njit(inline="always")
def _game(T, S, seed, kinds, params, log_on, check_on):
    start_game_nb(T, S, seed, kinds.shape[0], log_on, check_on)
    for age in range(1, 4):
        start_age_nb(T, S, age)
        _phase(T, S, E.PH_DRAFT)
        draft_nb(T, S, kinds, params)
        _phase(T, S, E.PH_ACTION)
        action_phase_nb(T, S, kinds, params)
        _phase(T, S, E.PH_DISCARD)
        discard_phase_nb(T, S, kinds, params)
        _phase(T, S, E.PH_QUEST)
        quest_phase_nb(T, S, kinds, params)
        _phase(T, S, E.PH_RAGNAROK)
        ragnarok_nb(T, S, kinds, params)
        if T.n_missions > 0:  # Rainbow Bridge god missions (DIGEST §4)
            missions_nb(T, S)
        _phase(T, S, E.PH_RELEASE)
        release_nb(T, S)
        end_age_nb(S)
    _phase(T, S, E.PH_END)
    end_game_nb(T, S, S.rank)
    checkpoint_nb(T, S)


@njit(cache=True)
def play_game_nb(T, S, seed, kinds, params, log_on, check_on):
    """Play one game of Blood Rage (DIGEST §1.5) into state record S (STATE_DTYPE).

    T: tables record; seed: uint64; kinds: int8[P]; params: float64[P, N_PARAMS]
    (P = 2..5 players); log_on: record the event log in S.log; check_on: check the
    invariants after every action and phase (first violation in S.gs[G_VIOLATION]).
    Final ranks land in S.rank (1 = winner).
    """
    _game(T, S, seed, kinds, params, log_on, check_on)


@njit(cache=True, nogil=True)
def play_chunk_nb(Tarr, seeds, kinds, params, check, out, buf):
    """Play one game per seed of a slice of a batch, game i into record out[i], on the state
    buffer ``buf`` (1-element STATE_DTYPE array); core.threads.spread runs the slices of a batch
    on numba's thread count, the GIL released while they play. The caller allocates buf and
    holds it for the whole call: a record (``buf[0]``) does not own its memory, and numba freed an array local to this function
    after its last use as an array while its record was still in use (a crash once malloc returns
    large blocks to the system at once, as Dask's workers make it do: MALLOC_TRIM_THRESHOLD_)."""
    P = load_policies_nb(buf[0], kinds, params)  # no reference counts on the way down
    draft_table_nb(Tarr[0], buf[0], P)
    for g in range(seeds.shape[0]):
        S = buf[0]
        _game(Tarr[0], S, seeds[g], S.pol_kind[:P], S.pol_params[:P], False, check)
        _record_nb(S, out[g], P)


@njit(cache=True)
def _record_nb(S, R, P):
    """Copy a finished game's results from state S to its batch record R (core.batch.BATCH_DTYPE)."""
    for p in range(P):
        copy1_nb(R.glory[p], S.glory[p])
        copy1_nb(R.stats[p], S.stat[p])
        copy1_nb(R.path[p], S.path[p])
        R.rage_end[p] = S.rage_end[p]
        copy2_nb(R.picks[p], S.picks[p])
        R.rank[p] = S.rank[p]
        R.board_rag[p] = S.board_rag[p]
        copy1_nb(R.uses[p], S.uses[p])
        copy1_nb(R.missions[p], S.mission_n[p])
        copy1_nb(R.game_shape[p], S.game_shape[p])
    R.n_turns = S.gs[G_TURNS]
    R.violation = S.gs[G_VIOLATION]
    for c in range(R.fired.shape[0]):
        R.fired[c] = S.fired[c]
    for k in range(2):
        R.gods[k] = S.god[k]
    for k in range(R.god_fired.shape[0]):
        R.god_fired[k] = S.god_fired[k]
