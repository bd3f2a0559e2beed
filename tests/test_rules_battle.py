"""DIGEST §1.6: Call to Battle, the unopposed pillage, battle resolution, rewards."""
from __future__ import annotations

import numpy as np
import pytest
from scenario import (
    ANDLANG,
    ANGERBODA,
    EAST,
    ELVAGAR,
    GIMLE,
    HORGR,
    M0,
    MUSPELHEIM,
    NORTH,
    SOUTH,
    UTGARD,
    WARRIORS,
    YGG,
    blank,
    card,
    discards,
    give,
    hand,
    log,
    monster,
    place,
    policies,
    rules,
    sheets,
)

from volva.simulator.bloodrage.battle import battle_nb
from volva.simulator.bloodrage.board import clan_str_nb
from volva.simulator.bloodrage.pillage import call_to_battle_nb, pillage_nb
from volva.simulator.core import enums as E

W = WARRIORS[0]


def calls(S):
    """(player, figure, from, to) of every Call to Battle move, in order."""
    return [(row[2], row[3], row[4], row[5]) for row in log(S, E.EV_CALL)]


def totals(S):
    """player -> (figures' STR, cards' value, total) from the battle log."""
    return {row[2]: (row[3], row[4], row[5]) for row in log(S, E.EV_TOTAL)}


# --- Call to Battle (§1.6 step 1) -----------------------------------------------------------

def test_call_order_from_pillager_left_and_stops_when_full():
    """DIGEST §1.6 step 1: from the player left of the pillager, clockwise, the pillager last;
    it stops when the villages are full (the pillager gets no move here)."""
    r = rules()
    S = blank(3)
    # Angerboda (5 villages): one Warrior each -> 2 empty villages
    for p in range(3):
        place(S, p, W, ANGERBODA)
    place(S, 0, E.FIG_LEADER, ELVAGAR)
    place(S, 1, E.FIG_LEADER, YGG)
    place(S, 2, E.FIG_LEADER, MUSPELHEIM)
    kinds, params = policies(3)
    call_to_battle_nb(r.tables, S, 1, ANGERBODA, kinds, params)
    assert calls(S) == [(2, E.FIG_LEADER, MUSPELHEIM, ANGERBODA), (0, E.FIG_LEADER, ELVAGAR, ANGERBODA)]
    assert S.loc[1, E.FIG_LEADER] == YGG


def test_call_pillager_last_and_zero_rage_players_join():
    """DIGEST §1.6 step 1: the pillager moves last; players at 0 Rage may join; costs no Rage;
    Ships never answer."""
    r = rules()
    S = blank(3)
    place(S, 0, W, MUSPELHEIM)  # Muspelheim: 5 villages, 2 taken
    place(S, 1, W, MUSPELHEIM)
    place(S, 2, E.FIG_SHIP, EAST)  # p2 takes part through its Ship
    place(S, 0, E.FIG_LEADER, YGG)
    place(S, 1, E.FIG_LEADER, HORGR)
    place(S, 2, E.FIG_LEADER, ANGERBODA)
    S.rage[:3] = [0, 4, 0]
    kinds, params = policies(3)
    call_to_battle_nb(r.tables, S, 0, MUSPELHEIM, kinds, params)
    assert calls(S) == [(1, E.FIG_LEADER, HORGR, MUSPELHEIM), (2, E.FIG_LEADER, ANGERBODA, MUSPELHEIM),
                        (0, E.FIG_LEADER, YGG, MUSPELHEIM)]
    assert list(S.rage[:3]) == [0, 4, 0]
    assert S.loc[2, E.FIG_SHIP] == EAST


def test_call_repeats_rounds_until_full():
    """DIGEST §1.6 step 1: rounds repeat until everyone passes or the villages are full."""
    r = rules()
    S = blank(2)
    place(S, 0, W, MUSPELHEIM)
    place(S, 1, W, MUSPELHEIM)
    place(S, 0, WARRIORS[1:3], ANGERBODA)
    place(S, 1, WARRIORS[1:3], HORGR)
    kinds, params = policies(2)
    call_to_battle_nb(r.tables, S, 0, MUSPELHEIM, kinds, params)
    got = calls(S)
    assert [g[0] for g in got] == [1, 0, 1]
    assert all(g[2] in (ANGERBODA, HORGR) and g[3] == MUSPELHEIM for g in got)
    n_in = sum(1 for p in range(2) for f in range(E.NFIG) if S.loc[p, f] == MUSPELHEIM)
    assert n_in == 5


