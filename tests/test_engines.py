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


ONE_BATCH = """
import sys
from volva.simulator import engines
from volva.strategies.lineup import resolve_for
rs = engines.load_ruleset(sys.argv[1])
pols = [resolve_for(engines.get(rs).name)("greedy")] * 4
b = engines.play_batch(rs, pols, engines.game_seeds(3, 0, 40))
print(int(b.n_turns.sum()), int(b.glory.sum()))
"""


@pytest.mark.parametrize("ruleset", ["blood-rage", "valhalla", "valhalla-dice"])
def test_a_chunk_s_state_buffer_outlives_its_games(ruleset):
    """Each chunk of a batch plays on one state buffer (134 kB in the board games). numba freed it
    while its record was still in use, which went unseen until malloc unmapped freed large blocks
    at once: with MALLOC_TRIM_THRESHOLD_ set, as Dask's nanny sets it for its workers, the engine
    crashed (SIGSEGV). The caller now holds the buffer for the whole chunk."""
    import os
    import subprocess
    import sys
    rs = engines.load_ruleset(ruleset)  # compile (or load) the kernels here, so the child loads them
    from volva.strategies.lineup import resolve_for
    b = engines.play_batch(rs, [resolve_for(engines.get(rs).name)("greedy")] * 4, engines.game_seeds(3, 0, 40))
    env = dict(os.environ, MALLOC_TRIM_THRESHOLD_="65536")
    r = subprocess.run([sys.executable, "-c", ONE_BATCH, ruleset], env=env, capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == [str(int(b.n_turns.sum())), str(int(b.glory.sum()))]
