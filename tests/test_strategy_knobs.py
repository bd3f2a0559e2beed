"""Issue 4 §1: strategy knobs the greedy policy reads, and ordered rules with conditions.

Kernel-level checks on built positions (tests/scenario.py helpers) plus one statistical
check per draft knob; each cites what it checks.
"""
import numpy as np
import pytest
from scenario import GIMLE, blank, card, give, place, rules, sheets

from volva.analysis.records import clans_frame
from volva.simulator import engines
from volva.simulator.bloodrage.policy import choose_card_nb, effective_params_nb
from volva.simulator.bloodrage.state import G_AGE
from volva.simulator.core import enums as E
from volva.strategies.spec import greedy_defaults, parse_strategy

W = E.FIG_WARRIOR0


def _strategy(doc, r):
    return parse_strategy({"name": "t", **doc}, "t.toml", r.card_names)


def test_rules_apply_in_order_when_their_condition_holds(ruleset):
    """Rules override parameters only when age and Rage match; later rules win."""
    s = _strategy({"rule": [{"when": {"age": [3], "rage_max": 3}, "set": {"doom": 6.0}},
                            {"when": {"age": [2, 3]}, "set": {"doom": 9.0, "quest": 1.0}}]}, ruleset)
    S = blank(2)
    for age, rage, doom, quest in [(1, 5, 0.0, 2.5), (2, 5, 9.0, 1.0), (3, 5, 9.0, 1.0), (3, 2, 9.0, 1.0)]:
        S.gs[G_AGE], S.rage[0] = age, rage
        eff = effective_params_nb(S, 0, s.params)
        assert (eff[E.P_DOOM], eff[E.P_W_QUEST]) == (doom, quest), (age, rage)
    s1 = _strategy({"rule": [{"when": {"age": [3], "rage_max": 3}, "set": {"doom": 6.0}}]}, ruleset)
    S.gs[G_AGE], S.rage[0] = 3, 2
    assert effective_params_nb(S, 0, s1.params)[E.P_DOOM] == 6.0
    S.rage[0] = 4
    assert effective_params_nb(S, 0, s1.params) is s1.params  # no rule matched: no copy


@pytest.mark.parametrize("hold, expect", [(True, "Tyr's Bash"), (False, "Tyr's Rage")])
def test_hold_big_keeps_the_big_card_when_losing(hold, expect):
    """play.hold_big: a clan that cannot win plays its smallest card (true) or its largest (false)."""
    r = rules()
    S = blank(2, age=2)
    place(S, 0, W, GIMLE)
    for w in range(5):
        place(S, 1, W + w, GIMLE)
    give(S, 0, [card(r, "Tyr's Rage", 2), card(r, "Tyr's Bash", 1)])
    give(S, 1, [card(r, "Tyr's Crush", 2)])
    p = greedy_defaults()
    p[E.P_HOLD_BIG] = 1.0 if hold else 0.0
    i = choose_card_nb(r.tables, S, 0, GIMLE, E.POL_GREEDY, p)
    assert r.card_names[S.hand[0, i]] == expect


def test_protect_false_never_pays(ruleset):
    """play.protect = false: Frigga's Protection is not paid for; the figure goes to Valhalla."""
    from volva.simulator.bloodrage.effects import destroy_nb
    S = blank(2, age=2)
    place(S, 0, W, GIMLE)
    S.upg[0, E.SLOT_CLAN0] = card(ruleset, "Frigga's Protection", 2)
    sheets(S, ruleset.tables)
    S.rage[0] = 3
    kinds = np.array([E.POL_GREEDY] * 5, np.int8)
    params = np.tile(greedy_defaults(), (5, 1))
    params[0, E.P_PROTECT] = 0.0
    assert destroy_nb(ruleset.tables, S, 0, W, E.CAUSE_BATTLE, kinds, params)
    assert S.loc[0, W] == E.LOC_VALHALLA and S.rage[0] == 3
    params[0, E.P_PROTECT] = 1.0
    place(S, 0, W, GIMLE)
    assert not destroy_nb(ruleset.tables, S, 0, W, E.CAUSE_BATTLE, kinds, params)
    assert S.loc[0, W] == GIMLE and S.rage[0] == 2


def _top_god_share(ruleset, params, games=1500):
    """Mean share of clan 0's most-drafted god among its drafted god cards, per game."""
    lineup = [(E.POL_GREEDY, params)] + [(E.POL_GREEDY, greedy_defaults())] * 3
    out = engines.play_batch(ruleset, lineup, engines.game_seeds(8, 0, games))
    shares = []
    for g in range(games):
        picks = out.picks[g, 0].ravel()
        gods = ruleset.tables.card_god[picks[picks >= 0]]
        gods = gods[gods >= 0]
        if len(gods):
            shares.append(np.bincount(gods).max() / len(gods))
    return float(np.mean(shares))


def test_synergy_concentrates_the_draft_on_held_gods(ruleset):
    """draft.synergy: a bonus per held card of the same god makes a clan's picks gather on fewer gods."""
    syn = _strategy({"draft": {"synergy": 3.0}}, ruleset).params
    assert _top_god_share(ruleset, syn) > _top_god_share(ruleset, greedy_defaults()) + 0.03


def test_hate_weight_takes_strong_cards_earlier(ruleset):
    """draft.hate: weighing a card's plain worth to anyone, the clan picks higher-value cards."""
    hate = _strategy({"draft": {"hate": 3.0}}, ruleset).params

    def mean_value(params):
        lineup = [(E.POL_GREEDY, params)] + [(E.POL_GREEDY, greedy_defaults())] * 3
        out = engines.play_batch(ruleset, lineup, engines.game_seeds(8, 0, 1000))
        first = out.picks[:, 0, :, 0].ravel()  # first pick of each age
        return float(np.mean(np.maximum(ruleset.tables.card_value[first], 0)))
    assert mean_value(hate) > mean_value(greedy_defaults())


def test_a_rule_changes_play(ruleset):
    """A [[rule]] for age 3 (all Rage) sending figures to the doomed province raises Ragnarök Glory."""
    base = greedy_defaults()
    ruled = _strategy({"rule": [{"when": {"age": [3]}, "set": {"doom": 8.0, "late_rage": 20}}]}, ruleset).params

    def rag(params):
        lineup = [(E.POL_GREEDY, params)] + [(E.POL_GREEDY, base)] * 3
        seeds = engines.game_seeds(9, 0, 1500)
        out = engines.play_batch(ruleset, lineup, seeds)
        return clans_frame(out, np.arange(1500), seeds, "br", ["a", "b", "c", "d"]).query("seat == 0").glory_ragnarok.mean()
    assert rag(ruled) > rag(base) + 1.0


@pytest.mark.parametrize("doc, key", [
    ({"rule": [{"when": {"age": [4]}, "set": {"doom": 1.0}}]}, "rule[1].when.age"),
    ({"rule": [{"when": {}, "set": {"stat_path": 1}}]}, "rule[1].set.stat_path"),
    ({"rule": [{"when": {}, "set": {}}]}, "rule[1].set"),
    ({"rule": [{"if": {}}]}, "rule[1].if"),
    ({"play": {"hold_big": 1}}, "play.hold_big"),
    ({"draft": {"hate": 50}}, "draft.hate"),
])
def test_bad_rules_and_knobs_are_refused(ruleset, doc, key):
    from volva.strategies.spec import StrategyError
    with pytest.raises(StrategyError) as exc:
        _strategy(doc, ruleset)
    assert key in str(exc.value) and "allowed" in str(exc.value)