def test_call_only_from_adjacent_provinces():
    """DIGEST §1.2, §1.6 step 1: only figures in adjacent provinces answer; not from fjords,
    not from distant provinces (even a random player offered every choice moves nothing)."""
    r = rules()
    S = blank(2)
    place(S, 0, W, MUSPELHEIM)
    place(S, 1, E.FIG_LEADER, GIMLE)
    place(S, 1, WARRIORS[:3], UTGARD)  # two steps round the ring from Muspelheim
    place(S, 1, E.FIG_SHIP, EAST)  # supports Muspelheim but never answers
    place(S, 0, E.FIG_SHIP, NORTH)
    for seed in range(20):
        S.rs[0] = seed + 1
        kinds, params = policies(2, "random")
        call_to_battle_nb(r.tables, S, 0, MUSPELHEIM, kinds, params)
        assert calls(S) == []
    assert S.loc[1, E.FIG_LEADER] == GIMLE and S.loc[1, E.FIG_SHIP] == EAST


def test_call_yggdrasil_borders_every_province():
    """DIGEST §1.2: Yggdrasil borders all eight outer provinces (Call to Battle from anywhere)."""
    r = rules()
    S = blank(2)
    place(S, 0, W, YGG)
    place(S, 1, W, YGG)
    place(S, 1, E.FIG_LEADER, ANDLANG)
    kinds, params = policies(2)
    call_to_battle_nb(r.tables, S, 0, YGG, kinds, params)
    assert calls(S) == [(1, E.FIG_LEADER, ANDLANG, YGG)]


# --- unopposed pillage (§1.6 step 2) --------------------------------------------------------

def test_unopposed_pillage_reward_without_battle_glory():
    """DIGEST §1.6 step 2: no enemy -> the reward at once; no battle, no battle Glory, no card."""
    r = rules()
    S = blank(2)
    S.token[ANDLANG] = E.REWARD_GLORY
    place(S, 0, W, ANDLANG)
    place(S, 1, W, GIMLE)  # adjacent... Gimle borders Andlang but p1 (greedy) is not in the fight
    give(S, 0, [card(r, "Tyr's Smite", 1)])
    kinds, params = policies(2)
    assert pillage_nb(r.tables, S, 0, ANDLANG, kinds, params)
    assert S.glory[0, E.G_PILLAGE] == 5
    assert S.glory[0, E.G_BATTLE] == 0
    assert S.pillaged[ANDLANG] == 1
    assert hand(S, 0) == [card(r, "Tyr's Smite", 1)]
    assert log(S, E.EV_WIN) == [] and log(S, E.EV_PLAY) == []
    assert len(log(S, E.EV_NOBATTLE)) == 1


def test_ship_alone_pillages_supported_province():
    """DIGEST §1.2, §1.6 step 2: a Ship in the supporting fjord is presence; unopposed it pillages."""
    r = rules()
    S = blank(2)
    S.token[HORGR] = E.REWARD_AXES
    place(S, 0, E.FIG_SHIP, EAST)
    kinds, params = policies(2)
    assert pillage_nb(r.tables, S, 0, HORGR, kinds, params)
    assert S.stat[0, E.STAT_AXES] == 1
    assert S.pillaged[HORGR] == 1


# --- battle (§1.6 steps 3–6) ----------------------------------------------------------------

def test_enemy_ship_in_fjord_fights_and_wins():
    """DIGEST §1.2, §1.6: an enemy Ship in the supporting fjord fights; the pillager loses:
    its figures go to Valhalla, it takes its card back, the token stays unflipped."""
    r = rules()
    S = blank(2)
    bash, smite = card(r, "Tyr's Bash", 1), card(r, "Tyr's Smite", 1)
    place(S, 0, W, ELVAGAR)
    place(S, 1, E.FIG_SHIP, NORTH)
    give(S, 0, [bash])
    give(S, 1, [smite])
    kinds, params = policies(2)
    assert not pillage_nb(r.tables, S, 0, ELVAGAR, kinds, params)
    assert totals(S) == {0: (1, 2, 3), 1: (2, 5, 7)}
    assert S.glory[1, E.G_BATTLE] == 3  # Axes step 1
    assert S.loc[0, W] == E.LOC_VALHALLA
    assert S.loc[1, E.FIG_SHIP] == NORTH
    assert hand(S, 0) == [bash] and hand(S, 1) == []
    assert discards(S) == [smite]
    assert S.pillaged[ELVAGAR] == 0
    assert S.stat[0, E.STAT_RAGE] == 0 and S.glory[0].sum() == 0


