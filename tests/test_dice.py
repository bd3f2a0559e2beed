"""Exact dice analysis of Valhalla, the dice-and-cards game (issue 12 item 3).

The solver (simulator/valhalla_dice/dice.py) is checked three ways: a closed form (DIGEST §5.6:
every reroll discards a die, so a single weapon gets 6+5+4+3+2+1 = 21 looks), brute force over
every reroll choice of small pools, and the figures of ../shared/design/valhalla-dice.md §3.3.
"""
from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest

from volva.analysis import dice as AD
from volva.simulator.core.loading import RulesError
from volva.simulator.valhalla_dice import dice as D
from volva.simulator.valhalla_dice.rules import load_dice


def team(*ws):
    return D.Team([(w, s) for w, s in ws])


def armed(shape, dice=6, rerolls=None, **kw):
    return D.solve(team((shape, 1)), dice, rerolls, objective="armed", **kw)


# --- closed forms ---------------------------------------------------------------------------
def test_single_weapon_unlimited_rerolls_is_21_looks():
    """003 l.98 / DIGEST §5.6: a reroll discards one unplaced die and rerolls the others while ≥ 2
    remain, so a single weapon is seen on 6+5+4+3+2+1 = 21 dice at best: 1 − (5/6)^21."""
    assert armed("axe") == pytest.approx(1 - (5 / 6) ** 21, abs=1e-12)


def test_no_reroll_is_one_roll():
    """003 l.95: the first roll alone arms a single weapon with P = 1 − (5/6)^n."""
    for n in (1, 5, 6, 7):
        assert armed("shield", n, 0) == pytest.approx(1 - (5 / 6) ** n, abs=1e-12)


def test_x_never_arms_and_any_takes_any_weapon():
    """003 l.103 / DIGEST §5.2: X arms nobody; an Ice Giant's symbol takes any weapon (P 5/6 a die)."""
    assert armed("any", 1, 0) == pytest.approx(5 / 6)
    assert armed("any*2", 2, 0) == pytest.approx((5 / 6) ** 2)
    # with X wild (Weapons exchange, x_only) every die arms an Ice Giant symbol
    assert armed("any*2", 2, 0, x_wild=6) == pytest.approx(1.0)


# --- brute force over every reroll choice --------------------------------------------------
def brute_value(ws, objective, n, k, f=0, g=0):
    """Optimal value by enumerating every die discarded, every subset rerolled and every assignment
    of dice to Warriors, on ordered dice (no multisets, no shared keepers)."""
    need = [D.parse_weapons(w) for w, _ in ws]

    def arms(dice, t, faces):  # faces assigned to Warrior t cover its symbols (any: a non-X die)
        spec, anyn = need[t]
        c = np.bincount(faces, minlength=6)
        left = sum(max(0, c[w] - spec[w]) for w in range(5))
        return all(c[w] >= spec[w] for w in range(5)) and anyn <= left

    @cache
    def U(pool):
        best = 0
        for owner in itertools.product(range(len(ws) + 1), repeat=len(pool)):
            s = 0
            for t in range(len(ws)):
                faces = [pool[i] for i in range(len(pool)) if owner[i] == t]
                if any(owner[i] == t for i in range(len(pool))) and arms(pool, t, faces):
                    s += ws[t][1]
            best = max(best, s)
        return float(objective(best))

    def mean_over(kept, m, fn):
        outs = list(itertools.product(range(6), repeat=m))
        return sum(fn(tuple(sorted(kept + o))) for o in outs) / len(outs)

    @cache
    def V(pool, k, f, g):
        best = U(pool)
        n = len(pool)
        if k and n >= 2:
            for i in range(n):
                rest = pool[:i] + pool[i + 1:]
                for mask in range(1, 1 << len(rest)):
                    kept = tuple(rest[j] for j in range(len(rest)) if not mask >> j & 1)
                    best = max(best, mean_over(kept, bin(mask).count("1"), lambda c: V(c, k - 1, f, g)))
        if f and n >= 1:
            for mask in range(1, 1 << n):
                kept = tuple(pool[j] for j in range(n) if not mask >> j & 1)
                best = max(best, mean_over(kept, bin(mask).count("1"), lambda c: V(c, k, f - 1, g)))
        if g:
            tot = 0.0
            for a, b in itertools.product(range(6), repeat=2):
                tot += max(V(tuple(sorted(pool + (a,))), k, f, g - 1), V(tuple(sorted(pool + (b,))), k, f, g - 1))
            best = max(best, tot / 36)
        return best

    return mean_over((), n, lambda c: V(c, k, f, g))


