"""Blood Rage: Valhalla engine as a whole: the invariant harness over thousands of games,
determinism, replaceable data (a tiny board), load errors, the god sweep, Rainbow Bridge and the
commands (run, replay, study report)."""
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from volva.cli import app
from volva.simulator.core import enums as E
from volva.simulator.core.batch import game_seeds
from volva.simulator.core.loading import DATA_DIR, RulesError
from volva.simulator.engines import load_ruleset
from volva.simulator.rainbow import RainbowBridge, starting_glory
from volva.simulator.valhalla.api import god_plan_for, play_batch, play_game, sweep_combos
from volva.simulator.valhalla.invariants import INV_NAMES
from volva.strategies.lineup import resolve_pair
from volva.strategies.valhalla import builtin, resolve

runner = CliRunner()


@pytest.fixture(scope="module")
def rs():
    return load_ruleset("valhalla")


LINEUPS = {3: ["greedy", "random", "quester"], 4: ["thor", "loki", "warlord", "random"],
           5: ["freya", "baldr", "tyr", "valor", "random"]}


def test_invariants_catch_a_stale_board_view(rs):
    """The kept board view (view.board_view_nb recomputes only the clans flagged stale) is
    checked: a figure moved without board_changed_nb is reported as INV_VIEW; flagged, it is not.
    So is the kept region view (view.region_view_nb) after a claim made without it."""
    from volva.simulator.valhalla.invariants import INV_OK, INV_VIEW, check_invariants_nb
    from volva.simulator.valhalla.view import board_view_nb, region_view_nb
    S = play_game(rs, [resolve("greedy")] * 4, seed=5)
    board_view_nb(rs.tables, S)
    assert check_invariants_nb(rs.tables, S) == INV_OK and not S.view_stale[:4].any()
    f = next(f for f in range(E.VH_NFIG) if S.loc[2, f] == E.VH_LOC_RESERVE)
    S.loc[2, f], S.summoned[2, f] = 0, 0  # onto the board by hand, board_changed_nb not called
    assert check_invariants_nb(rs.tables, S) == INV_VIEW
    S.view_stale[2] = 1
    assert check_invariants_nb(rs.tables, S) == INV_OK
    board_view_nb(rs.tables, S)
    assert check_invariants_nb(rs.tables, S) == INV_OK and S.view_stale[2] == 0
    r = next(r for r in range(rs.tables.n_regions) if S.token[r] == 0 and S.claimed[r] < 0)
    S.claimed[r] = 1  # a claim by hand, region_view_nb not called
    assert check_invariants_nb(rs.tables, S) == INV_VIEW
    region_view_nb(rs.tables, S)
    assert check_invariants_nb(rs.tables, S) == INV_OK and not S.rv_open[r]


@pytest.mark.parametrize("P", [3, 4, 5])
def test_invariant_harness(rs, P):
    """Over 4,000 games per player count (12,000 in all, random and greedy strategies): every
    invariant holds after every action and phase (figures in exactly one place; Monster bases and
    cards agree; 7 slots, quests only until the Quest phase; nothing Summoned into Valhalla or a
    Region Token region; cards conserved; no negative Rage or Glory) and every game ends after
    the third age with a winner."""
    b = play_batch(rs, [resolve(n) for n in LINEUPS[P]], game_seeds(11, 0, 4000), check=True)
    bad = np.flatnonzero(b.violation)
    assert bad.size == 0, f"{bad.size} games violate {INV_NAMES[int(b.violation[bad[0]])]} (first: game {bad[0]})"
    assert (b.rank.min(axis=1) == 1).all() and (b.rank.max(axis=1) <= P).all()
    assert (b.n_turns > 0).all()
    assert b.n_turns.max() < 400  # no Action phase reaches the max_actions_per_phase cap (rulings R54)
    g = np.sort(b.gods, axis=1)
    assert (g >= 0).all() and (np.diff(g, axis=1) > 0).all()  # three different gods each game
    assert (b.glory >= 0).all()


