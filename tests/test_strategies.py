"""strategies.builtin: names, parameter vectors, lineup parsing."""
from __future__ import annotations

import numpy as np
import pytest

from volva.simulator.core import enums as E
from volva.strategies.builtin import BUILTIN, parse_lineup, resolve


def test_greedy_defaults():
    kind, p = resolve("greedy")
    assert kind == E.POL_GREEDY and p.dtype == np.float64 and p.shape == (E.N_PARAMS,)
    assert p[E.P_W_QUEST] == 2.5 and p[E.P_LATE_RAGE] == 2.0
    assert [p[E.P_STAT0], p[E.P_STAT1], p[E.P_STAT2]] == [E.STAT_AXES, E.STAT_RAGE, E.STAT_HORNS]


def test_random_is_zeros_and_copies_are_fresh():
    kind, p = resolve("random")
    assert kind == E.POL_RANDOM and not p.any()
    p[0] = 9
    assert not BUILTIN["random"][1].any()


def test_unknown_strategy():
    with pytest.raises(ValueError, match=r"unknown strategy 'bogus'; allowed: greedy, random"):
        resolve("bogus")


def test_parse_lineup():
    assert parse_lineup("greedy, greedy,random,random", 4) == ["greedy", "greedy", "random", "random"]
    with pytest.raises(ValueError, match=r"3 strategies.*--players is 4"):
        parse_lineup("greedy,greedy,random", 4)
    with pytest.raises(ValueError, match="unknown strategy"):
        parse_lineup("greedy,nope", 2)


def test_lineup_multiplicity_and_file(tmp_path):
    """Issue 4 §3: one strategy against a field (name*k), mirror matches, lineup files."""
    from volva.strategies.builtin import parse_lineup
    assert parse_lineup("thor-warlord,greedy*3", 4) == ["thor-warlord"] + ["greedy"] * 3
    assert parse_lineup("balanced*4", 4) == ["balanced"] * 4
    f = tmp_path / "lineup.txt"
    f.write_text("# my field\nquester\ngreedy*2  # two greedy\n")
    assert parse_lineup(f"@{f}", 3) == ["quester", "greedy", "greedy"]
    (tmp_path / "binary.txt").write_bytes(b"\xffgreedy")
    with pytest.raises(ValueError, match="binary.txt.*not UTF-8"):  # the file named (a helper session)
        parse_lineup(f"@{tmp_path / 'binary.txt'}", 1)
    for bad in ("greedy*0,greedy*4", "greedy*x", f"@{tmp_path / 'missing.txt'}"):
        with pytest.raises(ValueError):
            parse_lineup(bad, 4)
    (tmp_path / "empty.txt").write_text("# nothing yet\n")
    with pytest.raises(ValueError, match="empty.txt.*no strategy names"):  # not 'two commas in a row' (a helper session)
        parse_lineup(f"@{tmp_path / 'empty.txt'}", 4)
    with pytest.raises(ValueError, match=r"k a whole number 1\.\.4"):  # a huge k: no list of 10**14 names
        parse_lineup("greedy*99999999999999", 4)
