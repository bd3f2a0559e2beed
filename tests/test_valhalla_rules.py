"""Blood Rage: Valhalla rules, each test against the rulebook section it cites
(``../shared/rules/000_…txt``, "RB: section") or DIGEST §3 where the rulebook is silent.

Positions are built directly on a state record and the rule kernels are called on it.
"""
from pathlib import Path

import numpy as np
import pytest

from volva.simulator.core import enums as E
from volva.simulator.engines import load_ruleset
from volva.simulator.valhalla import engine as V
from volva.simulator.valhalla.board import fig_str_nb, sheet_refresh_nb, str_in_nb
from volva.simulator.valhalla.contest import call_to_battle_nb
from volva.simulator.valhalla.state import G_AGE, G_DECK_N, G_FIRST, G_REMOVED, init_state_nb, new_state
from volva.simulator.valhalla.view import region_view_nb
from volva.strategies.valhalla import resolve

EL0, EL1, W0, W1, W2 = 0, 1, 2, 3, 4
GLAD, BILS, BREI, FOLK, GLIT, HIMI, IDAV, VING, VALH = range(9)


@pytest.fixture(scope="module")
def rs():
    """The shipped rule set plus plain test battle cards "Test +0".."Test +6" (no copies: never in
    the deck), added by a card patch."""
    extra = {f"Test +{v}": {"add": True, "type": "battle", "god": "Thor", "value": v, "copies": 0}
             for v in range(7)}
    return load_ruleset("valhalla", patch=[(Path("test-cards"), extra)])


def pols(P, name="greedy"):
    k, p = resolve(name)
    return np.full(P, k, np.int8), np.stack([p] * P)


def fresh(rs, P=4, seed=1, god_plan=None):
    """A set-up game in age 1 with an empty board (no tokens, no gods) unless a test adds them."""
    S = new_state()[0]
    init_state_nb(S, P, np.uint64(seed), True, True)
    gp = np.full(4, -1, np.int8) if god_plan is None else np.asarray(god_plan, np.int8)
    V.setup_nb(rs.tables, S, gp, np.zeros(P, np.int16))
    S.gs[G_AGE] = 1
    return S


def bare(rs, P=4, seed=1):
    S = fresh(rs, P, seed)
    S.token[:] = 0
    S.token0[:] = 0
    S.god_at[:] = -1
    S.hand[:, :] = -1
    S.hand_n[:] = 0
    return S


def card(rs, *, type=None, god=None, op=None, value=None):
    """Id of the first card matching the filters (the shipped provisional deck)."""
    t = rs.tables
    for c in range(rs.n_cards):
        if type is not None and t.card_type[c] != E.VH_CARD_TYPE_NAMES.index(type):
            continue
        if god is not None and t.card_vgod[c] != rs.god_names.index(god):
            continue
        if op is not None and op not in (t.card_op[c, 0], t.card_op[c, 1]):
            continue
        if value is not None and t.card_value[c] != value:
            continue
        return c
    raise LookupError((type, god, op, value))


def plain_battle(rs, value):
    """The test battle card of that value (no text)."""
    return rs.card_ids(f"Test +{value}")[0]


def give(S, p, c):
    S.hand[p, S.hand_n[p]] = c
    S.hand_n[p] += 1


def total(S, p):
    return int(S.glory[p].sum())