def test_games_end_after_three_ages_and_log_phases(rs):
    """RB "The Phases of Play": 3 ages of God Arrives, Draft, Action, Quest, Prove Valor, Release."""
    S = play_game(rs, [resolve("greedy")] * 4, 5, log=True, check=True)
    rows = S.log[: S.gs[4]]
    phases = [(int(r[1]), int(r[3])) for r in rows if r[0] == E.VEV_PHASE]
    want = [(a, ph) for a in (1, 2, 3) for ph in range(6)] + [(3, E.VPH_END)]
    assert phases == want
    assert S.gs[10] == 0


def test_deterministic_for_batch_size_and_threads(rs):
    """A game is a pure function of (rules, strategies, seed): splitting a batch or changing the
    thread count gives identical results."""
    import numba
    pols = [resolve(n) for n in LINEUPS[4]]
    seeds = game_seeds(3, 0, 300)
    a = play_batch(rs, pols, seeds)
    b1, b2 = play_batch(rs, pols, seeds[:70]), play_batch(rs, pols, seeds[70:])
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        c = play_batch(rs, pols, seeds)
    finally:
        numba.set_num_threads(old)
    for f in a._fields:
        x = getattr(a, f)
        if x is None:  # an optional field this engine does not fill (BatchOut.groups)
            assert getattr(b1, f) is None and getattr(c, f) is None, f
            continue
        assert np.array_equal(x, np.concatenate([getattr(b1, f), getattr(b2, f)])), f
        assert np.array_equal(x, getattr(c, f)), f


def _copy_data(tmp_path):
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR / "valhalla", d / "valhalla")
    return d


TINY_BOARD = """
[[region]]
name = "North"
number = 1
adjacent = ["East", "West", "Valhalla"]
[[region]]
name = "East"
number = 2
adjacent = ["North", "West", "Valhalla"]
[[region]]
name = "West"
number = 3
adjacent = ["North", "East", "Valhalla"]
[[region]]
name = "South"
number = 4
adjacent = ["Valhalla"]
[[region]]
name = "Valhalla"
valhalla = true
adjacent = ["North", "East", "West", "South"]
"""


def test_a_tiny_replacement_board_plays(tmp_path):
    """The board is data (DIGEST §3.1 provisional): a user's 5-region board with its own rewards
    loads and plays complete, invariant-clean games without code changes."""
    d = _copy_data(tmp_path)
    (d / "valhalla" / "board.toml").write_text(TINY_BOARD)
    rules = (d / "valhalla" / "rules.toml").read_text()
    rules = rules.replace('outer_rewards = ["rage", "rage", "rage", "axes", "axes", "horns", "horns", "glory"]',
                          'outer_rewards = ["rage", "axes", "horns", "glory"]')
    (d / "valhalla" / "rules.toml").write_text(rules)
    r = load_ruleset("valhalla", data_dir=d)
    assert r.region_names == ["North", "East", "West", "South", "Valhalla"]
    b = play_batch(r, [resolve("greedy"), resolve("random"), resolve("warlord")], game_seeds(1, 0, 500), check=True)
    assert not b.violation.any() and (b.rank.min(axis=1) == 1).all()
    S = play_game(r, [resolve("greedy")] * 3, 2)
    assert int((S.god_at[:5] >= 0).sum()) == 3 and S.token0[:4].sum() == 3  # all three gods arrived


