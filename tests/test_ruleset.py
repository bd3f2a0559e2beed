"""Game data as data (issue 2 §2): files validated on load, errors naming file, entry, field and
what is allowed; rule options; a card added by editing the data file alone (issue 3 §1)."""
import shutil

import pytest

from volva.simulator import engines
from volva.simulator.core import enums as E
from volva.simulator.core.loading import DATA_DIR, RulesError
from volva.simulator.engines import load_ruleset
from volva.strategies.builtin import resolve


@pytest.fixture
def data(tmp_path):
    """A private copy of simulator/data to break."""
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    return d


def _edit(path, old, new):
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def _err(data, **kw) -> str:
    with pytest.raises(RulesError) as exc:
        load_ruleset(data_dir=data, **kw)
    return str(exc.value)


def test_default_ruleset_tables(ruleset):
    """DIGEST §1.2–§1.4 as loaded: 9 provinces (Yggdrasil unlimited), 4 fjords, tracks, 82 cards."""
    T = ruleset.tables
    assert ruleset.province_names[8] == "Yggdrasil" and T.prov_villages[8] == 99
    assert list(T.prov_villages[:8]) == [4, 5, 5, 4, 3, 3, 5, 3]
    assert T.fjord_prov.tolist() == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert T.track.tolist() == [[6, 7, 8, 9, 12, 12], [3, 4, 5, 6, 8, 8], [4, 5, 6, 7, 10, 10]]
    assert ruleset.n_cards == 82 and len(set(ruleset.card_names)) == 63


@pytest.mark.parametrize("old, new, expect", [
    ("1,Troll,monster,,2,", "1,Troll,monster,,two,", ["cards.csv", "Troll", "'value'", "integer 0..20"]),
    ("1,Troll,monster,", "1,Troll,giant,", ["cards.csv", "Troll", "'type'", "allowed", "monster"]),
    ("1,Dwarf Chieftain,monster,,2,,1,0,0,0,free_figure", "1,Dwarf Chieftain,monster,,2,,1,0,0,0,free_beer",
     ["cards.csv", "Dwarf Chieftain", "'effects'", "allowed opcodes"]),
    ("quest_region(Alfheim)", "quest_region(Narnia)", ["cards.csv", "Alfheim", "'effects'", "Manheim"]),
    # a malformed text is shown in its opcode's own form (one argument here, not '(a, b)')
    ("quest_region(Alfheim)", "quest_region(Alfheim", ["cards.csv", "'effects'", "malformed; write quest_region(a)"]),
    ("1,Troll,monster,,2,,1,", "4,Troll,monster,,2,,1,", ["cards.csv", "Troll", "'age'", "1..3"]),
])
def test_bad_card_rows_are_refused(data, old, new, expect):
    _edit(data / "blood-rage" / "cards.csv", old, new)
    msg = _err(data)
    for part in expect:
        assert part in msg, msg


def test_missing_card_column_and_bad_encoding(data):
    cards = data / "blood-rage" / "cards.csv"
    _edit(cards, "age,name,type,god,value", "age,name,kind,god,value")
    assert "missing column" in _err(data) and "type" in _err(data)
    cards.write_bytes(b"\xff\xfe" + cards.read_bytes())
    assert "not UTF-8" in _err(data)


@pytest.mark.parametrize("old, new, expect", [
    ('region = "Manheim"\nvillages = 4', 'region = "Narnia"\nvillages = 4', ["board.toml", "Elvagar", "'region'", "Manheim"]),
    ('adjacent = ["Angerboda", "Myrkulor", "Yggdrasil"]', 'adjacent = ["Angerboda", "Yggdrasil"]',
     ["board.toml", "'adjacent'", "does not list"]),
    ("villages = 4", "villages = 40", ["board.toml", "Elvagar", "'villages'", "-1..20"]),
    ('regions = ["Manheim"', 'regions = [[Manheim"', ["board.toml", "not valid TOML"]),
])
def test_bad_board_is_refused(data, old, new, expect):
    _edit(data / "blood-rage" / "board.toml", old, new)
    msg = _err(data)
    for part in expect:
        assert part in msg, msg


@pytest.mark.parametrize("opts, expect", [
    ({"leader_invade_cost": 9}, "--option leader_invade_cost: got 9; allowed: an integer 0..3"),
    ({"tie_break": "coin"}, "--option tie_break: got 'coin'; allowed: rage, shared"),
    ({"draft": "maybe"}, "--option draft: got 'maybe'; allowed: true, false"), ({"wild_magic": 1}, "unknown option"),
    ({"stat_tracks": "printed"}, "--option stat_tracks: got 'printed'; allowed: digest"),
])
def test_bad_options_are_refused(opts, expect):
    """A bad --option is one line naming the option, the value and the allowed values."""
    with pytest.raises(RulesError) as exc:
        load_ruleset(options=opts)
    assert expect in str(exc.value) and "--option" in str(exc.value)


def test_unknown_ruleset():
    with pytest.raises(RulesError, match="allowed: .*blood-rage"):
        load_ruleset("chess")


def test_stat_tracks_option_selects_a_named_set(data):
    """DIGEST §1.4 option stat_tracks: a [tracks.NAME] set in rules.toml, chosen by name."""
    rules = data / "blood-rage" / "rules.toml"
    rules.write_text(rules.read_text() + "\n[tracks.steep]\nrage = [6, 8, 10, 12, 14, 16]\n"
                     "axes = [3, 4, 5, 6, 8, 8]\nhorns = [4, 5, 6, 7, 10, 10]\nbonus = [0, 0, 0, 10, 10, 20]\n")
    # [tracks.steep] was appended after [options]: TOML keeps tables by name wherever they stand
    r = load_ruleset(data_dir=data, options={"stat_tracks": "steep"})
    assert r.tables.track[0].tolist() == [6, 8, 10, 12, 14, 16]
    assert load_ruleset(data_dir=data).tables.track[0].tolist() == [6, 7, 8, 9, 12, 12]


def test_a_new_card_from_existing_opcodes_plays(data):
    """Issue 3 §1: a designer adds a card by editing cards.csv only. 'Odin's Fury' (+2, win: +5 Glory)
    joins every age-1 deck; over 300 games its text acts and the invariants hold."""
    cards = data / "blood-rage" / "cards.csv"
    cards.write_text(cards.read_text() + '1,Odin\'s Fury,battle,Odin,2,,2,0,0,0,glory_on_win(5),"If you win, gain 5 Glory."\n')
    r = load_ruleset(data_dir=data)
    fury = r.card_names.index("Odin's Fury")
    assert r.tables.card_op[fury, 0] == E.OP_GLORY_ON_WIN and r.tables.card_a[fury, 0] == 5
    out = engines.play_batch(r, [resolve("greedy")] * 4, engines.game_seeds(4, 0, 300), check=True)
    assert not out.violation.any()
    assert out.fired[:, fury].sum() > 0
    assert (out.picks == fury).any()
