"""Battle kernels of Valhalla, the dice game (simulator/valhalla_dice/battle.py; issue 12).

Rules with a die that always shows one face (so outcomes are certain), and the arming policies
against the exact solver: the engine's DP policy must reach the values the solver promises."""
from __future__ import annotations

import numpy as np
import pytest

from volva.simulator.valhalla_dice import battle as B
from volva.simulator.valhalla_dice import dice as D

UNIFORM = np.cumsum([1 / 6] * 6)
UNIFORM[-1] = 1.0
ALL_AXE = np.array([0.0, 0.0, 1.0, 1.0, 1.0, 1.0])  # every die shows an axe
ALL_X = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1.0])  # every die shows the X


def team(*ws):
    return D.Team(list(ws))


def battles(att, dfn, cum=UNIFORM, n=200, a_cfg=None, d_cfg=None, att_giant=None, nmax=6):
    cfg = np.stack([a_cfg if a_cfg is not None else B.phase_cfg(), d_cfg if d_cfg is not None else B.phase_cfg()])
    return B.simulate_battles_nb(D.tables(nmax).arrays, 1, cum, B.side_arrays(att, att_giant), B.side_arrays(dfn), cfg, n)


def test_attacker_arming_nobody_ends_with_no_winner():
    """003 l.105, 130: no attacking Warrior activated -> the battle ends with no winner."""
    r = battles(team(("bow", 3)), team(("axe", 1)), ALL_AXE)
    assert (r[:, 0] == B.NO_WINNER).all() and (r[:, 1:] == 0).all()


def test_defender_arming_nobody_loses():
    """003 l.116: the defender activates no Warrior -> the attacker wins; a Tactic's strength alone
    never defends."""
    d = B.phase_cfg(bonus=10)
    r = battles(team(("axe", 1)), team(("bow", 9)), ALL_AXE, d_cfg=d)
    assert (r[:, 0] == B.ATTACKER_WINS).all() and (r[:, 2] == 0).all()


def test_tie_goes_to_the_attacker_unless_a_jarl_says_otherwise():
    """003 l.119: equal Battle Strength -> the attacker wins; a Jarl's defender_ties reverses it."""
    r = battles(team(("axe", 3)), team(("axe", 3)), ALL_AXE)
    assert (r[:, 0] == B.ATTACKER_WINS).all() and (r[:, 1] == r[:, 2]).all()
    r = battles(team(("axe", 3)), team(("axe", 3)), ALL_AXE, d_cfg=B.phase_cfg(ties=1))
    assert (r[:, 0] == B.DEFENDER_WINS).all()
    r = battles(team(("axe", 3)), team(("axe", 2)), ALL_AXE, d_cfg=B.phase_cfg(bonus=1))  # 2 + a +1 Tactic
    assert (r[:, 0] == B.ATTACKER_WINS).all() and (r[:, 2] == 3).all()


def test_attacking_ice_giant_takes_one_defender_die_once():
    """003 l.394 / DIGEST §5.8: an activated attacking Ice Giant -> the defender rolls one die
    fewer, once per battle. A defender needing six axes then cannot arm."""
    six = team(("axe*6", 9))
    r = battles(team(("axe", 1)), six, ALL_AXE)
    assert (r[:, 0] == B.DEFENDER_WINS).all()
    r = battles(team(("any", 1)), six, ALL_AXE, att_giant=[True])
    assert (r[:, 0] == B.ATTACKER_WINS).all() and (r[:, 2] == 0).all()
    five = team(("axe*5", 9))  # two Ice Giants still take one die: five axes arm
    r = battles(team(("any", 1), ("any", 1)), five, ALL_AXE, att_giant=[True, True])
    assert (r[:, 0] == B.DEFENDER_WINS).all()


def test_x_arms_nobody_but_weapons_exchange():
    """003 l.103: X arms no Warrior, not even an Ice Giant; Weapons exchange (x_only) turns X dice."""
    r = battles(team(("any", 1)), team(("axe", 1)), ALL_X)
    assert (r[:, 0] == B.NO_WINNER).all()
    r = battles(team(("any", 2)), team(("axe", 1)), ALL_X, a_cfg=B.phase_cfg(x_wild=6))
    assert (r[:, 0] == B.ATTACKER_WINS).all() and (r[:, 1] == 2).all()


def phases(t, cfg, n, target=0, nmax=6, seed=3):
    return B.simulate_phases_nb(D.tables(nmax).arrays, seed, UNIFORM, B.side_arrays(t), cfg, target, n)


TEAM_A = team(("axe", 3), ("spear+sword", 5), ("bow*2", 5), ("shield*3", 8))


@pytest.mark.parametrize("cfg, exact", [
    (B.phase_cfg(B.ARM_DP), D.solve(TEAM_A, 6)),
    (B.phase_cfg(B.ARM_NONE), D.solve(TEAM_A, 6, 0)),
    (B.phase_cfg(B.ARM_DP, rerolls=2), D.solve(TEAM_A, 6, 2)),
    (B.phase_cfg(B.ARM_DP, free=2), D.solve(TEAM_A, 6, free_rerolls=2)),
])
def test_policy_reaches_the_exact_value(cfg, exact):
    """The DP policy followed die by die gives the solver's E[strength] (within 4 standard errors)."""
    r = phases(TEAM_A, cfg, 3000)
    se = r[:, 0].std() / np.sqrt(len(r))
    assert abs(r[:, 0].mean() - exact) < 4 * se, (r[:, 0].mean(), exact, se)
    assert r[:, 1].max() <= min(cfg[B.B_REROLLS], 5)  # each paid reroll discards one die, 6 dice allow 5


def test_policy_with_new_weapons_and_a_threshold():
    cfg = B.phase_cfg(B.ARM_DP, new=1)
    r = phases(TEAM_A, cfg, 3000, target=10, nmax=7)
    p = (r[:, 0] >= 10).mean()
    exact = D.solve(TEAM_A, 6, objective=10, new_weapons=1)
    assert abs(p - exact) < 4 * np.sqrt(exact * (1 - exact) / len(r)), (p, exact)


def test_greedy_keep_rule_is_close_to_optimal():
    """valhalla-dice.md §3.3: the greedy keep rule loses a few percent of E[strength] (8.04 vs 8.32
    for team A)."""
    r = phases(TEAM_A, B.phase_cfg(B.ARM_GREEDY), 3000)
    m, se = r[:, 0].mean(), r[:, 0].std() / np.sqrt(len(r))
    assert D.solve(TEAM_A, 6, 0) < m < D.solve(TEAM_A, 6) + 4 * se
    assert abs(m - 8.04) < 4 * se, m


def test_mirror_battle_favours_the_attacker():
    """valhalla-dice.md §3.3: four single-weapon 3s against themselves, 0.735 when the attacker plays
    for P(win); the engine's attacker plays for E[strength], which costs it at most ~0.5 pp."""
    s = team(("axe", 3), ("spear", 3), ("sword", 3), ("bow", 3))
    r = battles(s, s, n=4000)
    p = (r[:, 0] == B.ATTACKER_WINS).mean()
    assert round(D.p_attacker_wins(s, s), 3) == 0.735
    assert 0.735 - 0.005 - 4 * np.sqrt(0.2 / 4000) < p < 0.735 + 4 * np.sqrt(0.2 / 4000), p


def test_battles_are_a_function_of_the_seed():
    a = battles(TEAM_A, TEAM_A, n=50)
    b = battles(TEAM_A, TEAM_A, n=50)
    assert (a == b).all()
