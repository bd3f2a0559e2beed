"""Valhalla, the dice game: the PROVISIONAL content (simulator/data/valhalla-dice/) and its
validation (issue 12 item 2; DIGEST §5.1–5.3, ../shared/design/valhalla-dice.md §2)."""
from __future__ import annotations

import shutil
from collections import Counter

import pytest

from volva.analysis import dice as AD
from volva.simulator.core.loading import RulesError
from volva.simulator.valhalla_dice.rules import DICE_DIR, load_content

SOLO_NAMES = ["Sigurd", "Solveig", "Sigvard", "Hödr", "Agnar", "Villsvin", "Valgard", "Styr", "Vingor", "Aslaug",
              "Einar", "Thord", "Ottar", "Esbjörn", "Egil", "Beinir", "Bernhard"]  # 003's solo list


@pytest.fixture(scope="module")
def content():
    return load_content()


def test_deck_is_120_cards_of_the_planned_split(content):
    """DIGEST §5.1: 120 cards; PROVISIONAL split (valhalla-dice.md §2.1): 96 Warriors (4 clans x 20 +
    16 Ice Giants) and 24 Tactics; per Viking clan 6 single, 5 two different, 4 pair, 3 triple, 2 two pairs."""
    deck = [c for c in content.cards for _ in range(c.copies)]
    assert len(deck) == 120
    assert Counter(c.kind for c in deck) == {"warrior": 96, "tactic": 24}
    assert Counter(c.clan for c in deck if c.kind == "warrior") == {"bear": 20, "wolf": 20, "boar": 20, "deer": 20,
                                                                    "giant": 16}
    for clan in ("bear", "wolf", "boar", "deer"):
        shapes = Counter(c.shape for c in deck if c.clan == clan)
        assert shapes == {"single": 6, "two different": 5, "pair": 4, "triple": 3, "two pairs": 2}, clan
    # weapons spread evenly over the four clans: 164 symbols, so 33 or 32 of each weapon
    per_weapon = sum((c.need.astype(int) for c in deck if c.kind == "warrior"), start=0)
    assert per_weapon.sum() == 164 and per_weapon.max() - per_weapon.min() <= 1


def test_powers_by_clan(content):
    """DIGEST §5.8 (PROVISIONAL assignment): Boar clan-counter, Wolf ally-clan, Deer multi-clan, Bear
    none (+1 strength instead), half of each clan; every Ice Giant carries the die power."""
    for clan, op in (("boar", "counter"), ("wolf", "ally"), ("deer", "multi")):
        cards = [c for c in content.cards if c.clan == clan]
        assert sum(1 for c in cards if c.power and c.power[0][0] == op) == 10, clan
        assert all(not c.power or c.power[0][0] == op for c in cards)
    assert not any(c.power for c in content.cards if c.clan == "bear")
    assert all(c.power == (("giant_die", (1,)),) for c in content.cards if c.clan == "giant")
    assert all(c.shape == "Ice Giant" for c in content.cards if c.clan == "giant")


def test_jarls(content):
    """DIGEST §5.1 / 003 l.31, 49-50: 25 Jarls; the 17 of the solo list work alone; 6 recommended;
    some are 3+ (PROVISIONAL: 4)."""
    assert len(content.jarls) == 25
    assert [j.name for j in content.jarls if j.solo] == SOLO_NAMES
    assert sum(j.recommended for j in content.jarls) == 6
    assert sum(j.min_players == 3 for j in content.jarls) == 4
    assert all(j.combine in ("both", "either") for j in content.jarls)


def test_rules_numbers(content):
    """003 l.55-61 pre-discards, l.68 hands, l.84-85 caps, l.32 dice; DIGEST §5.11 points cards."""
    r = content.rules
    assert r["setup"]["pre_discard"] == [40, 20, 10, 0, 0]
    assert (r["setup"]["hand_draw"], r["setup"]["hand_discard"]) == (7, 2)
    assert (r["turn"]["team_cap"], r["turn"]["pair_weapon_cap"]) == (4, 3)
    assert (r["dice"]["attacker"], r["dice"]["defender"], r["dice"]["grey"]) == (6, 6, 3)
    assert r["scoring"]["set_bonus"][3] == [[3, 2], [4, 4]]  # 5 players
    assert r["chosen"]["weapons_exchange"] == "x_only"


