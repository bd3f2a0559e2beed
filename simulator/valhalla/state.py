"""Blood Rage: Valhalla game state: one numpy record (P5 = MAX_PLAYERS rows; the first
gs[G_NP] are in play). Scalars live in ``gs`` (int32[N_GS]) at the G_* indices.

Figure slots per clan (enums VH_*): 0..1 Elites, 2..7 Warriors, 8..12 Monster bases.
``loc`` codes: 0..R-1 a region, VH_LOC_RESERVE, VH_LOC_FEAST (Feast Hall),
VH_LOC_NONE (empty base / figure not in the game), VH_LOC_KILL0 - q (clan q's kill pile).
"""
import numpy as np
from numba import njit

from ..core import enums as E
from ..core.record import (  # noqa: F401
    G_AGE,
    G_CAPPED,
    G_CHECK,
    G_FIRST,
    G_FOCAL,
    G_LOG_LOST,
    G_LOG_N,
    G_LOG_ON,
    G_NP,
    G_PHASE,
    G_TURNS,
    G_VIOLATION,
    G_VIOLATION_AT,
    LOG_ROWS,
    LOG_WIDTH,
    N_HEADER,
    log_nb,
    note_use_nb,
)

# Valhalla's own scalars, after the shared header (core.record)
G_DECK_N = N_HEADER + 0  #: cards in the deck (top = deck[deck_n - 1])
G_DECK_TOTAL = N_HEADER + 1  #: cards in the game at setup (card conservation)
G_REMOVED = N_HEADER + 2  #: cards removed from the game (end of an age, over the keep limit)
G_SCRIPT_BAD = N_HEADER + 3  #: scripted choices that named no legal option (scenarios report them)
G_SCRIPT_BAD_AT = N_HEADER + 4  #: the first of them: core.script.script_refused_nb
N_GS = N_HEADER + 5

P5 = E.MAX_PLAYERS
R = E.VH_MAX_REGIONS

