"""The invariant harness (like pgx's api_test): many seeded games, checked after every action and phase.

Invariants (simulator/invariants.py): every figure in exactly one valid place of its kind
(DIGEST §1.1, §1.2), figures on the board ≤ Horns (§1.4), villages never over capacity (§1.2),
nothing in destroyed provinces (§1.3, §1.5 Ragnarök), Rage ≥ 0, Glory by source ≥ 0,
cards conserved across deck, hands, discard, clan sheets and battle, the game ends after 3 ages.
"""
import numpy as np
import pytest

from volva.simulator import engines
from volva.simulator.bloodrage.invariants import (
    INV_CARDS,
    INV_DESTROYED,
    INV_HORNS,
    INV_MONSTER,
    INV_NAMES,
    INV_OK,
    INV_OPMASK,
    INV_RAGE,
    INV_VILLAGES,
    check_invariants_nb,
)
from volva.simulator.bloodrage.state import G_AGE, G_PHASE, G_TURNS
from volva.simulator.core import enums as E
from volva.strategies.builtin import resolve

LINEUPS = {
    2: ["greedy", "random"], 3: ["random", "greedy", "random"],
    4: ["greedy", "greedy", "random", "random"], 5: ["random", "greedy", "greedy", "random", "greedy"],
}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("mix", ["mixed", "greedy", "random"])
def test_harness_no_violation(ruleset, players, mix):
    """≥ 10,000 games in all: 12 cells x 1,000 games (2-5 players; greedy, random and mixed lineups)."""
    names = LINEUPS[players] if mix == "mixed" else [mix] * players
    out = engines.play_batch(ruleset, [resolve(n) for n in names], engines.game_seeds(2026, 0, 1000), check=True)
    bad = np.flatnonzero(out.violation)
    assert bad.size == 0, f"game {bad[0]}: {INV_NAMES[out.violation[bad[0]]]}"
    assert (out.n_turns > 0).all()
    # Glory is only ever gained in the base game: every source is non-negative, and the
    # winner's total is the largest (rank 1 = most Glory).
    total = out.glory.sum(-1)
    assert (total[out.rank == 1] == total.max(axis=1).repeat((out.rank == 1).sum(1))).all()


def _final_state(ruleset, seed=5):
    return engines.play_game(ruleset, [resolve("greedy")] * 4, seed, log=False, check=True)


def test_a_finished_game_is_clean_and_ended_after_three_ages(ruleset):
    S = _final_state(ruleset)
    assert check_invariants_nb(ruleset.tables, S) == INV_OK
    assert S.gs[G_AGE] == 3 and S.gs[G_PHASE] == E.PH_END and S.gs[G_TURNS] > 0


@pytest.mark.parametrize("corrupt, code", [
    (lambda S: S.rage.__setitem__(1, -1), INV_RAGE),
    (lambda S: S.hand_n.__setitem__(0, S.hand_n[0] + 1), INV_CARDS),
    (lambda S: S.upg.__setitem__((2, E.SLOT_MONSTER0), -1) or S.loc.__setitem__((2, E.FIG_MONSTER0), E.LOC_RESERVE),
     INV_MONSTER),
    (lambda S: S.opmask.__setitem__(1, S.opmask[1] ^ (1 << E.OP_PROTECT)), INV_OPMASK),
])
def test_checker_catches_corruption(ruleset, corrupt, code):
    """The harness can fail: a corrupted state is reported with the right invariant."""
    S = _final_state(ruleset)
    corrupt(S)
    assert check_invariants_nb(ruleset.tables, S) == code


def test_checker_catches_board_violations(ruleset):
    S = _final_state(ruleset)
    dead = int(np.flatnonzero(S.destroyed[:E.N_OUTER])[0])
    S.loc[0, E.FIG_WARRIOR0] = dead
    assert check_invariants_nb(ruleset.tables, S) == INV_DESTROYED
    S = _final_state(ruleset)
    alive = int(np.flatnonzero(S.destroyed[:E.N_OUTER] == 0)[0])
    S.loc[:4, :9] = E.LOC_RESERVE
    S.loc[0, 1:9] = alive  # 8 Warriors in one outer province (at most 5 villages)
    S.stat[0, E.STAT_HORNS] = E.N_STEPS - 1
    assert check_invariants_nb(ruleset.tables, S) == INV_VILLAGES
    S = _final_state(ruleset)
    S.loc[:4, :10] = E.LOC_RESERVE
    S.stat[0, E.STAT_HORNS] = 0  # Horns 4
    S.loc[0, 0:6] = E.YGGDRASIL
    assert check_invariants_nb(ruleset.tables, S) == INV_HORNS


def test_every_card_text_acts(ruleset):
    """Issue 3: over 2-5 player games with every card active, each card's text (cards.csv `effect`
    non-empty) acts at least once (S.fired, per card)."""
    fired = np.zeros(E.MAX_CARDS, np.int64)
    for players in (2, 3, 4, 5):
        for names in (LINEUPS[players], ["random"] * players):
            out = engines.play_batch(ruleset, [resolve(n) for n in names], engines.game_seeds(77, 0, 1500), check=True)
            assert not out.violation.any()
            fired += out.fired.sum(0)
    silent = sorted({ruleset.card_names[c] for c in range(ruleset.n_cards)
                     if ruleset.card_texts[c] and fired[c] == 0})
    assert silent == [], f"card texts that never acted: {silent}"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_harness_with_gods_of_asgard(players):
    """Issue 3: the invariant harness with the Gods of Ásgard module (DIGEST §2): 2,500 games per
    player count, 10,000 in all (and 12,000 without the module above), all card texts active;
    gods never in a destroyed province nor two on one; every god drawn; each power acts."""
    from volva.simulator.engines import load_ruleset
    r = load_ruleset(options={"gods_of_asgard": True})
    names = LINEUPS[players]
    out = engines.play_batch(r, [resolve(n) for n in names], engines.game_seeds(31, 0, 2500), check=True)
    bad = np.flatnonzero(out.violation)
    assert bad.size == 0, f"game {bad[0]}: {INV_NAMES[out.violation[bad[0]]]}"
    assert (out.gods[:, 0] != out.gods[:, 1]).all() and (out.gods >= 0).all()
    assert set(np.unique(out.gods)) == set(range(6))
    assert (out.god_fired.sum(0) > 0).all(), out.god_fired.sum(0)


def test_the_checks_compile_without_reference_counts():
    """Both engines' Action phases are compiled without reference counts (_nrt=False, which numba
    extends to the kernels they compile) and call checkpoint_nb after every action. A check that
    allocated compiled only when the game loop had compiled it first: a scenario whose first step
    was the Action phase, from an empty kernel cache, stopped with a numba TypingError. The checks
    are therefore _nrt=False kernels themselves, so an allocation in them fails in every order."""
    from volva.simulator.bloodrage import invariants as br
    from volva.simulator.valhalla import invariants as vh
    for mod in (br, vh):
        for kernel in (mod.check_invariants_nb, mod.checkpoint_nb):
            assert kernel.targetoptions.get("_nrt") is False, kernel.py_func.__qualname__