@pytest.mark.parametrize("file,old,new,needle", [
    ("board.toml", 'adjacent = ["Bilskirnir", "Vingolf", "Valhalla"]', 'adjacent = ["Bilskirnir", "Valhalla"]',
     "board.toml: Gladsheim: field 'adjacent': 'Vingolf' lists 'Gladsheim' only one way"),
    ("board.toml", 'number = 2', 'number = 7', "field 'number': 7; allowed: 2"),
    ("gods.toml", 'power = "tyr"', 'power = "odin"', "gods.toml: Tyr: field 'power': 'odin'; allowed:"),
    ("rules.toml", 'deal = 6 ', 'deal = "six" ', "rules.toml: age: field 'deal'"),
    ("rules.toml", 'tie_break = "rage"', 'tie_break = "coin"', "field 'tie_break': got 'coin'; allowed:"),
    ("cards.csv", "battle,6,1,,+6 STR.", "battle,6,1,glory_on_wn(2),+6 STR.", "field 'effects': 'glory_on_wn(2)'; "
                                                                              "allowed opcodes:"),
    ("cards.csv", "Mjolnir's Fall,Thor,", "Mjolnir's Fall,Odin,", "card Mjolnir's Fall: field 'god': 'Odin'"),
])
def test_bad_data_names_file_field_and_allowed(tmp_path, file, old, new, needle):
    """Bad input: a clear error naming the file, entry and field with the allowed values."""
    d = _copy_data(tmp_path)
    p = d / "valhalla" / file
    text = p.read_text()
    assert old in text
    p.write_text(text.replace(old, new, 1))
    with pytest.raises(RulesError) as exc:
        load_ruleset("valhalla", data_dir=d)
    assert needle in str(exc.value)


def test_quest_needs_one_requirement_and_players_3_to_5(rs, tmp_path):
    with pytest.raises(RulesError, match="a quest needs exactly one q_\\* opcode"):
        load_ruleset("valhalla", patch=[(Path("p.toml"), {"Odin's Riddle": {"add": True, "type": "quest",
                                                                          "god": "Baldr"}})])
    with pytest.raises(RulesError, match="allowed for valhalla: 3..5"):
        rs.check_players(2)


def test_patch_changes_a_card(rs):
    """A card patch (volva compare --patch) edits the Valhalla deck like the base game's."""
    c = rs.card_ids("Mjolnir's Fall")[0]
    r2 = load_ruleset("valhalla", patch=[(Path("p.toml"), {"Mjolnir's Fall": {"value": 2}})])
    assert rs.tables.card_value[c] == 6 and r2.tables.card_value[c] == 2
    with pytest.raises(RulesError, match="did you mean \"Mjolnir's Fall\""):
        load_ruleset("valhalla", patch=[(Path("p.toml"), {"Mjolnir's Fal": {"value": 2}})])


def test_god_sweep_plays_every_combination_equally(rs):
    """--sweep gods: game g plays combination (g // period) mod 60, so 60 x period games play each
    ordered combination once per rotation; god-sets: the 10 sets, order drawn per game."""
    assert len(sweep_combos(rs, "gods")) == 60 and len(sweep_combos(rs, "god-sets")) == 10
    r = rs.with_sweep("gods")
    ids = np.arange(240)
    plan = god_plan_for(r, ids, 4)
    assert len({tuple(x) for x in plan.tolist()}) == 60
    assert (plan[::4] == plan[1::4]).all()  # the rotations of one seed share the gods
    b = play_batch(r, [resolve("greedy")] * 4, game_seeds(1, 0, 240), god_plan=plan)
    assert np.array_equal(b.gods, plan[:, :3])
    s = rs.with_sweep("god-sets")
    p2 = god_plan_for(s, np.arange(100), 1)
    b2 = play_batch(s, [resolve("greedy")] * 3, game_seeds(1, 0, 100), god_plan=p2)
    assert (np.sort(b2.gods, axis=1) == np.sort(p2[:, :3], axis=1)).all()
    assert not (b2.gods == p2[:, :3]).all()  # the order is drawn


def test_rainbow_bridge_starting_glory(rs):
    """RB "Starting Glory From Blood Rage" (DIGEST §4): 12 / 8 / 4 / 0 by the Blood Rage placing."""
    assert starting_glory(np.array([[2, 1, 4, 3, 5]])).tolist() == [[8, 12, 0, 4, 0]]
    assert starting_glory(np.array([[1, 1, 3, 4]])).tolist() == [[12, 12, 4, 0]]  # a shared first place
    rb = RainbowBridge(load_ruleset("blood-rage"), rs)
    lineup = [resolve_pair(n) for n in ("thor-warlord:thor", "balanced:loki", "greedy", "quester")]
    seeds = game_seeds(4, 0, 200)
    out = rb.play_batch(lineup, seeds, check=True)
    assert not out.violation.any()
    # the Blood Rage game of each Rainbow Bridge game, replayed with its missions
    from volva.simulator.engines import play_batch as base_batch
    _, plan = rb.plan(seeds)
    for g in range(0, 200, 37):
        gods = tuple(int(x) for x in np.sort(plan[g, :3]))
        b = base_batch(rb.base_for(gods), [x[0] for x in lineup], seeds[g:g + 1])
        assert out.glory[g, :, E.G_START].tolist() == starting_glory(b.rank)[0].tolist()
        assert out.gods[g].tolist() == plan[g, :3].tolist()
    with pytest.raises(ValueError, match="Valhalla strategy"):
        resolve_pair("thor-warlord")


