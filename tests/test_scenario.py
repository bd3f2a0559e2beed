"""`volva scenario`: scenario files set up positions and run scripted steps with the real engine."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from volva.cli import app
from volva.simulator.core import enums as E
from volva.simulator.core.loading import ScenarioError
from volva.strategies.lineup import run_scenario

HERE = Path(__file__).parent / "scenarios"
runner = CliRunner()


def write(tmp_path, text: str, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def error_of(path) -> str:
    with pytest.raises(ScenarioError) as ei:
        run_scenario(path)
    return str(ei.value)


TWO = """
players = 2
age = 1
"""


# --- the examples ---------------------------------------------------------------------------

def test_quest_ship_vs_warrior():
    """002 'Achieving Glory': a Ship in the North fjord (STR 2) beats a Warrior (STR 1) in Elvagar;
    the Manheim quest is met: +5 Glory and the scripted stat (Horns) rises."""
    r = run_scenario(HERE / "quest_ship_vs_warrior.toml")
    c0, c1 = r["clans"]
    assert c0["glory"] == 5 and c0["glory_by_source"]["quest"] == 5
    assert c0["stats"] == {"rage": 1, "axes": 1, "horns": 2}
    assert c0["quests"] == []
    assert c1["glory"] == 0
    assert c0["figures"]["North fjord"] == ["ship"]
    assert r["provinces"]["Elvagar"]["figures"] == {"1": ["warrior"]}
    assert any("Manheim" in line and "met, +5 Glory" in line for line in r["log"])
    assert any("raises horns to step 2 (quest)" in line for line in r["log"])


def test_quest_stat_is_the_scripted_one(tmp_path):
    text = (HERE / "quest_ship_vs_warrior.toml").read_text().replace('["horns"]', '["rage"]')
    r = run_scenario(write(tmp_path, text))
    assert r["clans"][0]["stats"] == {"rage": 2, "axes": 1, "horns": 1}


def test_pillage_battle_scripted_cards_and_calls():
    r = run_scenario(HERE / "pillage_battle.toml")
    c0, c1, c2 = r["clans"]
    # clan 0: Leader 3 + Tyr's Smite 5 = 8 beats 1 + 2 and 1 + 3; Axes step 2 = 4 Glory
    assert c0["glory"] == 4 and c0["glory_by_source"]["battle"] == 4
    assert c0["stats"]["horns"] == 2  # the Horns token
    assert c0["hand"] == ["Heimdall's Sight"]  # the winner's card is discarded
    assert c1["hand"] == ["Tyr's Bash"] and c2["hand"] == ["Tyr's Smash"]  # losers take theirs back
    assert c1["figures"]["Valhalla"] == ["warrior", "warrior"]
    assert c2["figures"]["Valhalla"] == ["warrior"] and c2["figures"]["Angerboda"] == ["warrior"]
    assert r["provinces"]["Elvagar"] == {"figures": {"0": ["leader"]}, "pillaged": True, "destroyed": False,
                                         "token": "horns"}
    assert r["provinces"]["Gimle"]["destroyed"] and r["provinces"]["Horgr"]["pillaged"]
    assert any("Call to Battle: clan 2 moves Warrior" in line for line in r["log"])
    assert any("clan 0 wins the battle in Elvagar with 8 STR" in line for line in r["log"])


def test_march_with_chosen_figures_then_upgrade_free_invade():
    r = run_scenario(HERE / "march_and_upgrade.toml")
    c0 = r["clans"][0]
    assert sorted(c0["figures"]["Yggdrasil"]) == ["leader", "warrior"]
    assert c0["figures"]["Elvagar"] == ["warrior"]  # not everything that fits: only the two named
    assert c0["figures"]["Muspelheim"] == ["Troll"]
    assert c0["upgrades"] == {"Warrior": "Brothers in Arms", "Monster 1": "Troll"}
    assert c0["quests"] == ["Manheim"]
    assert c0["rage"] == 6 - 1 - 2  # march 1, Troll 2, free invade 0
    assert r["clans"][1]["rage"] == 0  # passed
    assert r["log"][0] == "clan 0 marches 2 figure(s) from Elvagar to Yggdrasil (1 Rage)"


def test_march_one_named_warrior(tmp_path):
    p = write(tmp_path, TWO + """
