"""DIGEST §1.1, §1.5 Action: invade, march, upgrade, quest, pillage, pass."""
from __future__ import annotations

import pytest
from scenario import (
    ANDLANG,
    ANGERBODA,
    EAST,
    ELVAGAR,
    GIMLE,
    HORGR,
    M0,
    M1,
    MUSPELHEIM,
    MYRKULOR,
    NORTH,
    SOUTH,
    UTGARD,
    WARRIORS,
    WEST,
    YGG,
    blank,
    card,
    discards,
    give,
    legal,
    log,
    monster,
    place,
    policies,
    rules,
    sheets,
)

from volva.simulator.bloodrage.actions import do_action_nb, invade_nb, march_nb, upgrade_nb
from volva.simulator.bloodrage.board import invade_cost_nb, upgrade_cost_nb
from volva.simulator.core import enums as E

W = WARRIORS[0]
PROVS = list(range(9))
FJORDS = [NORTH, EAST, SOUTH, WEST]


def invades(acts, f):
    """Destinations of invade actions with figure slot f (any reserve Warrior stands for all)."""
    figs = WARRIORS if f in WARRIORS else [f]
    return {b for t, a, b in acts if t == E.A_INVADE and a in figs}


# --- invade cost (§1.1, §1.5, §1.7) ---------------------------------------------------------

def test_invade_cost_leader_zero_by_default():
    """DIGEST §1.1: the Leader invades for 0 Rage (option leader_invade_cost, default 0)."""
    r = rules()
    S = blank()
    S.rage[0] = 3
    invade_nb(r.tables, S, 0, E.FIG_LEADER, ELVAGAR, False, *policies(5))
    assert S.loc[0, E.FIG_LEADER] == ELVAGAR
    assert S.rage[0] == 3


def test_invade_cost_leader_option():
    """DIGEST §1.1: option leader_invade_cost = 3 makes the Leader cost 3 Rage."""
    r = rules(leader_invade_cost=3)
    S = blank()
    S.rage[0] = 2
    assert invades(legal(r, S, 0), E.FIG_LEADER) == set()
    S.rage[0] = 3
    invade_nb(r.tables, S, 0, E.FIG_LEADER, ELVAGAR, False, *policies(5))
    assert S.rage[0] == 0


def test_invade_cost_warrior_one():
    """DIGEST §1.1: a Warrior (STR 1) invades for 1 Rage."""
    r = rules()
    S = blank()
    S.rage[0] = 1
    assert invades(legal(r, S, 0), W) == set(range(8))
    invade_nb(r.tables, S, 0, W, HORGR, False, *policies(5))
    assert S.loc[0, W] == HORGR and S.rage[0] == 0


def test_invade_cost_ship_two_into_fjord_only():
    """DIGEST §1.1, §1.5 Invade: a Ship costs 2 and goes into a fjord, never a province."""
    r = rules()
    S = blank()
    S.rage[0] = 1
    assert invades(legal(r, S, 0), E.FIG_SHIP) == set()
    S.rage[0] = 2
    assert invades(legal(r, S, 0), E.FIG_SHIP) == set(FJORDS)
    invade_nb(r.tables, S, 0, E.FIG_SHIP, SOUTH, False, *policies(5))
    assert S.loc[0, E.FIG_SHIP] == SOUTH and S.rage[0] == 0


def test_no_warrior_or_leader_into_fjord():
    """DIGEST §1.5 Invade: only Ships (and Sea Serpent) go into fjords."""
    r = rules()
    S = blank()
    S.rage[0] = 6
    acts = legal(r, S, 0)
    assert invades(acts, W).isdisjoint(FJORDS)
    assert invades(acts, E.FIG_LEADER).isdisjoint(FJORDS)


def test_ship_not_into_unusable_fjord():
    """DIGEST §1.2: a fjord is usable only while one of its provinces stands."""
    r = rules()
    S = blank()
    S.rage[0] = 6
    S.destroyed[ELVAGAR] = 1
    assert NORTH in invades(legal(r, S, 0), E.FIG_SHIP)
    S.destroyed[ANGERBODA] = 1
    assert invades(legal(r, S, 0), E.FIG_SHIP) == {EAST, SOUTH, WEST}


