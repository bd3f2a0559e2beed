"""Gods of Ásgard (DIGEST §2) in scenarios: one file per power in tests/scenarios/gods/ (format:
docs/scenarios.md, the `gods` table), each played by the real engine and checked against its
[expect] table; the forced god move after a pillage attempt (scripted, refused, impossible);
the `gods` field's errors and the `gods` map of the JSON output."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from volva.simulator.core import enums as E
from volva.simulator.core.loading import ScenarioError
from volva.simulator.engines import load_ruleset
from volva.strategies.lineup import run_scenario

GODS_DIR = Path(__file__).parent / "scenarios" / "gods"
FILES = sorted(GODS_DIR.glob("*.toml"))
RULESET = load_ruleset("blood-rage")
POWER_OF = {n: E.GOD_POWER_NAMES[int(RULESET.tables.god_power[i])] for i, n in enumerate(RULESET.god_names)}


def test_there_are_god_scenarios():
    assert len(FILES) >= 9


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_god_scenario(path):
    text = path.read_text()
    assert "[expect]" in text, f"{path.name} has no [expect] table"
    assert "DIGEST §2" in text, f"{path.name} does not cite DIGEST §2"
    assert "gods" in tomllib.loads(text), f"{path.name} has no `gods` table"
    run_scenario(path)  # raises ScenarioError listing every failing expectation


def test_every_power_has_a_scenario():
    """Each of the six powers has a file named after it (odin*.toml, ...) whose `gods` table puts a
    god with that power on the board."""
    assert sorted(POWER_OF.values()) == sorted(E.GOD_POWER_NAMES)
    missing = []
    for power in E.GOD_POWER_NAMES:
        ok = False
        for p in GODS_DIR.glob(f"{power}*.toml"):
            gods = tomllib.loads(p.read_text()).get("gods", {})
            ok = ok or any(POWER_OF.get(g) == power for g in gods)
        if not ok:
            missing.append(power)
    assert not missing, f"god powers without a scenario in {GODS_DIR}: {missing}"


def _variant(tmp_path, name, old, new):
    text = (GODS_DIR / name).read_text()
    assert old in text
    p = tmp_path / f"variant_{name}"
    p.write_text(text.replace(old, new))
    return p


@pytest.mark.parametrize("dest,why", [("Angerboda", "pillaged"), ("Gimle", "destroyed"),
                                      ("Horgr", "Thor is there"), ("Elvagar", "Odin is there, pillaged now")])
def test_forced_move_refuses_an_illegal_destination(tmp_path, dest, why):
    p = _variant(tmp_path, "god_move_scripted.toml", 'choices = { 0 = ["Myrkulor"] }',
                 f'choices = {{ 0 = ["{dest}"] }}')
    with pytest.raises(ScenarioError, match="scripted choice named no legal option"):
        run_scenario(p, check=False)


def test_forced_move_accepts_yggdrasil(tmp_path):
    p = _variant(tmp_path, "god_move_scripted.toml", 'choices = { 0 = ["Myrkulor"] }',
                 'choices = { 0 = ["Yggdrasil"] }')
    assert run_scenario(p, check=False)["gods"] == {"Odin": "Yggdrasil", "Thor": "Horgr"}


def test_forced_move_is_compulsory_and_unscripted_is_greedy(tmp_path):
    p = _variant(tmp_path, "god_move_scripted.toml", 'choices = { 0 = ["Myrkulor"] }\n', "")
    res = run_scenario(p, check=False)
    assert res["gods"]["Odin"] not in ("Elvagar", "Angerboda", "Gimle", "Horgr")
    assert any("moves Odin (god) from Elvagar" in line for line in res["log"])


def test_no_legal_province_asks_nothing(tmp_path):
    """With no legal destination the engine asks nothing: a scripted province is left over."""
    p = _variant(tmp_path, "god_move_nowhere.toml", 'province = "Elvagar"\n',
                 'province = "Elvagar"\nchoices = { 0 = ["Elvagar"] }\n')
    with pytest.raises(ScenarioError, match="never asked for"):
        run_scenario(p, check=False)
    res = run_scenario(GODS_DIR / "god_move_nowhere.toml")
    assert not any("(god) from" in line for line in res["log"])


# --- the `gods` field --------------------------------------------------------------------------

BASE = """players = 2
age = 1
destroyed = ["Gimle"]
{extra}
[[clan]]
figures = {{ Elvagar = ["leader"] }}

[[clan]]
figures = {{ Horgr = ["leader"] }}
"""


def _run(tmp_path, extra, steps=""):
    p = tmp_path / "gods.toml"
    p.write_text(BASE.format(extra=extra) + steps)
    return run_scenario(p)


def test_gods_turn_the_module_on_and_appear_in_the_output(tmp_path):
    res = _run(tmp_path, 'gods = { odin = "elvagar", Frigga = "Yggdrasil" }')
    assert res["gods"] == {"Odin": "Elvagar", "Frigga": "Yggdrasil"}
    assert _run(tmp_path, "")["gods"] == {}


def test_a_god_on_the_ragnarok_province_leaves_the_board(tmp_path):
    res = _run(tmp_path, 'doom = ["Myrkulor"]\ngods = { Thor = "Myrkulor", Tyr = "Elvagar" }',
               '\n[[step]]\nphase = "ragnarok"\n')
    assert res["gods"] == {"Thor": None, "Tyr": "Elvagar"}


@pytest.mark.parametrize("extra,pattern", [
    ('gods = { Zeus = "Elvagar" }', r"gods\.Zeus: unknown god 'Zeus'.*allowed: Odin, Thor, Tyr, Loki, Frigga, Heimdall"),
    ('gods = { Odin = "Elvagar", Thor = "Horgr", Tyr = "Utgard" }', r"gods: 3 gods; allowed: at most 2"),
    ('gods = { Odin = "Gimle" }', r"gods\.Odin: Gimle is destroyed; allowed: a standing province"),
    ('gods = { Odin = "Elvagar", Thor = "Elvagar" }', r"gods\.Thor: Elvagar already holds Odin"),
    ('gods = { Odin = "Elvagar", odin = "Horgr" }', r"gods\.odin: Odin is named twice"),
    ('gods = { Odin = "Asgard" }', r"gods\.Odin: unknown province 'Asgard'.*allowed: Elvagar"),
    ('gods = ["Odin"]', r"gods: .*expected a table god name = province"),
    ('options = { gods_of_asgard = false }\ngods = { Odin = "Elvagar" }', r"options\.gods_of_asgard: False"),
])
def test_gods_field_errors(tmp_path, extra, pattern):
    with pytest.raises(ScenarioError) as ei:
        _run(tmp_path, extra)
    assert re.search(pattern, str(ei.value)), str(ei.value)


def test_log_order_reports_a_line_out_of_order(tmp_path):
    text = (GODS_DIR / "heimdall.toml").read_text().split("[expect]")[0] + """[expect]
log_order = ["clan 1 reveals", "clan 2 reveals"]
"""
    p = tmp_path / "order.toml"
    p.write_text(text)
    with pytest.raises(ScenarioError, match=r"log_order: no later line contains 'clan 2 reveals'"):
        run_scenario(p)