def test_loser_supporting_ship_to_valhalla():
    """DIGEST §1.6 step 6: losers' figures in the battle, supporting Ships included, go to Valhalla;
    the winner gains Axes Glory, discards its card, and the pillager flips the token."""
    r = rules()
    S = blank(2)
    smite, bash = card(r, "Tyr's Smite", 1), card(r, "Tyr's Bash", 1)
    place(S, 0, E.FIG_LEADER, ANGERBODA)
    place(S, 1, E.FIG_SHIP, NORTH)
    place(S, 1, W, ANGERBODA)
    give(S, 0, [smite])
    give(S, 1, [bash])
    S.token[ANGERBODA] = E.REWARD_HORNS
    kinds, params = policies(2)
    assert pillage_nb(r.tables, S, 0, ANGERBODA, kinds, params)
    assert totals(S) == {0: (3, 5, 8), 1: (3, 2, 5)}
    assert S.loc[1, E.FIG_SHIP] == E.LOC_VALHALLA and S.loc[1, W] == E.LOC_VALHALLA
    assert S.loc[0, E.FIG_LEADER] == ANGERBODA
    assert S.glory[0, E.G_BATTLE] == 3
    assert hand(S, 0) == [] and discards(S) == [smite]
    assert hand(S, 1) == [bash]
    assert S.pillaged[ANGERBODA] == 1
    assert S.stat[0, E.STAT_HORNS] == 1


def test_tie_every_clan_loses():
    """DIGEST §1.6 step 5: on a tie every clan loses: all figures to Valhalla, every clan takes its
    card back, no battle Glory, no reward, the token stays unflipped."""
    r = rules()
    S = blank(2)
    bash, crush = card(r, "Tyr's Bash", 1), card(r, "Tyr's Crush", 1)
    place(S, 0, E.FIG_LEADER, HORGR)
    place(S, 1, W, HORGR)
    give(S, 0, [bash])
    give(S, 1, [crush])
    S.token[HORGR] = E.REWARD_GLORY
    kinds, params = policies(2)
    assert not pillage_nb(r.tables, S, 0, HORGR, kinds, params)
    assert totals(S) == {0: (3, 2, 5), 1: (1, 4, 5)}
    assert S.loc[0, E.FIG_LEADER] == E.LOC_VALHALLA and S.loc[1, W] == E.LOC_VALHALLA
    assert hand(S, 0) == [bash] and hand(S, 1) == [crush]
    assert discards(S) == []
    assert S.glory[:2].sum() == 0
    assert S.pillaged[HORGR] == 0
    assert len(log(S, E.EV_TIE)) == 1 and log(S, E.EV_WIN) == []


def test_three_way_tie_for_top_third_also_loses():
    """DIGEST §1.6 step 5: a tie at the top means every clan loses, the weaker third clan too."""
    r = rules()
    S = blank(3)
    place(S, 0, E.FIG_LEADER, GIMLE)
    place(S, 1, E.FIG_LEADER, GIMLE)
    place(S, 2, W, GIMLE)
    kinds, params = policies(3)
    winner = battle_nb(r.tables, S, 0, GIMLE, kinds, params, np.zeros((5, E.NFIG), np.bool_))  # no cards: 3, 3, 1
    assert winner == -1
    assert S.loc[0, E.FIG_LEADER] == S.loc[1, E.FIG_LEADER] == S.loc[2, W] == E.LOC_VALHALLA
    assert S.glory[:3].sum() == 0


def test_winner_glory_equals_axes_value():
    """DIGEST §1.4, §1.6 step 6: the winner gains Glory = its Axes stat (Axes step 2 -> 4 Glory)."""
    r = rules()
    S = blank(2)
    place(S, 0, E.FIG_LEADER, GIMLE)
    place(S, 1, W, GIMLE)
    S.stat[1, E.STAT_AXES] = 1
    S.stat[0, E.STAT_AXES] = 1
    kinds, params = policies(2)
    assert pillage_nb(r.tables, S, 0, GIMLE, kinds, params)
    assert S.glory[0, E.G_BATTLE] == 4
    assert S.glory[1].sum() == 0


