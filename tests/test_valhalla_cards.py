"""Every opcode of the Blood Rage: Valhalla effect vocabulary (simulator/data/valhalla/opcodes.toml)
does what its `doc` says, on a test card added by a card patch (no copies: never dealt)."""
from pathlib import Path

import numpy as np
import pytest

from volva.simulator.core import enums as E
from volva.simulator.engines import load_ruleset
from volva.simulator.valhalla import engine as V
from volva.simulator.valhalla.board import sheet_refresh_nb
from volva.simulator.valhalla.contest import call_to_battle_nb
from volva.simulator.valhalla.state import G_AGE, G_DECK_N, init_state_nb, new_state
from volva.strategies.valhalla import resolve

W0, W1, W2, EL0 = 2, 3, 4, 0
GLAD, BILS, BREI, FOLK, GLIT, HIMI, IDAV, VING, VALH = range(9)

CARDS = {
    "T plain0": ("battle", 0, ""), "T plain5": ("battle", 5, ""),
    "T glory_on_win": ("battle", 3, "glory_on_win(2)"),
    "T rage_on_win": ("battle", 3, "rage_on_win(2)"),
    "T raise_on_win": ("battle", 3, "raise_on_win"),
    "T glory_per_kill": ("battle", 3, "glory_per_kill(2)"),
    "T glory_on_lose": ("battle", 0, "glory_on_lose(3)"),
    "T rage_on_lose": ("battle", 0, "rage_on_lose(2)"),
    "T draw_on_win": ("battle", 3, "draw_on_win(2)"),
    "T battle_str": ("clan", 0, "battle_str(2)"),
    "T contest_glory": ("clan", 0, "contest_glory(3)"),
    "T valor_glory": ("clan", 0, "valor_glory(2)"),
    "T quest_glory": ("clan", 0, "quest_glory(2)"),
    "T kill_glory": ("clan", 0, "kill_glory(2)"),
    "T fallen_glory": ("clan", 0, "fallen_glory(1)"),
    "T protect": ("clan", 0, "protect(1)"),
    "T call_extra": ("clan", 0, "call_extra(1)"),
    "T carry_extra": ("clan", 0, "carry_extra(2)"),
    "T draw_age": ("clan", 0, "draw_age(1)"),
    "T summon_two": ("clan", 0, "summon_two"),
    "T monster": ("monster", 3, "glory_on_win(4)"),
    **{f"T {q}": ("quest", "", q + ("(2)" if q in ("q_kills", "q_fallen") else "(3)" if q == "q_spread" else
                                     "(1)" if q == "q_claims" else ""))
       for q in ("q_region", "q_valhalla", "q_god", "q_spread", "q_kills", "q_fallen", "q_claims")},
}


@pytest.fixture(scope="module")
def rs():
    patch = {n: {"add": True, "type": t, "god": "" if t == "monster" else "Thor", "value": v, "copies": 0,
                 "effects": e} for n, (t, v, e) in CARDS.items()}
    return load_ruleset("valhalla", patch=[(Path("test-cards"), patch)])


def cid(rs, name):
    return rs.card_ids(name)[0]


def pols(P=3):
    k, p = resolve("greedy")
    return np.full(P, k, np.int8), np.stack([p] * P)


def bare(rs, P=3):
    S = new_state()[0]
    init_state_nb(S, P, np.uint64(1), True, True)
    V.setup_nb(rs.tables, S, np.full(4, -1, np.int8), np.zeros(P, np.int16))
    S.gs[G_AGE] = 1
    S.token[:] = 0
    S.token0[:] = 0
    S.god_at[:] = -1
    S.hand[:, :] = -1
    S.hand_n[:] = 0
    S.reward[GLAD] = E.VR_RAGE
    return S


def give(S, p, c):
    S.hand[p, S.hand_n[p]] = c
    S.hand_n[p] += 1


def sheet(rs, S, p, c, k=0):
    """Card c on clan p's slot k, as an upgrade (the sheet's kept sums refreshed, as upgrade_nb does)."""
    S.slot[p, k] = c
    sheet_refresh_nb(rs.tables, S, p)