# --- Setup -------------------------------------------------------------------------------------
@pytest.mark.parametrize("P,deck", [(3, 84), (4, 87), (5, 90)])
def test_setup_deck_tokens_gods_and_clans(rs, P, deck):
    """RB "Prepare the Board" 2-6: 3 Region Tokens, 3 gods on the age slots, the 75 cards of those
    gods + 3 Monsters per player (84/87/90). "Prepare Your Clan": 6 Rage, 3 Axes, 4 Horns, 0 Glory,
    2 Elites and 6 Warriors in reserve."""
    S = fresh(rs, P)
    assert int(S.gs[G_DECK_N]) == deck
    assert int(S.token.sum()) == 3 and S.token[VALH] == 0
    assert len(set(S.gods.tolist())) == 3
    t = rs.tables
    cards = S.deck[:deck]
    assert int((t.card_type[cards] == E.VCT_MONSTER).sum()) == 3 * P
    assert set(t.card_vgod[cards][t.card_type[cards] != E.VCT_MONSTER].tolist()) == set(S.gods.tolist())
    for p in range(P):
        assert [t.track[s, S.stat[p, s]] for s in range(3)] == [6, 3, 4]
        assert S.rage[p] == 6 and total(S, p) == 0
        assert (S.loc[p, :8] == E.VH_LOC_RESERVE).all() and (S.loc[p, 8:] == E.VH_LOC_NONE).all()
    assert sorted(S.reward[:8].tolist()) == sorted(t.outer_rewards[:8].tolist())
    assert S.reward[VALH] == E.VR_ALL


def test_god_arrives_at_lowest_numbered_token(rs):
    """RB "God Arrives Phase": the age's god goes to the region with the lowest-numbered Region
    Token, and that token leaves the game."""
    S = bare(rs)
    S.token[[FOLK, BILS, VING]] = 1
    for age, where in ((1, BILS), (2, FOLK), (3, VING)):
        S.gs[G_AGE] = age
        V.god_arrives_nb(rs.tables, S)
        assert S.god_at[where] == S.gods[age - 1] and S.token[where] == 0
    assert int(S.token.sum()) == 0


# --- Draft -------------------------------------------------------------------------------------
@pytest.mark.parametrize("age,direction", [(1, +1), (2, -1), (3, +1)])
def test_draft_keeps_five_passes_left_right_left(rs, age, direction):
    """RB "Draft Gods' Gifts Phase": deal 6, keep 1 and pass to the left (to the right in age 2)
    until 5 are kept; the last card goes to the bottom of the deck; saved cards join after."""
    P = 4
    S = bare(rs, P)
    S.gs[G_AGE] = age
    n0 = int(S.gs[G_DECK_N])
    top = S.deck[n0 - 6 * P:n0][::-1].copy()  # dealt from the top: seat p gets top[6p:6p+6]
    saved = plain_battle(rs, 2)
    S.saved[0, 0] = saved
    S.saved_n[0] = 1
    V.draft_nb(rs.tables, S, *pols(P, "random"))
    for p in range(P):
        assert S.hand_n[p] == 5 + (p == 0)
        # pick k comes from the pack dealt to seat p - direction * k
        for k in range(5):
            src = (p - direction * k) % P
            assert S.picks[p, age - 1, k] in top[6 * src:6 * src + 6]
    assert S.hand[0, 5] == saved and S.saved_n[0] == 0
    assert int(S.gs[G_DECK_N]) == n0 - 5 * P  # one card of each pack back under the deck
    bottom = set(S.deck[:P].tolist())
    assert bottom <= set(top.tolist()) and not bottom & set(S.hand[:P, :5].ravel().tolist())


# --- Summon, March, Upgrade, Quest -------------------------------------------------------------
def test_summon_only_into_common_regions(rs):
    """RB "Summon": not into Valhalla nor a region with a God or Region Token; Warriors and Elites
    cost 1 Rage, Monsters 0, and a Summon needs at least 1 Rage."""
    S = bare(rs)
    S.token[GLIT] = 1
    S.god_at[BILS] = 0
    T = rs.tables
    for r in (VALH, GLIT, BILS):
        assert not V.summon_nb(T, S, 0, W0, r)
    assert V.summon_nb(T, S, 0, W0, GLAD) and S.rage[0] == 5 and S.loc[0, W0] == GLAD
    m = card(rs, type="monster")
    S.mon_card[0, 0] = m
    S.slot[0, 0] = m
    sheet_refresh_nb(T, S, 0)
    S.loc[0, E.VH_FIG_MONSTER0] = E.VH_LOC_RESERVE
    assert V.summon_nb(T, S, 0, E.VH_FIG_MONSTER0, GLAD) and S.rage[0] == 5
    S.rage[0] = 0
    assert not V.summon_nb(T, S, 0, EL0, GLAD)  # even a free figure needs 1 Rage
    S.rage[0] = 1
    S.loc[0, E.VH_FIG_MONSTER0] = E.VH_LOC_RESERVE
    assert V.summon_nb(T, S, 0, E.VH_FIG_MONSTER0, GLAD) and S.rage[0] == 1


