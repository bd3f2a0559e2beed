"""Valhalla, the dice game, through the command line: run, study (report), replay, strategies
list, and bad input in one line (issue 12 item 1)."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from volva.cli import app


def volva(*args):
    return CliRunner().invoke(app, list(args))


def test_run_and_report(tmp_path):
    from volva.analysis.suffstats import Stats
    r = volva("study", "--ruleset", "valhalla-dice", "--players", "4", "--lineup", "greedy,raider,turtle,random",
              "--games", "2000", "--out", str(tmp_path / "s"))
    assert r.exit_code == 0, r.output
    st = Stats.load(tmp_path / "s")
    assert st.games == 2000 and st.game["engine"] == "valhalla-dice"
    c = st["clans"].groupby("strategy")[["n", "w"]].sum()
    assert c.loc["random", "w"] < c.loc["greedy", "w"]  # a random player rarely wins
    rep = tmp_path / "s" / "report"
    assert (rep / "glory_sources.png").exists() and not (rep / "stat_paths.png").exists()
    html = (rep / "report.html").read_text()
    assert "attacks won" in html and "defences won" in html and "Stat paths" not in html


@pytest.mark.parametrize("P", [2, 6])
def test_two_and_six_players(tmp_path, P):
    """DIGEST §5: 2-6 players."""
    r = volva("run", "--ruleset", "valhalla-dice", "--players", str(P), "--games", "200", "--no-keep-rows",
              "--out", str(tmp_path / "r"))
    assert r.exit_code == 0, r.output


def test_results_do_not_depend_on_batch_size(tmp_path):
    from volva.analysis.suffstats import Stats
    tabs = []
    for b in (100, 250):
        r = volva("run", "--ruleset", "valhalla-dice", "--players", "3", "--lineup", "greedy,raider,turtle",
                  "--games", "1000", "--batch-size", str(b), "--no-keep-rows", "--out", str(tmp_path / f"r{b}"))
        assert r.exit_code == 0, r.output
        tabs.append(Stats.load(tmp_path / f"r{b}")["clans"].groupby("strategy")[["n", "w", "g"]].sum())
    assert tabs[0].equals(tabs[1])


def test_replay_is_readable():
    r = volva("replay", "--ruleset", "valhalla-dice", "--players", "3", "--lineup", "greedy,raider,turtle",
              "--game", "4")
    assert r.exit_code == 0, r.output
    assert "Jarls:" in r.output and "turn 1:" in r.output and "Glory, rank" in r.output
    assert "END triggered" in r.output


def test_strategies_list():
    r = volva("strategies", "list", "--ruleset", "valhalla-dice")
    assert r.exit_code == 0 and "raider" in r.output and "turtle" in r.output and "greedy-dp" in r.output


@pytest.mark.parametrize("args, needle", [
    (["--players", "7"], "--players 7; allowed: 2..6 (blood-rage: 2..5, valhalla: 3..5, valhalla-dice: 2..6)"),
    (["--players", "3", "--lineup", "greedy,ninja,greedy"], "unknown strategy 'ninja'"),
    (["--option", "jarl_deal=7"], "option jarl_deal=7; allowed: 3, 5, recommended, none"),
    (["--option", "speed=3"], "--option speed: unknown option for Valhalla (dice game); allowed: clan_powers, "),
    (["--option", "start_hnad=draft"], "did you mean 'start_hand'?"),
    (["--option", "start_hand=draft", "--option", "start_hand=5"], "--option start_hand given twice"),
    (["--option", "start_hand="], "--option 'start_hand=': no value after '='"),
    (["--module", "lokis-deception"], "--module 'lokis-deception'; allowed: gods-of-asgard (Blood Rage), loki-deception"),
    (["--module", "gods-of-asgard"], "--module gods-of-asgard is not a module of Valhalla (dice game)"),
    (["--module", "loki-deception", "--option", "loki_card=odin"], "option loki_card='odin'; allowed: recommended, random"),
    (["--module", "loki-deception", "--option", "loki_deception=false"], "contradicts --module loki-deception"),
])
def test_bad_input_is_one_line(tmp_path, args, needle):
    r = volva("run", "--ruleset", "valhalla-dice", "--games", "10", "--out", str(tmp_path / "x"), *args)
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr


def test_modules_reach_the_engine_and_the_replay():
    """--module loki-deception / king-of-the-hill (003 l.157-205): the replay shows the Loki card,
    the losers' bonuses and the King."""
    r = volva("replay", "--ruleset", "valhalla-dice", "--players", "4", "--module", "loki-deception",
              "--module", "king-of-the-hill", "--option", "loki_card=consolation")
    assert r.exit_code == 0, r.output
    assert "Loki's Deception card in play: consolation" in r.output and "becomes King" in r.output


