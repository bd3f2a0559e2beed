"""Game state: one numpy record of fixed-shape typed fields (P = MAX_PLAYERS rows;
only the first gs[G_NP] are in play).

A record is passed to kernels as a single pointer, so small kernels stay cheap to
call.  Every field is documented with its shape and encoding; codes are in enums.py.
Scalars live in ``gs`` (int32[N_GS]) at the G_* indices below.
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

# Blood Rage's own scalars, after the shared header (core.record)
G_DISCARD_N = N_HEADER + 0  #: cards in the discard pile
G_SCRIPT_BAD = N_HEADER + 1  #: scripted choices that named no legal option (scenarios report them)
G_IN_BATTLE = N_HEADER + 2  #: 1 while a battle is being resolved (Volur Witch, DIGEST §1.7)
G_BATTLE_PROV = N_HEADER + 3  #: province of the battle being resolved
G_OPEN_PLAY = N_HEADER + 4  #: 1 while cards are played face up one at a time (Heimdall, DIGEST §2)
G_SCRIPT_BAD_AT = N_HEADER + 5  #: the first of them: core.script.script_refused_nb
N_GS = N_HEADER + 6

P5 = E.MAX_PLAYERS

STATE_DTYPE = np.dtype([
    ("gs", np.int32, (N_GS,)),  # scalars, G_* indices
    ("loc", np.int8, (P5, E.NFIG)),  # figure location: province 0..8, fjord 9..12, LOC_RESERVE/VALHALLA/NONE
    ("upg", np.int16, (P5, E.N_SLOTS)),  # card id in each clan-sheet slot, -1 empty
    ("opmask", np.int64, (P5,)),  # union of the upgrades' T.card_opmask (board.sheet_opmask_nb), kept with upg
    ("stat", np.int8, (P5, E.N_STATS)),  # step index 0..5 of Rage, Axes, Horns
    ("rage", np.int16, (P5,)),  # Rage in hand now
    ("passed", np.int8, (P5,)),  # 1 once the clan passed this Action phase (it acts no more, DIGEST §1.5)
    ("glory", np.int32, (P5, E.N_GLORY_SRC)),  # Glory by source (G_*)
    ("hand", np.int16, (P5, E.MAX_HAND)),  # card ids, first hand_n valid, -1 pad
    ("hand_n", np.int16, (P5,)),
    ("quests", np.int16, (P5, E.MAX_QUESTS)),  # committed quest cards, first quest_n valid
    ("quest_n", np.int16, (P5,)),
    ("carried", np.int16, (P5,)),  # card kept at Discard for the next age, -1 none
    ("played", np.int16, (P5, 8)),  # cards revealed in the current battle, first played_n valid
    ("played_n", np.int16, (P5,)),
    ("deck", np.int16, (3, E.MAX_DECK)),  # age decks; undealt cards are deck[a, :deck_n[a]]
    ("deck_n", np.int16, (3,)),
    ("discard", np.int16, (3 * E.MAX_DECK,)),  # discard pile, first gs[G_DISCARD_N] valid
    ("destroyed", np.int8, (E.N_PROVINCES,)),  # 1 if the province is destroyed
    ("token", np.int8, (E.N_PROVINCES,)),  # pillage reward code on each province
    ("pillaged", np.int8, (E.N_PROVINCES,)),  # 1 if the token is flipped (pillaged this age)
    ("doom", np.int8, (3,)),  # province destroyed at the end of each age
    ("spare_doom", np.int8, (E.N_OUTER,)),  # Ragnarök tokens not on the Age track nor used at setup, -1 pad
    ("rage_end", np.int16, (P5,)),  # Rage at the end of the latest Action phase
    ("path", np.int8, (P5, E.MAX_PATH)),  # stat codes in raise order, -1 pad
    ("path_n", np.int16, (P5,)),
    ("picks", np.int16, (P5, 3, E.MAX_PICKS)),  # drafted cards by age and pick, -1 pad
    ("uses", np.int16, (P5, E.MAX_USES)),  # card uses in order: card * 16 + age * 4 + USE_*, -1 pad
    ("use_n", np.int16, (P5,)),
    ("rank", np.int8, (P5,)),  # final rank, 1 = winner (ties share)
    ("board_rag", np.int16, (P5,)),  # figures on the board when Ragnarök begins, summed over the ages
    ("fired", np.int32, (E.MAX_CARDS,)),  # times each card's text acted this game
    ("god", np.int8, (2,)),  # Gods of Ásgard in play: index into gods.toml, -1 none
    ("god_loc", np.int8, (2,)),  # province of each god, -1 not placed
    ("god_fired", np.int32, (E.N_GODS_MAX,)),  # times each god's power acted
    ("cancelled", np.int8, (P5,)),  # 1 if Thor's Primacy cancels this clan's card texts in the current battle
    ("script", np.int32, (P5, E.MAX_SCRIPT)),  # POL_SCRIPT choice queue per clan (card id, figure, loc, ...)
    ("script_n", np.int16, (P5,)),  # entries queued
    ("script_i", np.int16, (P5,)),  # entries consumed
    ("won_age", np.int16, (P5,)),  # battles won this age (Rainbow Bridge missions)
    ("pillaged_age", np.int16, (P5,)),  # successful pillages this age
    ("quests_age", np.int16, (P5,)),  # quests completed this age
    ("game_shape", np.int16, (P5, E.N_SHAPE)),  # game-shape counters (enums SH_*), whole game
    ("glory_age0", np.int32, (P5,)),  # total Glory when this age began
    ("mission_n", np.int8, (P5, E.MAX_MISSIONS)),  # ages in which each mission was completed
    ("rs", np.uint64, (1,)),  # random stream state
    ("pol_kind", np.int8, (P5,)),  # the seats' policy kinds, for the batch path (play_chunk_nb)
    # and their parameters, then (columns N_PARAMS + card) each card's draft score before synergy
    # (policy.draft_table_nb: the same for every pick with these parameters)
    ("pol_params", np.float64, (P5, E.N_PARAMS + E.MAX_CARDS)),
    ("log", np.int32, (LOG_ROWS, LOG_WIDTH)),  # event rows (written only when gs[G_LOG_ON])
    # Work buffers: scratch space with no meaning between calls, never reset. A kernel's own
    # np.empty array carries a reference count that every call passing it on bumps with an atomic
    # instruction (a quarter of a game's time); a view of a record field has none. With them the
    # action, pillage and battle kernels are compiled without reference counts (_nrt=False, which
    # numba extends to what they call: an allocation there fails to compile), and no kernel
    # returns an array (a caller with reference counts would release one it never held).
    ("w_acts", np.int64, (E.MAX_ACTS, 3)),  # legal actions of the clan to act (action_phase_nb)
    ("w_occ", np.int64, (E.N_PROVINCES,)),  # occupancy_nb (legal_actions_nb, upgrade_nb)
    ("w_dest", np.int64, (16,)),  # invade destinations, upgrade slots (legal_actions_nb, upgrade_nb)
    ("w_params", np.float64, (P5, E.N_PARAMS)),  # a clan's parameters with its rules applied
    ("w_at", np.int64, (P5,)),  # board_view_nb: provinces with a figure of each clan (bitmask)
    ("w_here", np.int64, (P5,)),  # and where each clan is present (a Ship's fjord counting)
    ("w_gods", np.int64, (len(E.CARD_GOD_NAMES),)),  # a clan's cards of each card god (draft_pick_nb)
    ("w_packs", np.int16, (P5, E.MAX_DEAL)),  # the draft's packs, by the seat dealt to (draft_nb)
    ("w_plen", np.int64, (P5,)),  # and their sizes
    ("w_shuf", np.int8, (max(E.N_OUTER, E.N_GODS_MAX),)),  # what setup shuffles: tokens, gods
    # the Pillage action's (one at a time: no pillage or battle starts inside another)
    ("w_cand", np.int64, (E.NFIG,)),  # figures that may answer a Call to Battle, or march
    ("w_figs", np.int64, (E.NFIG,)),  # figures to choose among (Odin's Tide, Frigga's Sacrifice, invaders)
    ("w_prov", np.int64, (E.N_PROVINCES,)),  # provinces to choose among (gods' move, Leader move)
    ("w_fought", np.int8, (P5, E.NFIG)),  # 1: the figure is in the battle (pillage_nb)
    ("w_texts", np.int16, (P5, 8)),  # the revealed cards whose texts act after the battle
    ("w_texts_n", np.int16, (P5,)),
    ("w_canc", np.int8, (P5,)),
    ("w_part", np.int8, (P5,)),  # 1: the clan is in the battle
    ("w_bstr", np.int64, (P5,)),  # each clan's STR in it before the texts destroy (battle_str_nb)
    ("w_bprov", np.int64),  # 1 + the battle's province while w_bstr holds, else 0 (as zeroed)
    ("w_dead", np.int64, (P5,)),  # figures each clan lost in it
    ("w_cardv", np.int64, (P5,)),  # card totals (battle_nb)
    ("w_vals", np.int64, (P5,)),  # card totals (Heimdall's Watch, late cards)
    ("w_qa", np.int64, (P5,)),  # Tyr's Domain/Wrath value (card_values_nb)
    ("w_opts", np.int64, (E.MAX_HAND,)),  # late cards in hand
], align=True)


def new_state() -> np.ndarray:
    """A 1-element STATE_DTYPE record array (fields filled by init_state_nb)."""
    return np.rec.array(np.zeros(1, STATE_DTYPE))


@njit(inline="always")  # tiny; one body per array type otherwise
def _fill2(a, v):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = v


@njit(inline="always")  # tiny; one body per array type otherwise
def _fill1(a, v):
    for i in range(a.shape[0]):
        a[i] = v


@njit(cache=True)
def init_state_nb(S, n_players, seed, log_on, check_on):
    """Reset every field but the log for a new game of n_players; seed the random stream."""
    _fill1(S.gs, 0)
    S.gs[G_NP] = n_players
    S.gs[G_LOG_ON] = 1 if log_on else 0
    S.gs[G_CHECK] = 1 if check_on else 0
    _fill2(S.loc, E.LOC_RESERVE)
    _fill2(S.upg, -1)
    _fill1(S.opmask, 0)
    _fill2(S.stat, 0)
    _fill1(S.rage, 0)
    _fill2(S.glory, 0)
    _fill2(S.hand, -1)
    _fill1(S.hand_n, 0)
    _fill2(S.quests, -1)
    _fill1(S.quest_n, 0)
    _fill1(S.carried, -1)
    _fill2(S.played, -1)
    _fill1(S.played_n, 0)
    _fill2(S.deck, -1)
    _fill1(S.deck_n, 0)
    _fill1(S.discard, -1)
    _fill1(S.destroyed, 0)
    _fill1(S.token, 0)
    _fill1(S.pillaged, 0)
    _fill1(S.doom, -1)
    _fill1(S.spare_doom, -1)
    _fill1(S.rage_end, 0)
    _fill1(S.passed, 0)
    _fill2(S.path, -1)
    _fill1(S.path_n, 0)
    for p in range(P5):
        _fill2(S.picks[p], -1)
    _fill2(S.uses, -1)
    _fill1(S.use_n, 0)
    _fill1(S.rank, 0)
    _fill1(S.board_rag, 0)
    _fill1(S.fired, 0)
    _fill1(S.cancelled, 0)
    _fill1(S.god, -1)
    _fill1(S.god_loc, -1)
    _fill1(S.god_fired, 0)
    _fill1(S.script_n, 0)
    _fill1(S.script_i, 0)
    _fill1(S.won_age, 0)
    _fill1(S.pillaged_age, 0)
    _fill1(S.quests_age, 0)
    _fill2(S.game_shape, 0)
    _fill1(S.glory_age0, 0)
    _fill2(S.mission_n, 0)
    S.w_bprov = 0
    S.rs[0] = seed