def _dests(**moves):
    d = np.full(E.VH_NFIG, -1, np.int64)
    for f, r in moves.items():
        d[{"EL0": EL0, "W0": W0, "W1": W1, "W2": W2}[f]] = r
    return d


def test_march_examples(rs):
    """RB "March" (1 Rage), the page's examples: 1. one figure to an adjacent region: valid; 2. three
    figures to an adjacent region: valid; 3. two figures from one region to two different adjacent
    regions: valid; 4. two figures from different regions to the same region: not valid. Only
    regions joined by a pathway."""
    T = rs.tables
    S = bare(rs)
    S.loc[0, W0] = GLAD
    assert V.march_nb(T, S, 0, GLAD, _dests(W0=BILS)) and S.loc[0, W0] == BILS and S.rage[0] == 5  # 1
    S = bare(rs)
    S.loc[0, [W0, W1, W2]] = GLAD
    assert V.march_nb(T, S, 0, GLAD, _dests(W0=VING, W1=VING, W2=VING))  # 2
    assert (S.loc[0, [W0, W1, W2]] == VING).all()
    S = bare(rs)
    S.loc[0, [W0, W1]] = GLAD
    assert V.march_nb(T, S, 0, GLAD, _dests(W0=BILS, W1=VING))  # 3
    assert S.loc[0, W0] == BILS and S.loc[0, W1] == VING and S.rage[0] == 5
    S = bare(rs)
    S.loc[0, W0] = GLAD
    S.loc[0, W1] = BREI
    assert not V.march_nb(T, S, 0, GLAD, _dests(W0=BILS, W1=BILS))  # 4
    assert S.loc[0, W0] == GLAD and S.loc[0, W1] == BREI and S.rage[0] == 6
    assert T.adj[GLAD, BREI] == 0
    assert not V.march_nb(T, S, 0, GLAD, _dests(W0=BREI))  # no pathway
    assert V.march_nb(T, S, 0, GLAD, _dests(W0=VALH))  # every outer region borders Valhalla
    S.rage[0] = 0
    assert not V.march_nb(T, S, 0, VALH, _dests(W0=GLAD))


def test_upgrade_cost_slots_and_monsters(rs):
    """RB "Upgrade": pay Rage equal to the card's STR; 7 slots shared with quests; with all 7
    filled no Upgrade or Quest; a Monster goes to the reserve (not summoned) and needs a base."""
    T = rs.tables
    S = bare(rs)
    m = card(rs, type="monster", value=3)
    give(S, 0, m)
    assert V.upgrade_nb(T, S, 0, m)
    assert S.rage[0] == 3 and S.loc[0, E.VH_FIG_MONSTER0] == E.VH_LOC_RESERVE and S.mon_card[0, 0] == m
    q = card(rs, type="quest")
    give(S, 0, q)
    assert V.quest_nb(T, S, 0, q) and S.rage[0] == 3  # no Rage
    S.slot[0, :] = [m, q, m, m, m, m, m]
    sheet_refresh_nb(T, S, 0)
    u = card(rs, type="clan", value=0)
    give(S, 0, u)
    q2 = [c for c in range(rs.n_cards) if T.card_type[c] == E.VCT_QUEST and c != q][0]
    give(S, 0, q2)
    assert not V.upgrade_nb(T, S, 0, u) and not V.quest_nb(T, S, 0, q2)
    S2 = bare(rs)
    S2.mon_card[0, :] = m  # every base taken
    give(S2, 0, m)
    assert not V.upgrade_nb(T, S2, 0, m)


