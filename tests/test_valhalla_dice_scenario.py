"""`volva scenario` for Valhalla, the dice game (simulator/valhalla_dice/scenario.py; issue 12
item 1): positions from TOML, Phase A actions, Phase B, whole turns and the end of the game played
by the real kernels; each file in tests/scenarios/valhalla_dice/ cites the rule it checks."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from volva.simulator.core.loading import ScenarioError
from volva.simulator.valhalla_dice import engine as EN
from volva.simulator.valhalla_dice.scenario import load_scenario
from volva.strategies.lineup import resolve_for, run_scenario

HERE = Path(__file__).parent / "scenarios" / "valhalla_dice"
FILES = sorted(HERE.glob("*.toml"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_rule_scenario(path):
    """Each file cites the rulebook (003 l.N) or a ruling in its header and checks it in [expect]."""
    text = path.read_text()
    assert ("003 l." in text or "DIGEST §" in text) and "[expect]" in text
    run_scenario(path)  # raises ScenarioError listing every failing expectation


def test_a_scenario_is_a_pure_function_of_its_file():
    path = HERE / "loki_consolation.toml"
    assert run_scenario(path) == run_scenario(path)


def write(tmp_path, text: str) -> Path:
    p = tmp_path / "s.toml"
    p.write_text('ruleset = "valhalla-dice"\n' + text)
    return p


def error_of(path) -> str:
    with pytest.raises(ScenarioError) as ei:
        run_scenario(path)
    return str(ei.value)


THREE = "players = 3\n[[clan]]\nteam = [\"Bear Axeman\"]\n[[clan]]\nteam = [\"Wolf Axeman\"]\n[[clan]]\n"


@pytest.mark.parametrize("text,needle", [
    ("players = 3\n[[clan]]\n", "field 'clan': 1 [[clan]] tables; allowed: exactly 3, one per player"),
    ("players = 7\n", "field 'players': 7; allowed: an integer 2..6"),
    (THREE + "tem = []\n", "field 'clan[2].tem': unknown field (did you mean 'team'?)"),
    (THREE + "hand = [\"Bear Axemen\"]\n", "field 'clan[2].hand': unknown card 'Bear Axemen'; did you mean"),
    (THREE + "team = [\"Bear Axeman\"]\n", "field 'clan[2].team': 'Bear Axeman': more copies named than the deck holds (1)"),
    (THREE + "team = [\"Fury\"]\n", "'Fury' is a Battle Tactic; only Warriors go on a team"),
    (THREE + "team = [\"Boar Axeman\", \"Boar Twin Axes\", \"Deer Axeman I\", \"Deer Axeman II\", \"Wolf Twin Axes\"]\n",
     "field 'clan[2].team': 5 cards; allowed: at most 4"),
    (THREE + "king = 1\n", "King of the Hill is off"),
    (THREE + "jarl = \"Odin\"\n", "field 'clan[2].jarl': 'Odin'; allowed: a jarls.csv name or 'none'"),
    (THREE + "jarl = \"Bob\"\n", "'Bob'; allowed: a jarls.csv name or 'none' (Sigurd, Solveig, Sigvard, "),
    (THREE + "won = { 2 = 1 }\n", "clan 2 cannot win its own shields"),
    ("players = 2\n[[clan]]\njarl = \"Jarl 20\"\n[[clan]]\n", "set aside at 2 players (003 l.49)"),
    ("dice = { red = \"hammer\" }\n" + THREE, "field 'dice.red': 'hammer'; allowed: spear, sword, axe, bow, shield, x"),
    ("options = { loki_card = \"random\" }\n" + THREE, "field 'options': --option loki_card=random: Loki's Deception is off"),
    ("options = { start_hand = \"draft\" }\n" + THREE, "field 'options.start_hand': acts only in the setup"),
    (THREE + "[[step]]\nclan = 0\naction = \"raid\"\n", "field 'step 1.action': 'raid'; allowed: ['add', 'add_two'"),
    (THREE + "[[step]]\nclan = 0\naction = \"attack\"\ntarget = 9\n", "field 'step 1.target': 9; allowed: an integer 0..2"),
    (THREE + "[[step]]\nclan = 0\naction = \"attack\"\n", "field 'step 1.target': missing; allowed: an integer 0..2"),
    (THREE + "[[step]]\nclan = 0\naction = \"add\"\n", "field 'step 1.card': missing; allowed: a card name"),
    (THREE + "hand = [\"Fury\"]\n[[step]]\nclan = 0\naction = \"add\"\ncard = \"Fury\"\n",
     "field 'step 1': clan 0 does not hold the card(s) named; its hand: (empty)"),
    (THREE + "[[step]]\nclan = 0\naction = \"draw\"\nexpect_error = \"no\"\n",
     "field 'step 1.expect_error': expected a refusal containing 'no', but the step was legal"),
    (THREE + "[[step]]\nclan = 0\naction = \"attack\"\ntarget = 2\n",
     "clan 2 has no Warriors on its team: it cannot be attacked (003 l.92)"),
    (THREE + "[[step]]\nphase = \"end_game\"\n[[step]]\nphase = \"turn\"\n", "the game is over"),
])
def test_bad_scenarios_name_the_field(tmp_path, text, needle):
    msg = error_of(write(tmp_path, text))
    assert needle in msg and "s.toml" in msg, msg


def test_refusals_agree_with_the_engine_over_random_positions(tmp_path):
    """The runner's attack reasons word engine.can_attack_nb: over 300 random positions, an attack
    is refused exactly when the kernel forbids it (and the forced add of 003 l.83 aside)."""
    rng = np.random.default_rng(3)
    p = write(tmp_path, "players = 4\n" + "[[clan]]\n" * 4)
    sc = load_scenario(p, None, resolve_for("valhalla-dice"))
    warriors = [n for n, c in zip(sc.r.card_names, sc.r.content.cards) if c.kind == "warrior"]
    checked = 0
    for _ in range(300):
        picks = rng.choice(len(warriors), 16, replace=False)
        clans = []
        for k in range(4):
            n_team = int(rng.integers(0, 3))
            team = [warriors[i] for i in picks[4 * k:4 * k + n_team]]
            clans.append({"team": team, "hand": [warriors[picks[4 * k + 3]]]})
        lost = int(rng.integers(0, 5))
        clans[0]["won"] = {"1": lost}
        d = {"ruleset": "valhalla-dice", "players": 4, "clan": clans}
        sc = load_scenario(p, d, resolve_for("valhalla-dice"))
        for a in range(4):
            for q in range(4):
                why = sc.illegal(a, "attack", (q, -1, -1))
                forced = sc.S.team_n[a] == 0  # every clan holds a Warrior: an empty team must add
                assert (why == "") == (bool(EN.can_attack_nb(sc.S, a, q)) and not forced), (a, q, why)
                checked += 1
    assert checked == 300 * 16


def test_cli_prints_the_position(tmp_path):
    from typer.testing import CliRunner

    from volva.cli import app
    r = CliRunner().invoke(app, ["scenario", str(HERE / "tie_goes_to_the_attacker.toml")])
    assert r.exit_code == 0, r.output
    assert '"winner": "attacker"' in r.output and '"valhalla": [' in r.output
    bad = write(tmp_path, THREE + "[[step]]\nclan = 0\naction = \"attack\"\ntarget = 2\n")
    r = CliRunner().invoke(app, ["scenario", str(bad)])
    assert r.exit_code == 2 and "cannot be attacked" in r.output