CASES = [
    ([("axe", 1)], 4, 3, 0, 0),
    ([("axe*2", 1)], 4, 3, 0, 0),
    ([("spear+sword", 2)], 4, 1, 0, 0),
    ([("axe", 3), ("bow", 2)], 4, 3, 0, 0),
    ([("axe", 3), ("any*2", 4)], 4, 2, 0, 0),
    ([("shield*2", 5), ("sword", 3)], 3, 3, 0, 0),
    ([("axe+bow", 4)], 3, 3, 1, 0),     # Push back's free reroll
    ([("axe", 2), ("axe*2", 5)], 2, 3, 0, 1),   # New weapons: roll 2 grey dice, keep 1
]


@pytest.mark.parametrize("ws, n, k, f, g", CASES)
@pytest.mark.parametrize("obj", ["strength", "armed"])
def test_optimal_policy_equals_brute_force(ws, n, k, f, g, obj):
    """The multiset DP with shared keepers = enumeration of every reroll choice (≤ 4 dice)."""
    fn = (lambda s: s) if obj == "strength" else (lambda s: s >= 1)
    got = D.solve(D.Team(ws), n, k, objective=obj, free_rerolls=f, new_weapons=g)
    assert got == pytest.approx(brute_value(ws, fn, n, k, f, g), abs=1e-12)


# --- the design note's figures (valhalla-dice.md §3.3 and §2.2), to the decimals printed -------
P_ARMED = {  # shape: 6 dice k=0, 1, 2, 3, best; 5 dice best
    "axe": (0.6651, 0.8654, 0.9351, 0.9624, 0.9783, 0.9351),
    "spear+sword": (0.4180, 0.7027, 0.8258, 0.8786, 0.8988, 0.7561),
    "axe*2": (0.2632, 0.5370, 0.6931, 0.7719, 0.8047, 0.6106),
    "spear+sword+axe": (0.2431, 0.5171, 0.6566, 0.7123, 0.7123, 0.4536),
    "axe*3": (0.0623, 0.2119, 0.3377, 0.4040, 0.4040, 0.1822),
    "axe*2+bow*2": (0.0422, 0.1601, 0.2415, 0.2415, 0.2415, 0.0624),
}


@pytest.mark.parametrize("shape", P_ARMED)
def test_p_armed_alone_table(shape):
    """valhalla-dice.md §3.3 'P(armed) alone, optimal keeps'."""
    got = [armed(shape, 6, k) for k in (0, 1, 2, 3, None)] + [armed(shape, 5)]
    assert got == pytest.approx(P_ARMED[shape], abs=5e-5)  # the note's 4 decimals


def test_tactics_table():
    """valhalla-dice.md §3.3 Tactics: base, Push back (2 free rerolls), 7 dice, X wild at the end."""
    want = {"spear+sword": (0.899, 0.984, 0.965, 0.997), "axe*2": (0.805, 0.959, 0.920, 0.990),
            "axe*3": (0.404, 0.765, 0.644, 0.878), "axe*2+bow*2": (0.241, 0.645, 0.505, 0.756)}
    for shape, row in want.items():
        got = (armed(shape), armed(shape, free_rerolls=2), armed(shape, 7), armed(shape, x_wild=6))
        assert got == pytest.approx(row, abs=5e-4), shape  # the note's 3 decimals


TEAM_A = team(("axe", 3), ("spear+sword", 5), ("bow*2", 5), ("shield*3", 8))
TEAM_B = team(("axe", 3), ("axe*2", 5), ("any*3", 7))
TEAM_D = team(("axe*2+bow*2", 10), ("shield*3", 8))
SINGLES = team(("axe", 3), ("spear", 3), ("sword", 3), ("bow", 3))


def test_teams_table():
    """valhalla-dice.md §3.3 Teams: E[strength] no reroll, optimal, 5 dice; P(≥ 1 armed)."""
    for t, row in ((TEAM_A, (5.90, 8.32, 6.52)), (TEAM_B, (9.40, 10.58, 9.27)), (TEAM_D, (0.92, 4.13, 1.80))):
        assert np.round([D.solve(t, 6, 0), D.solve(t, 6), D.solve(t, 5)], 2).tolist() == list(row)
    assert round(D.solve(TEAM_A, 6, objective="armed"), 4) == 0.9997
    assert round(D.solve(TEAM_D, 6, objective="armed"), 3) == 0.478
    assert round(D.solve(TEAM_D, 5, objective="armed"), 3) == 0.214