def test_zero_rage_takes_no_action(rs):
    """RB "Action Phase": a clan at 0 Rage cannot act, not even a free action (Quest, Contest)."""
    S = bare(rs)
    give(S, 0, card(rs, type="quest"))
    S.loc[0, W0] = GLAD
    t0 = rs.tables_arr.copy()
    t0[0].track[E.STAT_RAGE, 0] = 0  # the Action phase refills Rage from the track: 0 for everyone
    V.action_phase_nb(t0[0], S, *pols(4))
    assert S.hand_n[0] == 1 and (S.slot[0] < 0).all() and S.claimed[GLAD] == -1 and S.gs[3] == 0


# --- Contest -------------------------------------------------------------------------------------
def test_contest_unopposed_gains_reward_without_battle_glory(rs):
    """RB "Call to Battle": no enemy figures after the call, no battle: the contester gains the
    reward but no battle Glory. "Contest": the region must hold one of the contester's figures."""
    T = rs.tables
    S = bare(rs)
    S.reward[GLAD] = E.VR_AXES
    assert not V.contest_nb(T, S, 0, GLAD, *pols(4))  # no figure there
    S.loc[0, W0] = GLAD
    assert V.contest_nb(T, S, 0, GLAD, *pols(4))
    assert S.stat[0, E.STAT_AXES] == 1 and total(S, 0) == 0 and S.claimed[GLAD] == 0
    assert not V.contest_nb(T, S, 0, GLAD, *pols(4))  # claimed this age
    S.token[BILS] = 1
    S.loc[0, W1] = BILS
    assert not V.contest_nb(T, S, 0, BILS, *pols(4))  # a Region Token region is never contested


def test_call_to_battle_one_figure_each_contester_last(rs):
    """RB "Call to Battle" and DIGEST §3.2: from the contester's left clockwise, the contester last,
    each clan may move at most one figure from an adjacent region, once."""
    T = rs.tables
    S = bare(rs)
    S.loc[0, W0] = GLAD
    S.loc[0, [W1, W2]] = VING  # adjacent to Gladsheim
    S.loc[1, W0] = GLAD
    S.loc[1, [W1, W2]] = BILS  # adjacent
    S.loc[3, W0] = BREI  # not adjacent
    call_to_battle_nb(T, S, 0, GLAD, *pols(4))
    calls = [int(r[2]) for r in S.log[:S.gs[4]] if r[0] == E.VEV_CALL]
    assert calls == [1, 0]
    assert (S.loc[1] == GLAD).sum() == 2 and (S.loc[0] == GLAD).sum() == 2 and S.loc[3, W0] == BREI
    S2 = bare(rs)  # with option call_one = false the same clans may call every adjacent figure
    S2.loc[:] = S.loc[:]
    S2.loc[0, [W1, W2]] = VING
    S2.loc[1, [W1, W2]] = BILS
    t2 = rs.tables_arr.copy()
    t2[0].opts[E.VOPT_CALL_ONE] = 0
    call_to_battle_nb(t2[0], S2, 0, GLAD, *pols(4))
    assert (S2.loc[1] == GLAD).sum() == 3 and (S2.loc[0] == GLAD).sum() == 3


def _battle_setup(rs, cards):
    """Clans 0 and 1 with one Warrior each in Gladsheim and one card each."""
    S = bare(rs)
    S.reward[GLAD] = E.VR_RAGE
    S.loc[0, W0] = GLAD
    S.loc[1, W0] = GLAD
    for p, c in enumerate(cards):
        if c is not None:
            give(S, p, c)
    return S


def test_battle_resolution_kill_pile_cards_and_glory(rs):
    """RB "Play Cards" / "Resolution": figures' STR + the battle card; the highest total wins; the
    losers' figures go to the winner's kill pile; the winner discards its card, the loser takes its
    card back; the winner gains its Axes as Glory; the contester gains the reward."""
    T = rs.tables
    big, small = plain_battle(rs, 5), plain_battle(rs, 2)
    S = _battle_setup(rs, [big, small])
    V.contest_nb(T, S, 0, GLAD, *pols(4))
    assert S.loc[1, W0] == E.VH_LOC_KILL0 - 0 and S.loc[0, W0] == GLAD
    assert S.discard[0, 0] == big and S.discard_n[0] == 1 and S.hand_n[0] == 0
    assert S.hand[1, 0] == small and S.hand_n[1] == 1
    assert S.glory[0, E.G_BATTLE] == 3 and S.claimed[GLAD] == 0 and S.stat[0, E.STAT_RAGE] == 1