def test_blood_rage_refuses_the_dice_modules(tmp_path):
    r = volva("run", "--games", "10", "--out", str(tmp_path / "x"), "--module", "king-of-the-hill")
    assert r.exit_code == 2 and "--module king-of-the-hill is not a module of Blood Rage; it is one of Valhalla (dice game)" \
        in r.stderr, r.stderr
    r = volva("compare", "--games", "10", "--out", str(tmp_path / "c"), "--variant-module", "loki-deception")
    assert r.exit_code == 2 and "is not a module of Blood Rage" in r.stderr, r.stderr


def test_compare_refuses_a_variant_equal_to_the_baseline(tmp_path):
    r = volva("compare", "--ruleset", "valhalla-dice", "--games", "10", "--out", str(tmp_path / "c"),
              "--module", "loki-deception", "--variant-module", "loki-deception")
    assert r.exit_code == 2 and "plays the baseline's rules" in r.stderr, r.stderr
    assert "--option/--module or the rule set's defaults already set them" in r.stderr, r.stderr
    assert not (tmp_path / "c").exists()


def test_compare_says_a_variant_of_default_values_is_the_rule_sets_defaults(tmp_path):
    """A variant that names an option's default, with no --option given, was told that
    '--option and --module already set them' (a helper session)."""
    r = volva("compare", "--games", "10", "--out", str(tmp_path / "c"), "--variant-option", "tie_break=rage")
    assert r.exit_code == 2 and "plays the baseline's rules: they are the rule set's defaults" in r.stderr, r.stderr
    assert "--option" not in r.stderr.split("rules:")[1], r.stderr
    assert not (tmp_path / "c").exists()


def test_options_reach_the_engine(tmp_path):
    """DIGEST §5.4 options: jarl_deal=none plays without Jarls; deck_check=false is accepted."""
    r = volva("replay", "--ruleset", "valhalla-dice", "--players", "3", "--option", "jarl_deal=none",
              "--option", "deck_check=false")
    assert r.exit_code == 0 and "seat 1 (greedy): no Jarl" in r.output, r.output


def test_bad_patch_is_one_line(tmp_path):
    p = tmp_path / "p.toml"
    p.write_text('"Bear Archer".strenght = 9\n')
    r = volva("compare", "--ruleset", "valhalla-dice", "--patch", str(p), "--games", "10", "--out", str(tmp_path / "c"))
    assert r.exit_code == 2 and "field 'strenght': unknown" in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_strategy_file(tmp_path):
    """Issue 12 item 4: strategies as parameter vectors with TOML files (a built-in base, knobs)."""
    from volva.simulator.valhalla_dice.policy import VD_ARM, VD_ATTACK_TEAM
    from volva.strategies.valhalla_dice import resolve
    f = tmp_path / "patient.toml"
    f.write_text('name = "patient"\nbase = "raider"\nattack_team = 3\narming = 1\n')
    kind, v = resolve(str(f))
    assert v[VD_ATTACK_TEAM] == 3 and v[VD_ARM] == 1 and (v == resolve(str(f))[1]).all()
    r = volva("run", "--ruleset", "valhalla-dice", "--players", "3", "--lineup", f"greedy,{f},turtle", "--games", "60",
              "--no-keep-rows", "--out", str(tmp_path / "r"))
    assert r.exit_code == 0, r.output
    for text, needle in (('attack_tem = 3\n', "key 'attack_tem': unknown"), ('base = "random"\n', "key 'base'"),
                         ('arming = 1.5\n', "key 'arming': 1.5; allowed: an integer 0..2"),
                         ('send_glory = "x"\n', "key 'send_glory'")):
        f.write_text(text)
        r = volva("run", "--ruleset", "valhalla-dice", "--players", "3", "--lineup", f"greedy,{f},turtle",
                  "--games", "10", "--out", str(tmp_path / "x"))
        assert r.exit_code == 2 and needle in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_default_bot_populations():
    """`--population default` for this game: archetypes, greedy, tuned and exact-arming fields."""
    from volva.strategies.lineup import default_populations
    pops = default_populations("valhalla-dice", 4)
    assert pops == {"archetypes": "raider,turtle,hoarder,set-collector", "greedy": "greedy*4",
                    "tuned": "tuned-4p*4", "exact-arming": "greedy-dp*4"}