VSTATE_DTYPE = np.dtype([
    ("gs", np.int32, (N_GS,)),
    ("loc", np.int8, (P5, E.VH_NFIG)),
    ("summoned", np.int8, (P5, E.VH_NFIG)),  # 1: the figure's last move onto the board was a Summon
    ("mon_card", np.int16, (P5, E.VH_N_MONSTERS)),  # Monster card on each base, -1 none
    ("slot", np.int16, (P5, E.VH_N_SLOTS)),  # card in each clan-sheet slot, -1 empty
    ("slot_quest", np.int8, (P5, E.VH_N_SLOTS)),  # 1: a committed quest (face down)
    ("sheet", np.int32, (P5, E.N_VOPS)),  # each opcode's sum over the upgrades (board.sheet_refresh_nb)
    ("sheet_ops", np.int64, (P5,)),  # the opcodes the upgrades carry, bit 1 << op (board.sheet_refresh_nb)
    ("stat", np.int8, (P5, E.N_STATS)),  # step index 0..5
    ("rage", np.int16, (P5,)),
    ("glory", np.int32, (P5, E.N_GLORY_SRC)),
    ("hand", np.int16, (P5, E.VH_MAX_HAND)),
    ("hand_n", np.int16, (P5,)),
    ("saved", np.int16, (P5, 8)),  # cards on the clan symbol (kept from the last age)
    ("saved_n", np.int16, (P5,)),
    ("rewards", np.int16, (P5, E.MAX_MISSIONS)),  # Rainbow Bridge Reward Cards: join the hand after the age-1 draft
    ("discard", np.int16, (P5, E.VH_MAX_DISCARD)),  # each clan's own discard pile
    ("discard_n", np.int16, (P5,)),
    ("deck", np.int16, (E.VH_MAX_DECK,)),
    ("token", np.int8, (R,)),  # 1: a Region Token covers the region
    ("token0", np.int8, (R,)),  # 1: a Region Token was placed there at setup
    ("god_at", np.int8, (R,)),  # god (gods.toml index) in the region, -1 none
    ("reward", np.int8, (R,)),  # the region's own reward (VR_*)
    ("claimed", np.int8, (R,)),  # clan whose Reward Token covers the reward this age, -1 none
    ("gods", np.int8, (3,)),  # god of each age slot
    ("passed", np.int8, (P5,)),  # 1 once the clan passed this Action phase (it acts no more)
    ("script", np.int16, (P5, E.MAX_SCRIPT)),  # VPOL_SCRIPT queues (scenarios): values in the order asked
    ("script_n", np.int16, (P5,)),
    ("script_i", np.int16, (P5,)),
    ("played", np.int16, (P5,)),  # card revealed in the current battle, -1 none
    ("lost_n", np.int16, (P5,)),  # figures lost in the current battle (Protect)
    ("kills_now", np.int16, (P5,)),  # enemy figures sent to this clan's kill pile in the current battle
    ("claims", np.int16, (P5,)),  # rewards claimed this age
    ("contests", np.int8, (P5, R)),  # contests each clan started in each region this age (policy memory)
    ("rage_end", np.int16, (P5,)),
    ("path", np.int8, (P5, E.MAX_PATH)),
    ("path_n", np.int16, (P5,)),
    ("picks", np.int16, (P5, 3, E.MAX_PICKS)),
    ("uses", np.int16, (P5, E.MAX_USES)),
    ("use_n", np.int16, (P5,)),
    ("rank", np.int8, (P5,)),
    ("board_valor", np.int16, (P5,)),  # figures on the board when Prove Valor begins, summed over ages
    ("fired", np.int32, (E.VH_MAX_CARDS,)),
    ("god_fired", np.int32, (E.VH_N_GODS_MAX,)),
    ("rs", np.uint64, (1,)),
    ("pol_kind", np.int8, (P5,)),  # the seats' policies, for the batch path (core.record.load_policies_nb)
    # and their parameters, then (columns VP_N + card) each card's worth (policy.draft_table_nb)
    ("pol_params", np.float64, (P5, E.VP_N + E.VH_MAX_CARDS)),
    ("log", np.int32, (LOG_ROWS, LOG_WIDTH)),
    # The board as greedy reads it, kept per clan: board.move_fig_nb updates a clan's rows as a
    # figure moves; view.board_view_nb recomputes them only when view_stale is set
    # (board.board_changed_nb, called wherever a figure's STR changes); the invariants check them
    ("view_stale", np.int8, (P5,)),
    ("w_cnt", np.int64, (P5, E.VH_MAX_REGIONS)),  # count_in_nb of every clan and region
    ("w_str", np.int64, (P5, E.VH_MAX_REGIONS)),  # str_in_nb of every clan and region
    ("w_fstr", np.int64, (P5, E.VH_NFIG)),  # fig_str_nb of every figure
    ("w_fmax", np.int64, (P5, E.VH_MAX_REGIONS)),  # STR of each clan's strongest figure in each region, -1 none
    ("w_onb", np.int64, (P5,)),  # figures of each clan on the board (in a region)
    # The regions as greedy reads them, kept between decisions (view.region_view_nb, called
    # wherever a Region Token, god, claim or reward changes; the invariants check them)
    ("rv_common", np.int8, (E.VH_MAX_REGIONS,)),  # board.is_common_nb
    ("rv_open", np.int8, (E.VH_MAX_REGIONS,)),  # board.contestable_nb
    ("rv_valor", np.int8, (E.VH_MAX_REGIONS,)),  # a Prove Valor region: a god's, or Valhalla
    ("rv_near", np.int8, (E.VH_MAX_REGIONS,)),  # neighbours with a god or a Region Token, or Valhalla
    ("rv_worth", np.float64, (E.VH_MAX_REGIONS,)),  # view.reward_worth_nb
    ("rv_smax", np.float64, (1,)),  # the most a common region adds to a Summon's score (policy.summon_cap_nb)
    ("rv_nopen", np.int64, (1,)),  # how many regions are contestable (rv_open): engine.all_claimed_nb
    # Work buffers: scratch space with no meaning between calls, never reset (a view of a record
    # field carries no reference count, where an np.empty array passed on bumps one per call)
    ("w_act", np.int64, (3,)),  # the action chosen (engine.action_phase_nb)
    ("w_dests", np.int64, (E.VH_NFIG,)),  # a March's destination of each figure
    ("w_opts", np.int64, (64 * 3,)),  # Random's legal actions (policy._random_action_nb)
    ("w_part", np.int8, (P5,)),  # the clans in the current battle (contest.battle_nb)
    ("w_total", np.int64, (P5,)),  # their STR totals
    ("w_bmask", np.int64, (P5,)),  # the opcodes their sources may carry (contest.battle_mask_nb)
    ("w_losers", np.int8, (P5,)),  # the clans that lost the contest (contest.contest_nb)
    ("w_drawn", np.int64, (8,)),  # Baldr's drawn cards (contest.reward_nb)
    ("w_packs", np.int64, (P5, E.MAX_DEAL)),  # the draft's packs, by the seat dealt to (engine.draft_nb)
    ("w_pn", np.int64, (P5,)),  # and their sizes
    ("w_shuf", np.int64, (max(E.VH_MAX_REGIONS, E.VH_N_GODS_MAX, E.VH_MAX_CARDS),)),  # setup's shuffles
    ("w_rw", np.int8, (E.VH_MAX_REGIONS,)),  # setup's shuffled rewards
    ("w_glory", np.int64, (P5,)),  # each clan's Glory at the end (engine.end_game_nb)
], align=True)