@pytest.fixture
def data(tmp_path):
    d = tmp_path / "vd"
    shutil.copytree(DICE_DIR, d)
    return d


def edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize("file, old, new, needle", [
    ("cards.csv", "Bear Archer,warrior,bear,bow,", "Bear Archer,warrior,bear,hammer,",
     "card Bear Archer: field 'weapons': 'hammer'; allowed weapons: spear, sword, axe, bow, shield, any"),
    ("cards.csv", "Bear Archer,warrior,bear,", "Bear Archer,warrior,troll,", "field 'clan': 'troll'; allowed: bear"),
    ("cards.csv", "Bear Archer,warrior,bear,bow,4,1,,,", "Bear Archer,warrior,bear,bow,4,1,,fury(2),",
     "card Bear Archer: field 'tactic'"),
    ("cards.csv", "Ice Giant Brute,warrior,giant,any*3,", "Ice Giant Brute,warrior,giant,axe*3,",
     "card Ice Giant Brute: field 'weapons': 'axe*3': Ice Giants (clan giant) print only 'any'"),
    ("cards.csv", "Fury,tactic,-,,0,0,,fury(2),4,", "Fury,tactic,-,,0,0,,fury(two),4,",
     "card Fury: field 'tactic': fury: 'two'; allowed: an integer 0..20"),
    ("cards.csv", "Fury,tactic,-,,0,0,,fury(2),4,", "Fury,tactic,-,,0,0,,rage(2),4,",
     "card Fury: field 'tactic': 'rage(2)'; allowed tactic opcodes: exchange, fury"),
    ("cards.csv", "Fury,tactic,-,,0,0,,fury(2),4,", "Fury,tactic,-,,0,0,,fury(2),5,",
     "the deck holds 121 cards; rules.toml [setup] deck = 120 (or option deck_check=false)"),
    ("cards.csv", "Bear Swordsman,", "Bear Archer,", "'Bear Archer' appears twice"),
    ("cards.csv", "name,kind,", "nom,kind,", "header: missing column(s) ['name']"),
    ("cards.csv", '"ally(bear,2,5)"', '"ally(orc,2,5)"', "ally: 'orc'; allowed: bear, wolf, boar, deer, giant"),
    ("jarls.csv", "Sigurd,true,2,true,both,", "Sigurd,true,2,true,sometimes,",
     "Jarl Sigurd: field 'combine': 'sometimes'; allowed: both, either"),
    ("jarls.csv", ",team_ge(3),\"+2 strength", ",x_wild(1),\"+2 strength",
     "Jarl Sigurd: field 'condition': 'x_wild(1)'; allowed condition opcodes"),
    ("jarls.csv", "Sigurd,true,2,", "Sigurd,yes,2,", "Jarl Sigurd: field 'recommended': 'yes'; allowed: true, false"),
    ("rules.toml", 'engine = "valhalla-dice"', 'engine = "valhalla"', "field 'engine': 'valhalla'; expected 'valhalla-dice'"),
    ("rules.toml", "team_cap = 4", "team_cap = 0", "turn: field 'team_cap': got 0; allowed: an integer 1..8"),
    ("opcodes.toml", 'kind = "tactic"\nargs = [{ kind = "int", min = 0, max = 20 }]\ndoc = "+a strength."',
     'kind = "tactic"\nargs = [{ kind = "colour" }]\ndoc = "+a strength."', "fury: field 'args[0]'"),
    ("dice.toml", '[grey]\nfaces = ["spear", "sword", "axe", "bow", "shield", "x"]', '[grey]\nfaces = ["spear"]',
     "[grey].faces"),
])
def test_bad_content_is_one_error_naming_file_entry_field(data, file, old, new, needle):
    edit(data / file, old, new)
    with pytest.raises(RulesError) as e:
        load_content(data)
    msg = str(e.value)
    assert str(data / file) in msg and needle in msg, msg
    assert "\n" not in msg