def test_defender_wins_no_reward_and_can_retry(rs):
    """RB "Resolution": if the contester does not win, the reward is not claimed (any clan may
    contest again later); the winner still gains battle Glory."""
    T = rs.tables
    S = _battle_setup(rs, [plain_battle(rs, 1), plain_battle(rs, 5)])
    V.contest_nb(T, S, 0, GLAD, *pols(4))
    assert S.claimed[GLAD] == -1 and S.glory[1, E.G_BATTLE] == 3 and S.loc[0, W0] == E.VH_LOC_KILL0 - 1
    assert V.contest_nb(T, S, 1, GLAD, *pols(4)) and S.claimed[GLAD] == 1


def test_tie_everyone_loses_figures_to_feast_hall(rs):
    """RB "Resolution": a tie for the highest total and every clan loses; their figures go to the
    Feast Hall; every clan takes its card back; nobody gains Glory or the reward."""
    T = rs.tables
    S = _battle_setup(rs, [plain_battle(rs, 3), plain_battle(rs, 3)])
    V.contest_nb(T, S, 0, GLAD, *pols(4))
    assert S.loc[0, W0] == E.VH_LOC_FEAST and S.loc[1, W0] == E.VH_LOC_FEAST
    assert S.hand_n[0] == 1 and S.hand_n[1] == 1 and total(S, 0) == total(S, 1) == 0
    assert S.claimed[GLAD] == -1


def test_non_battle_card_adds_nothing(rs):
    """RB "Play Cards": an Upgrade or Quest card revealed adds nothing and has no effect."""
    T = rs.tables
    S = _battle_setup(rs, [card(rs, type="quest"), plain_battle(rs, 1)])
    V.contest_nb(T, S, 0, GLAD, *pols(4))
    assert S.glory[1, E.G_BATTLE] == 3 and S.hand[0, 0] == card(rs, type="quest")


# --- god tiles (DIGEST §3.1) --------------------------------------------------------------------
def _god_region(rs, god, S):
    g = rs.god_names.index(god)
    S.god_at[GLAD] = g
    return g


def test_tyr_age2_tile(rs):
    """RB "Contest" note: in the second Age, Tyr awards the winner of a contest in his region a
    stat of their choice and the ability to kill 2 enemy figures in any Region (DIGEST §3.1)."""
    T = rs.tables
    S = bare(rs)
    S.gs[G_AGE] = 2
    _god_region(rs, "Tyr", S)
    S.loc[0, W0] = GLAD
    S.loc[1, [W0, W1]] = HIMI
    S.loc[2, W0] = FOLK
    before = S.stat[0].copy()
    V.contest_nb(T, S, 0, GLAD, *pols(4))
    assert int((S.stat[0] - before).sum()) == 1
    killed = [(q, f) for q in (1, 2) for f in range(13) if S.loc[q, f] == E.VH_LOC_KILL0 - 0]
    assert len(killed) == 2