def test_rainbow_bridge_missions_and_reward_cards(rs):
    """RB "The Rainbow Bridge Module" (provisional missions.toml): a mission met at the end of a
    Blood Rage age gives its Glory that age; met in 2+ ages, the god's Reward Card joins the clan's
    hand after the first Valhalla draft."""
    rb = RainbowBridge(load_ruleset("blood-rage"), rs)
    favour, table = rb.missions()
    assert favour == 2 and set(table) == set(range(5))
    gods = (0, 1, 4)  # Thor, Loki, Tyr: battles(2), valhalla(3), pillages(2)
    base = rb.base_for(gods)
    assert int(base.tables.n_missions) == 3 and base.tables.mission_op[:3].tolist() == [
        E.M_BATTLES, E.M_VALHALLA, E.M_PILLAGES]
    # the replay names a completed mission by its god and condition (it said "mission 2")
    assert base.mission_labels == ("Thor's mission battles(2)", "Loki's mission valhalla(3)", "Tyr's mission pillages(2)")
    from volva.simulator.bloodrage.replay import replay_text
    log = replay_text(base, ["greedy"] * 4, [resolve_pair("greedy")[0]] * 4, 9, 0)
    done = [ln for ln in log.splitlines() if "completes Rainbow Bridge" in ln]
    assert done and all(re.search(r"(Thor|Loki|Tyr)'s mission [a-z]+\(\d\): \+3 Glory$", ln) for ln in done), done
    from volva.simulator.engines import play_batch as base_batch
    lineup = [resolve_pair(n) for n in ("thor-warlord:thor", "balanced:loki", "greedy", "quester")]
    b = base_batch(base, [x[0] for x in lineup], game_seeds(9, 0, 300), check=True)
    assert not b.violation.any()
    assert (b.glory[:, :, E.G_MISSION] == 3 * b.missions.sum(axis=2)).all()
    assert b.missions.max() <= 3 and (b.missions > 0).mean() > 0.2
    plain = base_batch(rb.base, [x[0] for x in lineup], game_seeds(9, 0, 300))
    assert (plain.glory[:, :, E.G_MISSION] == 0).all() and not plain.missions.any()
    rw = rb.rewards(gods, np.array([[2, 0, 3], [1, 1, 1], [0, 2, 0], [0, 0, 0]], np.int8))
    thor, loki, tyr = (table[g][3] for g in gods)
    assert rw.tolist() == [[thor, -1, tyr], [-1, -1, -1], [-1, loki, -1], [-1, -1, -1]]
    from volva.simulator.valhalla.api import play_game as vh_game
    S = vh_game(rs, [x[1] for x in lineup], 3, rewards=rw, check=True)
    carried = [(int(r[2]), int(r[3])) for r in S.log[:S.gs[4]] if r[0] == E.VEV_CARRY and r[4] == 1]
    assert sorted(carried) == sorted([(0, thor), (0, tyr), (2, loki)]) and S.gs[10] == 0
    off = RainbowBridge(load_ruleset("blood-rage"), load_ruleset("valhalla", options={"rb_missions": False}))
    assert off.missions() is None and off.base_for(gods) is off.base


def test_strategies_resolve():
    b = builtin()
    assert {"random", "greedy", "thor", "loki", "freya", "baldr", "tyr", "quester", "warlord", "valor"} == set(b)
    with pytest.raises(ValueError, match="allowed: baldr"):
        resolve("thor-warlord")