def test_invade_cost_monster_is_value():
    """DIGEST §1.1: a Monster invades for its STR (Troll 2, Fire Giant 4)."""
    r = rules()
    S = blank(age=2)
    monster(S, 0, card(r, "Troll", 1), slot=0)
    monster(S, 0, card(r, "Fire Giant", 2), slot=1)
    assert invade_cost_nb(r.tables, S, 0, M0) == 2
    assert invade_cost_nb(r.tables, S, 0, M1) == 4
    S.rage[0] = 3
    acts = legal(r, S, 0)
    assert invades(acts, M0) == set(range(8))
    assert invades(acts, M1) == set()
    invade_nb(r.tables, S, 0, M0, GIMLE, False, *policies(5))
    assert S.loc[0, M0] == GIMLE and S.rage[0] == 1


@pytest.mark.parametrize("name,age", [("Dwarf Chieftain", 1), ("Soldier of Hel", 3)])
def test_invade_cost_free_monsters(name, age):
    """DIGEST §1.1: Dwarf Chieftain and Soldier of Hel invade for 0 Rage."""
    r = rules()
    S = blank(age=age)
    monster(S, 0, card(r, name, age))
    S.rage[0] = 1
    invade_nb(r.tables, S, 0, M0, ELVAGAR, False, *policies(5))
    assert S.loc[0, M0] == ELVAGAR and S.rage[0] == 1


def test_invade_cost_experts_in_arms():
    """DIGEST §1.7: Warriors' invade cost = the Warrior upgrade's value (Experts in Arms: 2)."""
    r = rules()
    S = blank(age=2)
    S.upg[0, E.SLOT_WARRIOR] = card(r, "Experts in Arms", 2)
    sheets(S, r.tables)
    S.rage[0] = 1
    assert invades(legal(r, S, 0), W) == set()
    S.rage[0] = 2
    invade_nb(r.tables, S, 0, W, ELVAGAR, False, *policies(5))
    assert S.rage[0] == 0


def test_invade_cost_masters_and_brothers():
    """DIGEST §1.7: Masters in Arms Warriors cost 2, Brothers in Arms Warriors cost 1."""
    r = rules()
    S = blank(age=3)
    S.upg[0, E.SLOT_WARRIOR] = card(r, "Masters in Arms", 3)
    S.upg[1, E.SLOT_WARRIOR] = card(r, "Brothers in Arms", 1)
    sheets(S, r.tables)
    assert invade_cost_nb(r.tables, S, 0, W) == 2
    assert invade_cost_nb(r.tables, S, 1, W) == 1


# --- invade destinations (§1.5) --------------------------------------------------------------

def test_no_invade_into_yggdrasil():
    """DIGEST §1.5 Invade: not into Yggdrasil (Leader, Warrior, ordinary Monster)."""
    r = rules()
    S = blank()
    monster(S, 0, card(r, "Troll", 1))
    S.rage[0] = 6
    acts = legal(r, S, 0)
    for f in (E.FIG_LEADER, W, M0):
        assert YGG not in invades(acts, f)
        assert invades(acts, f) == set(range(8))


def test_dark_elf_may_invade_yggdrasil_for_one():
    """DIGEST §1.5, §1.7: only the Dark Elf may invade Yggdrasil; its invade cost is 1."""
    r = rules()
    S = blank(age=2)
    monster(S, 0, card(r, "Dark Elf", 2))
    S.rage[0] = 1
    assert YGG in invades(legal(r, S, 0), M0)
    invade_nb(r.tables, S, 0, M0, YGG, False, *policies(5))
    assert S.loc[0, M0] == YGG and S.rage[0] == 0


def test_no_invade_into_destroyed_province():
    """DIGEST §1.3: destroyed provinces hold nothing, ever."""
    r = rules()
    S = blank()
    S.destroyed[[ELVAGAR, UTGARD]] = 1
    S.rage[0] = 6
    acts = legal(r, S, 0)
    assert invades(acts, W) == set(range(8)) - {ELVAGAR, UTGARD}
    assert invades(acts, E.FIG_LEADER) == set(range(8)) - {ELVAGAR, UTGARD}


