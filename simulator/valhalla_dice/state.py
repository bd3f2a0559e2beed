"""Valhalla dice game state: one numpy record (P6 = 6 seat rows; the first G_NP are in play).

Cards are rows of cards.csv (``tables.VDTABLES_DTYPE``); piles hold card rows, -1 padding.
The header ``gs`` shares core.record's indices 0..N_HEADER-1 (G_NP, G_TURNS, G_LOG_*, G_CHECK,
G_VIOLATION...); this engine's own scalars follow.
"""
import numpy as np

from ..core.record import LOG_ROWS, LOG_WIDTH, N_HEADER
from .tables import MAX_DECK, P6

G_ACTIVE = N_HEADER  #: seat taking its turn
G_END = N_HEADER + 1  #: end trigger: 0 none, END_SHIELD, END_DECK
G_END_SEAT = N_HEADER + 2  #: the active seat when the end was triggered
G_FINAL_LEFT = N_HEADER + 3  #: final turns still to play (-1 before the end is triggered)
G_DECK_N = N_HEADER + 4
G_DISC_N = N_HEADER + 5
G_GREY = N_HEADER + 6  #: grey dice in the common pool
G_OVER = N_HEADER + 7  #: 1 once the game is scored
G_LOKI = N_HEADER + 8  #: the Loki's Deception card in play (modules.toml row), -1 module off
G_KING = N_HEADER + 9  #: G_KING + k: the seat holding King card k (King of the Hill), -1 in the middle
G_KING_LEVEL = N_HEADER + 11  #: G_KING_LEVEL + k: the level of King card k's bonus card (1 = Level 1)
N_GS = N_HEADER + 13

END_SHIELD, END_DECK = 1, 2
MAXH = 96  #: cards in a hand
MAXV = 64  #: Warriors in a Valhalla
TEAM = 8  #: team slots (the cap is rules.toml's team_cap, 4; the extra slots hold the overflow)
OPENING = 8  #: cards recorded of a seat's start (hand kept + table Warriors; the analyses' "picks")
PLAYED = 16  #: Tactics recorded per seat in the order played (more are counted, not listed)

# per-seat counters for the analyses (int32[P6, N_CNT])
C_ATTACKS, C_ATTACK_WINS, C_DEFENCES, C_DEFENCE_WINS, C_NO_WINNER = 0, 1, 2, 3, 4
C_GLORY_ATTACK, C_GLORY_DEFENCE, C_GLORY_RAGNAROK, C_GLORY_SHIELDS, C_GLORY_SETS, C_GLORY_JARL = 5, 6, 7, 8, 9, 10
C_TACTICS_PLAYED, C_SENT_DEFENCE, C_TURNS = 11, 12, 13
C_GLORY_LOKI, C_GLORY_KING, C_LOKI_BONUSES, C_KING_TAKEN = 14, 15, 16, 17  #: modules (modules.toml)
N_CNT = 18

VDSTATE_DTYPE = np.dtype([
    ("gs", np.int32, (N_GS,)),
    ("rs", np.uint64, (1,)),
    ("deck", np.int16, (MAX_DECK,)),  # top of the deck = deck[G_DECK_N - 1]
    ("discard", np.int16, (MAX_DECK,)),
    ("hand", np.int16, (P6, MAXH)), ("hand_n", np.int16, (P6,)),
    ("team", np.int16, (P6, TEAM)), ("team_n", np.int16, (P6,)),
    ("valhalla", np.int16, (P6, MAXV)), ("valhalla_n", np.int16, (P6,)),
    ("own_shields", np.int8, (P6,)),
    ("won", np.int8, (P6, P6)),  # won[p, q]: shields p took from q
    ("jarl", np.int16, (P6,)),  # jarls.csv row, -1 none
    ("glory", np.int32, (P6,)),  # final Glory (scored at the end)
    ("rank", np.int8, (P6,)),  # 1 = winner; tied seats share a rank (DIGEST §5.11 tie-breaks)
    ("cnt", np.int32, (P6, N_CNT)),
    ("opening", np.int16, (P6, OPENING)),  # the cards a seat starts with, after setup's choices; -1 padding
    ("played", np.int16, (P6, PLAYED)),  # Tactics played, in order; -1 padding
    ("log", np.int32, (LOG_ROWS, LOG_WIDTH)),
])


def new_state():
    """A state record (element 0 of a 1-element VDSTATE_DTYPE array); play_game_nb sets it up."""
    return np.rec.array(np.zeros(1, VDSTATE_DTYPE))[0]
