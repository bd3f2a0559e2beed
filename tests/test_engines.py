"""The engine registry (simulator/engines.py) is the only place that knows the rule sets: a new
rule set is one engine package plus one registry entry (and its strategies' resolver), and then
plays through ``volva run``, ``volva replay`` and ``volva report`` like the shipped ones."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from volva.simulator import engines


@pytest.fixture
def toy():
    import toy_engine

    from volva.strategies import lineup
    engines.register(engines.Engine("toy", "toy_engine", "Toy game", (2, 3)), ("toy",))
    old = dict(lineup._RESOLVERS)
    lineup.register("toy", toy_engine.resolve)
    yield
    engines.unregister("toy")
    lineup._RESOLVERS.clear()
    lineup._RESOLVERS.update(old)


def test_shipped_engines_are_registered():
    assert engines.engine_of("blood-rage").name == "blood-rage"
    assert engines.engine_of("valhalla").title == "Blood Rage: Valhalla"
    assert engines.get("rainbow-bridge").by_game_id
    with pytest.raises(engines.RulesError, match="unknown rule set 'nosuch'; allowed: .*blood-rage"):
        engines.engine_of("nosuch")


def test_a_registered_toy_rule_set_plays_through_volva_run(toy, tmp_path):
    from volva.analysis.suffstats import Stats
    from volva.cli import app
    assert "toy" in engines.names()
    res = CliRunner().invoke(app, ["run", "--ruleset", "toy", "--players", "2", "--lineup", "high,low",
                                   "--games", "400", "--batch-size", "100", "--out", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    st = Stats.load(tmp_path / "run")
    assert st.games == 400 and st.game["engine"] == "toy" and st.cards["Rune"]["value"] == "3"
    s = st["clans"].groupby("strategy")[["n", "w"]].sum()
    assert s.loc["high", "w"] > 2 * s.loc["low", "w"]  # strength 4 on a draw of 0..7
    res = CliRunner().invoke(app, ["replay", "--ruleset", "toy", "--players", "2", "--lineup", "high,low",
                                   "--game", "3"])
    assert res.exit_code == 0 and "Glory, rank" in res.output, res.output
    res = CliRunner().invoke(app, ["report", str(tmp_path / "run"), "--out", str(tmp_path / "report")])
    assert res.exit_code == 0, res.output


def test_the_toy_rule_set_refuses_bad_input_in_one_line(toy, tmp_path):
    from volva.cli import app
    res = CliRunner().invoke(app, ["run", "--ruleset", "toy", "--players", "4", "--games", "10",
                                   "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and "--players 4; allowed: 2..3 for Toy game" in res.output  # the registry's range