@pytest.mark.parametrize("step,glory", [(0, 3), (2, 5), (3, 6), (4, 8), (5, 8)])
def test_winner_glory_by_axes_step(step, glory):
    """DIGEST §1.4: Axes 3, 4, 5, 6, 8, 8 by step."""
    r = rules()
    S = blank(2)
    place(S, 1, E.FIG_LEADER, GIMLE)
    place(S, 0, W, GIMLE)
    S.stat[1, E.STAT_AXES] = step
    kinds, params = policies(2)
    assert battle_nb(r.tables, S, 0, GIMLE, kinds, params, np.zeros((5, E.NFIG), np.bool_)) == 1
    assert S.glory[1, E.G_BATTLE] == glory


def test_non_pillager_winner_gets_no_reward():
    """DIGEST §1.6 step 6: only a winning pillager gains the reward."""
    r = rules()
    S = blank(2)
    place(S, 0, W, GIMLE)
    place(S, 1, E.FIG_LEADER, GIMLE)
    S.token[GIMLE] = E.REWARD_GLORY
    kinds, params = policies(2)
    assert not pillage_nb(r.tables, S, 0, GIMLE, kinds, params)
    assert S.glory[1, E.G_PILLAGE] == 0 and S.glory[1, E.G_BATTLE] == 3
    assert S.pillaged[GIMLE] == 0


def test_three_clans_losers_keep_cards():
    """DIGEST §1.6 step 6: with three clans, both losers keep their cards and lose their figures."""
    r = rules()
    S = blank(3)
    smite, bash, smash = card(r, "Tyr's Smite", 1), card(r, "Tyr's Bash", 1), card(r, "Tyr's Smash", 1)
    place(S, 0, W, UTGARD)
    place(S, 1, W, UTGARD)
    place(S, 2, E.FIG_SHIP, SOUTH)
    give(S, 0, [smite])
    give(S, 1, [bash])
    give(S, 2, [smash])
    kinds, params = policies(3)
    assert pillage_nb(r.tables, S, 0, UTGARD, kinds, params)
    assert totals(S) == {0: (1, 5, 6), 1: (1, 2, 3), 2: (2, 3, 5)}
    assert hand(S, 1) == [bash] and hand(S, 2) == [smash]
    assert S.loc[1, W] == E.LOC_VALHALLA and S.loc[2, E.FIG_SHIP] == E.LOC_VALHALLA
    assert discards(S) == [smite]


def test_clan_without_cards_fights_on_figures():
    """DIGEST §1.6 step 3: a clan plays one card if it has any; otherwise figures alone."""
    r = rules()
    S = blank(2)
    place(S, 0, E.FIG_LEADER, GIMLE)
    place(S, 1, WARRIORS[:2], GIMLE)
    give(S, 1, [card(r, "Tyr's Bash", 1)])
    kinds, params = policies(2)
    assert battle_nb(r.tables, S, 0, GIMLE, kinds, params, np.zeros((5, E.NFIG), np.bool_)) == 1
    assert totals(S) == {0: (3, 0, 3), 1: (2, 2, 4)}
    assert len(log(S, E.EV_NOCARD)) == 1


def test_non_battle_card_adds_zero():
    """DIGEST §1.6 step 3: non-battle cards add 0 (a clan holding only a quest must play it)."""
    r = rules()
    S = blank(2)
    quest = card(r, "Alfheim", 1)
    place(S, 0, E.FIG_LEADER, GIMLE)
    place(S, 1, WARRIORS[:2], GIMLE)
    give(S, 0, [quest])
    kinds, params = policies(2)
    assert battle_nb(r.tables, S, 0, GIMLE, kinds, params, np.zeros((5, E.NFIG), np.bool_)) == 0
    assert totals(S) == {0: (3, 0, 3), 1: (2, 0, 2)}
    assert discards(S) == [quest]