def new_state() -> np.ndarray:
    """A 1-element VSTATE_DTYPE record array (fields filled by init_state_nb)."""
    return np.rec.array(np.zeros(1, VSTATE_DTYPE))


@njit(cache=True)
def init_state_nb(S, n_players, seed, log_on, check_on):
    """Reset every field but the log for a new game; seed the random stream."""
    S.gs[:] = 0
    S.gs[G_NP] = n_players
    S.gs[G_LOG_ON] = 1 if log_on else 0
    S.gs[G_CHECK] = 1 if check_on else 0
    S.loc[:, :] = E.VH_LOC_NONE
    S.view_stale[:] = 1
    S.summoned[:, :] = 0
    S.mon_card[:, :] = -1
    S.slot[:, :] = -1
    S.slot_quest[:, :] = 0
    S.sheet[:, :] = 0
    S.sheet_ops[:] = 0
    S.stat[:, :] = 0
    S.rage[:] = 0
    S.glory[:, :] = 0
    S.hand[:, :] = -1
    S.hand_n[:] = 0
    S.saved[:, :] = -1
    S.saved_n[:] = 0
    S.rewards[:, :] = -1
    S.discard[:, :] = -1
    S.discard_n[:] = 0
    S.deck[:] = -1
    S.token[:] = 0
    S.token0[:] = 0
    S.god_at[:] = -1
    S.reward[:] = -1
    S.claimed[:] = -1
    S.gods[:] = -1
    S.passed[:] = 0
    S.script_n[:] = 0
    S.script_i[:] = 0
    S.played[:] = -1
    S.lost_n[:] = 0
    S.kills_now[:] = 0
    S.claims[:] = 0
    S.contests[:, :] = 0
    S.rage_end[:] = 0
    S.path[:, :] = -1
    S.path_n[:] = 0
    for p in range(P5):
        S.picks[p, :, :] = -1
    S.uses[:, :] = -1
    S.use_n[:] = 0
    S.rank[:] = 0
    S.board_valor[:] = 0
    S.fired[:] = 0
    S.god_fired[:] = 0
    S.rs[0] = seed
