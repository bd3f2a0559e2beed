"""The precomputed views the engine reads in place of per-call scans (issue 14) give what the scans
give: board.presence_mask_nb / enemy_mask_nb against present_nb / has_enemy_nb (DIGEST §1.2: a clan
is present in a province with a figure there or a Ship in its supporting fjord), and
upgrade_with_op_nb's opcode bitmask (tables.card_opmask) against a scan of card_op."""
from __future__ import annotations

import numpy as np
import pytest

from volva.simulator import engines
from volva.simulator.bloodrage.board import (
    enemy_mask_nb,
    has_enemy_nb,
    presence_mask_nb,
    present_nb,
    upgrade_with_op_nb,
)
from volva.simulator.bloodrage.state import G_NP, new_state
from volva.simulator.core import enums as E


@pytest.fixture(scope="module")
def tables():
    return engines.load_ruleset("blood-rage").tables


def test_presence_masks_agree_with_present_nb_on_random_boards(tables):
    rng = np.random.default_rng(14)
    S = new_state()[0]
    seen_fjord_support = 0
    for _ in range(200):
        P = int(rng.integers(2, E.MAX_PLAYERS + 1))
        S.gs[G_NP] = P
        # every location code: provinces, fjords, reserve, Valhalla, out of play
        S.loc[:] = rng.integers(E.LOC_NONE, E.LOC_FJORD0 + E.N_FJORDS, size=S.loc.shape)
        for p in range(P):
            mine, theirs = presence_mask_nb(tables, S, p), enemy_mask_nb(tables, S, p)
            for prov in range(E.N_PROVINCES):
                assert bool((mine >> prov) & 1) == present_nb(tables, S, p, prov), (p, prov)
                assert bool((theirs >> prov) & 1) == has_enemy_nb(tables, S, p, prov), (p, prov)
                seen_fjord_support += present_nb(tables, S, p, prov) and prov not in S.loc[p]
    assert seen_fjord_support > 0  # the boards did test presence through a fjord alone


def test_opcode_mask_is_derived_from_card_op(tables):
    n = int(tables.n_cards)
    for c in range(n):
        ops = {int(o) for o in tables.card_op[c] if o >= 0}
        assert {o for o in range(63) if (int(tables.card_opmask[c]) >> o) & 1} == ops, c


def test_upgrade_with_op_agrees_with_a_scan_of_the_sheet(tables):
    rng = np.random.default_rng(15)
    S = new_state()[0]
    n = int(tables.n_cards)
    ops = sorted({int(o) for o in tables.card_op[:n].ravel() if o >= 0})
    for _ in range(100):
        S.upg[0] = np.where(rng.random(E.N_SLOTS) < 0.5, rng.integers(0, n, E.N_SLOTS), -1)
        for op in ops:
            want = next((int(c) for c in S.upg[0] if c >= 0 and op in tables.card_op[c]), -1)
            assert upgrade_with_op_nb(tables, S, 0, op) == want, op