def test_heimdalls_sight_copies_highest_opposing_card():
    """DIGEST §1.6, §1.7: Heimdall's Sight = the highest value among opponents' revealed cards."""
    r = rules()
    S = blank(3)
    sight = card(r, "Heimdall's Sight", 1)
    place(S, 0, W, GIMLE)
    place(S, 1, W, GIMLE)
    place(S, 2, W, GIMLE)
    give(S, 0, [sight])
    give(S, 1, [card(r, "Tyr's Smite", 1)])
    give(S, 2, [card(r, "Tyr's Bash", 1)])
    kinds, params = policies(3)
    battle_nb(r.tables, S, 0, GIMLE, kinds, params, np.zeros((5, E.NFIG), np.bool_))
    t = totals(S)
    assert t[0] == (1, 5, 6) and t[1] == (1, 5, 6) and t[2] == (1, 2, 3)
    # revealed with its printed value (X = 0); the copied 5 shows in the total above
    assert [row[3] for row in log(S, E.EV_PLAY) if row[2] == 0] == [sight]


def test_heimdalls_sight_ignores_other_sights():
    """DIGEST §1.7: Sight ignores other Sights; with no other card it is worth 0."""
    r = rules()
    S = blank(2)
    sight = card(r, "Heimdall's Sight", 1)
    place(S, 0, E.FIG_LEADER, GIMLE)
    place(S, 1, W, GIMLE)
    give(S, 0, [sight])
    give(S, 1, [sight])
    kinds, params = policies(2)
    assert battle_nb(r.tables, S, 0, GIMLE, kinds, params, np.zeros((5, E.NFIG), np.bool_)) == 0
    assert totals(S) == {0: (3, 0, 3), 1: (1, 0, 1)}


@pytest.mark.parametrize("name,age,n,str_", [
    (None, 1, 1, 1), (None, 1, 3, 3),
    ("Brothers in Arms", 1, 1, 1), ("Brothers in Arms", 1, 2, 3), ("Brothers in Arms", 1, 3, 4),
    ("Brothers in Arms", 1, 4, 6),
    ("Masters in Arms", 3, 1, 2), ("Masters in Arms", 3, 2, 6), ("Masters in Arms", 3, 3, 8),
    ("Experts in Arms", 2, 1, 2), ("Experts in Arms", 2, 3, 6),
])
def test_warrior_upgrade_str(name, age, n, str_):
    """DIGEST §1.7: Brothers in Arms pair = 3 (lone 1); Masters in Arms pair = 6 (lone 2);
    Experts in Arms: Warriors STR 2."""
    r = rules()
    S = blank(2, age=age)
    if name:
        S.upg[0, E.SLOT_WARRIOR] = card(r, name, age)
        sheets(S, r.tables)
    place(S, 0, WARRIORS[:n], GIMLE)
    assert clan_str_nb(r.tables, S, 0, GIMLE) == str_


def test_brothers_pairs_count_per_province():
    """DIGEST §1.7: pairs form within one province (2 + 1 split: 3 in one, 1 in the other)."""
    r = rules()
    S = blank(2)
    S.upg[0, E.SLOT_WARRIOR] = card(r, "Brothers in Arms", 1)
    sheets(S, r.tables)
    place(S, 0, WARRIORS[:2], GIMLE)
    place(S, 0, WARRIORS[2], ANDLANG)
    assert clan_str_nb(r.tables, S, 0, GIMLE) == 3
    assert clan_str_nb(r.tables, S, 0, ANDLANG) == 1


def test_masters_in_arms_in_battle():
    """DIGEST §1.6 step 5, §1.7: a pair under Masters in Arms (6) beats a Leader with +2 (5)."""
    r = rules()
    S = blank(2, age=3)
    S.upg[1, E.SLOT_WARRIOR] = card(r, "Masters in Arms", 3)
    sheets(S, r.tables)
    place(S, 0, E.FIG_LEADER, GIMLE)
    place(S, 1, WARRIORS[:2], GIMLE)
    give(S, 0, [card(r, "Tyr's Bash", 1)])
    kinds, params = policies(2)
    assert battle_nb(r.tables, S, 0, GIMLE, kinds, params, np.zeros((5, E.NFIG), np.bool_)) == 1
    assert totals(S) == {0: (3, 2, 5), 1: (6, 0, 6)}


def test_dark_elf_str_three_in_yggdrasil_only():
    """DIGEST §1.7: Dark Elf STR 3 in Yggdrasil (battle and quests), its value (1) elsewhere."""
    r = rules()
    S = blank(2, age=2)
    monster(S, 0, card(r, "Dark Elf", 2), YGG)
    assert clan_str_nb(r.tables, S, 0, YGG) == 3
    S.loc[0, M0] = GIMLE
    assert clan_str_nb(r.tables, S, 0, GIMLE) == 1