# --- commands --------------------------------------------------------------------------------------
def test_run_and_report(tmp_path):
    out = tmp_path / "run"
    r = runner.invoke(app, ["run", "--ruleset", "valhalla", "--games", "480", "--sweep", "god-sets",
                            "--lineup", "thor,loki,tyr", "--players", "3", "--out", str(out)])
    assert r.exit_code == 0, r.output
    import pandas as pd
    c = pd.read_parquet(out / "clans.parquet")
    assert set(c["ruleset"].astype(str)) == {"valhalla"} and len(c) == 3 * 480
    assert c["gods"].astype(str).str.fullmatch(r"[a-z]+>[a-z]+>[a-z]+").all()
    sets = c["gods"].astype(str).map(lambda s: "+".join(sorted(s.split(">"))))
    assert sets.value_counts().nunique() == 1 and sets.nunique() == 10  # equal games per set
    assert (c["glory"] == c[[f"glory_{s}" for s in E.GLORY_SOURCE_NAMES]].sum(axis=1)).all()
    r = runner.invoke(app, ["report", str(out), "--out", str(out / "report")])
    assert r.exit_code == 0, r.output
    rep = out / "report"
    assert (rep / "valhalla_gods.png").stat().st_size > 10_000
    sets_csv = pd.read_csv(rep / "god_sets.csv")
    assert set(sets_csv["strategy"]) == {"thor", "loki", "tyr"} and len(sets_csv) == 30
    assert "Gods of Blood Rage: Valhalla" in (rep / "report.html").read_text()


def test_replay_reads_in_the_rulebook_words():
    """volva replay --ruleset valhalla: every event has a text (no raw event rows) for 30 games,
    and the Glory of a claimed reward (a region's, Thor's tile) has its line: a clan's lines add
    up to at least its final contest Glory (a text may take some back: R48)."""
    import re

    from volva.simulator.engines import replay_text
    r = load_ruleset("valhalla")
    names = LINEUPS[4]
    shown = 0
    for g in range(30):
        t = replay_text(r, names, [resolve(n) for n in names], 7, g)
        assert "(event" not in t and "contests" in t and "Prove Valor" in t
        lines: dict = {}
        for m in re.finditer(r"^\s*(P\d \([\w-]+\)): \+(\d+) Glory \(contest reward\)", t, re.M):
            lines[m.group(1)] = lines.get(m.group(1), 0) + int(m.group(2))
        for m in re.finditer(r"^(P\d \([\w-]+\)): \d+ Glory \((.*)\); rank", t, re.M):
            final = re.search(r"contest (\d+)", m.group(2))
            assert lines.get(m.group(1), 0) >= (int(final.group(1)) if final else 0), (g, m.group(0))
        shown += len(lines)
    assert shown > 0
    res = runner.invoke(app, ["replay", "--ruleset", "valhalla", "--seed", "7", "--lineup", ",".join(names)])
    assert res.exit_code == 0 and "Blood Rage: Valhalla, 4 players" in res.output


@pytest.mark.parametrize("args,needle", [
    (["--players", "2"], "--players 2; allowed: 3..5 for Blood Rage: Valhalla"),
    (["--lineup", "thor-warlord,greedy,greedy,greedy"], "unknown strategy 'thor-warlord' for valhalla"),
    (["--sweep", "planets"], "--sweep 'planets'; allowed: gods, god-sets"),
    (["--option", "call_one=maybe"], "call_one"),
])
def test_run_bad_input(tmp_path, args, needle):
    r = runner.invoke(app, ["run", "--ruleset", "valhalla", "--games", "10", "--out", str(tmp_path / "o"), *args])
    assert r.exit_code != 0 and needle in r.output, r.output


def test_sweep_needs_valhalla(tmp_path):
    r = runner.invoke(app, ["run", "--games", "10", "--sweep", "gods", "--out", str(tmp_path / "o")])
    assert r.exit_code != 0 and "god sweeps are for --ruleset valhalla" in r.output