def test_no_invade_into_full_village():
    """DIGEST §1.5 Invade: only into an empty village (Utgard has 3)."""
    r = rules()
    S = blank()
    place(S, 1, WARRIORS[:3], UTGARD)
    S.rage[0] = 6
    assert UTGARD not in invades(legal(r, S, 0), W)
    S.loc[1, WARRIORS[2]] = E.LOC_RESERVE
    assert UTGARD in invades(legal(r, S, 0), W)


def test_horns_limit_blocks_invade():
    """DIGEST §1.4, §1.5: no invade without room under Horns (step 1: 4 figures on the board)."""
    r = rules()
    S = blank()
    place(S, 0, WARRIORS[:3], GIMLE)
    place(S, 0, E.FIG_SHIP, WEST)  # Ships count: provinces and fjords
    S.rage[0] = 6
    acts = legal(r, S, 0)
    assert not any(t == E.A_INVADE for t, _, _ in acts)
    S.stat[0, E.STAT_HORNS] = 1  # Horns 5
    assert invades(legal(r, S, 0), W)


def test_valhalla_figures_do_not_count_for_horns():
    """DIGEST §1.4: Horns limits figures on the board (Valhalla is not the board)."""
    r = rules()
    S = blank()
    place(S, 0, WARRIORS[:3], GIMLE)
    place(S, 0, WARRIORS[3:6], E.LOC_VALHALLA)
    S.rage[0] = 6
    assert invades(legal(r, S, 0), W) == set(range(8))


# --- march (§1.5) ---------------------------------------------------------------------------

def test_march_costs_one_and_fills_empty_villages_only():
    """DIGEST §1.5 March: 1 Rage; figures move into empty villages of one province only."""
    r = rules()
    S = blank()
    place(S, 0, WARRIORS[:4], ELVAGAR)
    place(S, 1, WARRIORS[0], UTGARD)  # Utgard: 3 villages, 1 taken
    S.rage[0] = 3
    kinds, params = policies(2)
    assert (E.A_MARCH, ELVAGAR, UTGARD) in legal(r, S, 0)
    march_nb(r.tables, S, 0, ELVAGAR, UTGARD, kinds, params)
    assert S.rage[0] == 2
    locs = sorted(int(S.loc[0, f]) for f in WARRIORS[:4])
    assert locs == [ELVAGAR, ELVAGAR, UTGARD, UTGARD]


def test_march_any_distance_and_into_yggdrasil():
    """DIGEST §1.2, §1.5: March goes anywhere (not only adjacent), Yggdrasil unlimited."""
    r = rules()
    S = blank()
    place(S, 0, WARRIORS[:7] + [E.FIG_LEADER], GIMLE)  # Gimle: 5 villages, overfilled by hand
    S.rage[0] = 1
    acts = legal(r, S, 0)
    assert {(E.A_MARCH, GIMLE, d) for d in (ELVAGAR, MUSPELHEIM, YGG)} <= acts
    kinds, params = policies(2)
    march_nb(r.tables, S, 0, GIMLE, YGG, kinds, params)
    assert all(S.loc[0, f] == YGG for f in WARRIORS[:7] + [E.FIG_LEADER])
    assert S.rage[0] == 0


def test_march_not_into_destroyed_or_full():
    """DIGEST §1.3, §1.5 March: no destroyed province, no province without an empty village."""
    r = rules()
    S = blank()
    place(S, 0, W, GIMLE)
    S.destroyed[ELVAGAR] = 1
    place(S, 1, WARRIORS[:3], ANDLANG)
    S.rage[0] = 2
    dests = {b for t, a, b in legal(r, S, 0) if t == E.A_MARCH}
    assert dests == set(PROVS) - {GIMLE, ELVAGAR, ANDLANG}


def test_ships_never_march():
    """DIGEST §1.2, §1.5 March: not from a fjord; Ships never march."""
    r = rules()
    S = blank()
    place(S, 0, E.FIG_SHIP, NORTH)
    S.rage[0] = 5
    assert not any(t == E.A_MARCH for t, _, _ in legal(r, S, 0))
    place(S, 0, W, ELVAGAR)
    kinds, params = policies(2)
    march_nb(r.tables, S, 0, ELVAGAR, GIMLE, kinds, params)
    assert S.loc[0, E.FIG_SHIP] == NORTH and S.loc[0, W] == GIMLE


