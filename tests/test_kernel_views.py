"""The precomputed views the engine reads in place of per-call scans (issue 14) give what the scans
give: board.presence_mask_nb / enemy_mask_nb against present_nb / has_enemy_nb (DIGEST §1.2: a clan
is present in a province with a figure there or a Ship in its supporting fjord), and
upgrade_with_op_nb's opcode bitmask (tables.card_opmask) against a scan of card_op."""
from __future__ import annotations

import numpy as np
import pytest

from volva.simulator import engines
from volva.simulator.bloodrage.board import (
    board_view_nb,
    clan_opmask_nb,
    enemy_mask_nb,
    has_enemy_nb,
    occupancy_nb,
    presence_mask_nb,
    present_nb,
    province_masks_nb,
    sheet_refresh_nb,
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
        board_view_nb(tables, S)  # every clan's masks and the occupancy in one pass
        occ = np.zeros(E.N_PROVINCES, np.int64)
        occupancy_nb(S, occ)
        assert (S.w_occ == occ).all()
        for p in range(P):
            mine, theirs = presence_mask_nb(tables, S, p), enemy_mask_nb(tables, S, p)
            assert (S.w_here[p], S.w_at[p]) == (mine, province_masks_nb(tables, S, p)[0])
            assert S.w_at[p] == sum(1 << int(prov) for prov in set(S.loc[p].tolist()) if 0 <= prov < E.N_PROVINCES)
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
        sheet_refresh_nb(tables, S, 0)  # the kept opcode mask, as upgrade_nb refreshes it
        assert clan_opmask_nb(tables, S, 0) == np.bitwise_or.reduce(
            [int(tables.card_opmask[c]) for c in S.upg[0] if c >= 0] or [0])
        for op in ops:
            want = next((int(c) for c in S.upg[0] if c >= 0 and op in tables.card_op[c]), -1)
            assert upgrade_with_op_nb(tables, S, 0, op) == want, op


def test_greedy_choice_without_a_list_is_choose_action_over_the_list():
    """actions.greedy_choice_nb (greedy's pick found without listing the actions) picks what
    policy.choose_action_nb picks from legal_actions_nb's list (DIGEST §1.5 Action), over random
    positions (scenario tables of test_scenario_legality), random reward tokens and doomed
    provinces, and greedy parameter vectors around the built-in one, Pass scores among them that
    no action beats (greedy then takes the first action listed)."""
    import random

    from test_scenario_legality import _base, _position

    from volva.simulator.bloodrage.actions import _invade_cap, can_act_nb, greedy_choice_nb, legal_actions_nb
    from volva.simulator.bloodrage.board import presence_mask_nb
    from volva.simulator.bloodrage.policy import _action_score, choose_action_nb, decision_facts, effective_params_nb
    from volva.simulator.bloodrage.scenario import load_scenario
    from volva.simulator.core.loading import ScenarioError
    from volva.strategies.lineup import resolve_for

    rng = random.Random(1414)
    resolve = resolve_for("blood-rage")
    sc0 = _base()
    base = np.asarray(resolve("greedy")[1], np.float64)
    acts, ref = np.zeros((E.MAX_ACTS, 3), np.int64), np.zeros((E.MAX_ACTS, 3), np.int64)
    positions, decisions, firsts, types, invades, near = 0, 0, 0, set(), 0, 0
    while positions < 400:
        try:
            sc = load_scenario("legality.toml", _position(rng, sc0), resolve)
        except ScenarioError:
            continue  # over Horns, or a figure where it cannot stand: draw again
        positions += 1
        T, S = sc.T, sc.S
        S.token[:] = [rng.randrange(3) for _ in range(S.token.shape[0])]
        S.doom[:] = [rng.randrange(E.N_PROVINCES) for _ in range(S.doom.shape[0])]
        for p in range(sc.P):
            if not can_act_nb(S, p):
                continue
            params = base.copy()
            # 3.5 less one ulp: the doomed province's 0.5 + P_DOOM falls one ulp below another
            # province's 4.0, and adding a figure's 0.3 rounds the two to the same sum
            params[E.P_DOOM] = rng.choice([0.0, 1.0, 3.0, float(np.nextafter(3.5, 0.0))])
            params[E.P_LATE_RAGE] = rng.choice([0.0, 2.0, 9.0])
            # -2e18: below NEG, so nothing may beat it and greedy takes the first action listed
            params[E.P_PASS_RAGE] = rng.choice([-1.0, 0.0, 4.0, 8.0, -2e18])
            params[E.P_PILLAGE_MARGIN] = rng.choice([-3.0, 0.0, 2.0])
            n_ref = legal_actions_nb(T, S, p, ref)
            i_ref = choose_action_nb(T, S, p, ref, n_ref, E.POL_GREEDY, params)
            got = greedy_choice_nb(T, S, p, acts, params)
            assert got == tuple(ref[i_ref].tolist()), (positions, p, ref[i_ref].tolist(), got)
            # greedy_choice_nb scores the Invades only when _invade_cap reaches the best of the rest
            eff = effective_params_nb(S, p, params)
            doomed, late = decision_facts(S, p, eff)
            cap = _invade_cap(T, eff, doomed, late, S.opmask[p])
            view = (presence_mask_nb(T, S, p), -1, 0)
            for t, a, b in ref[:n_ref]:
                if t == E.A_INVADE:
                    sc = _action_score(T, S, p, t, a, b, eff, view)
                    assert sc <= cap, (positions, p, (a, b), sc, cap)
                    invades += 1
                    near += sc > cap - 1.0
            decisions += 1
            types.add(int(ref[i_ref, 0]))
            firsts += i_ref == 0 and n_ref > 1
    # the positions did reach each kind of choice greedy makes, and its first action listed
    assert decisions > 300 and {E.A_INVADE, E.A_MARCH, E.A_UPGRADE, E.A_QUEST, E.A_PILLAGE, E.A_PASS} <= types, types
    assert firsts > 10, firsts
    assert invades > 1000 and near > 50, (invades, near)  # and some Invades came within 1.0 of the cap



def _vh_random_figures(T, S, rng, slot_share):
    """Random figure locations (regions, the reserve, kill piles, the Feast Hall, none), Monster
    cards and clan sheets (a share ``slot_share`` of the slots filled, a fifth of them quests) on
    a Valhalla state; every sheet's kept sums refreshed."""
    from volva.simulator.valhalla.board import sheet_refresh_nb
    R, n = int(T.n_regions), int(T.n_cards)
    S.loc[:] = rng.integers(E.VH_LOC_NONE, R, size=S.loc.shape)
    S.mon_card[:] = np.where(rng.random(S.mon_card.shape) < 0.6, rng.integers(0, n, S.mon_card.shape), -1)
    S.slot[:] = np.where(rng.random(S.slot.shape) < slot_share, rng.integers(0, n, S.slot.shape), -1)
    S.slot_quest[:] = rng.random(S.slot_quest.shape) < 0.2
    for p in range(E.MAX_PLAYERS):
        sheet_refresh_nb(T, S, p)


def test_valhalla_board_view_agrees_with_the_scans():
    """Blood Rage: Valhalla greedy's one-pass view (valhalla.view.board_view_nb, and
    adjacent_str_nb on its table) gives what the per-call scans give (rulebook "Figures": figure
    STR; "Contest", "Call to Battle": figures in and next to a region), and summon_target_nb's
    Prove Valor neighbour count (adjacency lists, tables.adj_to) gives the score of a scan of the
    adjacency matrix, to the last bit, and never exceeds summon_cap_nb (valor_region_nb's score
    never exceeds valor_cap_nb, contest_score_nb's a region's worth plus choose_action_nb's lift:
    the bounds under which choose_action_nb skips a search)."""
    from volva.simulator.valhalla import policy as VP
    from volva.simulator.valhalla import view as VV
    from volva.simulator.valhalla.board import (
        contestable_nb,
        count_in_nb,
        fig_str_nb,
        is_common_nb,
        str_in_nb,
    )
    from volva.simulator.valhalla.state import G_AGE
    from volva.simulator.valhalla.state import G_NP as VG_NP
    from volva.simulator.valhalla.state import new_state as vh_state
    T = engines.load_ruleset("valhalla").tables
    R = int(T.n_regions)
    assert all(sorted(T.adj_to[r, :T.adj_n[r]].tolist()) == np.flatnonzero(T.adj[r, :R]).tolist() for r in range(R))
    assert (T.adj[:R, :R] == T.adj[:R, :R].T).all()  # adjacent_str_nb reads a region's neighbours' figures
    rng = np.random.default_rng(16)
    S = vh_state()[0]
    n = int(T.n_cards)
    params = np.zeros(E.VP_N)
    adjacent_seen = valor_seen = contest_seen = 0
    for _ in range(150):
        P = int(rng.integers(2, E.MAX_PLAYERS + 1))
        S.gs[VG_NP], S.gs[G_AGE] = P, int(rng.integers(1, 4))
        _vh_random_figures(T, S, rng, 0.4)
        S.view_stale[:] = 1  # figures placed by hand (the engine calls board_changed_nb)
        S.token[:] = rng.random(S.token.shape) < 0.3
        S.god_at[:] = np.where(rng.random(S.god_at.shape) < 0.2, 0, -1)
        S.claimed[:] = np.where(rng.random(S.claimed.shape) < 0.3, 0, -1)
        S.reward[:] = rng.integers(0, len(E.VH_REWARD_NAMES[:5]), size=S.reward.shape)
        S.rage[:] = rng.integers(0, 7, size=S.rage.shape)  # valor_cap_nb's discount above 2 Rage
        S.stat[:] = rng.integers(0, E.N_STEPS, size=S.stat.shape)
        S.hand[:], S.hand_n[:] = rng.integers(0, n, size=S.hand.shape), rng.integers(0, 4, size=S.hand_n.shape)
        S.contests[:] = rng.integers(0, 3, size=S.contests.shape)
        VV.board_view_nb(T, S)
        VV.region_view_nb(T, S)
        for q in range(P):
            for f in range(E.VH_NFIG):
                assert S.w_fstr[q, f] == fig_str_nb(T, S, q, f)
            for r in range(R):
                assert (S.w_cnt[q, r], S.w_str[q, r]) == (count_in_nb(S, q, r), str_in_nb(T, S, q, r))
                f, s = VP.best_adjacent_nb(T, S, q, r)
                assert VV.adjacent_str_nb(T, S, q, r) == (s if f >= 0 else -1), (q, r)
                adjacent_seen += f >= 0
        p = int(rng.integers(0, P))
        want_r, want_s = -1, VP.NEG  # the scan summon_target_nb replaced, term by term
        for r in range(R):
            if not is_common_nb(T, S, r):
                continue
            s = 0.0
            if contestable_nb(T, S, r):
                s += VV.reward_worth_nb(T, S, r) * 0.4
                if count_in_nb(S, p, r) == 0:
                    s += 1.0
            rival = max([str_in_nb(T, S, q, r) for q in range(P) if q != p] + [0])
            s -= 0.5 * max(rival - str_in_nb(T, S, p, r), 0)
            for x in range(R):
                if T.adj[r, x] == 1 and (S.god_at[x] >= 0 or x == T.valhalla or S.token[x] == 1):
                    s += 0.3
            s += 0.001 * ((r * 7 + p * 3) % 11)  # tables.spread
            if s > want_s:
                want_r, want_s = r, s
        assert VP.summon_target_nb(T, S, p, params) == (want_r, want_s)
        for q in range(P):  # choose_action_nb skips the search when a found action beats this cap
            r_, s_ = VP.summon_target_nb(T, S, q, params)
            assert r_ < 0 or 3.0 + s_ + 1.0 < VP.summon_cap_nb(T, S, True)  # a Monster
            assert r_ < 0 or 3.0 + s_ < VP.summon_cap_nb(T, S, False)
            assert S.w_onb[q] == sum(count_in_nb(S, q, r) for r in range(R))
            vp = params.copy()
            vp[E.VP_VALOR] = rng.normal(0.0, 3.0)
            src, _, s = VP.valor_region_nb(T, S, q, vp)
            assert src < 0 or s < VP.valor_cap_nb(T, S, q, vp)
            valor_seen += src >= 0
            # choose_action_nb scores no contest in a region whose worth + this lift is no better
            lift = max(3.0, float(T.track[E.STAT_AXES, S.stat[q, E.STAT_AXES]]))
            for r in range(R):
                c = VP.contest_score_nb(T, S, q, r, vp, VP.best_battle_value_nb(T, S, q))
                assert c <= S.rv_worth[r] + lift, (q, r)
                contest_seen += c > VP.NEG
    assert adjacent_seen > 100 and valor_seen > 50 and contest_seen > 50


def test_valhalla_moves_keep_the_board_view():
    """board.move_fig_nb keeps a clan's rows of the kept board view as a recount gives them
    (counts, STR, strongest figure, figures on the board), for moves between regions, the reserve,
    kill piles and the Feast Hall (rulebook "Summon", "March", "Contest": figures move and die),
    and leaves a stale clan's rows to the recount."""
    from volva.simulator.valhalla import view as VV
    from volva.simulator.valhalla.board import move_fig_nb
    from volva.simulator.valhalla.state import G_NP as VG_NP
    from volva.simulator.valhalla.state import new_state as vh_state
    T = engines.load_ruleset("valhalla").tables
    R = int(T.n_regions)
    rng = np.random.default_rng(17)
    S = vh_state()[0]
    dests = [E.VH_LOC_RESERVE, E.VH_LOC_FEAST, E.VH_LOC_KILL0, E.VH_LOC_KILL0 - 1, *range(R)]
    moved = emptied = 0
    for _ in range(60):
        P = int(rng.integers(2, E.MAX_PLAYERS + 1))
        S.gs[VG_NP] = P
        _vh_random_figures(T, S, rng, 0.4)
        VV.board_view_nb(T, S)
        for _ in range(40):
            p, f = int(rng.integers(0, P)), int(rng.integers(0, E.VH_NFIG))
            src = int(S.loc[p, f])
            move_fig_nb(T, S, p, f, int(rng.choice(dests)))
            moved += 0 <= src < R
            emptied += 0 <= src < R and S.w_cnt[p, src] == 0
            kept = [S[k][:P].copy() for k in ("w_cnt", "w_str", "w_fstr", "w_fmax", "w_onb")]
            S.view_stale[:P] = 1
            VV.board_view_nb(T, S)
            for k, a in zip(("w_cnt", "w_str", "w_fstr", "w_fmax", "w_onb"), kept):
                assert (S[k][:P] == a).all(), k
    assert moved > 1000 and emptied > 100
    S.view_stale[0] = 1  # a stale clan's rows are left for board_view_nb's recount
    before = S.w_cnt[0].copy()
    f = int(np.flatnonzero(S.loc[0] < 0)[0]) if (S.loc[0] < 0).any() else 0
    move_fig_nb(T, S, 0, f, 0)
    assert (S.w_cnt[0] == before).all() and S.view_stale[0] == 1


def test_draft_pick_counts_gods_once_and_picks_what_pick_score_picks(tables):
    """policy.draft_pick_nb counts the clan's cards of each god once per pick (god_counts_nb) in
    place of a pass over hand and sheet for every card of the pack, and on the batch path reads
    each card's score before synergy from the seat's row (draft_table_nb): either way it keeps the
    first card of the highest pick_score_nb (DIGEST §1.5 Draft), over random hands, sheets, packs,
    card weights and greedy parameters with synergy and hate-drafting weights."""
    from volva.simulator.bloodrage.policy import draft_pick_nb, draft_table_nb, pick_score_nb
    from volva.strategies.lineup import resolve_for
    rng = np.random.default_rng(16)
    S = new_state()[0]
    rows = new_state()[0]  # another record: its pol_params rows with draft_table_nb's columns
    n = int(tables.n_cards)
    base = np.asarray(resolve_for("blood-rage")("greedy")[1], np.float64)
    picks_seen = set()
    for _ in range(300):
        k = int(rng.integers(0, 8))
        S.hand[0, :k] = rng.integers(0, n, k)
        S.hand_n[0] = k
        S.upg[0] = np.where(rng.random(E.N_SLOTS) < 0.4, rng.integers(0, n, E.N_SLOTS), -1)
        params = base.copy()
        params[E.P_SYNERGY] = rng.choice([0.0, 0.5, 2.0])
        params[E.P_HATE] = rng.choice([0.0, 0.3])
        params[E.P_CARD_W0:E.P_CARD_W0 + n] += rng.choice([0.0, 1.0]) * rng.normal(0.0, 1.0, n)
        rows.pol_params[0, :E.N_PARAMS] = params
        draft_table_nb(tables, rows, 1)
        m = int(rng.integers(1, 9))
        pack = rng.integers(0, n, m).astype(np.int16)
        want = [pick_score_nb(tables, S, 0, int(c), params) for c in pack]
        got = draft_pick_nb(tables, S, 0, pack, m, E.POL_GREEDY, params)
        assert got == int(np.argmax(want)), (pack.tolist(), want)
        assert draft_pick_nb(tables, S, 0, pack, m, E.POL_GREEDY, rows.pol_params[0]) == got
        if params[E.P_SYNERGY] == 0.0:  # the table is the whole score, bit for bit
            assert [rows.pol_params[0, E.N_PARAMS + c] for c in pack] == want
        picks_seen.add(got)
    assert len(picks_seen) > 4  # not always the first card


def test_valhalla_card_worth_from_the_seat_row_is_the_computed_worth():
    """Blood Rage: Valhalla greedy's card worth (draft, keep, Loki's draw; rulebook "Draft Gods'
    Gifts" is the choice, the worth is the bot's price) read from a seat's batch row
    (valhalla.policy.draft_table_nb's columns) is, bit for bit, the one computed from its
    parameters, for every card and random parameter vectors; so is the pick from random packs."""
    from volva.simulator.valhalla import policy as VP
    from volva.simulator.valhalla.state import new_state as vh_state
    T = engines.load_ruleset("valhalla").tables
    rng = np.random.default_rng(18)
    S = vh_state()[0]
    n = int(T.n_cards)
    picks = set()
    for _ in range(30):
        params = rng.normal(0.0, 2.0, E.VP_N)
        S.pol_params[1, :E.VP_N] = params
        VP.draft_table_nb(T, S, 2)
        row = S.pol_params[1]
        want = [VP.card_worth_nb(T, S, 1, c, params) for c in range(n)]
        assert [VP.card_worth_nb(T, S, 1, c, row) for c in range(n)] == want
        pack = rng.integers(0, n, 6).astype(np.int64)
        got = VP.draft_pick_nb(T, S, 1, pack, 6, E.VPOL_GREEDY, row)
        assert got == VP.draft_pick_nb(T, S, 1, pack, 6, E.VPOL_GREEDY, params) == int(np.argmax([want[c] for c in pack]))
        picks.add(got)
    assert len(picks) > 3


def test_draft_prices_from_the_derived_columns_are_the_branches_they_replace(tables):
    """policy._type_score_nb and _plain_worth_nb read the card columns rules.make_tables derives
    (card_wparam, card_wqty, card_wdiv, card_plain): bit for bit the values of greedy's draft
    formulas by card type (DIGEST §1.5 Draft is the card's choice; these are the bot's prices)."""
    from volva.simulator.bloodrage.policy import _plain_worth_nb, _type_score_nb
    rng = np.random.default_rng(17)
    n = int(tables.n_cards)
    for _ in range(20):
        params = rng.normal(0, 2, E.N_PARAMS)
        for c in range(n):
            t, v, q = int(tables.card_type[c]), int(tables.card_value[c]), int(tables.card_qglory[c])
            if t == E.CT_BATTLE:
                want, plain = params[E.P_W_BATTLE] * (3.0 if v < 0 else v), 3.0 if v < 0 else float(v)
            elif t == E.CT_MONSTER:
                want, plain = params[E.P_W_MONSTER] * v, float(v)
            elif t == E.CT_QUEST:
                want, plain = params[E.P_W_QUEST] * q / 3.0, q / 3.0
            else:
                want, plain = params[E.P_W_UPGRADE] * (2.5 if t == E.CT_WARRIOR else 1.5), 2.0
            assert _type_score_nb(tables, c, params) == want and _plain_worth_nb(tables, c) == plain, c
    assert {int(x) for x in tables.card_type[:n]} >= {E.CT_BATTLE, E.CT_MONSTER, E.CT_QUEST, E.CT_WARRIOR}


def test_valhalla_battle_values_are_the_battle_cards_values():
    """rules.VTABLES_DTYPE's derived columns: card_bv (policy.best_battle_value_nb reads it), a
    battle card's +STR, 0 for every other card; card_lose (policy.battle_card_nb), a battle card's
    +STR + 2 x what it pays on losing, 0 for every other card."""
    from volva.simulator.valhalla.board import card_op_sum_nb
    from volva.simulator.valhalla.policy import best_battle_value_nb
    from volva.simulator.valhalla.state import new_state as vh_state

    T = engines.load_ruleset("valhalla").tables
    n = int(T.n_cards)
    battle = T.card_type[:n] == E.VCT_BATTLE
    assert battle.any() and (~battle).any()
    assert (T.card_bv[:n] == np.where(battle, T.card_value[:n], 0)).all()
    pays = 0
    for c in range(n):
        lose = sum(card_op_sum_nb(T, c, op) for op in (E.VOP_GLORY_ON_LOSE, E.VOP_STEAL_ON_LOSE, E.VOP_RAGE_ON_LOSE))
        assert T.card_lose[c] == (T.card_value[c] + 2.0 * lose if battle[c] else 0.0), c
        pays += bool(battle[c] and lose)
    assert pays > 0  # some battle card pays its loser
    S = vh_state()[0]
    S.hand[0, :3] = [int(np.flatnonzero(~battle)[0]), int(np.flatnonzero(battle)[0]), int(np.flatnonzero(battle)[-1])]
    S.hand_n[0] = 3
    assert best_battle_value_nb(T, S, 0) == max(0, int(T.card_value[S.hand[0, 1]]), int(T.card_value[S.hand[0, 2]]))


def test_valhalla_battle_mask_skips_only_opcodes_no_source_carries():
    """contest.battle_mask_nb (rulebook "Contest", "Resolution": a clan's revealed card, upgrades
    and Monsters in the battle act): battle_effects_nb and _count_op_nb give, for every opcode,
    what they give with every bit set, on random sheets, hands and boards; card_opmask holds each
    card's opcodes."""
    from volva.simulator.valhalla import contest as VC
    from volva.simulator.valhalla.state import new_state as vh_state

    T = engines.load_ruleset("valhalla").tables
    R, n = int(T.n_regions), int(T.n_cards)
    for c in range(n):
        assert int(T.card_opmask[c]) == sum({1 << int(op) for op in T.card_op[c] if op >= 0}), c
    rng = np.random.default_rng(18)
    S = vh_state()[0]
    acting = skipped = 0
    for _ in range(300):
        _vh_random_figures(T, S, rng, 0.3)
        S.played[:] = np.where(rng.random(S.played.shape) < 0.8, rng.integers(0, n, S.played.shape), -1)
        p, r = int(rng.integers(0, E.MAX_PLAYERS)), int(rng.integers(0, R))
        mask = VC.battle_mask_nb(T, S, p, r)
        for op in range(E.N_VOPS):
            S.w_bmask[p] = -1  # every bit: the sums over every source
            full = (VC.battle_effects_nb(T, S, p, r, op), VC._count_op_nb(T, S, p, r, op))
            S.w_bmask[p] = mask
            assert (VC.battle_effects_nb(T, S, p, r, op), VC._count_op_nb(T, S, p, r, op)) == full, (p, r, op)
            acting += full != (0, 0)
            skipped += not (mask >> op) & 1
    assert acting > 300 and skipped > 3000