def duel(rs, card0, card1="T plain0", figs1=1):
    """Clan 0 contests Gladsheim (one Warrior) against clan 1 (``figs1`` Warriors)."""
    S = bare(rs)
    S.loc[0, W0] = GLAD
    S.loc[1, W0:W0 + figs1] = GLAD
    give(S, 0, cid(rs, card0))
    give(S, 1, cid(rs, card1))
    return S


def contest(rs, S, p=0, r=GLAD):
    return V.contest_nb(rs.tables, S, p, r, *pols(S.gs[0]))


def test_win_texts(rs):
    S = duel(rs, "T glory_on_win")
    contest(rs, S)
    assert S.glory[0, E.G_CARDS] == 2 and S.glory[0, E.G_BATTLE] == 3
    S = duel(rs, "T rage_on_win")
    contest(rs, S)
    assert S.rage[0] == 6 + 2
    S = duel(rs, "T raise_on_win")
    contest(rs, S)
    assert int(S.stat[0].sum()) == 2  # the card's raise + the region's Rage reward
    S = duel(rs, "T glory_per_kill", figs1=2)
    contest(rs, S)
    assert S.glory[0, E.G_CARDS] == 4  # 2 figures sent to its kill pile x 2
    S = duel(rs, "T draw_on_win")
    n0 = int(S.gs[G_DECK_N])
    contest(rs, S)
    assert S.hand_n[0] == 2 and int(S.gs[G_DECK_N]) == n0 - 2


def test_lose_texts(rs):
    S = duel(rs, "T plain5", "T glory_on_lose")
    contest(rs, S)
    assert S.glory[1, E.G_CARDS] == 3 and S.loc[1, W0] == E.VH_LOC_KILL0 - 0
    S = duel(rs, "T plain5", "T rage_on_lose")
    contest(rs, S)
    assert S.rage[1] == 6 + 2
    S = duel(rs, "T glory_on_win", "T glory_on_win")  # tie: both lose, no win text acts
    contest(rs, S)
    assert S.glory[:2].sum() == 0


def test_static_and_sheet_texts(rs):
    T = rs.tables
    S = duel(rs, "T plain0", "T plain0")
    sheet(rs, S, 0, cid(rs, "T battle_str"))
    contest(rs, S)
    assert S.glory[0, E.G_BATTLE] == 3  # 1 + 2 beats 1
    S = bare(rs)
    S.loc[0, W0] = GLAD
    sheet(rs, S, 0, cid(rs, "T contest_glory"))
    contest(rs, S)
    assert S.glory[0, E.G_CARDS] == 3
    S = duel(rs, "T plain0", "T plain5", figs1=1)
    sheet(rs, S, 0, cid(rs, "T protect"))
    S.loc[0, W1] = GLAD
    contest(rs, S)
    assert sorted(S.loc[0, [W0, W1]].tolist()) == sorted([E.VH_LOC_RESERVE, E.VH_LOC_KILL0 - 1])
    S = duel(rs, "T plain0", "T plain0", figs1=2)  # a tie (2 STR each): Protect acts in it too (R48)
    sheet(rs, S, 0, cid(rs, "T protect"))
    S.loc[0, W1] = GLAD
    contest(rs, S)
    assert sorted(S.loc[0, [W0, W1]].tolist()) == sorted([E.VH_LOC_RESERVE, E.VH_LOC_FEAST])
    assert S.loc[1, W0] == S.loc[1, W1] == E.VH_LOC_FEAST
    S = bare(rs)
    S.loc[0, W0] = GLAD
    S.loc[1, W0] = GLAD
    S.loc[0, [W1, W2]] = BILS
    sheet(rs, S, 0, cid(rs, "T call_extra"))
    call_to_battle_nb(T, S, 0, GLAD, *pols())
    assert (S.loc[0] == GLAD).sum() == 3  # 1 + call_extra(1) = 2 figures called
    S = bare(rs)
    sheet(rs, S, 0, cid(rs, "T summon_two"))
    assert V.summon_action_nb(T, S, 0, W0, GLAD)
    assert (S.loc[0] == GLAD).sum() == 2 and S.rage[0] == 4
    S = bare(rs)
    assert V.summon_action_nb(T, S, 0, W0, GLAD) and (S.loc[0] == GLAD).sum() == 1 and S.rage[0] == 5