# --- upgrade (§1.5) -------------------------------------------------------------------------

def test_upgrade_pays_value_and_fills_slot():
    """DIGEST §1.5 Upgrade: pay the card's value; Leader upgrade goes to the Leader slot."""
    r = rules()
    S = blank()
    c = card(r, "Lord of Hammers", 1)
    give(S, 0, [c])
    S.rage[0] = 5
    place(S, 0, E.FIG_LEADER, GIMLE)  # no free invade possible: the Leader is on the board
    assert (E.A_UPGRADE, 0, E.SLOT_LEADER) in legal(r, S, 0)
    kinds, params = policies(2)
    upgrade_nb(r.tables, S, 0, 0, E.SLOT_LEADER, kinds, params)
    assert S.upg[0, E.SLOT_LEADER] == c
    assert S.rage[0] == 2
    assert S.hand_n[0] == 0


def test_upgrade_too_expensive_is_illegal():
    """DIGEST §1.5 Upgrade: the card's value must be paid."""
    r = rules()
    S = blank()
    give(S, 0, [card(r, "Lord of Hammers", 1)])
    S.rage[0] = 2
    assert not any(t == E.A_UPGRADE for t, _, _ in legal(r, S, 0))


@pytest.mark.parametrize("name,age,ct,slots", [
    ("Lord of Hammers", 1, E.CT_LEADER, {E.SLOT_LEADER}),
    ("Brothers in Arms", 1, E.CT_WARRIOR, {E.SLOT_WARRIOR}),
    ("Loki's Dragons", 1, E.CT_SHIP, {E.SLOT_SHIP}),
    ("Troll", 1, E.CT_MONSTER, {E.SLOT_MONSTER0}),
    ("Loki's Domain", 1, E.CT_CLAN, {E.SLOT_CLAN0}),
])
def test_upgrade_slot_by_type(name, age, ct, slots):
    """DIGEST §1.5 Upgrade: slots 1 Leader, 1 Warrior, 1 Ship, 2 Monster, 3 Clan (first empty one)."""
    r = rules()
    S = blank()
    c = card(r, name, age)
    assert r.tables.card_type[c] == ct
    give(S, 0, [c])
    S.rage[0] = 6
    got = {b for t, a, b in legal(r, S, 0) if t == E.A_UPGRADE}
    assert got == slots


def test_upgrade_full_clan_slots_offer_replacement():
    """DIGEST §1.5 Upgrade: 3 clan slots; when all are full, an old card is replaced and discarded."""
    r = rules()
    S = blank()
    olds = [card(r, "Loki's Domain", 1), card(r, "Thor's Glory", 1), card(r, "Tyr's Domain", 1)]
    S.upg[0, E.SLOT_CLAN0:E.SLOT_CLAN0 + 3] = olds
    sheets(S, r.tables)
    new = card(r, "Frigga's Charm", 1)
    give(S, 0, [new])
    S.rage[0] = 6
    assert {b for t, a, b in legal(r, S, 0) if t == E.A_UPGRADE} == {5, 6, 7}
    kinds, params = policies(2)
    upgrade_nb(r.tables, S, 0, 0, 6, kinds, params)
    assert S.upg[0, 6] == new
    assert discards(S) == [olds[1]]


def test_frigga_charm_discount_not_below_zero():
    """DIGEST §1.5 Upgrade: Frigga's Charm −1, never below 0."""
    r = rules()
    S = blank()
    S.upg[0, E.SLOT_CLAN0] = card(r, "Frigga's Charm", 1)
    sheets(S, r.tables)
    T = r.tables
    assert upgrade_cost_nb(T, S, 0, card(r, "Lord of Hammers", 1)) == 2
    assert upgrade_cost_nb(T, S, 0, card(r, "Brothers in Arms", 1)) == 0
    assert upgrade_cost_nb(T, S, 0, card(r, "Tyr's Domain", 1)) == 0
    assert upgrade_cost_nb(T, S, 0, card(r, "Troll", 1)) == 1
    # and it is actually paid that way
    give(S, 0, [card(r, "Lord of Hammers", 1)])
    place(S, 0, E.FIG_LEADER, GIMLE)
    S.rage[0] = 2
    kinds, params = policies(2)
    upgrade_nb(T, S, 0, 0, E.SLOT_LEADER, kinds, params)
    assert S.rage[0] == 0


