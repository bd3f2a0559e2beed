"""Valhalla dice game modules: Loki's Deception (003 l.157-162) and King of the Hill (003
l.192-205); DIGEST §5.12 items 1-2; rulings R63-R64. Their numbers are PROVISIONAL
(simulator/data/valhalla-dice/modules.toml); the tests name the cards they use."""
from __future__ import annotations

import numpy as np
import pytest
from test_valhalla_dice_engine import fixed_dice  # a helper of the engine tests

from volva.simulator.core.loading import RulesError
from volva.simulator.valhalla_dice import api
from volva.simulator.valhalla_dice import engine as EN
from volva.simulator.valhalla_dice import fight as F
from volva.simulator.valhalla_dice import modules as MO
from volva.simulator.valhalla_dice import playout as PO
from volva.simulator.valhalla_dice import state as ST
from volva.simulator.valhalla_dice.battle import ATTACKER_WINS, DEFENDER_WINS, NO_WINNER
from volva.simulator.valhalla_dice.rules import DICE_DIR
from volva.strategies.valhalla_dice import resolve

GREEDY = resolve("greedy")
BOTH = {"loki_deception": "true", "king_of_the_hill": "true"}


@pytest.fixture(scope="module")
def rs_on():
    return api.load(options=BOTH)


def loki(card):
    return api.load(options={"loki_deception": "true", "loki_card": card})


def setup(rs, P, seed=5):
    kinds, params = api.lineup_arrays([GREEDY] * P)
    S = ST.new_state()
    PO.init_state_nb(S, P, np.uint64(seed), True, True)
    EN.setup_nb(rs.T, S, kinds, params)
    return S


def battle(rs, att, dfn, face=2, king=None):
    """Seat 0 attacks seat 1 with these teams, every die showing ``face`` (2: axe); ``king``:
    (seat, level) holding King card 0 before the battle. Returns the state."""
    T = fixed_dice(rs, face)
    S = setup(rs, 3)
    rows = [c.name for c in rs.content.cards]
    for p, names in ((0, att), (1, dfn)):
        S.team[p, :] = -1
        for i, n in enumerate(names):
            S.team[p, i] = rows.index(n)
        S.team_n[p] = len(names)
        S.hand[p, :] = -1
        S.hand_n[p] = 0
        S.jarl[p] = -1
    if king is not None:
        S.gs[ST.G_KING], S.gs[ST.G_KING_LEVEL] = king
    kinds, params = api.lineup_arrays([GREEDY] * 3)
    F.battle_game_nb(T, S, rs.dice_for(params), 0, 1, kinds, params)
    return S


def last(S, ev):
    rows = S.log[:S.gs[4]]
    return rows[rows[:, 0] == ev][-1]


# --- Loki's Deception ----------------------------------------------------------------------------
def test_loki_loser_gets_the_highest_tier_reached():
    """003 l.161: the loser's bonus is indexed by the strength difference. fallen-heroes: 3 -> 1
    Glory, 6 -> 2. Bear Twin Axes (6) beats Deer Axeman I (2): difference 4 -> 1 Glory."""
    rs = loki("fallen-heroes")
    S = battle(rs, ["Bear Twin Axes"], ["Deer Axeman I"])
    assert last(S, F.EV_BATTLE)[4] == ATTACKER_WINS
    assert S.cnt[1, ST.C_GLORY_LOKI] == 1 and S.cnt[1, ST.C_LOKI_BONUSES] == 1
    assert S.cnt[0, ST.C_GLORY_LOKI] == 0  # the winner gets nothing
    row = last(S, MO.EV_LOKI)
    assert (row[2], row[3], row[4], row[5]) == (1, 4, MO.BONUS_GLORY, 1)
    S = battle(rs, ["Bear Triple Axes"], ["Deer Axeman I"])  # 10 against 2: difference 8 -> 2 Glory
    assert S.cnt[1, ST.C_GLORY_LOKI] == 2


