"""DIGEST §1.5 Quest, Ragnarök and Release Valhalla."""
from __future__ import annotations

import numpy as np
import pytest
from scenario import (
    ANDLANG,
    ANGERBODA,
    ELVAGAR,
    GIMLE,
    HORGR,
    M0,
    MYRKULOR,
    NORTH,
    SOUTH,
    WARRIORS,
    WEST,
    YGG,
    blank,
    card,
    discards,
    monster,
    place,
    policies,
    rules,
)

from volva.simulator.bloodrage.phases import quest_phase_nb, ragnarok_nb, release_nb
from volva.simulator.core import enums as E

W = WARRIORS[0]


def commit(S, p, cards):
    S.quests[p, :len(cards)] = cards
    S.quest_n[p] = len(cards)


def raised(S, p):
    """Total stat steps gained by clan p."""
    return int(S.stat[p].sum())


# --- Quest ----------------------------------------------------------------------------------

def test_quest_example_ship_in_fjord_beats_warrior():
    """DIGEST §1.5 Quest, 002 example: a Ship (STR 2) in the fjord supporting Angerboda against an
    enemy Warrior (STR 1) there meets the Manheim quest: 5 Glory in age 1, one stat raised."""
    r = rules()
    S = blank(2, age=1)
    q = card(r, "Manheim", 1)
    place(S, 0, E.FIG_SHIP, NORTH)
    place(S, 1, W, ANGERBODA)
    commit(S, 0, [q])
    kinds, params = policies(2)
    quest_phase_nb(r.tables, S, kinds, params)
    assert S.glory[0, E.G_QUEST] == 5 and S.glory[0].sum() == 5
    assert raised(S, 0) == 1 and S.path_n[0] == 1
    assert S.quest_n[0] == 0
    assert discards(S) == [q]
    assert S.glory[1].sum() == 0


def test_quest_tie_fails():
    """DIGEST §1.5 Quest: "most STR" means strictly more; a tie fails (card discarded anyway)."""
    r = rules()
    S = blank(2, age=1)
    q = card(r, "Manheim", 1)
    place(S, 0, E.FIG_SHIP, NORTH)  # STR 2 in both Elvagar and Angerboda
    place(S, 1, WARRIORS[:2], ANGERBODA)
    place(S, 1, WARRIORS[2:4], ELVAGAR)
    commit(S, 0, [q])
    kinds, params = policies(2)
    quest_phase_nb(r.tables, S, kinds, params)
    assert S.glory[0].sum() == 0 and raised(S, 0) == 0
    assert S.quest_n[0] == 0 and discards(S) == [q]


def test_quest_needs_a_figure():
    """DIGEST §1.5 Quest: with no STR in the region the quest fails."""
    r = rules()
    S = blank(2, age=1)
    commit(S, 0, [card(r, "Alfheim", 1)])
    kinds, params = policies(2)
    quest_phase_nb(r.tables, S, kinds, params)
    assert S.glory[0].sum() == 0 and raised(S, 0) == 0


def test_quest_any_province_of_region():
    """DIGEST §1.5 Quest: most STR in at least one province of the region (Myrkulor is Manheim;
    losing in Elvagar does not matter)."""
    r = rules()
    S = blank(2, age=1)
    place(S, 0, W, MYRKULOR)
    place(S, 1, E.FIG_LEADER, ELVAGAR)
    commit(S, 0, [card(r, "Manheim", 1)])
    kinds, params = policies(2)
    quest_phase_nb(r.tables, S, kinds, params)
    assert S.glory[0, E.G_QUEST] == 5


def test_quest_wrong_region_fails():
    """DIGEST §1.2, §1.5 Quest: Gimle is Alfheim, not Jotunheim."""
    r = rules()
    S = blank(2, age=1)
    place(S, 0, E.FIG_LEADER, GIMLE)
    commit(S, 0, [card(r, "Jotunheim", 1)])
    kinds, params = policies(2)
    quest_phase_nb(r.tables, S, kinds, params)
    assert S.glory[0].sum() == 0


@pytest.mark.parametrize("age,glory", [(1, 5), (2, 7), (3, 9)])
def test_quest_glory_by_age(age, glory):
    """DIGEST §1.5 Quest: Glory by age from the CSV (Manheim 5/7/9)."""
    r = rules()
    S = blank(2, age=age)
    place(S, 0, W, ELVAGAR)
    commit(S, 0, [card(r, "Manheim", age)])
    kinds, params = policies(2)
    quest_phase_nb(r.tables, S, kinds, params)
    assert S.glory[0, E.G_QUEST] == glory