def test_replacing_monster_discards_card_and_figure_leaves_play():
    """DIGEST §1.5 Upgrade: a replaced Monster's card is discarded and its figure leaves the game."""
    r = rules()
    S = blank(age=2)
    troll, dwarf, elf = card(r, "Troll", 1), card(r, "Dwarf Chieftain", 1), card(r, "Dark Elf", 2)
    monster(S, 0, troll, ELVAGAR, slot=0)
    monster(S, 0, dwarf, GIMLE, slot=1)
    place(S, 0, WARRIORS[:3], HORGR)  # 4 on the board once the Troll leaves: no free invade
    give(S, 0, [elf])
    S.rage[0] = 3
    assert {b for t, a, b in legal(r, S, 0) if t == E.A_UPGRADE} == {E.SLOT_MONSTER0, E.SLOT_MONSTER0 + 1}
    kinds, params = policies(2)
    upgrade_nb(r.tables, S, 0, 0, E.SLOT_MONSTER0, kinds, params)
    assert S.upg[0, E.SLOT_MONSTER0] == elf
    assert discards(S) == [troll]
    assert S.rage[0] == 2
    # the Troll figure is gone from Elvagar; the figure slot now holds the new Dark Elf in reserve
    assert not any(S.loc[0, f] == ELVAGAR for f in range(E.NFIG))
    assert S.loc[0, M0] == E.LOC_RESERVE
    dest = [row for row in log(S, E.EV_DESTROY) if row[2] == 0]
    assert dest == [(E.EV_DESTROY, 2, 0, M0, ELVAGAR, E.CAUSE_REPLACED, 0, 0)]
    assert S.loc[0, M1] == GIMLE  # the other Monster untouched


def test_replaced_monster_does_not_go_to_valhalla():
    """DIGEST §1.5 Upgrade: the replaced Monster leaves the game (not Valhalla, so no Release)."""
    r = rules()
    S = blank(age=2)
    monster(S, 0, card(r, "Troll", 1), ELVAGAR, slot=0)
    monster(S, 0, card(r, "Dwarf Chieftain", 1), GIMLE, slot=1)
    place(S, 0, WARRIORS[:2], HORGR)
    give(S, 0, [card(r, "Dark Elf", 2)])
    S.rage[0] = 3
    kinds, params = policies(2)
    upgrade_nb(r.tables, S, 0, 0, E.SLOT_MONSTER0, kinds, params)
    assert (S.loc[0, :] == E.LOC_VALHALLA).sum() == 0


def test_free_invade_after_monster_upgrade():
    """DIGEST §1.5 Upgrade: after a Monster upgrade the player may invade with it for free."""
    r = rules()
    S = blank()
    troll = card(r, "Troll", 1)
    give(S, 0, [troll])
    S.rage[0] = 2
    kinds, params = policies(2)
    upgrade_nb(r.tables, S, 0, 0, E.SLOT_MONSTER0, kinds, params)
    assert S.rage[0] == 0  # paid only the upgrade
    assert 0 <= S.loc[0, M0] < E.N_OUTER
    inv = log(S, E.EV_INVADE)
    assert len(inv) == 1 and inv[0][3] == M0 and inv[0][5] == 0 and inv[0][6] == 1


def test_free_invade_after_ship_upgrade_goes_to_fjord():
    """DIGEST §1.5 Upgrade: after a Ship upgrade the free invade puts the Ship in a fjord."""
    r = rules()
    S = blank()
    give(S, 0, [card(r, "Loki's Dragons", 1)])
    S.rage[0] = 2
    kinds, params = policies(2)
    upgrade_nb(r.tables, S, 0, 0, E.SLOT_SHIP, kinds, params)
    assert S.rage[0] == 0
    assert S.loc[0, E.FIG_SHIP] in FJORDS


