"""The Valhalla dice game engine (simulator/valhalla_dice/: engine, fight, playout; issue 12).

Each test cites the rulebook line (003 l.N) or DIGEST §5.x it checks; the T-numbers are the
design note's test cases (../shared/design/valhalla-dice.md Part 5)."""
from __future__ import annotations

import numpy as np
import pytest

from volva.simulator.core.record import G_LOG_N, G_NP, G_TURNS
from volva.simulator.valhalla_dice import api
from volva.simulator.valhalla_dice import engine as EN
from volva.simulator.valhalla_dice import fight as F
from volva.simulator.valhalla_dice import playout as PO
from volva.simulator.valhalla_dice import state as ST
from volva.simulator.valhalla_dice.battle import ATTACKER_WINS, DEFENDER_WINS, NO_WINNER
from volva.strategies.valhalla_dice import resolve


@pytest.fixture(scope="module")
def rs():
    return api.load()


GREEDY = resolve("greedy")
RANDOM = resolve("random")


def lineup(P, mix=True):
    return [GREEDY if (i % 2 == 0 or not mix) else RANDOM for i in range(P)]


def setup(rs, P, seed=5):
    kinds, params = api.lineup_arrays(lineup(P))
    S = ST.new_state()
    PO.init_state_nb(S, P, np.uint64(seed), True, True)
    start = EN.setup_nb(rs.T, S, kinds, params)
    return S, start


def card_row(rs, name):
    return [c.name for c in rs.content.cards].index(name)


@pytest.mark.parametrize("P", [2, 3, 4, 5, 6])
def test_setup(rs, P):
    """T1-T3. 003 l.55-61: pre-discards 40/20/10/0/0 and, at 6 players, the 12 hand discards go
    back into the deck; l.63-65: one table Warrior each; l.68: draw 7, discard 2."""
    S, start = setup(rs, P)
    pre = {2: 40, 3: 20, 4: 10, 5: 0, 6: 0}[P]
    assert S.gs[ST.G_DISC_N] == pre + (0 if P == 6 else 2 * P)
    assert (S.hand_n[:P] == 5).all() and (S.team_n[:P] == 1).all()
    T = rs.T
    assert all(T.kind[S.team[p, 0]] == 0 for p in range(P))  # Warriors (kind 0)
    held = S.gs[ST.G_DECK_N] + S.gs[ST.G_DISC_N] + S.hand_n[:P].sum() + S.team_n[:P].sum()
    assert held == 120
    assert (S.own_shields[:P] == 4).all() and (S.jarl[:P] >= 0).all()
    assert len(set(S.jarl[:P].tolist())) == P  # each seat keeps one of its own three


def test_two_players_deal_no_3plus_jarl(rs):
    """003 l.49: at 2 players the '3+' Jarls are put aside before dealing."""
    three_plus = {j for j, jarl in enumerate(rs.content.jarls) if jarl.min_players == 3}
    for seed in range(200):
        S, _ = setup(rs, 2, seed)
        assert not set(S.jarl[:2].tolist()) & three_plus


def test_pair_weapon_cap(rs):
    """T4. 003 l.85: action A2 adds two Warriors with at most 3 weapon symbols together (1 + 1 or
    1 + 2, never 2 + 2 or 1 + 3); an Ice Giant's any-symbols count."""
    S, _ = setup(rs, 3)
    T = rs.T
    k, prm = GREEDY

    def pair(*names):
        S.hand[0, :] = -1
        for i, n in enumerate(names):
            S.hand[0, i] = card_row(rs, n)
        S.hand_n[0] = len(names)
        return EN.best_pair_nb(T, S, 0, k, prm)

    assert pair("Bear Archer", "Wolf Twin Bows") == (0, 1)  # 1 + 2
    assert pair("Wolf Twin Bows", "Bear Twin Axes") == (-1, -1)  # 2 + 2
    assert pair("Bear Archer", "Ice Giant Brute") == (-1, -1)  # 1 + 3 any-symbols
    assert pair("Bear Archer", "Ice Giant Skirmisher") == (0, 1)  # 1 + 2 any-symbols


def test_team_cap_forces_a_discard(rs):
    """T5. 003 l.84: a fifth Warrior forces a discard from the team down to 4."""
    S, _ = setup(rs, 3)
    k, prm = GREEDY
    d0 = S.gs[ST.G_DISC_N]
    for name in ("Bear Archer", "Wolf Twin Bows", "Bear Twin Axes", "Ice Giant Brute"):
        EN.add_to_team_nb(rs.T, S, 0, card_row(rs, name), k, prm)
    assert S.team_n[0] == 4 and S.gs[ST.G_DISC_N] == d0 + 1


