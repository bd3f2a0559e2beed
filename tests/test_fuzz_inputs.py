"""Property-based fuzzing (Hypothesis) of the inputs Volva reads (issue 15): scenario files of both
rule sets, strategy files of both rule sets, card patches, experiment files, rule-set data files
(board, rules, gods, cards), command-line arguments and a resumed run's run.json.

Property: the input runs, or Volva exits with code 2 and one ``error:`` line naming the file, and
never a traceback; a failed command leaves what was already written unchanged. Inputs are valid
files mutated at random: a value replaced by junk, a key deleted, an unknown key added, or the raw
text damaged (bytes inserted or cut, a byte-order mark, invalid UTF-8).

The suite runs a bounded number of examples per target (profile ``volva-ci``); a longer run:
``pytest tests/test_fuzz_inputs.py --hypothesis-profile=long --hypothesis-show-statistics``.
"""
from __future__ import annotations

import copy
import json
import shutil
import tomllib
from pathlib import Path

import pytest
import tomli_w
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from volva.cli import app

ROOT = Path(__file__).resolve().parents[1]
SCEN = Path(__file__).parent / "scenarios"
DATA = ROOT / "simulator" / "data"
runner = CliRunner()
JUNK = st.one_of(
    st.integers(-2 ** 40, 2 ** 40), st.sampled_from([0, -1, 1, 2, 6, 7, 99, 10 ** 30]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8), st.booleans(),
    st.lists(st.one_of(st.integers(-3, 20), st.text(max_size=4)), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(-3, 9), max_size=2),
)


def _slots(doc, out=None):
    """Every (container, key) of a parsed TOML document, tables and arrays walked."""
    out = [] if out is None else out
    items = doc.items() if isinstance(doc, dict) else enumerate(doc)
    for k, v in items:
        out.append((doc, k))
        if isinstance(v, (dict, list)):
            _slots(v, out)
    return out


@st.composite
def mutated_toml(draw, text: str) -> bytes:
    """A valid TOML text with 1..3 structural mutations, or with its raw bytes damaged."""
    if draw(st.integers(0, 4)) == 0:  # raw damage
        b = bytearray(text.encode())
        for _ in range(draw(st.integers(1, 3))):
            i = draw(st.integers(0, len(b)))
            op = draw(st.sampled_from(["insert", "cut", "bom", "latin1"]))
            if op == "insert":
                b[i:i] = draw(st.binary(min_size=1, max_size=4))
            elif op == "cut":
                del b[i:i + draw(st.integers(1, 6))]
            elif op == "bom":
                b[0:0] = b"\xef\xbb\xbf"
            else:
                b[i:i] = b"\xe9"
        return bytes(b)
    doc = copy.deepcopy(tomllib.loads(text))
    for _ in range(draw(st.integers(1, 3))):
        slots = _slots(doc)
        if not slots:
            break
        box, key = draw(st.sampled_from(slots))
        op = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if op == "replace":
            box[key] = draw(JUNK)
        elif op == "delete":
            del box[key]
        elif isinstance(box, dict):
            box[draw(st.text(min_size=1, max_size=6))] = draw(JUNK)
        else:
            box.append(draw(JUNK))
    try:
        return tomli_w.dumps(doc).encode()
    except (TypeError, ValueError):  # a value TOML cannot write: the untouched text
        return text.encode()


def _check(res, path: Path, before: dict | None = None):
    """Exit 0, or exit 2 with one 'error:' line naming the file; files written before unchanged."""
    assert not (res.exception and not isinstance(res.exception, SystemExit)), \
        f"traceback for {path}: {res.exception!r}\n{path.read_bytes()[:600]!r}"
    assert res.exit_code in (0, 2), (res.exit_code, res.output)
    if res.exit_code == 2:
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:"), res.stderr
        assert path.name in lines[0], f"the error does not name {path.name}: {lines[0]}"
    for p, data in (before or {}).items():
        assert p.read_bytes() == data, f"{p} changed by a failed command"


SCENARIOS = [SCEN / "cards" / "lokis_trickery.toml", SCEN / "rules" / "upgrade_slot_is_chosen.toml",
             SCEN / "pillage_battle.toml", SCEN / "valhalla" / "pass_and_scripted_contest.toml",
             SCEN / "valhalla" / "tyr_age2_tile.toml"]


