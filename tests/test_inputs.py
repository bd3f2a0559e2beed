"""Inputs read like their authors meant them (issue 15): a UTF-8 byte-order mark, which some
Windows editors write at the start of a text file, changes nothing in any file Volva reads."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

BOM = b"\xef\xbb\xbf"
ROOT = Path(__file__).resolve().parents[1]


def with_bom(src: Path, dst: Path) -> Path:
    dst.write_bytes(BOM + src.read_bytes())
    return dst


def test_toml_files_with_a_bom_read_like_without(tmp_path):
    from volva.analysis.experiment import load_experiment
    from volva.simulator.core.loading import read_toml
    from volva.simulator.engines import load_ruleset
    from volva.strategies.spec import load_strategy
    src = ROOT / "strategies" / "library" / "thor-warlord.toml"
    bom = with_bom(src, tmp_path / "s.toml")
    assert read_toml(bom) == read_toml(src)
    names = list(load_ruleset().card_names)
    a, b = load_strategy(bom, names), load_strategy(src, names)
    assert (a.name, a.plan, a.kind) == (b.name, b.plan, b.kind) and (a.params == b.params).all()
    exp = tmp_path / "e.toml"
    exp.write_bytes(BOM + b'name = "x"\ngames = 10\nlineup = ["greedy", "greedy", "greedy", "greedy"]\n')
    assert load_experiment(exp).games == 10


@pytest.mark.parametrize("engine", ["bloodrage", "valhalla"])
def test_cards_csv_with_a_bom_reads_like_without(engine, tmp_path):
    import importlib
    rules = importlib.import_module(f"volva.simulator.{engine}.rules")
    src = ROOT / "simulator" / "data" / ("valhalla" if engine == "valhalla" else "blood-rage") / "cards.csv"
    bom = with_bom(src, tmp_path / "cards.csv")
    a, b = rules.read_card_rows(src), rules.read_card_rows(bom)
    strip = [{k: v for k, v in r.items() if not k.startswith("_")} for r in a]
    assert strip == [{k: v for k, v in r.items() if not k.startswith("_")} for r in b]


def test_a_patch_with_a_bom_plays(tmp_path):
    from typer.testing import CliRunner

    from volva.cli import app
    p = tmp_path / "p.toml"
    p.write_bytes(BOM + b"\"Tyr's Smite\".value = 4\n")
    res = CliRunner().invoke(app, ["run", "--patch", str(p), "--games", "8", "--no-keep-rows", "--out",
                                   str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    shutil.rmtree(tmp_path / "r")


@pytest.mark.parametrize("args, needles", [
    (["--ruleset", "bogus"], ["unknown rule set 'bogus'; allowed: blood-rage, valhalla"]),
    (["--mode", "rainbow-bridge", "--ruleset", "valhalla"], ["--ruleset valhalla", "--mode rainbow-bridge"]),
])
def test_rule_set_arguments_are_refused_in_one_line(args, needles, tmp_path):
    from typer.testing import CliRunner

    from volva.cli import app
    res = CliRunner().invoke(app, ["run", *args, "--games", "5", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    for n in needles:
        assert n in lines[0], lines[0]
    assert not (tmp_path / "r").exists()


def test_two_commands_into_one_directory_are_refused_by_a_lock(tmp_path):
    """Issue 15: a second command writing into an output directory another process is writing is
    refused in one line, before it reads or removes anything (not interleaved)."""
    import subprocess
    import sys
    import textwrap

    from typer.testing import CliRunner

    from volva.cli import app
    out = tmp_path / "r"
    out.mkdir()
    (out / "run.json").write_text("{}")  # the other command's file: must survive
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import fcntl, os, time
        fd = os.open({str(out)!r}, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        print("locked", flush=True)
        time.sleep(60)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        res = CliRunner().invoke(app, ["run", "--games", "5", "--force", "--out", str(out)])
        assert res.exit_code == 2
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and "another volva command is writing there" in lines[0], res.stderr
        assert (out / "run.json").read_text() == "{}"
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


def test_experiment_module_and_contradicting_option_is_refused(tmp_path):
    """An experiment file naming a module and setting that module's own option false is refused,
    naming the file and key, as `--module gods-of-asgard --option gods_of_asgard=false` is on the
    command line (it played with the module on, and run.json said so)."""
    from volva.analysis.experiment import ExperimentError, load_experiment
    exp = tmp_path / "gf.toml"
    exp.write_text('games = 40\nmodules = ["gods-of-asgard"]\noptions = { gods_of_asgard = false }\n')
    with pytest.raises(ExperimentError, match=r"gf.toml: key 'options.gods_of_asgard': False: contradicts "
                                              r"modules = \['gods-of-asgard'\]"):
        load_experiment(exp)
    exp.write_text('games = 40\nmodules = ["gods-of-asgard"]\noptions = { gods_of_asgard = true }\n')
    assert load_experiment(exp).modules == ["gods-of-asgard"]


def test_experiment_missing_patch_names_where_it_looked(tmp_path):
    """A relative patch path is read next to the experiment file: a missing one is named by the
    path it was looked for at, not only as written."""
    from volva.analysis.experiment import ExperimentError, load_experiment
    (tmp_path / "exp").mkdir()
    exp = tmp_path / "exp" / "e.toml"
    exp.write_text('games = 40\npatches = ["nope/smite.toml"]\n')
    with pytest.raises(ExperimentError, match="nope/smite.toml") as ei:
        load_experiment(exp)
    assert str(tmp_path / "exp" / "nope" / "smite.toml") in str(ei.value) and "next to" in str(ei.value)