def test_rainbow_bridge_run(tmp_path):
    out = tmp_path / "rb"
    r = runner.invoke(app, ["run", "--mode", "rainbow-bridge", "--games", "200", "--out", str(out),
                            "--lineup", "thor-warlord:thor,balanced:loki,greedy,quester"])
    assert r.exit_code == 0, r.output
    import pandas as pd
    c = pd.read_parquet(out / "clans.parquet")
    assert set(c["ruleset"].astype(str)) == {"rainbow-bridge"}
    tot = c.groupby("game_id")["glory_start"].sum()
    assert tot.max() <= 12 + 8 + 4 + 12 and tot.min() >= 12  # 12/8/4/0, ties share a placing


# --- scenarios ----------------------------------------------------------------------------------------
SCEN = Path(__file__).parent / "scenarios" / "valhalla"


@pytest.mark.parametrize("name", ["quest_horns_8.toml", "tyr_age2_tile.toml", "pass_and_scripted_contest.toml"])
def test_valhalla_scenarios_meet_their_expectations(name):
    """The rulebook's worked examples as scenario files (RB "Quest Phase" note: 8 Glory instead of 6;
    RB "Contest" note: Tyr's age-2 tile), checked against their [expect] tables."""
    from volva.strategies.lineup import run_scenario
    r = run_scenario(SCEN / name)
    assert r["ruleset"] == "valhalla" and r["log"]


@pytest.mark.parametrize("name", ["quest_horns_8.toml", "tyr_age2_tile.toml", "pass_and_scripted_contest.toml"])
def test_valhalla_scenarios_keep_greedys_views(name):
    """A position built by hand (figures, tokens, gods, rewards placed by the scenario loader) and
    the steps played from it leave greedy's kept board and region views equal to the board."""
    from volva.simulator.valhalla.invariants import regions_kept_nb, view_kept_nb
    from volva.simulator.valhalla.scenario import load_scenario
    from volva.strategies.lineup import resolve_for
    sc = load_scenario(SCEN / name, resolve=resolve_for("valhalla"))
    for played in (False, True):
        if played:
            sc.run()
        assert regions_kept_nb(sc.T, sc.S), played
        assert all(sc.S.view_stale[p] or view_kept_nb(sc.T, sc.S, p) for p in range(sc.P)), played


def test_valhalla_scenario_errors(tmp_path):
    from volva.simulator.core.loading import ScenarioError
    from volva.strategies.lineup import run_scenario
    p = tmp_path / "s.toml"
    p.write_text('ruleset = "valhalla"\nplayers = 3\n[[clan]]\nfigures = { Asgard = ["elite"] }\n[[clan]]\n[[clan]]\n')
    with pytest.raises(ScenarioError, match="field 'clan\\[0\\].figures': 'Asgard'; allowed: \\['Gladsheim'"):
        run_scenario(p)
    p.write_text((SCEN / "tyr_age2_tile.toml").read_text().replace('"clans.0.kill_pile" = 3', '"clans.0.kill_pile" = 4'))
    with pytest.raises(ScenarioError, match="clans.0.kill_pile: expected 4, actual 3"):
        run_scenario(p)
    r = runner.invoke(app, ["scenario", str(SCEN / "quest_horns_8.toml")])
    assert r.exit_code == 0 and '"quest": 8' in r.output


def test_strategy_file(tmp_path):
    """A Valhalla strategy file starts from a built-in and changes its weights; bad keys are named."""
    p = tmp_path / "s.toml"
    p.write_text('base = "quester"\nw_quest = 8\nstat_order = ["horns", "axes", "rage"]\n'
                 'god_bonus = { baldr = 4 }\ncard_bonus = { "Mjolnir\'s Fall" = 2 }\n')
    kind, v = resolve(str(p))
    rs = load_ruleset("valhalla")
    assert kind == E.VPOL_GREEDY and v[E.VP_W_QUEST] == 8 and v[E.VP_STAT0] == E.STAT_HORNS
    assert v[E.VP_GOD_W0 + E.VH_GOD_NAMES.index("baldr")] == 4
    assert v[E.VP_CARD_W0 + rs.card_ids("Mjolnir's Fall")[0]] == 2
    for text, needle in (("w_quests = 2", "key 'w_quests': unknown"), ('base = "thor-warlord"', "key 'base'"),
                         ('stat_order = ["horns"]', "key 'stat_order'"), ("god_bonus = { odin = 1 }", "god_bonus.odin"),
                         ('card_bonus = { "Mjolnir" = 1 }', "did you mean")):
        p.write_text(text + "\n")
        with pytest.raises(ValueError, match=needle):
            resolve(str(p))


