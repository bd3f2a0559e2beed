"""Strategy files: malformed files refused (file, key, allowed), `volva strategies list|show|validate`,
and custom files in `volva run`."""
from __future__ import annotations

import pandas as pd
import pytest
from typer.testing import CliRunner

from volva.cli import app
from volva.strategies.builtin import _card_names, archetypes
from volva.strategies.spec import StrategyError, load_strategy

runner = CliRunner()

GOOD = '''name = "my-brute"
plan = "Battle cards and Axes."
[draft]
battle = 2.5
gods = { tyr = 1.5 }
cards = { "Thor's Glory" = 2.0 }
[play]
pillage_margin = 0.5
stat_path = ["axes", "horns", "rage"]
'''

# (file text, needles that must all appear in the one-line message after the file name)
BAD = {
    "unknown_top_key": ('name = "x"\ncolour = "red"\n', ["colour", "unknown key", "allowed", "draft", "play"]),
    "unknown_draft_key": ('name = "x"\n[draft]\nbattel = 1.0\n', ["draft.battel", "unknown key", "allowed",
                                                                  "battle"]),
    "wrong_type": ('name = "x"\n[draft]\nbattle = "high"\n', ["draft.battle", "'high'", "allowed", "-20..20"]),
    "bool_is_not_a_number": ('name = "x"\n[draft]\nquest = true\n', ["draft.quest", "allowed", "-20..20"]),
    "out_of_range_weight": ('name = "x"\n[draft]\nbattle = 99\n', ["draft.battle", "99", "allowed", "-20..20"]),
    "out_of_range_play": ('name = "x"\n[play]\nlate_rage = 50\n', ["play.late_rage", "50", "allowed", "0..20"]),
    "bad_stat_path": ('name = "x"\n[play]\nstat_path = ["axes", "axes", "rage"]\n',
                      ["play.stat_path", "allowed", "three stats", "horns"]),
    "stat_path_not_a_list": ('name = "x"\n[play]\nstat_path = "axes"\n', ["play.stat_path", "allowed"]),
    "unknown_god": ('name = "x"\n[draft]\ngods = { zeus = 2.0 }\n', ["draft.gods.zeus", "unknown key", "allowed",
                                                                      "thor", "loki"]),
    "unknown_card": ('name = "x"\n[draft]\ncards = { "Excalibur" = 2.0 }\n',
                     ["draft.cards.Excalibur", "unknown key", "allowed", "Thor's Glory"]),
    "missing_name": ('[draft]\nbattle = 1.0\n', ["name", "missing", "allowed", "another rule set"]),
    "bad_base": ('name = "x"\nbase = "smart"\n', ["base", "'smart'", "allowed", "greedy", "random"]),
    "not_toml": ('name = "x\n', ["not valid TOML"]),
    # a rule that could never fire (found by a helper session: it validated "ok")
    "empty_rage_window": ('name = "x"\n[[rule]]\nwhen = { rage_min = 5, rage_max = 2 }\nset = { pillage_margin = 1 }\n',
                          ["rule[1].when.rage_max", "allowed", "5..99"]),
}


def _write(tmp_path, text, name="s.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def _one_line_error(res, *needles):
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "Traceback" not in res.output
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_file_refused_by_loader(tmp_path, case):
    text, needles = BAD[case]
    p = _write(tmp_path, text, f"{case}.toml")
    with pytest.raises(StrategyError) as ei:
        load_strategy(p, list(_card_names()))
    msg = str(ei.value)
    assert msg.startswith(f"{p}: ")
    for n in needles:
        assert n in msg, (n, msg)


@pytest.mark.parametrize("case", sorted(BAD))
def test_validate_refuses_bad_file(tmp_path, case):
    text, needles = BAD[case]
    p = _write(tmp_path, text, f"{case}.toml")
    line = _one_line_error(runner.invoke(app, ["strategies", "validate", str(p)]), str(p), *needles)
    assert line.startswith(f"error: {p}: ")


def test_validate_missing_file(tmp_path):
    _one_line_error(runner.invoke(app, ["strategies", "validate", str(tmp_path / "nope.toml")]), "file not found")


def test_validate_good_file(tmp_path):
    p = _write(tmp_path, GOOD)
    res = runner.invoke(app, ["strategies", "validate", str(p)])
    assert res.exit_code == 0, res.output
    assert res.stdout.strip() == "ok: my-brute"


def test_validate_library_files():
    for s in archetypes().values():
        res = runner.invoke(app, ["strategies", "validate", str(s.path)])
        assert res.exit_code == 0 and res.stdout.strip() == f"ok: {s.name}", res.output


@pytest.mark.parametrize("case", ["wrong_type", "out_of_range_weight", "unknown_card", "bad_stat_path"])
def test_run_with_bad_file_plays_nothing(tmp_path, fake_play_batch, case):
    text, needles = BAD[case]
    p = _write(tmp_path, text, f"{case}.toml")
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", "--players", "2", "--lineup", f"{p},greedy", "--games", "10",
                              "--out", str(out)])
    _one_line_error(res, str(p), *needles)
    assert fake_play_batch == []
    assert not out.exists()