def test_dark_elf_battle_in_yggdrasil():
    """DIGEST §1.7: Dark Elf fights at STR 3 in Yggdrasil (beats two Warriors)."""
    r = rules()
    S = blank(2, age=2)
    monster(S, 0, card(r, "Dark Elf", 2), YGG)
    place(S, 1, WARRIORS[:2], YGG)
    kinds, params = policies(2)
    assert pillage_nb(r.tables, S, 0, YGG, kinds, params)
    assert totals(S) == {0: (3, 0, 3), 1: (2, 0, 2)}
    assert list(S.stat[0]) == [1, 1, 1]


def test_monster_str_is_value():
    """DIGEST §1.9: a Monster's STR is its card value (Fire Giant 4)."""
    r = rules()
    S = blank(2, age=2)
    monster(S, 0, card(r, "Fire Giant", 2), HORGR)
    place(S, 0, E.FIG_SHIP, EAST)
    assert clan_str_nb(r.tables, S, 0, HORGR) == 6
    assert clan_str_nb(r.tables, S, 0, MUSPELHEIM) == 2


# --- rewards (§1.6) -------------------------------------------------------------------------

def _pillage_token(token, stat=None):
    r = rules()
    S = blank(2)
    S.token[GIMLE] = token
    place(S, 0, W, GIMLE)
    if stat is not None:
        S.stat[0] = stat
    S.rage[0] = 3
    kinds, params = policies(2)
    assert pillage_nb(r.tables, S, 0, GIMLE, kinds, params)
    return S


def test_reward_rage_raises_step_but_no_rage_now():
    """DIGEST §1.6 Rewards: a Rage token raises the Rage stat one step; no Rage is gained now."""
    S = _pillage_token(E.REWARD_RAGE)
    assert list(S.stat[0]) == [1, 0, 0]
    assert S.rage[0] == 3


def test_reward_axes():
    """DIGEST §1.6 Rewards: Axes token -> +1 Axes step."""
    S = _pillage_token(E.REWARD_AXES)
    assert list(S.stat[0]) == [0, 1, 0]


def test_reward_horns():
    """DIGEST §1.6 Rewards: Horns token -> +1 Horns step."""
    S = _pillage_token(E.REWARD_HORNS)
    assert list(S.stat[0]) == [0, 0, 1]


def test_reward_five_glory():
    """DIGEST §1.6 Rewards: "5 Glory" -> +5 Glory (pillage source)."""
    S = _pillage_token(E.REWARD_GLORY)
    assert list(S.stat[0]) == [0, 0, 0]
    assert S.glory[0, E.G_PILLAGE] == 5 and S.glory[0].sum() == 5


def test_reward_yggdrasil_all_three():
    """DIGEST §1.3, §1.6 Rewards: Yggdrasil -> +1 step on all three stats."""
    r = rules()
    S = blank(2)
    place(S, 0, W, YGG)
    kinds, params = policies(2)
    assert pillage_nb(r.tables, S, 0, YGG, kinds, params)
    assert list(S.stat[0]) == [1, 1, 1]
    assert S.pillaged[YGG] == 1


def test_reward_beyond_step_six_is_lost():
    """DIGEST §1.4: a raise beyond step 6 is lost."""
    S = _pillage_token(E.REWARD_ALL, stat=[5, 4, 5])
    assert list(S.stat[0]) == [5, 5, 5]


def test_enemy_in_other_province_of_fjord_is_not_in_battle():
    """DIGEST §1.2, §1.6 step 2: a Ship fights for both provinces, but an enemy figure in the fjord's
    other province is not in this battle: the pillage is unopposed."""
    r = rules()
    S = blank(2)
    place(S, 0, E.FIG_SHIP, NORTH)
    place(S, 1, W, ELVAGAR)  # adjacent to Angerboda, but greedy p1 stays out (not present there)
    S.token[ANGERBODA] = E.REWARD_GLORY
    kinds, params = policies(2)
    assert pillage_nb(r.tables, S, 0, ANGERBODA, kinds, params)
    assert S.glory[0, E.G_PILLAGE] == 5 and S.glory[0, E.G_BATTLE] == 0
    assert S.loc[1, W] == ELVAGAR and S.loc[0, E.FIG_SHIP] == NORTH
    assert len(log(S, E.EV_NOBATTLE)) == 1