def test_deck_check_option_accepts_another_deck(data):
    edit(data / "cards.csv", "Fury,tactic,-,,0,0,,fury(2),4,", "Fury,tactic,-,,0,0,,fury(2),6,")
    assert load_content(data, {"deck_check": "false"}).deck_size == 122
    with pytest.raises(RulesError, match="option deck_check='maybe'; allowed: true, false"):
        load_content(data, {"deck_check": "maybe"})


def test_a_replaced_card_changes_the_deck_table(data):
    """A designer edits one card; `volva dice --deck` sees it without code changes."""
    edit(data / "cards.csv", "Bear Twin Axes,warrior,bear,axe*2,6,", "Bear Twin Axes,warrior,bear,axe*2,3,")
    before = AD.deck_table(load_content(), (6,)).set_index("card")
    after = AD.deck_table(load_content(data), (6,)).set_index("card")
    assert before.loc["Bear Twin Axes", "e_strength_6"] == pytest.approx(6 * 0.8047, abs=1e-3)
    assert after.loc["Bear Twin Axes", "e_strength_6"] == pytest.approx(3 * 0.8047, abs=1e-3)


def test_deck_table_and_shapes(content):
    deck = AD.deck_table(content, (5, 6))
    assert len(deck) == sum(1 for c in content.cards if c.kind == "warrior")
    shapes = AD.shape_table(deck).set_index("shape")
    assert shapes.loc["single", "mean_ratio"] == pytest.approx(1.0)  # the reference, by construction
    assert shapes["cards"].sum() == 96
    # a triple alone: P(armed) 0.4040 with 6 dice (valhalla-dice.md §3.3), so E[str] = strength x 0.4040
    t = deck[deck["shape"] == "triple"].iloc[0]
    assert t.e_strength_6 == pytest.approx(t.strength * 0.4040, abs=5e-4)


def test_team_of_card_names(content):
    t = AD.parse_team("Bear Archer, wolf twin bows", content)
    a, b = content.card("Bear Archer"), content.card("Wolf Twin Bows")
    assert t.strength.tolist() == [a.strength, b.strength]
    assert t.need.tolist() == [[0, 0, 0, 1, 0], [0, 0, 0, 2, 0]] == [a.need.tolist(), b.need.tolist()]
    with pytest.raises(ValueError, match="neither weapons .* nor a card: no card 'Bear Archr'"):
        AD.parse_team("Bear Archr", content)
    with pytest.raises(ValueError, match="'Fury' is a Tactic"):
        AD.parse_team("Fury", content)


def volva(*args):
    from typer.testing import CliRunner

    from volva.cli import app
    return CliRunner().invoke(app, ["dice", *args])


def test_volva_dice_deck(tmp_path):
    r = volva("--deck", "--dice", "6", "--out", str(tmp_path))
    assert r.exit_code == 0, r.stderr
    assert "Bear Twin Axes" in r.stdout and "two pairs" in r.stdout
    assert (tmp_path / "deck.csv").exists() and (tmp_path / "deck.png").stat().st_size > 10_000


def test_volva_dice_cards_and_errors(tmp_path):
    r = volva("Bear Archer,Wolf Twin Bows", "--dice", "6", "--rerolls", "all", "--tactic", "none")
    assert r.exit_code == 0 and "Bear Archer,Wolf Twin Bows" in r.stdout, r.stderr
    r = volva("--deck", "axe")
    assert r.exit_code == 2 and "--deck solves every Warrior card alone" in r.stderr
    bad = tmp_path / "vd"
    shutil.copytree(DICE_DIR, bad)
    edit(bad / "jarls.csv", "Sigurd,true,2,true,both,", "Sigurd,true,9,true,both,")
    r = volva("--data", str(bad))
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "Jarl Sigurd: field 'min_players'" in r.stderr, r.stderr