def test_thor_loki_freya_baldr_tiles(rs):
    """DIGEST §3.1 god tiles: Thor +3 Glory; Loki 2 Glory from each loser (+2 unopposed); Freya up
    to 2 figures back from kill piles / Feast Hall; Baldr draws 2, keeps 1 (each also +1 stat)."""
    T = rs.tables
    S = bare(rs)
    _god_region(rs, "Thor", S)
    S.loc[0, W0] = GLAD
    V.contest_nb(T, S, 0, GLAD, *pols(4))
    assert S.glory[0, E.G_CONTEST] == 3 and int(S.stat[0].sum()) == 1
    S = bare(rs)
    _god_region(rs, "Loki", S)
    S.loc[0, W0] = GLAD
    V.contest_nb(T, S, 0, GLAD, *pols(4))
    assert S.glory[0, E.G_CONTEST] == 2
    S = _battle_setup(rs, [plain_battle(rs, 5), plain_battle(rs, 1)])
    _god_region(rs, "Loki", S)
    S.glory[1, E.G_QUEST] = 10
    V.contest_nb(T, S, 0, GLAD, *pols(4))
    assert total(S, 1) == 8 and S.glory[0, E.G_CONTEST] == 2
    S = bare(rs)
    _god_region(rs, "Freya", S)
    S.loc[0, W0] = GLAD
    S.loc[0, [W1, W2, EL1]] = [E.VH_LOC_FEAST, E.VH_LOC_KILL0 - 1, E.VH_LOC_FEAST]
    V.contest_nb(T, S, 0, GLAD, *pols(4))
    assert (S.loc[0] == E.VH_LOC_RESERVE).sum() == 6  # 4 never placed + 2 of the 3 fallen
    assert sum(S.loc[0, f] in (E.VH_LOC_FEAST, E.VH_LOC_KILL0 - 1) for f in (W1, W2, EL1)) == 1
    S = bare(rs)
    _god_region(rs, "Baldr", S)
    S.loc[0, W0] = GLAD
    n0 = int(S.gs[G_DECK_N])
    V.contest_nb(T, S, 0, GLAD, *pols(4))
    assert S.hand_n[0] == 1 and int(S.gs[G_DECK_N]) == n0 - 1


# --- Quest, Prove Valor, Release, end of age, end of game ---------------------------------------
def test_quest_glory_is_horns_after_the_raise(rs):
    """RB "Quest Phase": a fulfilled quest raises any stat one step and gains Glory equal to Horns;
    raising Horns from that quest pays the new value (the rulebook: 8 instead of 6). Quests return
    to the hand, met or not."""
    T = rs.tables
    S = bare(rs)
    q = card(rs, type="quest", op=E.VOP_Q_FIGURES)
    need = int(T.card_a[q, 0])
    S.stat[0, E.STAT_HORNS] = 2  # Horns 6
    assert T.track[E.STAT_HORNS, 2] == 6 and T.track[E.STAT_HORNS, 3] == 8
    S.loc[0, :need] = GLAD
    S.slot[0, 0] = q
    S.slot_quest[0, 0] = 1
    kinds, params = pols(4, "quester")  # raises Horns first
    V.quest_phase_nb(T, S, kinds, params)
    assert S.stat[0, E.STAT_HORNS] == 3 and S.glory[0, E.G_QUEST] == 8
    assert S.slot[0, 0] == -1 and S.hand[0, 0] == q
    S2 = bare(rs)
    S2.slot[0, 0] = q
    S2.slot_quest[0, 0] = 1
    V.quest_phase_nb(T, S2, kinds, params)
    assert S2.glory[0, E.G_QUEST] == 0 and S2.hand[0, 0] == q and int(S2.stat[0].sum()) == 0


@pytest.mark.parametrize("age,per", [(1, 3), (2, 4), (3, 5)])
def test_prove_valor_majority_by_figures_ties_all_score(rs, age, per):
    """RB "Prove Valor Phase": in Valhalla and each god region, the clan(s) with the most figures
    (not STR) remove them to the Feast Hall for 3/4/5 Glory each by age; ties: all tied clans;
    the others stay."""
    T = rs.tables
    S = bare(rs)
    S.gs[G_AGE] = age
    S.god_at[BILS] = 0
    S.loc[0, [W0, W1]] = VALH
    S.mon_card[1, 0] = card(rs, type="monster", value=4)
    S.slot[1, 0] = S.mon_card[1, 0]
    sheet_refresh_nb(T, S, 1)
    S.loc[1, E.VH_FIG_MONSTER0] = VALH  # more STR, fewer figures
    S.loc[1, [W0, W1]] = BILS
    S.loc[2, [W0, W1]] = BILS
    S.loc[3, W0] = GLAD  # not a Prove Valor region
    V.valor_phase_nb(T, S)
    assert S.glory[0, E.G_VALOR] == 2 * per and (S.loc[0, [W0, W1]] == E.VH_LOC_FEAST).all()
    assert S.loc[1, E.VH_FIG_MONSTER0] == VALH
    assert S.glory[1, E.G_VALOR] == 2 * per and S.glory[2, E.G_VALOR] == 2 * per
    assert S.loc[3, W0] == GLAD and S.glory[3].sum() == 0