def test_phase_texts(rs):
    T = rs.tables
    S = bare(rs)
    S.loc[0, [W0, W1]] = VALH
    sheet(rs, S, 0, cid(rs, "T valor_glory"))
    V.valor_phase_nb(T, S)
    assert S.glory[0, E.G_VALOR] == 6 and S.glory[0, E.G_CARDS] == 4
    S = bare(rs)
    sheet(rs, S, 0, cid(rs, "T kill_glory"))
    sheet(rs, S, 0, cid(rs, "T fallen_glory"), 1)
    S.loc[1, [W0, W1]] = E.VH_LOC_KILL0 - 0
    S.loc[0, W0] = E.VH_LOC_FEAST
    V.release_nb(T, S)
    assert S.glory[0, E.G_CARDS] == 2 * 2 + 1
    S = bare(rs)
    sheet(rs, S, 0, cid(rs, "T quest_glory"))
    q = cid(rs, "T q_claims")
    S.slot[0, 1], S.slot_quest[0, 1] = q, 1
    S.claims[0] = 1
    V.quest_phase_nb(T, S, *pols())
    assert S.glory[0, E.G_CARDS] == 2 and S.glory[0, E.G_QUEST] > 0
    S = bare(rs)
    sheet(rs, S, 0, cid(rs, "T carry_extra"))
    for c in ("T plain0", "T plain5", "T glory_on_win", "T rage_on_win", "T raise_on_win", "T draw_on_win"):
        give(S, 0, cid(rs, c))
    V.end_age_nb(T, S, *pols())
    assert S.saved_n[0] == 3 + 2
    S = bare(rs)
    sheet(rs, S, 0, cid(rs, "T draw_age"))
    V.draft_nb(T, S, *pols())
    assert S.hand_n[0] == 5 + 1 and S.hand_n[1] == 5


def test_monster_texts_act_only_when_it_fights(rs):
    """rulings R47: a Monster's battle text acts in battles it fights in."""
    m = cid(rs, "T monster")

    def with_monster(at):
        S = duel(rs, "T plain5")
        sheet(rs, S, 0, m)
        S.mon_card[0, 0] = m
        S.loc[0, E.VH_FIG_MONSTER0] = at
        contest(rs, S)
        return S
    assert with_monster(GLAD).glory[0, E.G_CARDS] == 4
    assert with_monster(BREI).glory[0, E.G_CARDS] == 0  # not adjacent: it cannot be called


@pytest.mark.parametrize("quest,setup,met", [
    ("q_region", lambda S: S.loc.__setitem__((0, W0), GLAD), True),
    ("q_region", lambda S: (S.loc.__setitem__((0, W0), GLAD), S.loc.__setitem__((1, W0), GLAD)), False),
    ("q_valhalla", lambda S: S.loc.__setitem__((0, W0), VALH), True),
    ("q_valhalla", lambda S: S.loc.__setitem__((0, W0), GLAD), False),
    ("q_god", lambda S: (S.god_at.__setitem__(BILS, 0), S.loc.__setitem__((0, W0), BILS)), True),
    ("q_god", lambda S: S.loc.__setitem__((0, W0), BILS), False),
    ("q_spread", lambda S: S.loc.__setitem__((0, slice(W0, W0 + 3)), [GLAD, BILS, VALH]), True),
    ("q_spread", lambda S: S.loc.__setitem__((0, slice(W0, W0 + 3)), [GLAD, GLAD, VALH]), False),
    ("q_kills", lambda S: S.loc.__setitem__((1, slice(W0, W0 + 2)), E.VH_LOC_KILL0 - 0), True),
    ("q_kills", lambda S: S.loc.__setitem__((1, W0), E.VH_LOC_KILL0 - 0), False),
    ("q_fallen", lambda S: S.loc.__setitem__((0, slice(W0, W0 + 2)), [E.VH_LOC_FEAST, E.VH_LOC_KILL0 - 2]), True),
    ("q_fallen", lambda S: S.loc.__setitem__((0, W0), E.VH_LOC_FEAST), False),
    ("q_claims", lambda S: S.claims.__setitem__(0, 1), True),
    ("q_claims", lambda S: None, False),
])
def test_quest_requirements(rs, quest, setup, met):
    S = bare(rs)
    setup(S)
    assert V.quest_met_nb(rs.tables, S, 0, cid(rs, f"T {quest}")) == met