def test_tournament_valhalla():
    r = runner.invoke(app, ["tournament", "--ruleset", "valhalla", "--strategies", "thor,loki,freya,baldr",
                            "--players", "3", "--games", "60"])
    assert r.exit_code == 0, r.output
    assert "4 combinations x 60 games" in r.output
    r = runner.invoke(app, ["tournament", "--ruleset", "valhalla", "--strategies", "thor,balanced,loki",
                            "--players", "3", "--games", "60"])
    assert r.exit_code != 0 and "unknown strategy 'balanced' for valhalla" in r.output


def test_kernel_cache_key_covers_the_valhalla_package(tmp_path, monkeypatch):
    """numba's cache misses a callee changed in another file, so the cache directory is named after
    a hash of the engine's sources: a change in simulator/valhalla/ must change it too."""
    import importlib.util
    src = Path(__file__).resolve().parents[1] / "simulator"
    dst = tmp_path / "simulator"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "data"))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "nc"))  # loading the copy must not move the cache

    def key():
        spec = importlib.util.spec_from_file_location("simcopy", dst / "__init__.py")
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        return m._source_hash()
    k0 = key()
    (dst / "valhalla" / "engine.py").write_text((dst / "valhalla" / "engine.py").read_text() + "\n# edit\n")
    assert key() != k0


def test_experiment_start_glory_list_and_seat_count(tmp_path):
    """An experiment may write start_glory as a list; it needs one value per seat."""
    from volva.analysis.experiment import load_experiment
    p = tmp_path / "e.toml"
    p.write_text('ruleset = "valhalla"\nplayers = 4\noptions = { start_glory = [12, 8, 4, 0] }\n')
    exp = load_experiment(p)
    assert exp.option_args() == ["start_glory=12/8/4/0"] and exp.lineup == ["thor", "loki", "quester", "warlord"]
    with pytest.raises(RulesError, match="3 value\\(s\\) 12/8/4 for 4 players"):
        load_ruleset("valhalla", options={"start_glory": "12/8/4"}).check_players(4)


def test_valhalla_scenario_scripted_stat_options_and_names(tmp_path):
    """Issue 15: Blood Rage: Valhalla scenarios take scripted decisions (here the stat of Tyr's tile,
    RB "Contest" note), rule options (validated, errors name the field), and print figures and
    places with the names the input uses, and Glory by every source, zeros included."""
    from volva.simulator.core.loading import ScenarioError
    from volva.strategies.lineup import run_scenario
    text = (SCEN / "tyr_age2_tile.toml").read_text().split("[expect]")[0]
    p = tmp_path / "s.toml"
    p.write_text(text.replace('region = "Himinbjorg"', 'region = "Himinbjorg"\ncards = { 0 = "Tyr\'s Sacrifice" }\n'
                                                       'choices = { 0 = ["horns"] }'))
    r = run_scenario(p)
    assert r["clans"][0]["stats"] == {"rage": 1, "axes": 1, "horns": 2}
    assert set(r["clans"][0]["glory_by_source"]) == set(E.GLORY_SOURCE_NAMES)
    assert sorted(r["clans"][1]["figures"]["kill pile 0"]) == ["elite", "warrior"]
    assert all(n in ("elite", "warrior") for c in r["clans"] for v in c["figures"].values() for n in v)
    p.write_text(text.replace('region = "Himinbjorg"', 'region = "Himinbjorg"\ncards = { 0 = "Tyr\'s Sacrifice" }\n'
                                                       'choices = { 0 = ["luck"] }'))
    with pytest.raises(ScenarioError, match=r"step 1.choices.0\[0\]': 'luck'; allowed: a stat"):
        run_scenario(p)
    p.write_text(text.replace('players = 3', 'players = 3\noptions = { call_one = false }'))
    run_scenario(p)
    p.write_text(text.replace('players = 3', 'players = 3\noptions = { call_none = false }'))
    with pytest.raises(ScenarioError, match="field 'options'.*call_none"):
        run_scenario(p)