def test_forced_play(rs):
    """T6. 003 l.83: with no team, only A1/A2; with no team and no Warrior in hand, A4."""
    S, _ = setup(rs, 3)
    T = rs.T
    S.team[0, :] = -1
    S.team_n[0] = 0
    for k, prm in (GREEDY, RANDOM):
        for _ in range(20):
            a, _ = EN.choose_action_nb(T, S, 0, k, prm)
            assert a in (EN.A_ADD1, EN.A_ADD2)
    S.hand[0, :] = -1
    S.hand[0, 0] = card_row(rs, "Fury")
    S.hand_n[0] = 1
    assert EN.choose_action_nb(T, S, 0, *GREEDY)[0] == EN.A_DRAW


def test_no_attack_on_empty_team_or_no_shields(rs):
    """T7. 003 l.86, 92."""
    S, _ = setup(rs, 3)
    assert EN.can_attack_nb(S, 0, 1)
    S.own_shields[1] = 0
    assert not EN.can_attack_nb(S, 0, 1)
    S.team_n[2] = 0
    assert not EN.can_attack_nb(S, 0, 2)
    assert not EN.can_attack_nb(S, 0, 0)


def fixed_dice(rs, face):
    """A copy of the tables whose dice always show ``face`` (0 spear .. 4 shield, 5 X)."""
    arr = rs.tables_arr.copy()
    cum = np.zeros(6)
    cum[face:] = 1.0
    arr[0].cum[:] = cum
    return arr[0]


def battle(rs, T, att, dfn, a_hand=(), d_hand=()):
    S, _ = setup(rs, 3)
    for p, names, hand in ((0, att, a_hand), (1, dfn, d_hand)):
        S.team[p, :] = -1
        for i, n in enumerate(names):
            S.team[p, i] = card_row(rs, n)
        S.team_n[p] = len(names)
        S.hand[p, :] = -1
        for i, n in enumerate(hand):
            S.hand[p, i] = card_row(rs, n)
        S.hand_n[p] = len(hand)
        S.jarl[p] = -1
    kinds, params = api.lineup_arrays(lineup(3, mix=False))
    S.gs[0] = 3
    F.battle_game_nb(T, S, rs.dice_for(params), 0, 1, kinds, params)
    return S


def last_battle(S):
    """The last battle's log row: event, age, attacker, defender, outcome, strengths, armed mask."""
    rows = S.log[:S.gs[4]]
    return rows[rows[:, 0] == F.EV_BATTLE][-1]


def test_attacker_wins_takes_a_shield_and_sends_its_activated(rs):
    """T12. 003 l.121-124: one own shield of the defender; every activated attacker to Valhalla;
    partially armed Warriors stay; the defender keeps its team."""
    T = fixed_dice(rs, 2)  # axes only
    S = battle(rs, T, ["Bear Axeman", "Wolf Twin Bows"], ["Deer Axeman I"])  # 4 against 2
    assert last_battle(S)[4] == ATTACKER_WINS
    assert S.own_shields[1] == 3 and S.won[0, 1] == 1
    assert S.valhalla_n[0] == 1 and S.team_n[0] == 1 and S.team_n[1] == 1  # the bows could not arm


def test_defender_wins_sends_what_it_chooses_the_loser_none(rs):
    """T13. 003 l.125-129: no shield moves; the defender sends a subset of its activated Warriors;
    the losing attacker sends none."""
    T = fixed_dice(rs, 2)
    S = battle(rs, T, ["Deer Axeman I"], ["Bear Twin Axes"])  # 2 against 6
    row = last_battle(S)
    assert row[4] == DEFENDER_WINS and S.own_shields[1] == 4 and S.won[0].sum() == 0
    assert S.valhalla_n[0] == 0 and S.valhalla_n[1] == 1  # Glory 2 >= the greedy send threshold 2


def test_no_winner_when_the_attacker_arms_nobody(rs):
    """T9. 003 l.105, 130: no shield, no Valhalla; played Tactics are discarded all the same."""
    T = fixed_dice(rs, 5)  # X only
    S = battle(rs, T, ["Bear Axeman"], ["Deer Axeman I"], a_hand=["Push Back"])
    assert last_battle(S)[4] == NO_WINNER
    assert S.own_shields[1] == 4 and S.valhalla_n[:2].sum() == 0
    assert S.cnt[0, ST.C_NO_WINNER] == 1