[[clan]]
figures = { Elvagar = ["leader", "warrior", "warrior"] }
[[clan]]
[[step]]
clan = 0
action = "march"
from = "Elvagar"
to = "Angerboda"
figures = ["warrior"]
""")
    c0 = run_scenario(p)["clans"][0]
    assert c0["figures"]["Angerboda"] == ["warrior"]
    assert sorted(c0["figures"]["Elvagar"]) == ["leader", "warrior"]


# --- illegal steps ---------------------------------------------------------------------------

def test_invade_without_enough_rage(tmp_path):
    p = write(tmp_path, TWO + """
[[clan]]
rage = 1
[[clan]]
[[step]]
clan = 0
action = "invade"
figure = "ship"
to = "North fjord"
""")
    msg = error_of(p)
    assert str(p) in msg and "step 1" in msg and "illegal invade" in msg
    assert "not enough Rage" in msg and "costs 2" in msg and "has 1" in msg


def test_acting_at_zero_rage(tmp_path):
    p = write(tmp_path, TWO + """
[[clan]]
rage = 0
figures = { Elvagar = ["warrior"] }
[[clan]]
[[step]]
clan = 0
action = "pillage"
province = "Elvagar"
""")
    msg = error_of(p)
    assert "step 1" in msg and "0 Rage" in msg


@pytest.mark.parametrize("step, needle", [
    ('action = "invade"\nfigure = "warrior"\nto = "Myrkulor"', "no empty village in Myrkulor"),
    ('action = "invade"\nfigure = "warrior"\nto = "Yggdrasil"', "only the Dark Elf"),
    ('action = "pillage"\nprovince = "Gimle"', "Gimle is destroyed"),
    ('action = "pillage"\nprovince = "Horgr"', "already pillaged"),
    ('action = "pillage"\nprovince = "Utgard"', "no figure in Utgard"),
    ('action = "upgrade"\ncard = "Troll"', "not in clan 0's hand"),
    ('action = "quest"\ncard = "Tyr\'s Bash"', "not a Quest card"),
    ('action = "march"\nfrom = "Utgard"\nto = "Elvagar"', "no figure in Utgard"),
])
def test_illegal_reasons(tmp_path, step, needle):
    p = write(tmp_path, """
players = 2
age = 1
destroyed = ["Gimle"]
pillaged = ["Horgr"]
[[clan]]
hand = ["Tyr's Bash"]
figures = { Myrkulor = ["leader", "warrior"], Horgr = ["warrior"] }
[[clan]]
figures = { Myrkulor = ["warrior"] }
[[step]]
clan = 0
""" + step + "\n")
    msg = error_of(p)
    assert "step 1" in msg and "illegal" in msg and needle in msg, msg


def test_horns_limit(tmp_path):
    p = write(tmp_path, TWO + """
[[clan]]
figures = { Elvagar = ["leader", "warrior", "warrior", "warrior"] }
[[clan]]
[[step]]
clan = 0
action = "invade"
figure = "warrior"
to = "Angerboda"
""")
    assert "Horns limit" in error_of(p)


def test_scripted_choice_with_no_legal_option(tmp_path):
    p = write(tmp_path, TWO + """
[[clan]]
quests = ["Manheim"]
stats = { horns = 6 }
figures = { Elvagar = ["leader"] }
[[clan]]
[[step]]
phase = "quest"
choices = { 0 = ["horns"] }
""")
    msg = error_of(p)
    assert "step 1" in msg and "named no legal option: clan 0's 'horns' (value 1 of its queue)" in msg


def test_unused_script_values(tmp_path):
    p = write(tmp_path, TWO + """