@pytest.mark.parametrize("base", SCENARIOS, ids=[p.stem for p in SCENARIOS])
@given(data=st.data())
def test_scenario_files(tmp_path, base, data):
    p = tmp_path / "s.toml"
    p.write_bytes(data.draw(mutated_toml(base.read_text())))
    out = tmp_path / "kept.json"
    out.write_text('{"written": "before"}')
    res = runner.invoke(app, ["scenario", str(p), "--out", str(out)])
    _check(res, p, {out: b'{"written": "before"}'} if res.exit_code else None)


STRATEGIES = [("blood-rage", ROOT / "strategies" / "library" / "thor-warlord.toml"),
              ("blood-rage", ROOT / "strategies" / "library" / "tuned-4p.toml"),
              ("valhalla", ROOT / "strategies" / "library" / "valhalla" / "tuned-4p.toml")]


@pytest.mark.parametrize("ruleset, base", STRATEGIES, ids=[f"{r}-{p.stem}" for r, p in STRATEGIES])
@given(data=st.data())
def test_strategy_files(tmp_path, ruleset, base, data):
    p = tmp_path / "strat.toml"
    p.write_bytes(data.draw(mutated_toml(base.read_text())))
    _check(runner.invoke(app, ["strategies", "validate", str(p), "--ruleset", ruleset]), p)


PATCH = """["Tyr's Smite"]
value = 4

["Troll"]
remove = true

["Fenrir's Bite"]
add = true
age = 2
type = "battle"
god = "Loki"
value = 4
copies_min1 = 1
effect = "A new battle card."
"""


@given(data=st.data())
def test_card_patches(tmp_path, data):
    p = tmp_path / "patch.toml"
    p.write_bytes(data.draw(mutated_toml(PATCH)))
    _check(runner.invoke(app, ["replay", "--patch", str(p), "--players", "3", "--seed", "1"]), p)


EXPERIMENT = """name = "fuzz"
players = 3
lineup = ["greedy", "balanced", "random"]
games = 4
seed = 3
batch_size = 4
modules = ["gods-of-asgard"]
options = { tie_break = "rage" }
[patch."Tyr's Smite"]
value = 4
"""


@given(data=st.data())
def test_experiment_files(tmp_path, data):
    p = tmp_path / "exp.toml"
    p.write_bytes(data.draw(mutated_toml(EXPERIMENT)))
    out = tmp_path / "out"
    shutil.rmtree(out, ignore_errors=True)
    _check(runner.invoke(app, ["study", str(p), "--games", "4", "--no-report", "--out", str(out)]), p)


DATA_FILES = [("blood-rage", "board.toml"), ("blood-rage", "rules.toml"), ("blood-rage", "gods.toml"),
              ("valhalla", "board.toml"), ("valhalla", "rules.toml")]


@pytest.mark.parametrize("ruleset, name", DATA_FILES, ids=[f"{r}-{n}" for r, n in DATA_FILES])
@given(data=st.data())
def test_rule_set_data_files(tmp_path, ruleset, name, data):
    """A user's own rule-set directory: loads, or one RulesError naming the file (the CLI prints it
    as its one error line)."""
    from volva.simulator.engines import RulesError, load_ruleset
    d = tmp_path / "data"
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(DATA / ruleset, d / ruleset)
    p = d / ruleset / name
    p.write_bytes(data.draw(mutated_toml(p.read_text())))
    try:
        load_ruleset(ruleset, data_dir=d)
    except RulesError as exc:
        assert name in str(exc) and "\n" not in str(exc).strip(), str(exc)


@given(data=st.data())
def test_cards_csv(tmp_path, data):
    from volva.simulator.engines import RulesError, load_ruleset
    d = tmp_path / "data"
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(DATA / "blood-rage", d / "blood-rage")
    p = d / "blood-rage" / "cards.csv"
    rows = p.read_text().splitlines()
    i = data.draw(st.integers(1, len(rows) - 1))
    cells = rows[i].split(",")
    j = data.draw(st.integers(0, len(cells) - 1))
    cells[j] = data.draw(st.sampled_from(["", "-1", "x", "99", "battle", "3.5", '"', "Odin"]))
    rows[i] = ",".join(cells)
    p.write_text("\n".join(rows) + "\n")
    try:
        load_ruleset("blood-rage", data_dir=d)
    except RulesError as exc:
        assert "cards.csv" in str(exc), str(exc)


