"""Complete Blood Rage: Valhalla games, one seeded game or a slice of a batch (core.threads spreads the slices) (each game owns
its random stream: results do not depend on thread count or batch size)."""
from numba import njit

from ..core import enums as E
from ..core.draft_rules import focal_seat_nb
from ..core.record import copy1_nb, copy2_nb, load_policies_nb
from .engine import (
    action_phase_nb,
    draft_nb,
    end_age_nb,
    end_game_nb,
    give_rewards_nb,
    god_arrives_nb,
    quest_phase_nb,
    release_nb,
    setup_nb,
    valor_phase_nb,
)
from .invariants import INV_UNFINISHED, checkpoint_nb
from .policy import draft_table_nb
from .state import (
    G_AGE,
    G_CHECK,
    G_FIRST,
    G_FOCAL,
    G_PHASE,
    G_TURNS,
    G_VIOLATION,
    init_state_nb,
    log_nb,
)


@njit(cache=True)
def _phase(T, S, ph):
    checkpoint_nb(T, S)
    S.gs[G_PHASE] = ph
    log_nb(S, E.VEV_PHASE, -1, ph, 0, 0, 0, 0)


@njit(cache=True)
def play_game_nb(T, S, seed, kinds, params, log_on, check_on, gin):
    """Play one game of Blood Rage: Valhalla (rulebook "The Phases of Play": three ages of God
    Arrives, Draft, Action, Quest, Prove Valor, Release Warriors; End of Game) into S.
    gin: the game's setup record (api.GAME_IN_DTYPE: god plan, starting Glory, Reward Cards)."""
    init_state_nb(S, kinds.shape[0], seed, log_on, check_on)
    S.gs[G_FOCAL] = focal_seat_nb(T, seed, kinds.shape[0])
    setup_nb(T, S, gin.god_plan, gin.start)
    give_rewards_nb(S, gin.rewards)
    for age in range(1, 4):
        S.gs[G_AGE] = age
        log_nb(S, E.VEV_AGE, -1, S.gs[G_FIRST], 0, 0, 0, 0)
        _phase(T, S, E.VPH_GOD)
        god_arrives_nb(T, S)
        _phase(T, S, E.VPH_DRAFT)
        draft_nb(T, S, kinds, params)
        _phase(T, S, E.VPH_ACTION)
        action_phase_nb(T, S, kinds, params)
        _phase(T, S, E.VPH_QUEST)
        quest_phase_nb(T, S, kinds, params)
        _phase(T, S, E.VPH_VALOR)
        valor_phase_nb(T, S)
        _phase(T, S, E.VPH_RELEASE)
        release_nb(T, S)
        if age < 3:
            end_age_nb(T, S, kinds, params)
    _phase(T, S, E.VPH_END)
    end_game_nb(T, S)
    checkpoint_nb(T, S)
    if S.gs[G_CHECK] == 1 and S.gs[G_VIOLATION] == 0 and S.gs[G_AGE] != 3:
        S.gs[G_VIOLATION] = INV_UNFINISHED


@njit(cache=True)
def _record_nb(S, R, P):
    """Copy a finished game's results from S to its batch record R (api.VBATCH_DTYPE); board_rag
    holds the figures on the board when Prove Valor begins."""
    for p in range(P):
        copy1_nb(R.glory[p], S.glory[p])
        copy1_nb(R.stats[p], S.stat[p])
        copy1_nb(R.path[p], S.path[p])
        R.rage_end[p] = S.rage_end[p]
        copy2_nb(R.picks[p], S.picks[p])
        R.rank[p] = S.rank[p]
        R.board_rag[p] = S.board_valor[p]
        copy1_nb(R.uses[p], S.uses[p])
    R.n_turns = S.gs[G_TURNS]
    R.violation = S.gs[G_VIOLATION]
    for c in range(R.fired.shape[0]):
        R.fired[c] = S.fired[c]
    for k in range(3):
        R.gods[k] = S.gods[k]
    for k in range(R.god_fired.shape[0]):
        R.god_fired[k] = S.god_fired[k]


@njit(cache=True, nogil=True)
def play_chunk_nb(Tarr, seeds, kinds, params, check, games, out, buf):
    """One game per seed of a chunk (setup games[i], record out[i]) on the state buffer ``buf``
    (1-element VSTATE_DTYPE array, allocated and held by the caller: see the base engine's)."""
    P = load_policies_nb(buf[0], kinds, params)  # no reference counts on the way down
    draft_table_nb(Tarr[0], buf[0], P)
    for g in range(seeds.shape[0]):
        S = buf[0]
        play_game_nb(Tarr[0], S, seeds[g], S.pol_kind[:P], S.pol_params[:P], False, check, games[g])
        _record_nb(S, out[g], P)