[[clan]]
hand = ["Tyr's Bash"]
figures = { Elvagar = ["leader"] }
[[clan]]
[[step]]
clan = 0
action = "pillage"
province = "Elvagar"
cards = { 0 = "Tyr's Bash" }
""")
    msg = error_of(p)  # unopposed: no battle, the card is never asked for
    assert "step 1" in msg and "never asked" in msg and "Tyr's Bash" in msg


# --- validation errors -------------------------------------------------------------------------

@pytest.mark.parametrize("clan, needle", [
    ('hand = ["Tyr Smite"]', ["clan[0].hand[0]", "unknown card 'Tyr Smite'", "Tyr's Smite", "allowed:"]),
    ('figures = { Elvagr = ["warrior"] }', ["clan[0].figures.Elvagr", "unknown location", "Elvagar", "allowed:"]),
    ('stats = { axes = 7 }', ["clan[0].stats.axes", "7", "1..6"]),
    ('stats = { strength = 2 }', ["clan[0].stats.strength", "rage, axes, horns"]),
    ('figures = { Elvagar = ["troll"] }', ["unknown figure 'troll'", "leader, warrior, ship"]),
    ('figures = { Elvagar = ["ship"] }', ["fjord"]),
    ('upgrades = ["Tyr\'s Bash"]', ["clan[0].upgrades[0]", "battle card", "allowed:"]),
    ('hand = ["Tyr\'s Smash"]', ["exists in ages [1, 2]", "Tyr's Smash@AGE"]),
    ('hand = ["Tyr\'s Smash@3"]', ["has no age-3 version", "[1, 2]"]),
])
def test_clan_field_errors(tmp_path, clan, needle):
    p = write(tmp_path, """
players = 2
age = 3
[[clan]]
""" + clan + "\n[[clan]]\n")
    msg = error_of(p)
    assert str(p) in msg
    for n in needle:
        assert n in msg, msg


def test_unknown_province_and_top_level_errors(tmp_path):
    msg = error_of(write(tmp_path, TWO + 'destroyed = ["Asgard"]\n[[clan]]\n[[clan]]\n'))
    assert "destroyed[0]" in msg and "unknown province 'Asgard'" in msg and "Elvagar" in msg
    msg = error_of(write(tmp_path, 'players = 7\n'))
    assert "players" in msg and "2..5" in msg
    msg = error_of(write(tmp_path, TWO + 'colour = "red"\n'))
    assert "colour" in msg and "allowed:" in msg
    msg = error_of(write(tmp_path, TWO + '[[clan]]\n'))
    assert "exactly one per player (2)" in msg
    msg = error_of(write(tmp_path, TWO + 'clan = 2\n'))  # not tables: said so, not "2 [[clan]] tables"
    assert "clan: 2; expected [[clan]] tables, exactly one per player (2)" in msg
    msg = error_of(write(tmp_path, TWO + 'options = { tie_break = "coin" }\n[[clan]]\n[[clan]]\n'))
    assert "tie_break" in msg
    msg = error_of(write(tmp_path, TWO + '[[clan]]\n[[clan]]\n[[step]]\nphase = "feast"\n'))
    assert "step 1.phase" in msg and "quest" in msg
    msg = error_of(write(tmp_path, 'players = [\n'))
    assert "not valid TOML" in msg
    msg = error_of(tmp_path / "missing.toml")
    assert "file not found" in msg


def test_age_picks_the_card_version(tmp_path):
    p = write(tmp_path, """
players = 2
age = 2
[[clan]]
hand = ["Tyr's Smite", "Tyr's Crush@1"]
[[clan]]
""")
    from volva.simulator.bloodrage.scenario import load_scenario
    from volva.strategies.builtin import resolve
    sc = load_scenario(p, resolve=resolve)
    ages = sorted(int(sc.T.card_age[c]) for c in sc.S.hand[0, :2])
    assert ages == [1, 2]


# --- phases ----------------------------------------------------------------------------------

def test_ragnarok_release_and_end_game(tmp_path):
    p = write(tmp_path, TWO + """