def test_tie_goes_to_the_attacker_and_strength_tactics(rs):
    """T11, T16. 003 l.119: a tie goes to the attacker; Fury +2 turns it for the defender, who plays
    it only when it matters (DIGEST §5.7)."""
    T = fixed_dice(rs, 2)
    S = battle(rs, T, ["Bear Axeman"], ["Deer Axeman II"])  # 4 against 4 (multi-clan needs 3 clans)
    row = last_battle(S)
    assert row[4] == ATTACKER_WINS and row[5] == row[6] == 4
    S = battle(rs, T, ["Bear Axeman"], ["Deer Axeman II"], d_hand=["Fury", "Fury"])
    row = last_battle(S)
    assert row[4] == DEFENDER_WINS and row[6] == 6 and S.hand_n[1] == 1  # one Fury was enough


def test_clan_counter_power(rs):
    """T15. 003 l.392 / DIGEST §5.8: Boar's clan-counter +3 when the opponent's team holds a Warrior
    of the indicated colour."""
    T = fixed_dice(rs, 2)
    S = battle(rs, T, ["Bear Axeman"], ["Boar Axeman"])  # counter(bear, 3): 2 + 3 against 4
    row = last_battle(S)
    assert row[4] == DEFENDER_WINS and row[6] == 5
    S = battle(rs, T, ["Wolf Axeman"], ["Boar Axeman"])  # no Bear on the attacking team: 2 against 3
    assert last_battle(S)[4] == ATTACKER_WINS


def test_ice_giant_costs_the_defender_a_die(rs):
    """T14. 003 l.394: an activated attacking Ice Giant -> the defender rolls 5 dice."""
    T = fixed_dice(rs, 2)
    two = ["Boar Triple Axes", "Bear Triple Axes"]  # 8 + 10, six axes together
    S = battle(rs, T, ["Wolf Axeman"], two)
    assert last_battle(S)[6] == 18
    S = battle(rs, T, ["Ice Giant Skirmisher"], two)
    assert last_battle(S)[6] == 10  # five axes arm one triple: the stronger


def test_empty_deck_draws_nothing(rs):
    """T19. 003 l.137: drawing from an empty deck draws nothing."""
    S, _ = setup(rs, 3)
    S.gs[ST.G_DECK_N] = 0
    n = S.hand_n[0]
    assert EN.draw_nb(S, 0) == -1 and S.hand_n[0] == n


@pytest.mark.parametrize("P", [2, 3, 4, 5, 6])
def test_end_one_final_round_then_ragnarok(rs, P):
    """T18, T20. 003 l.131-142: after the trigger turn, one final turn each, the trigger player
    last; Ragnarök empties every team and hand; a shieldless player stays in the game."""
    for seed in range(30):
        S = api.play_game(rs, lineup(P), seed)
        log = S.log[:S.gs[4]]
        end_i = np.flatnonzero(log[:, 0] == 4)
        assert len(end_i) == 1
        turns_after = log[end_i[0]:][log[end_i[0]:, 0] == EN.EV_TURN]
        assert len(turns_after) == P and turns_after[-1, 2] == S.gs[ST.G_END_SEAT]
        assert (S.team_n[:P] == 0).all() and (S.hand_n[:P] == 0).all()
        rag = log[log[:, 0] == F.EV_RAGNAROK]
        assert len(rag) <= P
        assert S.gs[10] == 0  # no invariant violated


def score(rs, P, won, own, valhalla_glory=0, shield_glory=None):
    S, _ = setup(rs, P)
    S.valhalla_n[:] = 0
    S.jarl[:] = -1
    S.won[:, :] = np.asarray(won)
    S.own_shields[:P] = own
    PO.score_nb(rs.T, S, np.full(P, -1, np.int64) if shield_glory is None else np.asarray(shield_glory, np.int64))
    return S