def test_valhalla_scenario_names_the_refused_scripted_value(tmp_path):
    """A scripted stat raise the rules refuse (RB "Contest" note: Tyr's tile raises a stat of the
    winner's choice; horns is at its last step) stops the step with an error naming the clan,
    the value as written and its place in the clan's queue."""
    from volva.simulator.core.loading import ScenarioError
    from volva.strategies.lineup import run_scenario
    text = (SCEN / "tyr_age2_tile.toml").read_text().split("[expect]")[0]
    p = tmp_path / "s.toml"
    p.write_text(text.replace('hand = ["Tyr\'s Sacrifice"]', f'hand = ["Tyr\'s Sacrifice"]\nstats = {{ horns = {E.N_STEPS} }}')
                 .replace('region = "Himinbjorg"', 'region = "Himinbjorg"\ncards = { 0 = "Tyr\'s Sacrifice" }\n'
                                                   'choices = { 0 = ["horns"] }'))
    with pytest.raises(ScenarioError, match=r"named no legal option: clan 0's 'horns' \(value 2 of its queue\)"):
        run_scenario(p)


def test_valhalla_scripted_battle_card_must_be_in_hand(tmp_path):
    """RB "Contest" (each clan in the battle reveals a card from its hand): a scripted battle card
    the clan does not hold is refused before the step is played, naming the card, the clan and its
    hand, as in the base game's scenarios."""
    from volva.simulator.core.loading import ScenarioError
    from volva.strategies.lineup import run_scenario
    text = (SCEN / "pass_and_scripted_contest.toml").read_text().split("[expect]")[0]
    p = tmp_path / "s.toml"
    p.write_text(text.replace('hand = ["Serpent\'s Bite", "Trickster\'s Gambit"]', 'hand = ["Serpent\'s Bite"]')
                 .replace('cards = { 0 = "Serpent\'s Bite"', 'cards = { 0 = "Trickster\'s Gambit"'))
    with pytest.raises(ScenarioError, match=r"step 2.cards.0\[0\]'?: \"Trickster's Gambit\" is not in clan 0's "
                                            r"hand; hand: Serpent's Bite"):
        run_scenario(p)


def test_valhalla_scripted_calls_name_different_figures(tmp_path):
    """Scripted Call to Battle: ["warrior@Vingolf", "warrior@Vingolf"] names two Warriors (as in the
    base game's scenarios), with option call_one = false letting both come."""
    from volva.strategies.lineup import run_scenario
    p = tmp_path / "s.toml"
    p.write_text('ruleset = "valhalla"\nplayers = 3\noptions = { call_one = false }\n'
                 '[[clan]]\nfigures = { Gladsheim = ["elite"], Vingolf = ["warrior", "warrior"] }\n'
                 '[[clan]]\nfigures = { Gladsheim = ["warrior"] }\n[[clan]]\n'
                 '[[step]]\nclan = 0\naction = "contest"\nregion = "Gladsheim"\n'
                 'calls = { 0 = ["warrior@Vingolf", "warrior@Vingolf"] }\n')
    r = run_scenario(p)
    assert not r["clans"][0]["figures"].get("Vingolf")


def test_rainbow_bridge_names_a_blood_rage_option_as_given(tmp_path):
    """--mode rainbow-bridge: an unknown blood-rage.NAME option is named with its prefix, as the
    user wrote it (the Blood Rage loader's message said '--option nosuch'; a helper session)."""
    r = runner.invoke(app, ["run", "--mode", "rainbow-bridge", "--games", "4", "--option", "blood-rage.nosuch=1",
                            "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "--option blood-rage.nosuch: unknown option for Blood Rage" in r.output, r.output