ARGS = {"--players": st.sampled_from(["0", "1", "2", "6", "x", "-3", "4"]),
        "--games": st.sampled_from(["0", "-1", "3", "x", "1e3"]),
        "--seed": st.sampled_from(["-1", "0", "x", "99999999999999999999999"]),
        "--lineup": st.sampled_from(["greedy*9", "nope", "greedy,", ",", "greedy*2", "random*0"]),
        "--option": st.sampled_from(["tie_break=coin", "nope=1", "tie_break", "=", "max_actions_per_phase=-4"]),
        "--module": st.sampled_from(["gods-of-asgard", "nope"]),
        "--batch-size": st.sampled_from(["0", "-5", "2"]),
        "--ruleset": st.sampled_from(["valhalla", "nope", "../x", ""])}


def _main(argv: list[str]) -> tuple[int, str]:
    """Run the console entry point (volva.cli.main: usage errors as one line too) in-process;
    -> (exit code, stderr without the progress bar)."""
    import contextlib
    import io
    import sys

    from volva.cli import main
    err, old = io.StringIO(), sys.argv
    sys.argv = ["volva", *argv]
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.argv = old
    return code, "\n".join(x for x in err.getvalue().splitlines() if not x.startswith("games "))


@given(args=st.dictionaries(st.sampled_from(sorted(ARGS)), st.none(), min_size=1, max_size=4), data=st.data())
def test_run_arguments(tmp_path, args, data):
    """`volva run` with damaged arguments: runs (few games) or one 'error:' line, exit 2."""
    out = tmp_path / "run"
    shutil.rmtree(out, ignore_errors=True)
    argv = ["run", "--out", str(out), "--games", "2"]
    for k in args:
        argv += [k, data.draw(ARGS[k])]
    code, err = _main(argv)
    assert code in (0, 2), (argv, code, err)
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:"), (argv, err)


@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory):
    """A finished stats-only run whose run.json a resume reads."""
    out = tmp_path_factory.mktemp("resume") / "run"
    res = runner.invoke(app, ["run", "--players", "3", "--games", "8", "--batch-size", "4", "--no-keep-rows",
                              "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out


@given(data=st.data())
def test_resumed_run_json(tmp_path, stopped_run, data):
    """A damaged run.json on --resume: one error line naming it, and the run's files unchanged."""
    out = tmp_path / "run"
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(stopped_run, out)
    p = out / "run.json"
    doc = json.loads(p.read_text())
    key = data.draw(st.sampled_from(sorted(doc)))
    doc[key] = data.draw(st.one_of(JUNK, st.none()))
    text = json.dumps(doc) if data.draw(st.booleans()) else json.dumps(doc)[: data.draw(st.integers(0, 40))]
    p.write_text(text)
    before = {f: f.read_bytes() for f in out.rglob("*") if f.is_file()}
    res = runner.invoke(app, ["run", "--players", "3", "--games", "12", "--batch-size", "4", "--no-keep-rows",
                              "--resume", "--out", str(out)])
    assert not (res.exception and not isinstance(res.exception, SystemExit)), repr(res.exception)
    assert res.exit_code in (0, 2), res.output
    if res.exit_code == 2:
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:") and "run.json" in lines[0], res.stderr
        assert {f: f.read_bytes() for f in out.rglob("*") if f.is_file()} == before


@given(data=st.data())
def test_resumed_stats(tmp_path, stopped_run, data):
    """A damaged stats/ (a table's bytes, or meta.json) on --resume: one error line naming the file;
    the run's files unchanged."""
    out = tmp_path / "run"
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(stopped_run, out)
    files = sorted((out / "stats").iterdir())
    p = data.draw(st.sampled_from(files))
    b = bytearray(p.read_bytes())
    i = data.draw(st.integers(0, len(b) - 1))
    if data.draw(st.booleans()):
        del b[i:]
    else:
        b[i] ^= data.draw(st.integers(1, 255))
    p.write_bytes(bytes(b))
    before = {f: f.read_bytes() for f in out.rglob("*") if f.is_file()}
    code, err = _main(["run", "--players", "3", "--games", "12", "--batch-size", "4", "--no-keep-rows",
                       "--resume", "--out", str(out)])
    assert code in (0, 2), err
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:") and "stats" in lines[0], err
        assert {f: f.read_bytes() for f in out.rglob("*") if f.is_file()} == before
