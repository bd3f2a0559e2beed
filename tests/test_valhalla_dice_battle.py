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


def battles(att, dfn, cum=UNIFORM, n=200, a_cfg=None, d_cfg=None, att_giant=None):
    cfg = np.stack([a_cfg if a_cfg is not None else B.phase_cfg(), d_cfg if d_cfg is not None else B.phase_cfg()])
    return B.simulate_battles_nb(D.arming_bank(), 1, cum, B.side_arrays(att, att_giant), B.side_arrays(dfn), cfg, n)


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


def phases(t, cfg, n, target=0, seed=3):
    return B.simulate_phases_nb(D.arming_bank(), seed, UNIFORM, B.side_arrays(t), cfg, target, n)


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
    r = phases(TEAM_A, cfg, 3000, target=10)
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


def _random_team(rng):
    weapons = list(D.WEAPONS)
    out = []
    pairs = []
    for t in range(int(rng.integers(1, 5))):
        if rng.random() < 0.2:
            out.append((f"any*{rng.integers(1, 4)}", int(rng.integers(1, 9))))
        else:
            ws = rng.choice(weapons, int(rng.integers(1, 3)), replace=False)
            out.append(("+".join(f"{w}*{rng.integers(1, 3)}" for w in ws), int(rng.integers(1, 9))))
            if rng.random() < 0.15:
                pairs.append(t)
    team = D.Team(out)
    team.need[pairs] = 0  # two_any_reading=wild: any two different weapons
    team.any_need[pairs] = D.ANY_PAIR
    return team


@pytest.mark.parametrize("seed", range(24))
def test_lumped_die_values_equal_the_full_die(seed):
    """The engine's DP solves a lumped die (dice.arming_bank: unused weapons as one face, merged
    with the X when nothing can use them). Its values must be the full die's at every pool, for
    any team, Ice Giants, wild X (Weapons exchange), Push back, New weapons and reroll budget."""
    rng = np.random.default_rng(seed)
    t = _random_team(rng)
    need, any_need, strength, _ = B.side_arrays(t)
    new, free = int(rng.integers(0, 3)), int(rng.choice([0, 2]))
    wilds = [0, 0, 6] if (any_need >= D.ANY_PAIR).any() else [0, 0, 6, D.XW_ALL_ONE]
    x_wild, rerolls, target = int(rng.choice(wilds)), int(rng.choice([-1, 1, 2])), int(rng.choice([0, 9]))
    full = D.tables(6 + new)
    bank = D.arming_bank()
    colmap = np.empty(6, np.int64)
    dt = B.layout_tables_nb(bank, B.lump_nb(bank, 6 + new, need, any_need, x_wild, colmap))
    assert len(dt[0]) <= len(full.size)
    need_l = np.zeros_like(need)
    for w in range(5):
        if need[:, w].any():
            need_l[:, colmap[w]] = need[:, w]

    def solve(tb, nd):
        best = D.best_strength_nb(tb[10], tb[1], nd, any_need, strength, x_wild)
        stop = best.astype(float) if target == 0 else (best >= target).astype(float)
        return D.solve_nb(tb, stop, rerolls, free, new)
    v_full, v_lump = solve(full.arrays, need), solve(dt, need_l)
    lumped = np.zeros((len(full.size), 6), np.int8)
    for x in range(6):
        lumped[:, colmap[x]] += full.cnt[:, x]
    idx = [B.pool_index_nb(dt[1], c) for c in lumped]
    np.testing.assert_allclose(v_lump[..., idx], v_full, rtol=0, atol=1e-12)


def test_unequal_weapons_are_not_lumped():
    """A die whose weapons are not equally likely (two axes, no bow) is solved whole."""
    p = (1 / 6, 1 / 6, 2 / 6, 0.0, 1 / 6, 1 / 6)
    bank = D.arming_bank(p)
    colmap = np.empty(6, np.int64)
    need, any_need, _, _ = B.side_arrays(team(("axe", 3)))
    li = B.lump_nb(bank, 6, need, any_need, 0, colmap)
    assert list(colmap) == list(range(6)) and len(B.layout_tables_nb(bank, li)[0]) == len(D.tables(6).size)


@pytest.mark.parametrize("pool, weapons, armed", [
    ((2, 0, 1, 0, 0, 1), "sword*3", True),         # no sword rolled: every die turns to sword
    ((0, 0, 1, 3, 0, 0), "axe*2+sword*2", False),  # axe short by one and no X to cover it
    ((0, 0, 1, 3, 0, 1), "axe*2+sword*2", True),   # the X covers the axe, the bows become swords
    ((0, 0, 1, 2, 0, 0), "axe*2+sword*2", False),  # fewer dice than symbols
    ((1, 1, 1, 0, 0, 0), "any*2+bow", True),       # an Ice Giant takes any weapon, the rest turn to bow
])
def test_weapons_exchange_all_one(pool, weapons, armed):
    """DIGEST §5.7 alternative (the literal 003 l.389, --option weapons_exchange=all_one, R66): the
    dice not placed all turn to one chosen weapon, each X to any weapon."""
    need, anyn = D.parse_weapons(weapons)
    c = np.array(pool, np.int8)
    assert D.armable_nb(c, need, anyn, D.XW_ALL_ONE) == armed
    assert not D.armable_nb(c, need, anyn, 0) or armed  # all_one arms at least what no exchange does


def test_two_any_wild_reading_figure():
    """DIGEST §5.2: read as any two different weapons, six dice show them with no reroll 46,340
    times in 46,656 (99.32 %) [DP]; the printed reading (spear + sword) is far rarer."""
    t = D.Team([("spear+sword", 1)])
    printed = D.solve(t, 6, 0, objective="armed")
    t.need[:] = 0
    t.any_need[:] = D.ANY_PAIR
    assert D.solve(t, 6, 0, objective="armed") == pytest.approx(46340 / 46656, abs=1e-12)
    assert printed < 0.7


@pytest.mark.parametrize("pool, pairs, any_n, x_wild, armed", [
    ((3, 0, 0, 0, 0, 3), 1, 0, 0, False),  # one weapon only: no pair of different weapons
    ((3, 0, 0, 0, 0, 3), 1, 0, 6, True),   # a wild X is the second weapon
    ((2, 2, 0, 0, 0, 0), 2, 0, 0, True),   # spear+sword twice
    ((3, 1, 0, 0, 0, 0), 2, 0, 0, False),  # the second pair would repeat the spear
    ((1, 1, 1, 0, 0, 0), 1, 1, 0, True),   # a pair and an Ice Giant's symbol
    ((1, 1, 0, 0, 0, 0), 1, 1, 0, False),  # too few dice
])
def test_two_different_weapons_armable(pool, pairs, any_n, x_wild, armed):
    """DIGEST §5.2 two_any_reading=wild: each such Warrior needs two dice of different weapons."""
    c = np.array(pool, np.int8)
    assert D.armable_nb(c, np.zeros(5, np.int8), pairs * D.ANY_PAIR + any_n, x_wild) == armed