def test_duplicate_quests_each_score():
    """DIGEST §1.5 Quest: duplicates allowed; each met quest gives its Glory and a raise."""
    r = rules()
    S = blank(2, age=1)
    q = card(r, "Alfheim", 1)
    place(S, 0, W, ANDLANG)
    commit(S, 0, [q, q])
    kinds, params = policies(2)
    quest_phase_nb(r.tables, S, kinds, params)
    assert S.glory[0, E.G_QUEST] == 10 and raised(S, 0) == 2
    assert discards(S) == [q, q]


@pytest.mark.parametrize("n,met", [(3, False), (4, True), (5, True)])
def test_glorious_death(n, met):
    """DIGEST §1.5 Quest: Glorious Death needs at least 4 of the clan's figures in Valhalla."""
    r = rules()
    S = blank(2, age=1)
    place(S, 0, ([E.FIG_LEADER, E.FIG_SHIP] + WARRIORS)[:n], E.LOC_VALHALLA)
    place(S, 1, WARRIORS[:4], E.LOC_VALHALLA)  # an enemy's dead do not count for clan 0
    commit(S, 0, [card(r, "Glorious Death", 1)])
    kinds, params = policies(2)
    quest_phase_nb(r.tables, S, kinds, params)
    assert S.glory[0, E.G_QUEST] == (6 if met else 0)
    assert raised(S, 0) == (1 if met else 0)


def test_widespread_needs_two_provinces():
    """DIGEST §1.5 Quest: Widespread needs the most STR in at least 2 provinces (7 Glory, age 1)."""
    r = rules()
    wide = card(r, "Widespread", 1)
    kinds, params = policies(2)
    S = blank(2, age=1)
    place(S, 0, WARRIORS[:3], GIMLE)
    place(S, 1, W, ANDLANG)
    commit(S, 0, [wide])
    quest_phase_nb(r.tables, S, kinds, params)
    assert S.glory[0].sum() == 0
    S = blank(2, age=1)
    place(S, 0, WARRIORS[:3], GIMLE)
    place(S, 0, E.FIG_SHIP, SOUTH)  # alone in Utgard and Andlang through the fjord
    place(S, 1, W, ANDLANG)
    commit(S, 0, [wide])
    quest_phase_nb(r.tables, S, kinds, params)
    assert S.glory[0, E.G_QUEST] == 7


def test_yggdrasil_quest():
    """DIGEST §1.5 Quest: most STR in Yggdrasil (6 Glory, age 1); a tie fails."""
    r = rules()
    q = card(r, "Yggdrasil", 1)
    kinds, params = policies(2)
    S = blank(2, age=1)
    place(S, 0, E.FIG_LEADER, YGG)
    place(S, 1, WARRIORS[:2], YGG)
    commit(S, 0, [q])
    quest_phase_nb(r.tables, S, kinds, params)
    assert S.glory[0, E.G_QUEST] == 6
    S = blank(2, age=1)
    place(S, 0, E.FIG_LEADER, YGG)
    place(S, 1, WARRIORS[:3], YGG)
    commit(S, 0, [q])
    quest_phase_nb(r.tables, S, kinds, params)
    assert S.glory[0].sum() == 0


def test_yggdrasil_quest_dark_elf_str_three():
    """DIGEST §1.7: the Dark Elf counts STR 3 in Yggdrasil for quests."""
    r = rules()
    S = blank(2, age=2)
    monster(S, 0, card(r, "Dark Elf", 2), YGG)
    place(S, 1, WARRIORS[:2], YGG)
    commit(S, 0, [card(r, "Yggdrasil", 2)])
    kinds, params = policies(2)
    quest_phase_nb(r.tables, S, kinds, params)
    assert S.glory[0, E.G_QUEST] == 8


def test_quest_raise_follows_stat_choice():
    """DIGEST §1.5 Quest: the met quest raises one stat, the clan's choice (greedy prefers Axes)."""
    r = rules()
    S = blank(2, age=1)
    place(S, 0, W, GIMLE)
    commit(S, 0, [card(r, "Alfheim", 1)])
    kinds, params = policies(2)
    quest_phase_nb(r.tables, S, kinds, params)
    assert list(S.stat[0]) == [0, 1, 0]
    S = blank(2, age=1)
    S.stat[0] = [0, 5, 0]  # Axes at step 6: the raise goes to a stat that can rise
    place(S, 0, W, GIMLE)
    commit(S, 0, [card(r, "Alfheim", 1)])
    quest_phase_nb(r.tables, S, kinds, params)
    assert list(S.stat[0]) == [1, 5, 0]