doom = ["Elvagar"]
[[clan]]
stats = { axes = 4 }
figures = { Elvagar = ["leader", "warrior"], "North fjord" = ["ship"] }
[[clan]]
figures = { Angerboda = ["warrior"] }
[[step]]
phase = "ragnarok"
[[step]]
phase = "release"
[[step]]
phase = "end_game"
""")
    r = run_scenario(p)
    c0, c1 = r["clans"]
    assert c0["glory_by_source"]["ragnarok"] == 3 * 2  # three figures, age 1
    assert c0["glory_by_source"]["bonus"] == 10  # Axes on step 4
    assert c0["figures"]["Valhalla"] == [] and len(c0["figures"]["reserve"]) == 10
    assert r["provinces"]["Elvagar"]["destroyed"]
    assert c0["rank"] == 1 and c1["rank"] == 2


# --- CLI -------------------------------------------------------------------------------------

def test_cli_prints_json(tmp_path):
    out = tmp_path / "r.json"
    res = runner.invoke(app, ["scenario", str(HERE / "quest_ship_vs_warrior.toml"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["clans"][0]["glory"] == 5
    assert json.loads(out.read_text()) == data


def test_cli_error_is_one_line(tmp_path):
    p = write(tmp_path, TWO + '[[clan]]\nhand = ["Nope"]\n[[clan]]\n')
    res = runner.invoke(app, ["scenario", str(p)])
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "unknown card 'Nope'" in lines[0]


def test_tie_break_reads_rage_left_at_the_end_of_the_last_action_phase(tmp_path):
    """DIGEST §1.5 End of game: the tie-break is the Rage left at the end of the last Action phase,
    which a scenario sets with ``rage_end`` (not ``rage``, the Rage now); with tie_break = 'shared'
    both clans are first (issue 15)."""
    r = run_scenario(HERE / "tie_break_rage_end.toml")
    assert [c["rank"] for c in r["clans"]] == [2, 1]  # and its [expect] held (a failed one raises)
    text = (HERE / "tie_break_rage_end.toml").read_text()
    text = text.replace("players = 2", 'players = 2\noptions = { tie_break = "shared" }')
    r = run_scenario(write(tmp_path, text.replace("clan.0.rank = 2", "clan.0.rank = 1")))
    assert [c["rank"] for c in r["clans"]] == [1, 1]


def test_expect_checks_lengths_membership_and_ranges(tmp_path):
    """Issue 15: [expect] checks more than exact values; every failing check is named."""
    base = (HERE / "tie_break_rage_end.toml").read_text().split("[expect]")[0]
    good = base + ('[expect]\nclan.0.glory = { ">=" = 10, "<=" = 10 }\nclan.1.rank = { in = [1] }\n'
                   'clan.0.rank = { "!=" = 1, ">" = 1 }\nclan.0.hand = { len = 0 }\n')
    run_scenario(write(tmp_path, good))  # raises if any check fails
    bad = base + ('[expect]\nclan.0.glory = { ">" = 10 }\nclan.0.hand = { contains = "Tyr\'s Smite" }\n'
                  'clan.1.rank = { in = [2, 3] }\nclan.1.hand = { len = 2 }\n')
    with pytest.raises(ScenarioError) as e:
        run_scenario(write(tmp_path, bad))
    msg = str(e.value)
    assert "4 expectation(s) failed" in msg and "clan.0.glory: expected > 10, actual 10" in msg
    assert "clan.0.hand: expected contains \"Tyr's Smite\", actual []" in msg
    assert "clan.1.rank: expected in [2, 3], actual 1" in msg and "clan.1.hand: expected len 2, actual length 0" in msg


# --- rules the documents settle (issue 15): one file each in tests/scenarios/rules/ -----------
RULES = sorted((HERE / "rules").glob("*.toml"))


@pytest.mark.parametrize("path", RULES, ids=[p.stem for p in RULES])
def test_rule_scenario(path):
    """Each file cites its DIGEST section in its header and checks the rule in its [expect]."""
    text = path.read_text()
    assert "DIGEST §" in text and "[expect]" in text
    run_scenario(path)  # raises ScenarioError listing every failing expectation


def test_rule_scenarios_fail_under_the_old_rules(tmp_path):
    """The rule files discriminate: the expectations the old engine met instead now fail."""
    text = (HERE / "rules" / "trickery_order_from_pillager.toml").read_text()
    old = text.replace("clan.1.rage = 4\nclan.0.rage = 3", "clan.1.rage = 3\nclan.0.rage = 4")
    assert "2 expectation(s) failed" in error_of(write(tmp_path, old))
    text = (HERE / "rules" / "sight_copies_domain_quest.toml").read_text()
    old = text.split("[expect]")[0] + '[expect]\nlog = ["clan 0 wins the battle in Elvagar with 6 STR"]\n'
    assert "1 expectation(s) failed" in error_of(write(tmp_path, old))


def test_several_refusals_in_one_position(tmp_path):
    """Issue 15: an expect_error per step; a refused step leaves the position as it was, so an
    illegal march and an illegal upgrade are checked in one file, then a legal step is played."""
    p = write(tmp_path, TWO + """