def test_jarl_budget_figures():
    """valhalla-dice.md §2.2: what a free reroll, a die and a wild X are worth to team A and to
    four single-weapon 3s."""
    a = D.solve(TEAM_A, 6)
    got = [D.solve(TEAM_A, 6, free_rerolls=1) - a, D.solve(TEAM_A, 6, free_rerolls=2) - a,
           D.solve(TEAM_A, 7) - a, D.solve(TEAM_A, 5) - a, D.solve(TEAM_A, 6, x_wild=1) - a]
    assert round(a, 2) == 8.32 and np.round(got, 2).tolist() == [1.42, 2.53, 1.86, -1.81, 2.28]
    s = D.solve(SINGLES, 6)
    got = [D.solve(SINGLES, 6, free_rerolls=1) - s, D.solve(SINGLES, 7) - s, D.solve(SINGLES, 5) - s,
           D.solve(SINGLES, 6, x_wild=1) - s]
    assert round(s, 2) == 10.14 and np.round(got, 2).tolist() == [0.77, 0.91, -1.23, 1.27]


def test_attack_against_defence_mirror():
    """valhalla-dice.md §3.3: P(attacker wins), mirror teams, optimal play on both sides
    (003 l.116 no armed defender loses; l.119 a tie goes to the attacker)."""
    assert round(D.p_attacker_wins(SINGLES, SINGLES), 3) == 0.735
    assert round(D.p_attacker_wins(SINGLES, SINGLES, defender_dice=5), 3) == 0.885
    assert round(D.p_attacker_wins(TEAM_A, TEAM_A), 3) == 0.602
    assert round(D.p_attacker_wins(TEAM_A, TEAM_A, defender_dice=5), 3) == 0.807
    # one Warrior: the defender can only tie, so the attacker wins exactly when it arms
    one = team(("axe*2", 4))
    assert D.p_attacker_wins(one, one) == pytest.approx(armed("axe*2"), abs=1e-12)


# --- data and input ---------------------------------------------------------------------------
def test_default_die_is_one_face_each():
    """DIGEST §5.3 (PROVISIONAL): spear, sword, axe, bow, shield, X once each, every colour."""
    assert load_dice() == {c: (1 / 6,) * 6 for c in ("red", "black", "grey")}


def test_a_replaced_die_changes_the_figures(tmp_path):
    """A die with two X faces (a user's layout) arms a single weapon with 1 − (5/6)^21 no more."""
    f = tmp_path / "dice.toml"
    f.write_text("".join(f'[{c}]\nfaces = ["spear", "sword", "axe", "x", "shield", "x"]\n' for c in ("red", "black", "grey")))
    p = load_dice(f)["red"]
    assert p == (1 / 6, 1 / 6, 1 / 6, 0.0, 1 / 6, 2 / 6)
    assert armed("bow", p=p) == 0.0
    assert armed("axe", p=p) == pytest.approx(1 - (5 / 6) ** 21)


@pytest.mark.parametrize("text, needle", [
    ('[red]\nfaces = ["axe"]\n', "[red].faces"),
    ('[red]\nfaces = ["spear", "sword", "axe", "bow", "shield", "hammer"]\n', "'hammer'; allowed: spear"),
    ('[blue]\nfaces = []\n', "[blue]: unknown die colour; allowed: red, black, grey"),
    ('[red]\nfaces = ["spear", "sword", "axe", "bow", "shield", "x"]\n', "[black]: missing"),
    ('[red]\nface = 1\n', "[red].face: unknown field"),
    ('red = 3', "[red]: missing"),
])
def test_bad_die_file_is_one_error(tmp_path, text, needle):
    f = tmp_path / "dice.toml"
    f.write_text(text)
    with pytest.raises(RulesError) as e:
        load_dice(f)
    assert str(f) in str(e.value) and needle in str(e.value)


@pytest.mark.parametrize("spec, needle", [
    ("hammer:3", "'hammer'; allowed weapons: spear, sword, axe, bow, shield, any"),
    ("axe:three", "strength 'three' is not a whole number"),
    ("axe*0", "count 0; allowed: 1..9"),
    ("axe*5+bow*5", "10 weapon symbols; allowed: at most 9"),
    ("axe:0", "strength 0; allowed: 1..50"),
    ("", "an empty Warrior"),
    ("axe:3,,bow", "an empty Warrior"),
    (",".join(["axe"] * 9), "9 Warriors; allowed: 1..8"),
])
def test_bad_team_is_one_error(spec, needle):
    with pytest.raises(ValueError, match=None) as e:
        AD.parse_team(spec)
    assert needle in str(e.value)


def test_solver_refuses_bad_arguments():
    t = team(("axe", 1))
    for kw, needle in (({"dice": 0}, "dice 0"), ({"free_rerolls": -1}, "free_rerolls -1"),
                       ({"objective": "glory"}, "objective 'glory'")):
        with pytest.raises(ValueError, match=needle):
            D.solve(t, **kw)