def test_loki_below_the_first_tier_nothing_and_the_losing_attacker_too():
    """003 l.161: under the first tier no bonus (bitter-defeat starts at 10); the bonus goes to the
    loser, attacker or defender ('the player who lost a battle')."""
    S = battle(loki("bitter-defeat"), ["Bear Twin Axes"], ["Deer Axeman I"])
    assert S.cnt[1, ST.C_LOKI_BONUSES] == 0
    S = battle(loki("consolation"), ["Deer Axeman I"], ["Bear Twin Axes"])  # the defender wins 6 to 2
    assert last(S, F.EV_BATTLE)[4] == DEFENDER_WINS
    assert S.cnt[0, ST.C_GLORY_LOKI] == 1 and S.cnt[1, ST.C_GLORY_LOKI] == 0


def test_loki_draw_bonus_and_no_loser_no_bonus():
    """003 l.161 with first-game (0 -> draw 1): the loser draws a card; 003 l.105: a battle
    without a winner has no loser, so no bonus (rulings R63)."""
    rs = loki("first-game")
    S = battle(rs, ["Bear Twin Axes"], ["Deer Axeman I"])
    assert S.hand_n[1] == 1 and S.cnt[1, ST.C_LOKI_BONUSES] == 1
    S = battle(rs, ["Bear Twin Axes"], ["Deer Axeman I"], face=5)  # X only: the attacker arms nobody
    assert last(S, F.EV_BATTLE)[4] == NO_WINNER
    assert S.cnt[:3, ST.C_LOKI_BONUSES].sum() == 0


@pytest.mark.parametrize("card,change", [("long-war", -10), ("humble-start", 10), ("first-game", 0)])
def test_loki_card_changes_the_pre_discard(card, change):
    """003 l.159: some Loki cards change the number of cards discarded at setup (4 players: 10)."""
    S = setup(loki(card), 4)
    assert S.gs[ST.G_DISC_N] == 10 + change + 2 * 4  # + the hand discards (7 keep 5)


def test_random_loki_card_is_drawn_per_game_from_its_seed():
    """003 l.160 ('draw one at random'): the card depends on the game's seed only."""
    rs = loki("random")
    cards = [int(setup(rs, 4, seed).gs[ST.G_LOKI]) for seed in range(60)]
    assert len(set(cards)) >= 8 and cards == [int(setup(rs, 4, seed).gs[ST.G_LOKI]) for seed in range(60)]


# --- King of the Hill ----------------------------------------------------------------------------
def test_king_first_winner_then_whoever_beats_the_king(rs_on):
    """003 l.198: the first battle's winner becomes King at Level 1; anyone who beats the King
    takes the title at Level 1; other battles leave it."""
    T, S = rs_on.T, setup(rs_on, 3)
    assert S.gs[ST.G_KING] == -1
    MO.king_after_battle_nb(T, S, 0, 1)
    assert (S.gs[ST.G_KING], S.gs[ST.G_KING_LEVEL]) == (0, 1)
    S.gs[ST.G_KING_LEVEL] = 3
    MO.king_after_battle_nb(T, S, 2, 1)  # no King in the battle
    MO.king_after_battle_nb(T, S, 0, 2)  # the King wins
    assert (S.gs[ST.G_KING], S.gs[ST.G_KING_LEVEL]) == (0, 3)
    MO.king_after_battle_nb(T, S, 1, 0)  # beats the King (attacking or defending)
    assert (S.gs[ST.G_KING], S.gs[ST.G_KING_LEVEL]) == (1, 1)
    assert S.cnt[0, ST.C_KING_TAKEN] == 1 and S.cnt[1, ST.C_KING_TAKEN] == 1