def test_tournament_with_bad_file_plays_nothing(tmp_path, fake_play_batch):
    p = _write(tmp_path, BAD["out_of_range_weight"][0], "bad.toml")
    res = runner.invoke(app, ["tournament", "--strategies", f"greedy,{p},random", "--players", "2",
                              "--games", "10", "--out", str(tmp_path / "t")])
    _one_line_error(res, str(p), "draft.battle", "-20..20")
    assert fake_play_batch == []
    assert not (tmp_path / "t").exists()


@pytest.mark.slow
def test_custom_file_plays_in_run(tmp_path):
    p = _write(tmp_path, GOOD)
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", "--players", "2", "--lineup", f"{p},greedy", "--games", "8", "--seed", "5",
                              "--out", str(out)])
    assert res.exit_code == 0, res.output
    clans = pd.read_parquet(out / "clans.parquet")
    assert len(clans) == 16
    assert set(clans["strategy"].astype(str)) == {str(p), "greedy"}
    assert clans.groupby("strategy", observed=True)["seat"].value_counts().eq(4).all()  # rotated seats
    assert clans["glory"].gt(0).any()


def test_custom_file_compiles_to_its_numbers(tmp_path):
    from volva.simulator.core import enums as E
    from volva.strategies.builtin import resolve
    p = _write(tmp_path, GOOD)
    kind, params = resolve(str(p))
    assert kind == E.POL_GREEDY
    assert params[E.P_W_BATTLE] == 2.5 and params[E.P_PILLAGE_MARGIN] == 0.5
    assert params[E.P_GOD_W0 + E.GOD_NAMES.index("tyr")] == 1.5
    assert [params[E.P_STAT0 + k] for k in range(3)] == [E.STAT_AXES, E.STAT_HORNS, E.STAT_RAGE]


# --- volva strategies list / show -----------------------------------------------

def test_strategies_list():
    res = runner.invoke(app, ["strategies", "list"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.strip().splitlines()
    assert len(lines) >= 10
    names = [ln.split()[0] for ln in lines]
    assert names[:2] == ["random", "greedy"]
    lib = sorted(archetypes())
    assert names[2:] == lib and len(lib) >= 8
    for ln, n in zip(lines[2:], lib):
        assert archetypes()[n].plan in ln  # name first, then its plan
    assert all(len(ln.split(None, 1)) == 2 for ln in lines)  # every line has a plan


@pytest.mark.parametrize("name", sorted(archetypes()))
def test_show_archetype_lists_non_defaults(name):
    """Every key the library file sets away from greedy's default is shown with its value, and
    greedy's value beside it; keys at the default are not."""
    import tomllib

    from volva.strategies.spec import DRAFT_KEYS, PLAY_KEYS, greedy_defaults
    s = archetypes()[name]
    doc = tomllib.loads(s.path.read_text())
    res = runner.invoke(app, ["strategies", "show", name])
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert s.plan in out
    rows = {ln.split("│")[2].strip(): [c.strip() for c in ln.split("│")[1:-1]]
            for ln in out.splitlines() if ln.startswith("│")}
    d = greedy_defaults()
    draft, play = doc.get("draft", {}), doc.get("play", {})
    for k, i in DRAFT_KEYS.items():
        if k in draft and draft[k] != d[i]:
            assert float(rows[k][2]) == draft[k] and float(rows[k][3]) == d[i]
        elif k not in draft:
            assert k not in rows
    for k, (i, _) in PLAY_KEYS.items():
        if k in play and play[k] != d[i]:
            assert float(rows[k][2]) == play[k] and float(rows[k][3]) == d[i]
        elif k not in play:
            assert k not in rows
    for g, w in draft.get("gods", {}).items():
        if w != 0:  # greedy's god bonus is 0: a file that writes 0 sets nothing away from it
            assert float(rows[g][2]) == w and rows[g][0] == "draft by god"
        else:
            assert g not in rows
    for c, w in draft.get("cards", {}).items():
        assert float(rows[c][2]) == w and rows[c][0] == "draft by card"
    if play.get("stat_path", ["axes", "rage", "horns"]) != ["axes", "rage", "horns"]:
        assert rows["stat_path"][2] == " > ".join(play["stat_path"])
        assert rows["stat_path"][3] == "axes > rage > horns"
    else:
        assert "stat_path" not in rows


def test_show_stat_path_and_file(tmp_path):
    res = runner.invoke(app, ["strategies", "show", "quester"])
    assert res.exit_code == 0 and "stat_path" in res.stdout and "horns > rage > axes" in res.stdout
    assert "axes > rage > horns" in res.stdout  # greedy's, for comparison
    p = _write(tmp_path, GOOD)
    res = runner.invoke(app, ["strategies", "show", str(p)])
    assert res.exit_code == 0, res.output
    assert "my-brute" in res.stdout and "Battle cards and Axes." in res.stdout
    assert "axes > horns > rage" in res.stdout and "2.5" in res.stdout


def test_show_builtins():
    res = runner.invoke(app, ["strategies", "show", "greedy"])
    assert res.exit_code == 0 and "all parameters at greedy's defaults" in res.stdout
    res = runner.invoke(app, ["strategies", "show", "random"])
    assert res.exit_code == 0 and "random" in res.stdout


def test_show_errors(tmp_path):
    _one_line_error(runner.invoke(app, ["strategies", "show", "bogus"]), "unknown strategy 'bogus'", "greedy")
    p = _write(tmp_path, BAD["unknown_god"][0])
    _one_line_error(runner.invoke(app, ["strategies", "show", str(p)]), str(p), "draft.gods.zeus")