def test_scoring_by_player_count(rs):
    """T21. DIGEST §5.11 (003 l.146-152): 2 per shield held; at 2 players own shields score nothing;
    sets of different opponents' shields: 3 p +2 per pair, 4 p +3 per three."""
    won = np.zeros((6, 6), int)
    won[0, 1] = 2
    S = score(rs, 2, won, [4, 2])
    assert S.glory[0] == 4 and S.glory[1] == 0  # own shields score 0 at 2 players
    won = np.zeros((6, 6), int)
    won[0, 1], won[0, 2] = 2, 1
    S = score(rs, 3, won, [4, 2, 3])
    assert S.glory[0] == 2 * (4 + 3) + 2  # one set of two different opponents
    won = np.zeros((6, 6), int)
    won[0, 1] = won[0, 2] = won[0, 3] = 2
    S = score(rs, 4, won, [4, 2, 2, 2])
    assert S.glory[0] == 2 * (4 + 6) + 2 * 3  # two sets of three
    won = np.zeros((6, 6), int)
    won[0, 1:5] = 1
    S = score(rs, 5, won, [4, 3, 3, 3, 3])
    assert S.glory[0] == 2 * 8 + 4  # one set of four beats a set of three (+2)


def test_tie_breaks(rs):
    """T22. 003 l.144: equal Glory -> most opponents' shields, then most own shields, else shared."""
    won = np.zeros((6, 6), int)
    won[1, 2] = 1
    S = score(rs, 3, won, [4, 3, 3])  # 8, 8, 6 Glory: seat 1 has the opponent's shield
    assert S.glory[0] == S.glory[1] == 8 and S.rank[1] == 1 and S.rank[0] == 2
    S = score(rs, 3, np.zeros((6, 6), int), [4, 4, 4])
    assert (S.rank[:3] == 1).all()


def test_invariants_over_10000_games(rs):
    """T24: cards conserved, own + lost shields = 4, teams <= 4, grey dice back, after every turn,
    over 2,000 games at each of 2..6 players."""
    for P in range(2, 7):
        r = api.play_results(rs, lineup(P), np.arange(2000, dtype=np.uint64) + 10_000 * P, check=True)
        assert (r.violation == 0).all(), (P, np.bincount(r.violation))
        assert (r.rank[:, :P] >= 1).all() and ((r.rank == 1).sum(1) >= 1).all()
        assert set(np.unique(r.end)) <= {ST.END_SHIELD, ST.END_DECK}


def test_results_do_not_depend_on_batching(rs):
    seeds = np.arange(300, dtype=np.uint64) + 77
    a = api.play_results(rs, lineup(4), seeds)
    b1 = api.play_results(rs, lineup(4), seeds[:101])
    b2 = api.play_results(rs, lineup(4), seeds[101:])
    for f in a._fields:
        assert (getattr(a, f) == np.concatenate([getattr(b1, f), getattr(b2, f)])).all(), f
    S = api.play_game(rs, lineup(4), int(seeds[5]), log=False, check=False)
    assert (S.glory[:4] == a.glory[5]).all() and S.gs[G_TURNS] == a.turns[5] and S.gs[G_NP] == 4


def test_archetypes_play_as_named(rs):
    """Issue 12 item 4: the raider attacks most, the turtle least and banks the most Warriors per
    won defence; no-reroll leaves its attacks without a winner most often."""
    names = ["greedy", "raider", "turtle", "no-reroll"]
    r = api.play_results(rs, [resolve(n) for n in names], np.arange(3000, dtype=np.uint64))
    c = {n: r.cnt[:, i].sum(0) for i, n in enumerate(names)}
    attacks = {n: c[n][ST.C_ATTACKS] for n in names[:3]}
    assert max(attacks, key=attacks.get) == "raider" and min(attacks, key=attacks.get) == "turtle"
    banked = {n: c[n][ST.C_SENT_DEFENCE] / c[n][ST.C_DEFENCE_WINS] for n in names}
    assert max(banked, key=banked.get) == "turtle"
    no_win = {n: c[n][ST.C_NO_WINNER] / c[n][ST.C_ATTACKS] for n in names}
    assert max(no_win, key=no_win.get) == "no-reroll"


def test_hoarder_and_set_collector_play_as_named(rs):
    """Issue 12 item 4: the hoarder takes the largest share of its Glory from Ragnarök (003 l.138-142);
    the set-collector scores the most set bonus per shield it wins (DIGEST §5.11)."""
    names = ["greedy", "turtle", "set-collector", "hoarder"]
    r = api.play_results(rs, [resolve(n) for n in names], np.arange(3000, dtype=np.uint64))
    c = {n: r.cnt[:, i].sum(0) for i, n in enumerate(names)}
    rag = {n: c[n][ST.C_GLORY_RAGNAROK] / r.glory[:, i].sum() for i, n in enumerate(names)}
    assert max(rag, key=rag.get) == "hoarder", rag
    sets = {n: c[n][ST.C_GLORY_SETS] / c[n][ST.C_ATTACK_WINS] for n in names}
    assert max(sets, key=sets.get) == "set-collector", sets
    assert c["hoarder"][ST.C_TACTICS_PLAYED] < c["turtle"][ST.C_TACTICS_PLAYED]