def test_king_turn_glory_levels_and_bonus_dice(rs_on):
    """003 l.199-200: at the start of the King's turn, with Warriors, the level's Glory, then the
    level rises; at the last level it stays (R64); from Level 2 the attacker's bonus dice."""
    T, S = rs_on.T, setup(rs_on, 3)
    king = rs_on.content.modules.king
    glory, dice = king["glory"][1], king["attack_dice"][1]  # the 3-player bonus card
    MO.king_after_battle_nb(T, S, 1, 0)
    assert MO.king_dice_nb(T, S, 1) == dice[0] == 0 and MO.king_dice_nb(T, S, 0) == 0
    got = []
    for _ in range(len(glory) + 2):
        before = S.cnt[1, ST.C_GLORY_KING]
        MO.king_turn_nb(T, S, 1)
        got.append(S.cnt[1, ST.C_GLORY_KING] - before)
    assert got == glory + [glory[-1]] * 2 and S.gs[ST.G_KING_LEVEL] == len(glory)
    assert MO.king_dice_nb(T, S, 1) == dice[-1]
    S.team_n[1] = 0  # no Warriors: no Glory, the level stays
    MO.king_turn_nb(T, S, 1)
    assert S.cnt[1, ST.C_GLORY_KING] == sum(glory) + 2 * glory[-1]
    MO.king_turn_nb(T, S, 2)  # not the King
    assert S.cnt[2, ST.C_GLORY_KING] == 0


def test_king_attacker_rolls_the_bonus_die(rs_on):
    """003 l.200: attacking a King at Level 2 gives a bonus die (PROVISIONAL: 1 at Level 2). Seven
    axes arm all three Warriors (10 + 8 + 4); six arm the two Triple Axes only (18)."""
    team = ["Bear Triple Axes", "Boar Triple Axes", "Bear Axeman"]
    assert last(battle(rs_on, team, ["Deer Axeman I"]), F.EV_BATTLE)[5] == 18
    assert last(battle(rs_on, team, ["Deer Axeman I"], king=(1, 1)), F.EV_BATTLE)[5] == 18  # Level 1: none
    assert last(battle(rs_on, team, ["Deer Axeman I"], king=(1, 2)), F.EV_BATTLE)[5] == 22
    S = battle(rs_on, team, ["Deer Axeman I"], king=(1, 2))
    assert S.gs[ST.G_KING] == 0 and S.gs[ST.G_KING_LEVEL] == 1  # the winner took the title


def test_two_kings_at_six_players(rs_on):
    """003 l.202-204: two King cards; the second goes to the winner of a battle without the King;
    a King beaten by the other King returns the card to the middle, claimed by the next battle
    that involves no King."""
    T, S = rs_on.T, setup(rs_on, 6)
    king = lambda: (int(S.gs[ST.G_KING]), int(S.gs[ST.G_KING + 1]))  # noqa: E731
    MO.king_after_battle_nb(T, S, 0, 1)
    assert king() == (0, -1)
    MO.king_after_battle_nb(T, S, 2, 0)  # beats King 1
    assert king() == (2, -1)
    MO.king_after_battle_nb(T, S, 3, 4)  # no King in the battle: the second card
    assert king() == (2, 3)
    MO.king_after_battle_nb(T, S, 2, 3)  # King against King: the loser's card to the middle
    assert king() == (2, -1) and S.gs[ST.G_KING_LEVEL + 1] == 0
    MO.king_after_battle_nb(T, S, 5, 2)
    assert king() == (5, -1)
    MO.king_after_battle_nb(T, S, 1, 4)
    assert king() == (5, 1)


def test_king_end_glory_and_scoring(rs_on):
    """003 l.201: the King gains 1 at the end; the modules' Glory is in the final Glory."""
    r = api.play_results(rs_on, [GREEDY] * 4, np.arange(400, dtype=np.uint64), check=True)
    g = r.cnt
    base = g[:, :, [ST.C_GLORY_ATTACK, ST.C_GLORY_DEFENCE, ST.C_GLORY_RAGNAROK, ST.C_GLORY_SHIELDS, ST.C_GLORY_SETS,
                    ST.C_GLORY_JARL]].sum(2)
    assert (r.glory == base + g[:, :, ST.C_GLORY_LOKI] + g[:, :, ST.C_GLORY_KING]).all()
    assert g[:, :, ST.C_GLORY_KING].sum() > 0 and g[:, :, ST.C_GLORY_LOKI].sum() > 0
    assert (g[:, :, ST.C_KING_TAKEN].sum(1) >= 1).mean() > 0.9  # nearly every game crowns a King