def test_release_and_end_of_age(rs):
    """RB "Release Warriors Phase": kill piles and the Feast Hall return to the reserves.
    "End of an Age": Reward Tokens leave; the discard pile joins the hand, at most 3 are kept
    (the rest leave the game); the First Player Token passes left."""
    T = rs.tables
    S = bare(rs)
    S.loc[0, W0] = E.VH_LOC_KILL0 - 1
    S.loc[1, W0] = E.VH_LOC_FEAST
    S.loc[2, W0] = GLAD
    V.release_nb(T, S)
    assert S.loc[0, W0] == S.loc[1, W0] == E.VH_LOC_RESERVE and S.loc[2, W0] == GLAD
    S.claimed[GLAD] = 2
    for v in (1, 2, 3):
        give(S, 0, plain_battle(rs, v))
    S.discard[0, :2] = [plain_battle(rs, 4), plain_battle(rs, 5)]
    S.discard_n[0] = 2
    removed = int(S.gs[G_REMOVED])
    V.end_age_nb(T, S, *pols(4))
    assert S.claimed[GLAD] == -1 and S.saved_n[0] == 3 and S.hand_n[0] == 0 and S.discard_n[0] == 0
    assert sorted(T.card_value[S.saved[0, :3]].tolist()) == [3, 4, 5]
    assert int(S.gs[G_REMOVED]) - removed == 2 and S.gs[G_FIRST] == 1


def test_end_game_legendary_and_rage_tie_break(rs):
    """RB "End of Game": +10 Glory per stat on the 4th or 5th step, +20 on the last step; most
    Glory wins; a tie goes to the most Rage left ("Quick Reference")."""
    T = rs.tables
    S = bare(rs, 3)
    S.stat[0] = [3, 4, 5]  # +10 +10 +20
    S.stat[1] = [5, 0, 0]  # +20
    S.glory[1, E.G_BATTLE] = 20
    S.glory[2, E.G_BATTLE] = 40
    S.rage_end[:3] = [0, 0, 2]
    V.end_game_nb(T, S)
    assert S.glory[0, E.G_BONUS] == 40 and S.glory[1, E.G_BONUS] == 20
    assert total(S, 0) == total(S, 1) == total(S, 2) == 40
    assert S.rank[2] == 1 and S.rank[0] == S.rank[1] == 2


def test_action_phase_ends_when_every_reward_is_claimed(rs):
    """RB "End of the Action Phase": it ends at once when every region without a Region Token has
    been contested successfully, even with Rage left."""
    T = rs.tables
    S = bare(rs)
    S.claimed[:9] = 3
    region_view_nb(T, S)  # the kept region view follows the claims, as reward_nb keeps it
    V.action_phase_nb(T, S, *pols(4))
    assert (S.rage_end[:4] == 6).all() and S.gs[3] == 0