[[clan]]
rage = 2
hand = ["Tyr's Bash", "Sea Serpent"]
figures = { Elvagar = ["leader"] }
[[clan]]
[[step]]
clan = 0
action = "march"
from = "Elvagar"
to = "Elvagar"
expect_error = "the same province"
[[step]]
clan = 0
action = "upgrade"
card = "Sea Serpent"
expect_error = "not enough rage"
[[step]]
clan = 0
action = "march"
from = "Elvagar"
to = "Myrkulor"
[expect]
refusals = { len = 2 }
clan.0.rage = 1
clan.0.figures.Myrkulor = ["leader"]
clan.0.hand = { len = 2 }
""")
    r = run_scenario(p)
    assert [x["step"] for x in r["refusals"]] == [1, 2]
    assert "illegal march" in r["refusals"][0]["error"] and "costs" in r["refusals"][1]["error"]


@pytest.mark.parametrize("want, needle", [
    ("no such words", "expected a refusal containing 'no such words'; the step was refused with"),
    ("", "expected the text the refusal must contain"),
])
def test_expect_error_mismatch(tmp_path, want, needle):
    p = write(tmp_path, TWO + f"""
[[clan]]
rage = 0
[[clan]]
[[step]]
clan = 0
action = "pass"
expect_error = "{want}"
""")
    msg = error_of(p)
    assert "step 1.expect_error" in msg and needle in msg, msg


def test_expect_error_on_a_legal_step(tmp_path):
    p = write(tmp_path, TWO + '[[clan]]\n[[clan]]\n[[step]]\nclan = 0\naction = "pass"\nexpect_error = "Rage"\n')
    assert "but the step was legal and was played" in error_of(p)


def test_output_has_decks_discard_and_rage_at_phase_start(tmp_path):
    """Issue 15: the result shows deck sizes, the discard pile, Rage at the start of the phase and
    whether a clan passed."""
    p = write(tmp_path, TWO + '[[clan]]\nrage = 4\n[[clan]]\nstats = { rage = 2 }\n'
                              '[[step]]\nclan = 0\naction = "pass"\n[[step]]\nphase = "action_phase"\n')
    r = run_scenario(p, check=False)
    assert r["decks"] == {"age 1": 0, "age 2": 0, "age 3": 0} and r["discard"] == 0
    assert [c["rage_at_phase_start"] for c in r["clans"]] == [6, 7]
    p2 = write(tmp_path, TWO + '[[clan]]\nrage = 4\n[[clan]]\n[[step]]\nclan = 0\naction = "pass"\n', "b.toml")
    r = run_scenario(p2, check=False)
    assert r["clans"][0]["rage_at_phase_start"] == 4 and r["clans"][0]["passed"] and r["clans"][0]["rage"] == 0


# --- a scenario that starts before setup (issue 15) ------------------------------------------

SETUP = """
players = 4
seed = 77
options = { gods_of_asgard = true }
[[clan]]
[[clan]]
[[clan]]
[[clan]]
[[step]]
phase = "setup"
"""


def test_setup_step_deals_as_a_game_does(tmp_path):
    """DIGEST §1.3 (setup) and §2 (gods placed): the setup step is the engine's own: provinces destroyed
    by player count, the Ragnarök tokens, first player, decks and the gods' provinces are those a game
    of that seed starts with (checked against the event log of engines.play_game)."""
    from volva.simulator import engines
    from volva.strategies.lineup import resolve_for
    r = run_scenario(write(tmp_path, SETUP), check=False)
    rs = engines.load_ruleset("blood-rage", options={"gods_of_asgard": True})
    S = engines.play_game(rs, [resolve_for("blood-rage")("greedy")] * 4, 77, log=True)
    from volva.simulator.bloodrage.state import G_LOG_N
    rows = [tuple(int(x) for x in row) for row in S.log[:int(S.gs[G_LOG_N])]]
    names = rs.province_names
    gone = sorted(names[row[3]] for row in rows if row[0] == E.EV_PREDESTROY)
    assert sorted(n for n, p in r["provinces"].items() if p["destroyed"]) == gone
    assert len(gone) == int(rs.tables.predestroyed[4])
    doom = [names[row[3]] for row in sorted((row for row in rows if row[0] == E.EV_DOOM), key=lambda x: x[4])]
    assert r["doom"] == doom
    first_age = next(i for i, row in enumerate(rows) if row[0] == E.EV_AGE)
    placed = {rs.god_names[row[3]]: names[row[4]] for row in rows[:rows.index(next(
        row for row in rows if row[0] == E.EV_PHASE))] if row[0] == E.EV_GOD_PLACE}
    assert r["gods"] == placed and len(placed) == 2 and first_age >= 0
    assert r["first_player"] == int(rows[first_age][3])
    assert r["decks"] == {f"age {a}": rs.deck_size(a, 4) for a in (1, 2, 3)}


def test_setup_then_draft_deals_from_the_setup_decks(tmp_path):
    r = run_scenario(write(tmp_path, SETUP + '[[step]]\nphase = "draft"\n[expect]\nclan.0.hand = { len = 6 }\n'))
    assert all(len(c["hand"]) == 6 for c in r["clans"])
    from volva.simulator import engines
    rs = engines.load_ruleset("blood-rage", options={"gods_of_asgard": True})
    assert r["decks"] == {"age 1": rs.deck_size(1, 4) - 8 * 4, "age 2": rs.deck_size(2, 4), "age 3": rs.deck_size(3, 4)}


@pytest.mark.parametrize("extra, needle", [
    ('destroyed = ["Gimle"]\n', "leave out destroyed"),
    ('age = 2\n', "leave out age"),
])
def test_setup_refuses_a_dealt_position(tmp_path, extra, needle):
    assert needle in error_of(write(tmp_path, extra + SETUP))


def test_setup_must_be_the_first_step(tmp_path):
    text = SETUP.replace('[[step]]\nphase = "setup"', '[[step]]\nphase = "quest"\n[[step]]\nphase = "setup"')
    assert "setup must be the first step" in error_of(write(tmp_path, text))


@pytest.mark.parametrize("step, needle", [
    ('action = "fly"', "step 1.action: 'fly'; allowed"),
    ('action = "pillage"\nprovince = "Narnia"', "Narnia"),
    ('action = "pass"\nfoo = 1', "foo"),
])
def test_expect_error_does_not_swallow_a_malformed_step(tmp_path, step, needle):
    """Only a refusal by the engine's rules meets expect_error; a malformed step stays an error."""
    p = write(tmp_path, TWO + f'[[clan]]\nrage = 0\n[[clan]]\n[[step]]\nclan = 0\n{step}\nexpect_error = "a"\n')
    msg = error_of(p)
    assert needle in msg and "refusals" not in msg, msg


def test_huge_scripted_integer_is_one_error(tmp_path):
    p = write(tmp_path, TWO + '[[clan]]\n[[clan]]\n[[step]]\nphase = "quest"\nchoices = { 0 = [99999999999999999999] }\n')
    assert "allowed: an integer" in error_of(p)


def test_a_fourth_age_is_refused(tmp_path):
    """A game has three ages (rulebook, "Game overview"; DIGEST §1.4): the end of age 3 is played
    once (pillage tokens back, as the engine's game does), and a further end_age step is refused,
    naming the step, where it ran silently and changed nothing."""
    steps = "".join(f'[[step]]\nphase = "{ph}"\n' for ph in ("end_age", "end_age", "end_age", "end_age"))
    msg = error_of(write(tmp_path, TWO + "[[clan]]\n[[clan]]\n" + steps))
    assert "step 4" in msg and "age 3 has ended" in msg and "end_game" in msg
    ok = run_scenario(write(tmp_path, TWO + "[[clan]]\n[[clan]]\n" + steps.rsplit("[[step]]", 1)[0]
                            + '[[step]]\nphase = "end_game"\n'))
    assert ok["age"] == 3
