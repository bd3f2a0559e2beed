"""DIGEST §1.3 Setup, §1.5 Draft and Discard, §1.4/§1.5 End of game."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scenario import blank, card, discards, fresh, give, hand, log, policies, rules

from volva.simulator.bloodrage.phases import discard_phase_nb, draft_nb, end_game_nb, setup_nb
from volva.simulator.bloodrage.state import G_AGE, G_DISCARD_N, G_FIRST
from volva.simulator.core import enums as E


def setup_state(n, seed):
    r = rules()
    S = fresh(n, seed=seed)
    setup_nb(r.tables, S)
    return r, S


# --- Setup (§1.3) ---------------------------------------------------------------------------

@pytest.mark.parametrize("n,k", [(2, 3), (3, 2), (4, 1), (5, 0)])
def test_predestroyed_by_player_count(n, k):
    """DIGEST §1.3: 5 players 0, 4 players 1, 3 players 2, 2 players 3 provinces destroyed at setup,
    never one on the Age track, never Yggdrasil."""
    for seed in range(1, 40):
        r, S = setup_state(n, seed)
        destroyed = {int(x) for x in np.flatnonzero(S.destroyed)}
        doom = [int(x) for x in S.doom]
        assert len(destroyed) == k
        assert len(set(doom)) == 3 and all(0 <= d < E.N_OUTER for d in doom)
        assert destroyed.isdisjoint(doom)
        assert E.YGGDRASIL not in destroyed


@pytest.mark.parametrize("n,size", [(2, 20), (3, 26), (4, 34), (5, 42)])
def test_deck_sizes(n, size):
    """DIGEST §1.3, §1.9: 20 cards per age for 2 players, +6 at 3, +8 at 4, +8 at 5 (20/26/34/42)."""
    r, S = setup_state(n, 7)
    assert [int(x) for x in S.deck_n] == [size] * 3
    for a in range(3):
        ids = S.deck[a, :size]
        assert (r.tables.card_age[ids] == a + 1).all()


def test_deck_contents_by_copies():
    """DIGEST §1.3: a deck holds exactly the cards for the player count (2 players: copies_min1)."""
    r, S = setup_state(2, 3)
    got = Counter(int(c) for c in S.deck[0, :S.deck_n[0]])
    want = {c: int(r.tables.card_copies[c, 2]) for c in range(r.n_cards)
            if r.tables.card_age[c] == 1 and r.tables.card_copies[c, 2] > 0}
    assert dict(got) == want
    assert card(r, "Sea Serpent", 1) not in got  # a 3+ card


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_pillage_tokens(n):
    """DIGEST §1.3: Yggdrasil always "all"; the eight outer tokens are 3 Rage, 2 Axes, 2 Horns, 1 Glory."""
    for seed in range(1, 10):
        r, S = setup_state(n, seed)
        assert S.token[E.YGGDRASIL] == E.REWARD_ALL
        assert Counter(int(t) for t in S.token[:E.N_OUTER]) == {
            E.REWARD_RAGE: 3, E.REWARD_AXES: 2, E.REWARD_HORNS: 2, E.REWARD_GLORY: 1}
        assert (S.pillaged == 0).all()


def test_setup_start_values():
    """DIGEST §1.1, §1.3: stats on step 1, Glory 0, figures in reserve, no Monster figures yet."""
    r, S = setup_state(4, 11)
    assert (S.stat[:4] == 0).all() and (S.glory[:4] == 0).all()
    assert (S.loc[:4, :E.FIG_MONSTER0] == E.LOC_RESERVE).all()
    assert (S.loc[:4, E.FIG_MONSTER0:] == E.LOC_NONE).all()
    assert 0 <= S.gs[G_FIRST] < 4
    assert r.tables.track[E.STAT_RAGE, 0] == 6 and r.tables.track[E.STAT_AXES, 0] == 3
    assert r.tables.track[E.STAT_HORNS, 0] == 4


# --- Draft (§1.5) ---------------------------------------------------------------------------

def _draft(n, seed=5, carried=None):
    r, S = setup_state(n, seed)
    S.gs[G_AGE] = 1
    pre = S.deck[0, :S.deck_n[0]].copy()
    if carried is not None:
        S.carried[0] = carried
    kinds, params = policies(n, "random")
    draft_nb(r.tables, S, kinds, params)
    return r, S, pre


@pytest.mark.parametrize("n", [3, 4, 5])
def test_draft_three_to_five_players_keep_six(n):
    """DIGEST §1.5 Draft: 3–5 players: 8 dealt each, keep 1 and pass left until 6 are kept;
    the last 2 of each pack are discarded."""
    r, S, pre = _draft(n)
    size = len(pre)
    assert [int(x) for x in S.hand_n[:n]] == [6] * n
    assert S.deck_n[0] == size - 8 * n
    assert S.gs[G_DISCARD_N] == 2 * n
    picks = log(S, E.EV_PICK)
    assert [row[2] for row in picks] == list(range(n)) * 6  # one card at a time, in seat order
    # every card kept or discarded was dealt from the top of the deck
    dealt = Counter(int(c) for c in pre[size - 8 * n:])
    kept = Counter(c for p in range(n) for c in hand(S, p))
    assert kept + Counter(discards(S)) == dealt


@pytest.mark.parametrize("n", [3, 4, 5])
def test_draft_packs_pass_left(n):
    """DIGEST §1.5 Draft: at pick k (0-based) a clan picks from the pack dealt to the clan k seats
    to its right (packs pass left)."""
    r, S, pre = _draft(n, seed=9)
    size = len(pre)
    # reconstruct the dealt packs: clan q was dealt 8 cards from the top, after clans 0..q-1
    packs = [Counter(int(pre[size - 1 - q * 8 - j]) for j in range(8)) for q in range(n)]
    for i, row in enumerate(log(S, E.EV_PICK)):
        q, c, k = row[2], row[3], row[4] - 1
        assert k == i // n
        pk = (q - k) % n
        assert packs[pk][c] > 0, f"pick {k} of clan {q}: card {c} not in pack {pk}"
        packs[pk][c] -= 1
    for pk in packs:
        assert sum(pk.values()) == 2


def test_draft_two_players_two_at_a_time():
    """DIGEST §1.5 Draft: 2 players: deal 8, keep 2 at a time; 6 kept; the last 2 of each pack are
    discarded; 4 cards stay undealt."""
    r, S, pre = _draft(2)
    assert len(pre) == 20
    assert [int(x) for x in S.hand_n[:2]] == [6, 6]
    assert S.deck_n[0] == 4
    assert S.gs[G_DISCARD_N] == 4
    picks = log(S, E.EV_PICK)
    assert [row[2] for row in picks] == [0, 0, 1, 1] * 3
    packs = [Counter(int(pre[19 - q * 8 - j]) for j in range(8)) for q in range(2)]
    for i, row in enumerate(picks):
        q, c = row[2], row[3]
        rnd = i // 4
        pk = (q - rnd) % 2
        assert packs[pk][c] > 0
        packs[pk][c] -= 1


def test_carried_card_joins_after_draft():
    """DIGEST §1.5 Draft: a carried card is kept apart and joins the hand after the draft."""
    r = rules()
    carry = card(r, "Tyr's Judgement", 3)  # in no 3-player deck: unmistakable
    r, S, pre = _draft(3, carried=carry)
    assert S.hand_n[0] == 7 and S.hand_n[1] == 6
    assert carry in hand(S, 0)
    assert S.carried[0] == -1
    assert carry not in [int(c) for c in S.picks[0, 0]]
    rows = log(S)
    last_pick = max(i for i, row in enumerate(rows) if row[0] == E.EV_PICK)
    carry_rows = [i for i, row in enumerate(rows) if row[0] == E.EV_CARRY]
    assert len(carry_rows) == 1 and carry_rows[0] > last_pick


# --- Discard (§1.5) -------------------------------------------------------------------------

@pytest.mark.parametrize("age", [1, 2])
def test_discard_ages_one_two_keep_one(age):
    """DIGEST §1.5 Discard: ages 1–2: keep at most 1 card; the rest are discarded."""
    r = rules()
    S = blank(2, age=age)
    cards = [card(r, "Tyr's Bash", 1), card(r, "Tyr's Smite", 1), card(r, "Manheim", 1)]
    give(S, 0, cards)
    give(S, 1, [])
    kinds, params = policies(2)
    discard_phase_nb(r.tables, S, kinds, params)
    assert S.hand_n[0] == 0
    kept = int(S.carried[0])
    assert kept in cards
    assert discards(S) == sorted(c for c in cards if c != kept)
    assert S.carried[1] == -1


def test_discard_age_three_keeps_none():
    """DIGEST §1.5 Discard: age 3: the whole hand is discarded."""
    r = rules()
    S = blank(2, age=3)
    cards = [card(r, "Tyr's Rage", 3), card(r, "Manheim", 3)]
    give(S, 0, cards)
    kinds, params = policies(2)
    discard_phase_nb(r.tables, S, kinds, params)
    assert S.hand_n[0] == 0 and S.carried[0] == -1
    assert discards(S) == sorted(cards)


# --- End of game (§1.4, §1.5) ---------------------------------------------------------------

@pytest.mark.parametrize("steps,bonus", [
    ((0, 0, 0), 0), ((2, 2, 2), 0), ((3, 0, 0), 10), ((4, 0, 0), 10), ((5, 0, 0), 20),
    ((3, 4, 5), 40), ((5, 5, 5), 60),
])
def test_end_bonus_per_stat(steps, bonus):
    """DIGEST §1.4: +10 Glory per stat on step 4 or 5, +20 on step 6 (not cumulative)."""
    r = rules()
    S = blank(2)
    S.stat[0] = steps
    rank = np.zeros(5, np.int8)
    end_game_nb(r.tables, S, rank)
    assert S.glory[0, E.G_BONUS] == bonus
    assert S.glory[0].sum() == bonus


def test_most_glory_wins():
    """DIGEST §1.5 End of game: most Glory wins (ranks by Glory)."""
    r = rules()
    S = blank(3)
    S.glory[0, E.G_BATTLE] = 10
    S.glory[1, E.G_QUEST] = 30
    S.glory[2, E.G_RAGNAROK] = 20
    rank = np.zeros(5, np.int8)
    end_game_nb(r.tables, S, rank)
    assert list(rank[:3]) == [3, 1, 2]


def test_tie_break_by_rage_left():
    """DIGEST §1.5 End of game: a tie is broken by most Rage left at the end of the last Action
    phase (option tie_break, default rage)."""
    r = rules()
    S = blank(3)
    S.glory[:3, E.G_BATTLE] = [20, 20, 5]
    S.rage_end[:3] = [1, 3, 9]
    rank = np.zeros(5, np.int8)
    end_game_nb(r.tables, S, rank)
    assert list(rank[:3]) == [2, 1, 3]


def test_tie_break_rage_still_tied_is_shared():
    """DIGEST §1.5 End of game: if still tied after Rage, the win is shared."""
    r = rules()
    S = blank(2)
    S.glory[:2, E.G_BATTLE] = [20, 20]
    S.rage_end[:2] = [2, 2]
    rank = np.zeros(5, np.int8)
    end_game_nb(r.tables, S, rank)
    assert list(rank[:2]) == [1, 1]


def test_tie_break_shared_option():
    """DIGEST §1.5 End of game: option tie_break = "shared": equal Glory shares rank 1."""
    r = rules(tie_break="shared")
    S = blank(3)
    S.glory[:3, E.G_BATTLE] = [20, 20, 5]
    S.rage_end[:3] = [1, 3, 9]
    rank = np.zeros(5, np.int8)
    end_game_nb(r.tables, S, rank)
    assert list(rank[:3]) == [1, 1, 3]


def test_bonus_counts_before_ranking():
    """DIGEST §1.4, §1.5: stat bonuses are added before the ranking."""
    r = rules()
    S = blank(2)
    S.glory[:2, E.G_BATTLE] = [25, 20]
    S.stat[1] = [3, 0, 0]
    rank = np.zeros(5, np.int8)
    end_game_nb(r.tables, S, rank)
    assert list(rank[:2]) == [2, 1]