def test_strategies_show_and_validate(tmp_path):
    r = volva("strategies", "show", "hoarder", "--ruleset", "valhalla-dice")
    assert r.exit_code == 0 and "hold_tactics" in r.output and "w_glory" in r.output, r.output
    r = volva("strategies", "show", "jarl-savvy", "--ruleset", "valhalla-dice")
    assert r.exit_code == 0 and "jarl_bonus.Einar" in r.output, r.output
    f = tmp_path / "s.toml"
    f.write_text('name = "mine"\nbase = "turtle"\ntarget_set = 2\n')
    r = volva("strategies", "validate", str(f), "--ruleset", "valhalla-dice")
    assert r.exit_code == 0 and "ok: mine" in r.output, r.output


@pytest.mark.parametrize("lineup", ["greedy,greedy,greedy,greedy", "greedy,raider,greedy,raider", "greedy,raider,turtle,hoarder"])
def test_replay_shows_the_game_the_run_played(tmp_path, lineup):
    """volva replay --game g prints game g of the run: its final Glory per seat equals the run's
    rows, for a mirror lineup (no rotation), a period-2 lineup and four strategies."""
    import re

    import pandas as pd
    out = tmp_path / "r"
    r = volva("run", "--ruleset", "valhalla-dice", "--players", "4", "--lineup", lineup, "--games", "8",
              "--seed", "3", "--out", str(out))
    assert r.exit_code == 0, r.output
    rows = pd.read_parquet(out / "clans.parquet")
    for g in (0, 3, 5):
        r = volva("replay", "--ruleset", "valhalla-dice", "--players", "4", "--lineup", lineup, "--seed", "3",
                  "--game", str(g))
        assert r.exit_code == 0, r.output
        shown = sorted(int(x) for x in re.findall(r": (\d+) Glory, rank", r.output))
        assert shown == sorted(rows[rows["game_id"] == g]["glory"].astype(int).tolist()), (g, r.output[-400:])


@pytest.mark.parametrize("args, needle", [
    (["--variant-option", "start_hand"], "--variant-option 'start_hand': expected key=value"),
    (["--variant-module", "gods-of-asgard"], "the variant arm: --module gods-of-asgard is not a module of Valhalla"),
    (["--variant-option", "two_any_reading=wild", "--option", "weapons_exchange=all_one"],
     "the variant arm: option two_any_reading=wild with weapons_exchange=all_one"),
])
def test_compare_variant_errors_name_the_variant(tmp_path, args, needle):
    r = volva("compare", "--ruleset", "valhalla-dice", "--players", "3", "--lineup", "greedy,raider,turtle",
              "--games", "10", "--out", str(tmp_path / "c"), *args)
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr


def test_replay_shows_the_draft():
    """003 l.304-313 (R65): the replay names the first player, the face-up cards, each place and take,
    each seat leaving and the discarded leftovers."""
    r = volva("replay", "--ruleset", "valhalla-dice", "--players", "4", "--option", "start_hand=draft")
    assert r.exit_code == 0, r.output
    for needle in ("is the first player and opens it", "face up in the pool", "completes its hand and leaves the draft",
                   "left in the pool are discarded"):
        assert needle in r.output, needle