# --- Ragnarök ------------------------------------------------------------------------------

@pytest.mark.parametrize("age,per", [(1, 2), (2, 3), (3, 4)])
def test_ragnarok_glory_per_figure_by_age(age, per):
    """DIGEST §1.5 Ragnarök: the doomed province is destroyed; every figure in it and every Ship in
    its supporting fjord goes to Valhalla for 2 / 3 / 4 Glory each by age (Monsters included)."""
    r = rules()
    S = blank(2, age=age)
    S.doom[age - 1] = ELVAGAR
    place(S, 0, WARRIORS[:2], ELVAGAR)
    place(S, 0, E.FIG_SHIP, NORTH)
    monster(S, 0, card(r, "Troll", 1), ELVAGAR)
    place(S, 1, E.FIG_SHIP, NORTH)
    place(S, 1, W, ANGERBODA)  # the fjord's other province stands: its figures live
    place(S, 1, WARRIORS[1], HORGR)
    ragnarok_nb(r.tables, S, *policies(5))
    assert S.destroyed[ELVAGAR] == 1
    assert S.glory[0, E.G_RAGNAROK] == 4 * per
    assert S.glory[1, E.G_RAGNAROK] == 1 * per
    for f in WARRIORS[:2] + [E.FIG_SHIP, M0]:
        assert S.loc[0, f] == E.LOC_VALHALLA
    assert S.loc[1, E.FIG_SHIP] == E.LOC_VALHALLA
    assert S.loc[1, W] == ANGERBODA and S.loc[1, WARRIORS[1]] == HORGR


def test_ragnarok_other_fjords_untouched():
    """DIGEST §1.5 Ragnarök: only the fjord supporting the doomed province loses its Ships."""
    r = rules()
    S = blank(2, age=1)
    S.doom[0] = GIMLE
    place(S, 0, E.FIG_SHIP, SOUTH)
    place(S, 1, E.FIG_SHIP, WEST)
    ragnarok_nb(r.tables, S, *policies(5))
    assert S.loc[0, E.FIG_SHIP] == SOUTH and S.loc[1, E.FIG_SHIP] == E.LOC_VALHALLA
    assert S.glory[0].sum() == 0 and S.glory[1, E.G_RAGNAROK] == 2


def test_ragnarok_doom_by_age():
    """DIGEST §1.3, §1.5: the province on this age's Ragnarök token is the one destroyed."""
    r = rules()
    S = blank(2, age=2)
    S.doom[:] = [ELVAGAR, HORGR, GIMLE]
    ragnarok_nb(r.tables, S, *policies(5))
    assert [int(x) for x in np.flatnonzero(S.destroyed)] == [HORGR]


def test_release_returns_all_valhalla_to_reserve():
    """DIGEST §1.5 Release Valhalla: every figure in Valhalla goes back to its reserve (all clans)."""
    r = rules()
    S = blank(3)
    place(S, 0, WARRIORS[:3] + [E.FIG_SHIP, E.FIG_LEADER], E.LOC_VALHALLA)
    monster(S, 1, card(r, "Troll", 1), E.LOC_VALHALLA)
    place(S, 2, W, E.LOC_VALHALLA)
    place(S, 2, WARRIORS[1], GIMLE)
    release_nb(r.tables, S)
    assert (S.loc[:3] != E.LOC_VALHALLA).all()
    for f in WARRIORS[:3] + [E.FIG_SHIP, E.FIG_LEADER]:
        assert S.loc[0, f] == E.LOC_RESERVE
    assert S.loc[1, M0] == E.LOC_RESERVE
    assert S.loc[1, M0 + 1] == E.LOC_NONE  # an empty Monster slot stays out of play
    assert S.loc[2, W] == E.LOC_RESERVE and S.loc[2, WARRIORS[1]] == GIMLE


def test_ragnarok_deaths_do_not_count_for_glorious_death():
    """DIGEST §1.7: Glorious Death counts Valhalla at the Quest phase (before Ragnarök)."""
    r = rules()
    S = blank(2, age=1)
    S.doom[0] = GIMLE
    place(S, 0, WARRIORS[:4], GIMLE)
    commit(S, 0, [card(r, "Glorious Death", 1)])
    kinds, params = policies(2)
    quest_phase_nb(r.tables, S, kinds, params)
    ragnarok_nb(r.tables, S, *policies(5))
    assert S.glory[0, E.G_QUEST] == 0
    assert S.glory[0, E.G_RAGNAROK] == 8