@pytest.mark.parametrize("old, new, needle", [
    ("pre_discard = [40, 20, 10, 0, 0]", "pre_discard = [40, 121, 10, 0, 0]",
     "field 'pre_discard[1]': 3 players need 146 cards"),
    ("hand_discard = 2", "hand_discard = 9", "field 'hand_discard': 9; allowed: 0..hand_draw (7)"),
])
def test_setup_must_fit_the_deck(data, old, new, needle):
    """003 l.55-68: the pre-discard, the table Warriors and the hands come out of the deck: content
    that cannot deal them is refused on load (a game would otherwise run out of cards)."""
    edit(data / "rules.toml", old, new)
    with pytest.raises(RulesError, match=needle.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")
                       .replace(")", r"\)")):
        load_content(data)


def test_options_without_a_kernel_are_refused():
    from volva.simulator.valhalla_dice import api
    with pytest.raises(RulesError, match="two_any_reading=wild with weapons_exchange=all_one: not built together"):
        api.load(options={"two_any_reading": "wild", "weapons_exchange": "all_one"})
    assert api.load(options={"two_any_reading": "wild"}).options["two_any_reading"] == "wild"  # DIGEST §5.2
    assert api.load(options={"start_hand": "draft"}).options["start_hand"] == "draft"  # 003 l.304 (R65)
    assert api.load(options={"weapons_exchange": "all_one"}).options["weapons_exchange"] == "all_one"  # R66
    rs = api.load(options={"jarl_deal": "5"})
    rs.check_players(5)
    with pytest.raises(RulesError, match="6 players need 30 Jarls, 25 can be dealt"):
        rs.check_players(6)


@pytest.mark.parametrize("args, needle", [
    (["axe:99999999999999999999"], "allowed: 1..50"),
    (["spear*6+sword*6:3"], "12 weapon symbols; allowed: at most 9"),
    (["--deck", "--rerolls", "0"], "drop TEAMS, --rerolls and --tactic"),
    (["--deck", "--tactic", "push-back"], "drop TEAMS, --rerolls and --tactic"),
])
def test_volva_dice_more_bad_input(args, needle):
    r = volva(*args)
    assert r.exit_code == 2 and needle in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_deck_without_armable_singles_has_no_ratio(tmp_path):
    """A die of X faces only: no single-weapon card arms, so no reference: ratios are NaN, no crash."""
    f = tmp_path / "x.toml"
    f.write_text("".join(f'[{c}]\nfaces = ["x", "x", "x", "x", "x", "x"]\n' for c in ("red", "black", "grey")))
    r = volva("--deck", "--dice-file", str(f), "--out", str(tmp_path / "o"))
    assert r.exit_code == 0, r.stderr
    assert (tmp_path / "o" / "deck.png").exists()


def test_clan_powers_swap_wolf_and_deer():
    """valhalla-dice.md §2.1 (--option clan_powers=swap_wolf_deer): the k-th Wolf power and the
    k-th Deer power change places, in cards.csv order; the other cards keep theirs."""
    from volva.simulator.valhalla_dice import api
    base = api.load()
    sw = api.load(options={"clan_powers": "swap_wolf_deer"})
    wolf = [c for c in base.content.cards if c.clan == "wolf" and c.power]
    deer = [c for c in base.content.cards if c.clan == "deer" and c.power]
    assert wolf and deer
    by = {c.name: c for c in sw.content.cards}
    for w, d in zip(wolf, deer):
        assert by[w.name].power == d.power and by[d.name].power == w.power and by[w.name].text == d.text
    for c in base.content.cards:
        if c.clan not in ("wolf", "deer"):
            assert (by[c.name].power, by[c.name].text) == (c.power, c.text)
    row = base.card_names.index(wolf[0].name)
    assert sw.T.power[row] != base.T.power[row]  # the kernels read the swapped power
