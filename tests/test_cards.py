"""Card-rule tests: one scenario file per card text in tests/scenarios/cards/ (format: docs/scenarios.md),
each played by the real engine and checked against its [expect] table (DIGEST §1.6–1.7, card texts)."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from volva.strategies.lineup import run_scenario

ROOT = Path(__file__).resolve().parent.parent
CARDS_DIR = Path(__file__).parent / "scenarios" / "cards"
FILES = sorted(CARDS_DIR.glob("*.toml"))
CSV = ROOT / "simulator" / "data" / "blood-rage" / "cards.csv"


def _cards():
    with open(CSV, newline="") as fh:
        rows = list(csv.DictReader(fh))
    return rows


def test_there_are_card_scenarios():
    assert len(FILES) >= 60


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_card_scenario(path):
    text = path.read_text()
    assert "[expect]" in text, f"{path.name} has no [expect] table"
    run_scenario(path)  # raises ScenarioError listing every failing expectation


def test_every_card_has_a_scenario():
    """Every distinct card with a text (the `effect` column), and the plain Tyr battle cards, is named
    in at least one scenario file: a card without a test fails here."""
    texts = {p.name: p.read_text().lower() for p in FILES}
    names = sorted({r["name"] for r in _cards()})
    with_text = sorted({r["name"] for r in _cards() if r["effect"].strip()})
    assert len(names) == 63 and len(with_text) >= 50
    missing = [n for n in names if not any(n.lower() in t for t in texts.values())]
    assert not missing, f"cards without a scenario in {CARDS_DIR}: {missing}"


def test_expect_mismatch_lists_every_failing_path(tmp_path):
    from volva.simulator.core.loading import ScenarioError
    text = (CARDS_DIR / "thors_hammer.toml").read_text().split("[expect]")[0] + """[expect]
clan.0.glory = 7
clan.1.rage = 6
clan.0.figures.Valhalla = ["warrior"]
clan.0.nonsense = 1
log = ["no such line"]
"""
    p = tmp_path / "bad.toml"
    p.write_text(text)
    with pytest.raises(ScenarioError) as ei:
        run_scenario(p)
    msg = str(ei.value)
    assert "4 expectation(s) failed" in msg
    assert "clan.0.glory: expected 7, actual 6" in msg
    assert "clan.0.figures.Valhalla: expected ['warrior'], actual []" in msg
    assert "clan.0.nonsense: expected 1, actual: (no such path)" in msg
    assert "log: no line contains 'no such line'" in msg
    assert "clan.1.rage" not in msg  # a passing path is not listed
    run_scenario(p, check=False)  # without the check the result is returned