# --- card effects (opcodes.toml) -----------------------------------------------------------------
def test_sheet_sums_follow_upgrades(rs):
    """Rulebook 000 "Upgrade": an upgrade acts from the moment it is on the clan sheet. The sheet's
    opcode sums the engine keeps (S.sheet, read in every STR count) follow upgrade_nb, equal a scan
    of the slots, and a sum left stale by a change of slots is an invariant violation (INV_SLOTS)."""
    from volva.simulator.valhalla.board import sheet_scan_nb
    from volva.simulator.valhalla.invariants import INV_SLOTS, check_invariants_nb
    T = rs.tables
    S = bare(rs)
    el = card(rs, type="elite", op=E.VOP_ELITE_STR)
    a = int(T.card_a[el, list(T.card_op[el]).index(E.VOP_ELITE_STR)])
    S.rage[0] = 10
    give(S, 0, el)
    before = check_invariants_nb(T, S)
    assert fig_str_nb(T, S, 0, EL0) == 1 and S.sheet[0, E.VOP_ELITE_STR] == 0
    assert V.upgrade_nb(T, S, 0, el)
    assert S.sheet[0, E.VOP_ELITE_STR] == a == sheet_scan_nb(T, S, 0, E.VOP_ELITE_STR) > 0
    assert fig_str_nb(T, S, 0, EL0) == 1 + a
    assert all(S.sheet[0, op] == sheet_scan_nb(T, S, 0, op) for op in range(E.N_VOPS))
    assert check_invariants_nb(T, S) == before != INV_SLOTS
    S.slot[0, :] = -1  # the upgrade gone behind the kept sums' back
    assert check_invariants_nb(T, S) == INV_SLOTS


def test_effects_destroy_save_steal_elite(rs):
    """opcodes.toml: destroy_enemy kills before STR is compared (to the user's kill pile);
    save_on_lose sends the loser's figures to its reserve; steal_on_lose takes Glory from the
    winner; elite_str adds to Elites' STR."""
    T = rs.tables
    d = card(rs, type="battle", op=E.VOP_DESTROY_ENEMY)
    S = _battle_setup(rs, [d, plain_battle(rs, 0)])
    V.contest_nb(T, S, 0, GLAD, *pols(4))
    assert S.loc[1, W0] == E.VH_LOC_KILL0 - 0
    sv = card(rs, type="battle", op=E.VOP_SAVE_ON_LOSE)
    S = _battle_setup(rs, [plain_battle(rs, 6), sv])
    assert T.card_value[sv] < 6
    V.contest_nb(T, S, 0, GLAD, *pols(4))
    assert S.loc[1, W0] == E.VH_LOC_RESERVE and S.glory[0, E.G_BATTLE] == 3
    st = card(rs, type="battle", op=E.VOP_STEAL_ON_LOSE)
    assert T.card_value[st] < 6
    S = _battle_setup(rs, [plain_battle(rs, 6), st])
    V.contest_nb(T, S, 0, GLAD, *pols(4))
    amount = min(int(T.card_a[st, list(T.card_op[st]).index(E.VOP_STEAL_ON_LOSE)]), 3)
    assert S.glory[1, E.G_CARDS] >= amount and total(S, 0) == 3 - amount
    el = card(rs, type="elite", op=E.VOP_ELITE_STR)
    S = bare(rs)
    S.slot[0, 0] = el
    sheet_refresh_nb(T, S, 0)
    assert fig_str_nb(T, S, 0, EL0) == 1 + int(T.card_a[el, 0]) and fig_str_nb(T, S, 0, W0) == 1
    S.loc[0, [EL0, W0]] = GLAD
    assert str_in_nb(T, S, 0, GLAD) == 2 + int(T.card_a[el, 0])


def test_prove_valor_tie_options(rs):
    """RB "Prove Valor Phase" note (rulings R53): with valor_tie = "tied" (default) a smaller clan in
    a tied region keeps its figures; with "all" it scores its own figures too."""
    for mode, third in (("tied", 0), ("all", 3)):
        t = rs.tables_arr.copy()
        t[0].opts[E.VOPT_VALOR_TIE] = E.VALOR_TIE_NAMES.index(mode)
        S = bare(rs)
        S.loc[0, [W0, W1]] = VALH
        S.loc[1, [W0, W1]] = VALH
        S.loc[2, W0] = VALH
        V.valor_phase_nb(t[0], S)
        assert S.glory[0, E.G_VALOR] == S.glory[1, E.G_VALOR] == 6
        assert S.glory[2, E.G_VALOR] == third
        assert (S.loc[2, W0] == VALH) == (mode == "tied")