# --- volva dice ----------------------------------------------------------------------------
def volva(*args):
    from typer.testing import CliRunner

    from volva.cli import app
    return CliRunner().invoke(app, ["dice", *args])


def test_volva_dice_table_and_figure(tmp_path):
    r = volva("axe:3", "axe*2+bow*2:10", "--dice", "5,6", "--rerolls", "0,all", "--out", str(tmp_path))
    assert r.exit_code == 0, r.stderr
    assert "0.9783" in r.stdout and "0.6651" in r.stdout  # single weapon, 6 dice, all / no rerolls
    import pandas as pd
    df = pd.read_csv(tmp_path / "dice.csv")
    assert len(df) == 2 * 4 * 2 * 2 and set(df["tactic"]) == set(AD.TACTICS)
    row = df[(df.team == "axe*2+bow*2:10") & (df.tactic == "push-back") & (df.dice == 6) & (df.rerolls == "all")]
    assert round(float(row.p_armed.iloc[0]), 3) == 0.645
    assert (tmp_path / "dice.png").stat().st_size > 10_000


@pytest.mark.parametrize("args, needle", [
    (["--dice", "0"], "--dice 0; allowed: comma-separated 1..9"),
    (["--rerolls", "many"], "--rerolls 'many'; allowed"),
    (["--tactic", "fury"], "--tactic 'fury'; allowed: none, push-back"),
    (["hammer"], "'hammer'; allowed weapons"),
    (["--colour", "blue"], "--colour 'blue'; allowed: red, black, grey"),
])
def test_volva_dice_bad_input_is_one_line(args, needle):
    r = volva(*args)
    assert r.exit_code == 2 and needle in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_volva_dice_bad_die_file(tmp_path):
    f = tmp_path / "d.toml"
    f.write_text("[red]\nfaces = 1\n")
    r = volva("--dice-file", str(f))
    assert r.exit_code == 2 and f"{f}: [red].faces" in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_unlimited_rerolls_one_layer_equals_many_layers():
    """solve_nb's one-layer pass by pool size (rerolls < 0) = k layers with k ≥ dice − 1."""
    for t, n, kw in ((TEAM_A, 6, {}), (TEAM_B, 5, {"free_rerolls": 1}), (TEAM_D, 6, {"new_weapons": 1}),
                     (SINGLES, 7, {"x_wild": 1})):
        assert D.solve(t, n, None, **kw) == pytest.approx(D.solve(t, n, n + kw.get("new_weapons", 0), **kw), abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_best_strength_equals_every_set_tried(seed):
    """The arming value of each pool (DIGEST §5.6: dice cover all symbols of each Warrior armed,
    each die once) equals the best of every set of the team's Warriors tried on the pool, with and
    without wild X dice (Weapons exchange)."""
    rng = np.random.default_rng(seed)
    tb = D.tables(7)
    T = int(rng.integers(1, 5))
    need = np.zeros((T, 5), np.int8)
    anyn = np.zeros(T, np.int8)
    for t in range(T):
        if rng.random() < 0.2:
            anyn[t] = rng.integers(1, 4)  # an Ice Giant
        else:
            for _ in range(int(rng.integers(1, 4))):
                need[t, rng.integers(0, 5)] += 1
    strength = rng.integers(1, 12, T).astype(np.int32)
    for x_wild in (0, 6):
        got = D.best_strength_nb(tb.cnt, tb.add1, need, anyn, strength, x_wild)
        for s in range(len(tb.cnt)):
            want = max([int(strength[[t for t in range(T) if m >> t & 1]].sum()) for m in range(1, 1 << T)
                        if D.armable_nb(tb.cnt[s], need[[t for t in range(T) if m >> t & 1]].sum(0),
                                        int(anyn[[t for t in range(T) if m >> t & 1]].sum()), x_wild)] + [0])
            assert got[s] == want, (s, tb.cnt[s], x_wild)


def test_volva_dice_refuses_an_unwritable_out_before_solving(tmp_path, monkeypatch):
    """--deck --out somewhere unwritable solved and printed every card, then failed (a helper
    session): the directory is checked first, one line, nothing solved."""
    import volva.analysis.dice as AD
    monkeypatch.setattr(AD, "deck_table", lambda *a, **k: pytest.fail("solved before --out was checked"))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = volva("--deck", "--out", str(blocker / "sub"))
    assert r.exit_code == 2 and "not a writable directory" in r.stderr and r.stderr.count("\n") == 1, r.stderr
