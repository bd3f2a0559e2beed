"""DIGEST §1.4, §1.5 Action phase and end of age; Sea Serpent; Horns track; Monster losses."""
from __future__ import annotations

import numpy as np
import pytest
from scenario import (
    ANDLANG,
    EAST,
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
    legal,
    log,
    monster,
    place,
    policies,
    rules,
)

from volva.simulator.bloodrage.actions import invade_nb
from volva.simulator.bloodrage.battle import battle_nb
from volva.simulator.bloodrage.board import clan_str_nb, upgrade_cost_nb
from volva.simulator.bloodrage.phases import action_phase_nb, end_age_nb, end_game_nb, ragnarok_nb
from volva.simulator.bloodrage.pillage import call_to_battle_nb
from volva.simulator.bloodrage.state import G_FIRST
from volva.simulator.core import enums as E

W = WARRIORS[0]


def passive(n, first, rage_steps):
    """A position where every clan's only legal action is Pass (no figures, no cards)."""
    S = blank(n)
    S.loc[:n, :] = E.LOC_NONE
    S.gs[G_FIRST] = first
    S.stat[:n, E.STAT_RAGE] = rage_steps
    return S


def test_action_phase_rage_set_and_turn_order():
    """DIGEST §1.5 Action: Rage set to the Rage stat; turns from the first player, clockwise."""
    r = rules()
    S = passive(3, 1, [0, 1, 3])
    kinds, params = policies(3)
    action_phase_nb(r.tables, S, kinds, params)
    passes = [(row[2], row[3]) for row in log(S, E.EV_PASS)]
    assert passes == [(1, 7), (2, 9), (0, 6)]
    assert list(S.rage_end[:3]) == [0, 0, 0]


def test_action_phase_ends_when_all_pillaged():
    """DIGEST §1.5 Action: the phase ends when every non-destroyed province's token is pillaged
    (destroyed provinces' tokens do not matter); the Rage left is recorded."""
    r = rules()
    S = passive(2, 0, [0, 4])
    S.destroyed[UTGARD] = 1
    S.pillaged[:] = 1
    S.pillaged[UTGARD] = 0
    kinds, params = policies(2)
    action_phase_nb(r.tables, S, kinds, params)
    assert log(S, E.EV_PASS) == []
    assert list(S.rage_end[:2]) == [6, 12]


def test_end_of_age_flips_tokens_and_passes_first_player_left():
    """DIGEST §1.5: end of age: pillage tokens flip back; the first-player token passes left."""
    S = blank(3)
    S.gs[G_FIRST] = 2
    S.pillaged[[0, 3, 8]] = 1
    end_age_nb(S)
    assert (S.pillaged == 0).all()
    assert S.gs[G_FIRST] == 0


@pytest.mark.parametrize("step,limit", [(0, 4), (1, 5), (2, 6), (3, 7), (4, 10), (5, 10)])
def test_horns_track_limits(step, limit):
    """DIGEST §1.4: Horns 4, 5, 6, 7, 10, 10 figures on the board by step."""
    r = rules()
    S = blank(2)
    S.stat[0, E.STAT_HORNS] = step
    figs = ([E.FIG_LEADER] + WARRIORS)[:limit - 1]
    for i, f in enumerate(figs):
        S.loc[0, f] = [GIMLE, ANDLANG, UTGARD, HORGR, MUSPELHEIM][i % 5] if i < 8 else YGG
    S.rage[0] = 6
    assert any(t == E.A_INVADE for t, _, _ in legal(r, S, 0))
    place(S, 0, E.FIG_SHIP, NORTH)
    assert not any(t == E.A_INVADE for t, _, _ in legal(r, S, 0))


@pytest.mark.parametrize("name,age", [("Dwarf Chieftain", 1), ("Soldier of Hel", 3)])
def test_free_monsters_cost_zero_to_upgrade(name, age):
    """DIGEST §1.9 card text: Dwarf Chieftain / Soldier of Hel cost 0 Rage to upgrade."""
    r = rules()
    S = blank(2, age=age)
    assert upgrade_cost_nb(r.tables, S, 0, card(r, name, age)) == 0


# --- Sea Serpent (DIGEST §1.2 "Ship or Sea Serpent") ----------------------------------------

def test_sea_serpent_invades_fjords_only_for_three():
    """DIGEST §1.5 Invade: a Sea Serpent goes into a usable fjord (cost = its STR 3)."""
    r = rules()
    S = blank(3)
    monster(S, 0, card(r, "Sea Serpent", 1))
    S.rage[0] = 2
    assert not any(t == E.A_INVADE and a == M0 for t, a, _ in legal(r, S, 0))
    S.rage[0] = 3
    dests = {b for t, a, b in legal(r, S, 0) if t == E.A_INVADE and a == M0}
    assert dests == {E.LOC_FJORD0 + i for i in range(4)}
    invade_nb(r.tables, S, 0, M0, SOUTH, False, *policies(5))
    assert S.rage[0] == 0
    assert clan_str_nb(r.tables, S, 0, UTGARD) == 3 and clan_str_nb(r.tables, S, 0, ANDLANG) == 3


def test_sea_serpent_never_answers_call_nor_marches():
    """DIGEST §1.2: like Ships, a Sea Serpent never marches and never answers a Call to Battle."""
    r = rules()
    S = blank(2)
    monster(S, 1, card(r, "Sea Serpent", 1), EAST)
    place(S, 0, W, GIMLE)
    S.rage[1] = 5
    assert not any(t == E.A_MARCH for t, _, _ in legal(r, S, 1))
    kinds, params = policies(2, "random")
    for seed in range(10):
        S.rs[0] = seed + 1
        call_to_battle_nb(r.tables, S, 0, GIMLE, kinds, params)
    assert S.loc[1, M0] == EAST and log(S, E.EV_CALL) == []


def test_sea_serpent_dies_in_ragnarok_with_ships():
    """DIGEST §1.5 Ragnarök: figures in the fjord supporting the doomed province die (Serpent too)."""
    r = rules()
    S = blank(2, age=1)
    S.doom[0] = HORGR
    monster(S, 1, card(r, "Sea Serpent", 1), EAST)
    ragnarok_nb(r.tables, S, *policies(5))
    assert S.loc[1, M0] == E.LOC_VALHALLA
    assert S.glory[1, E.G_RAGNAROK] == 2


def test_losing_monster_goes_to_valhalla():
    """DIGEST §1.6 step 6: a losing Monster goes to Valhalla (it is not out of the game)."""
    r = rules()
    S = blank(2)
    monster(S, 1, card(r, "Troll", 1), GIMLE)
    place(S, 0, E.FIG_LEADER, GIMLE)
    kinds, params = policies(2)
    assert battle_nb(r.tables, S, 0, GIMLE, kinds, params, np.zeros((5, E.NFIG), np.bool_)) == 0
    assert S.loc[1, M0] == E.LOC_VALHALLA
    assert S.upg[1, E.SLOT_MONSTER0] == card(r, "Troll", 1)


def test_three_way_glory_tie_with_rage_tie():
    """DIGEST §1.5 End of game: equal Glory; two also equal on Rage share rank 1, the third is 3rd."""
    r = rules()
    S = blank(3)
    S.glory[:3, E.G_QUEST] = [20, 20, 20]
    S.rage_end[:3] = [2, 2, 0]
    rank = np.zeros(5, np.int8)
    end_game_nb(r.tables, S, rank)
    assert list(rank[:3]) == [1, 1, 3]