def test_free_invade_after_warrior_upgrade():
    """DIGEST §1.5 Upgrade: after a Warrior upgrade one Warrior may invade for free."""
    r = rules()
    S = blank(age=2)
    give(S, 0, [card(r, "Experts in Arms", 2)])
    S.rage[0] = 2
    kinds, params = policies(2)
    upgrade_nb(r.tables, S, 0, 0, E.SLOT_WARRIOR, kinds, params)
    assert S.rage[0] == 0
    assert sum(1 for f in WARRIORS if 0 <= S.loc[0, f] < E.N_OUTER) == 1


def test_no_free_invade_without_horns_room():
    """DIGEST §1.5 Upgrade: the free invade still needs Horns room."""
    r = rules()
    S = blank()
    place(S, 0, WARRIORS[:4], GIMLE)
    give(S, 0, [card(r, "Troll", 1)])
    S.rage[0] = 2
    kinds, params = policies(2)
    upgrade_nb(r.tables, S, 0, 0, E.SLOT_MONSTER0, kinds, params)
    assert S.loc[0, M0] == E.LOC_RESERVE
    assert log(S, E.EV_INVADE) == []


def test_no_free_invade_after_clan_upgrade():
    """DIGEST §1.5 Upgrade: only Leader/Warrior/Ship/Monster upgrades give the free invade."""
    r = rules()
    S = blank()
    give(S, 0, [card(r, "Loki's Domain", 1)])
    S.rage[0] = 1
    kinds, params = policies(2)
    upgrade_nb(r.tables, S, 0, 0, E.SLOT_CLAN0, kinds, params)
    assert log(S, E.EV_INVADE) == []
    assert (S.loc[0, :E.FIG_MONSTER0] == E.LOC_RESERVE).all()


# --- quest, pillage, pass (§1.5) ------------------------------------------------------------

def test_quest_commit_is_free():
    """DIGEST §1.5 Quest: put a Quest card face down; free; duplicates allowed."""
    r = rules()
    S = blank()
    q = card(r, "Manheim", 1)
    give(S, 0, [q, q])
    S.rage[0] = 1
    acts = legal(r, S, 0)
    assert {(E.A_QUEST, 0, 0), (E.A_QUEST, 1, 0)} <= acts
    kinds, params = policies(2)
    do_action_nb(r.tables, S, 0, E.A_QUEST, 0, 0, kinds, params)
    do_action_nb(r.tables, S, 0, E.A_QUEST, 0, 0, kinds, params)
    assert S.rage[0] == 1
    assert S.quest_n[0] == 2 and list(S.quests[0, :2]) == [q, q]
    assert S.hand_n[0] == 0


def test_battle_cards_are_not_actions():
    """DIGEST §1.5 Action: a battle card is neither an upgrade nor a quest."""
    r = rules()
    S = blank()
    give(S, 0, [card(r, "Tyr's Smite", 1)])
    S.rage[0] = 6
    assert not any(t in (E.A_UPGRADE, E.A_QUEST) for t, _, _ in legal(r, S, 0))


def test_pillage_needs_presence():
    """DIGEST §1.5 Pillage: only where the player has a figure (or a Ship in a supporting fjord)."""
    r = rules()
    S = blank()
    place(S, 0, W, HORGR)
    place(S, 0, E.FIG_SHIP, SOUTH)
    place(S, 1, WARRIORS[:2], GIMLE)
    S.rage[0] = 1
    pil = {a for t, a, b in legal(r, S, 0) if t == E.A_PILLAGE}
    assert pil == {HORGR, UTGARD, ANDLANG}


def test_pillage_not_destroyed_or_already_pillaged():
    """DIGEST §1.5 Pillage: a non-destroyed province with its token not yet pillaged this age."""
    r = rules()
    S = blank()
    place(S, 0, E.FIG_SHIP, NORTH)
    place(S, 0, W, YGG)
    S.destroyed[ELVAGAR] = 1
    S.pillaged[YGG] = 1
    S.rage[0] = 1
    pil = {a for t, a, b in legal(r, S, 0) if t == E.A_PILLAGE}
    assert pil == {ANGERBODA}