def test_jarl_preferences_choose_the_jarl(rs):
    """R59: greedy keeps the dealt Jarl it prefers most (strategy knob VD_JARL_W0 + j), then a
    recommended one; jarl-savvy (library file: measured Jarl win rates) wins more than greedy."""
    from volva.simulator.valhalla_dice.policy import VD_JARL_W0
    seeds = np.arange(2000, dtype=np.uint64)
    kind, v = resolve("greedy")
    j = rs.god_names.index("Ottar")
    v = v.copy()
    v[VD_JARL_W0 + j] = 5.0
    base = api.play_results(rs, [resolve("greedy")] * 4, seeds)
    pref = api.play_results(rs, [(kind, v)] + [resolve("greedy")] * 3, seeds)
    assert (pref.jarl[:, 0] == j).sum() > 3 * (base.jarl[:, 0] == j).sum() > 0
    r = api.play_results(rs, [resolve("jarl-savvy"), resolve("greedy")] * 2, seeds)
    win = (r.rank == 1).mean(0)
    assert win[0] + win[2] > win[1] + win[3] + 0.05, win


def test_jarl_bonus_names_are_checked(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('[jarl_bonus]\n"Einarr" = 1\n')
    with pytest.raises(ValueError, match=r"jarl_bonus.Einarr.*did you mean Einar"):
        resolve(str(f))


def test_jarl_end_abilities_follow_either_and_both(rs):
    """Rulings R55/R62 (DIGEST §5.1): a Jarl's shield_glory acts by its condition at the end of the
    final round: Bernhard (either; secondary after losing a shield), Jarl 21 (both; primary
    always); the Glory is the Jarl's, not the shields'. Agnar (either): draw 3 keep 1 only while
    the secondary (4+ cards in hand) does not hold."""
    from volva.simulator.valhalla_dice.jarls import J_DRAW_KEEP, J_SHIELD_GLORY, ROLE_ATTACK, ROLE_RAGNAROK, ability_arg_nb
    S, _ = setup(rs, 3)
    bern, j21, agnar = (rs.god_names.index(n) for n in ("Bernhard", "Jarl 21", "Agnar"))
    S.jarl[0], S.jarl[1], S.jarl[2] = bern, j21, agnar
    S.own_shields[:3] = rs.T.shields
    assert ability_arg_nb(rs.T, S, 0, J_SHIELD_GLORY, -1, ROLE_RAGNAROK, 0) == -1  # no shield lost yet
    S.own_shields[0] -= 1
    assert ability_arg_nb(rs.T, S, 0, J_SHIELD_GLORY, -1, ROLE_RAGNAROK, 0) == 1
    assert ability_arg_nb(rs.T, S, 1, J_SHIELD_GLORY, -1, ROLE_RAGNAROK, 0) == 2
    S.hand_n[2] = 3
    assert ability_arg_nb(rs.T, S, 2, J_DRAW_KEEP, -1, ROLE_ATTACK, 0) == 3
    S.hand_n[2] = 4
    assert ability_arg_nb(rs.T, S, 2, J_DRAW_KEEP, -1, ROLE_ATTACK, 0) == -1
    won = np.zeros((6, 6), int)
    won[1, 0] = 2
    S = score(rs, 3, won, [2, 4, 4], shield_glory=[-1, 2, -1])
    assert S.glory[1] == 2 * (4 + 2) + 2 * 2 and S.cnt[1, ST.C_GLORY_JARL] == 4  # no set: one opponent
    assert S.cnt[1, ST.C_GLORY_SHIELDS] == 2 * (4 + 2)


@pytest.fixture(scope="module")
def rs_draft():
    return api.load(options={"start_hand": "draft"})


def _draft_moves(S):
    rows = S.log[:S.gs[G_LOG_N]]
    return [(int(r[2]), int(r[3]), int(r[4])) for r in rows if r[0] == EN.EV_DRAFT and r[3] <= 2]


@pytest.mark.parametrize("P", [2, 4, 6])
def test_draft_of_starting_hands(rs_draft, P):
    """003 l.304-313 (start_hand=draft, rulings R65): draw 5, 2 face up; A places a card of the hand
    in the pool, B fills the hand to 5 from it and leaves the draft, then 2 more join the pool;
    everyone ends with 5 and the pool's leftovers are discarded (back into the deck at 6, 003 l.61)."""
    placed_total = 0
    for seed in range(40):
        kinds, params = api.lineup_arrays(lineup(P))
        S = ST.new_state()
        PO.init_state_nb(S, P, np.uint64(seed), True, True)
        start = EN.setup_nb(rs_draft.T, S, kinds, params)
        assert (S.hand_n[:P] == 5).all()
        moves = _draft_moves(S)
        took = [m for m in moves if m[1] == 1]
        placed = [m for m in moves if m[1] == 0]
        for p in range(P):  # each seat takes back exactly as many cards as it placed, and leaves once, last
            assert sum(m[0] == p for m in took) == sum(m[0] == p for m in placed)
            mine = [m[1] for m in moves if m[0] == p]
            assert mine.count(2) == 1 and mine[-1] == 2
            if 1 in mine:
                assert 0 not in mine[mine.index(1):]  # B takes its cards, then no more A
        assert moves[0][0] == start  # the first player opens the draft (clockwise from it)
        pre = {2: 40, 4: 10, 6: 0}[P]
        leftovers = 2 + 2 * (P - 1)  # 2 face up, 2 more after every B but the last; placed cards all taken back
        assert S.gs[ST.G_DISC_N] == pre + (0 if P == 6 else leftovers)
        held = S.gs[ST.G_DECK_N] + S.gs[ST.G_DISC_N] + S.hand_n[:P].sum() + S.team_n[:P].sum()
        assert held == 120
        placed_total += len(placed)
    assert placed_total > 0  # the bots do place cards (greedy on a better pool card, random by a coin)


def test_draft_last_player_may_place_once_more(rs_draft):
    """003 l.313: the last player in the draft may take A once more, then must take B. With random
    seats (a coin each time), no seat places two cards in a row while alone in the draft."""
    kinds, params = api.lineup_arrays([RANDOM] * 3)
    seen_alone = False
    for seed in range(200):
        S = ST.new_state()
        PO.init_state_nb(S, 3, np.uint64(seed), True, True)
        EN.setup_nb(rs_draft.T, S, kinds, params)
        moves = _draft_moves(S)
        done = set()
        for i, (p, b, _) in enumerate(moves):
            if b == 2:
                done.add(p)
            if len(done) == 2 and b == 0 and p not in done:  # alone in the draft, placing
                seen_alone = True
                later = [m for m in moves[i + 1:] if m[0] == p]
                assert all(m[1] != 0 for m in later), (seed, moves)  # takes and leaves, no second A
    assert seen_alone


def test_draft_games_keep_the_invariants(rs_draft):
    """T24's invariants with the draft variant, 2..6 players."""
    for P in range(2, 7):
        r = api.play_results(rs_draft, lineup(P), np.arange(300, dtype=np.uint64) + 1000 * P, check=True)
        assert (r.violation == 0).all(), (P, np.bincount(r.violation))


def test_weapons_exchange_all_one_games_keep_the_invariants():
    """T24's invariants with Weapons exchange read as all_one (R66), 4 players; the card is played."""
    r4 = api.load(options={"weapons_exchange": "all_one"})
    r = api.play_results(r4, lineup(4), np.arange(400, dtype=np.uint64) + 3, check=True)
    assert (r.violation == 0).all(), np.bincount(r.violation)
    assert (r.played == r4.card_ids("Weapons Exchange")[0]).any()


def test_two_any_wild_games_keep_the_invariants():
    """T24's invariants with two_any_reading=wild (DIGEST §5.2), 3 players; the two-different cards
    need any two different weapons (the tables' need row empty, any_need = ANY_PAIR)."""
    from volva.simulator.valhalla_dice.dice import ANY_PAIR
    rw = api.load(options={"two_any_reading": "wild"})
    spear_sword = [i for i, c in enumerate(rw.content.cards) if c.weapons == "spear+sword"]
    assert spear_sword and all(rw.T.any_need[i] == ANY_PAIR and rw.T.need[i].sum() == 0 for i in spear_sword)
    assert rw.T.p_armed[spear_sword[0]] > api.load().T.p_armed[spear_sword[0]]
    lineup3 = [GREEDY, RANDOM, resolve("greedy-dp")]
    r = api.play_results(rw, lineup3, np.arange(300, dtype=np.uint64) + 11, check=True)
    assert (r.violation == 0).all(), np.bincount(r.violation)