def test_modules_keep_the_invariants_at_every_player_count(rs_on):
    """T24's invariants with both modules on (Loki's draws, the King's Glory), 2..6 players."""
    for P in range(2, 7):
        r = api.play_results(rs_on, [GREEDY, resolve("random")] * 3 if P == 6 else [GREEDY] * P,
                             np.arange(600, dtype=np.uint64) + 7 * P, check=True)
        assert (r.violation == 0).all(), (P, np.bincount(r.violation))


def test_modules_off_change_nothing():
    """With both options off the kernels are no-ops: the same games as the base game."""
    seeds = np.arange(200, dtype=np.uint64)
    a = api.play_results(api.load(), [GREEDY] * 4, seeds)
    b = api.play_results(api.load(options={"loki_deception": "false", "king_of_the_hill": "false"}), [GREEDY] * 4, seeds)
    assert (a.glory == b.glory).all() and (a.cnt == b.cnt).all()
    assert a.cnt[:, :, [ST.C_GLORY_LOKI, ST.C_GLORY_KING]].sum() == 0


def test_replay_names_the_modules(rs_on):
    from volva.strategies.valhalla_dice import resolve as res
    text = api.replay_text(rs_on, ["greedy"] * 4, [res("greedy")] * 4, 11, 0)
    assert "Loki's Deception card in play: first-game" in text
    assert "becomes King" in text and "Loki's Deception: seat" in text


# --- data and options -----------------------------------------------------------------------------
def copy_data(tmp_path, text_of_modules):
    import shutil
    d = tmp_path / "valhalla-dice"
    shutil.copytree(DICE_DIR, d)
    (d / "modules.toml").write_text(text_of_modules, encoding="utf-8")
    return d


@pytest.mark.parametrize("edit,message", [
    (('tiers = [[0, "draw(1)"], [6, "glory(2)"]', 'tiers = [[6, "draw(1)"], [6, "glory(2)"]'),
     "loki first-game: field 'tiers[1] difference': 6; allowed: above the tier before (6)"),
    (('tiers = [[0, "glory(1)"], [8', 'tiers = [[0, "shield(1)"], [8'),
     "loki consolation: field 'tiers[0]': 'shield(1)'; allowed bonus opcodes: draw, glory"),
    (('name = "consolation"\nrecommended = false', 'name = "consolation"\nrecommended = true'),
     "loki: field 'recommended': 2 cards marked; allowed: exactly 1"),
    (("end_glory = 1", "end_glory = -1"), "king: field 'end_glory'"),
    (("kings = [1, 1, 1, 1, 2]", "kings = [2, 1, 1, 1, 2]"), "king: field 'kings[0]'"),
])
def test_modules_file_errors_name_file_entry_and_field(tmp_path, edit, message):
    text = (DICE_DIR / "modules.toml").read_text(encoding="utf-8")
    assert edit[0] in text
    d = copy_data(tmp_path, text.replace(edit[0], edit[1], 1))
    with pytest.raises(RulesError) as exc:
        api.load("valhalla-dice", options=BOTH, data_dir=tmp_path)
    assert "modules.toml" in str(exc.value) and message in str(exc.value), str(exc.value)
    assert d.exists()


def test_loki_card_option_is_checked():
    with pytest.raises(RulesError, match="loki_card=.nope.; allowed: recommended, random, first-game, consolation"):
        api.load(options={"loki_deception": "true", "loki_card": "nope"})
    with pytest.raises(RulesError, match="Loki's Deception is off"):
        api.load(options={"loki_card": "random"})


def test_king_hunter_targets_the_king(rs_on):
    """The king-hunter strategy (VD_KING_TARGET) attacks the King where greedy attacks the weakest
    team (engine.choose_target_nb)."""
    S = setup(rs_on, 4)
    S.team_n[:4] = 1
    kind, hunter = resolve("king-hunter")
    S.gs[ST.G_KING] = -1
    greedy_pick = EN.choose_target_nb(rs_on.T, S, 0, GREEDY[0], GREEDY[1])
    other = next(q for q in (1, 2, 3) if q != greedy_pick)
    S.gs[ST.G_KING] = other
    assert EN.choose_target_nb(rs_on.T, S, 0, GREEDY[0], GREEDY[1]) == greedy_pick  # greedy ignores the title
    assert EN.choose_target_nb(rs_on.T, S, 0, kind, hunter) == other