def test_pillage_is_free():
    """DIGEST §1.5 Pillage: free (unopposed here, so no battle)."""
    r = rules()
    S = blank()
    place(S, 0, W, MYRKULOR)
    S.rage[0] = 4
    kinds, params = policies(2)
    do_action_nb(r.tables, S, 0, E.A_PILLAGE, MYRKULOR, 0, kinds, params)
    assert S.rage[0] == 4
    assert S.pillaged[MYRKULOR] == 1


def test_pass_sets_rage_zero():
    """DIGEST §1.5 Pass: the player's Rage drops to 0."""
    r = rules()
    S = blank()
    S.rage[0] = 5
    assert (E.A_PASS, 0, 0) in legal(r, S, 0)
    kinds, params = policies(2)
    do_action_nb(r.tables, S, 0, E.A_PASS, 0, 0, kinds, params)
    assert S.rage[0] == 0
    assert log(S, E.EV_PASS)[-1][3] == 5


def test_replacing_leader_upgrade_discards_old():
    """DIGEST §1.5 Upgrade: an occupied slot's old card is discarded; the Leader stays in play."""
    r = rules()
    S = blank(age=2)
    old, new = card(r, "Lord of Hammers", 1), card(r, "Lord of Axes", 2)
    S.upg[0, E.SLOT_LEADER] = old
    sheets(S, r.tables)
    place(S, 0, E.FIG_LEADER, GIMLE)
    give(S, 0, [new])
    S.rage[0] = 3
    kinds, params = policies(2)
    upgrade_nb(r.tables, S, 0, 0, E.SLOT_LEADER, kinds, params)
    assert S.upg[0, E.SLOT_LEADER] == new
    assert discards(S) == [old]
    assert S.loc[0, E.FIG_LEADER] == GIMLE and S.rage[0] == 0


# --- a clan that passes is out of the Action phase (DIGEST §1.5 Pass; rulings R12a) ----------

ACTION_EVENTS = (E.EV_MARCH, E.EV_UPGRADE, E.EV_QUEST, E.EV_PILLAGE)


def test_no_action_after_a_pass_in_whole_games():
    """DIGEST §1.5 Pass: after passing, a clan takes no further action that Action phase, even when
    it gains Rage (random bots pass often; Loki's Trickery and Thor's Ascension give Rage back).
    Checked on the event log of 300 random-bot games, 4 and 5 players."""
    from volva.simulator import engines
    r = rules()
    kinds, params = policies(1, "random")
    gained_after_pass = 0
    for g in range(300):
        S = engines.play_game(r, [(int(kinds[0]), params[0])] * (4 + g % 2), 1000 + g)
        passed, in_action = set(), False
        for row in log(S):
            ev, q = row[0], row[2]
            if ev == E.EV_PHASE:
                in_action, passed = row[3] == E.PH_ACTION, set()
            elif ev == E.EV_PASS:
                passed.add(q)
            elif in_action and q in passed:
                own = ev in ACTION_EVENTS or (ev == E.EV_INVADE and row[6] == 0)
                assert not own, f"game {g}: clan {q} acted after passing: {row}"
                gained_after_pass += ev == E.EV_TEXT and row[4] == E.OP_STEAL_RAGE_ON_LOSE
    assert gained_after_pass > 0  # the case the rule is about happened


def test_upgrade_slot_is_chosen_even_with_a_free_slot():
    """DIGEST §1.5 Upgrade: any slot of the type, free or occupied, even while another slot of the
    type is free; the old card is discarded (rulings R7)."""
    r = rules()
    S = blank()
    old = card(r, "Loki's Domain", 1)
    S.upg[0, E.SLOT_CLAN0] = old
    sheets(S, r.tables)
    new = card(r, "Frigga's Charm", 1)
    give(S, 0, [new])
    S.rage[0] = 6
    assert {b for t, a, b in legal(r, S, 0) if t == E.A_UPGRADE} == {E.SLOT_CLAN0 + 1, E.SLOT_CLAN0}
    kinds, params = policies(2)
    upgrade_nb(r.tables, S, 0, 0, E.SLOT_CLAN0, kinds, params)
    assert S.upg[0, E.SLOT_CLAN0] == new and discards(S) == [old]
