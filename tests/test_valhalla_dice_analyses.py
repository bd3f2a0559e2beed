"""Valhalla, the dice game: what the analyses read of a game (issue 12 item 5), `volva ablate` of a
card or a Jarl (item 1, rulings R61) and card patches for `volva compare --patch` (item 1)."""
from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from volva.analysis import records as R
from volva.analysis.groups import by_group
from volva.analysis.suffstats import ALL, Stats
from volva.cli import app
from volva.simulator.core import enums as E
from volva.simulator.core.loading import RulesError
from volva.simulator.valhalla_dice import api
from volva.simulator.valhalla_dice import state as ST
from volva.strategies.valhalla_dice import resolve

LINEUP = [resolve(n) for n in ("greedy", "raider", "turtle", "random")]
SEEDS = np.arange(400, dtype=np.uint64) + 900


@pytest.fixture(scope="module")
def rs():
    return api.load()


def volva(*args):
    return CliRunner().invoke(app, list(args))


def test_batch_reports_starts_tactics_played_shape_and_groups(rs):
    """picks = the kept hand (7 keep 5, 003 l.61) and the table Warrior (003 l.63-65); uses = the
    Tactics played; game_shape counts what Results.cnt counts; groups = Jarl, Valhalla clan, end."""
    r = api.play_results(rs, LINEUP, SEEDS)
    b = api.play_batch(rs, LINEUP, SEEDS)
    G, P = len(SEEDS), 4
    held = (b.picks[:, :, 0] >= 0).sum(-1)
    assert (held == rs.T.hand_draw - rs.T.hand_discard + 1).all()  # 5 kept + 1 table Warrior
    kind = rs.T.kind[b.picks[:, :, 0, :6]]
    assert (kind[:, :, 5] == 0).all()  # the table Warrior is a Warrior
    assert ((b.uses >= 0).sum(-1) == np.minimum(r.cnt[:, :, ST.C_TACTICS_PLAYED], ST.PLAYED)).all()
    used = b.uses[b.uses >= 0] // 16
    assert len(used) > 0 and (rs.T.kind[used] == 1).all()  # only Tactics are played
    shape = b.game_shape
    assert shape[:, :, E.SHAPE_NAMES.index("pillages")].sum() == shape[:, :, E.SHAPE_NAMES.index("battles")].sum()
    assert (shape[:, :, E.SHAPE_NAMES.index("actions")].sum(1) == r.turns).all()  # every turn is a seat's
    assert (shape[:, :, E.SHAPE_NAMES.index("lost_battle")] == rs.T.shields - r.own).all()
    assert b.groups.shape == (G, P, 3)
    assert (b.groups[:, :, 0] == r.jarl).all()
    assert set(np.unique(b.groups[:, :, 2])) <= {ST.END_SHIELD, ST.END_DECK}
    vclan = r.vclan.astype(int)
    empty = vclan.sum(-1) == 0
    assert ((b.groups[:, :, 1] == 6) == empty).all()
    one = ~empty & (b.groups[:, :, 1] < 5)
    assert (vclan.argmax(-1)[one] == b.groups[:, :, 1][one]).all()


def test_group_sums_and_rates(rs):
    """Every clan is in one value of each dimension; the average clan wins 1/P (win shares sum to
    1 per game)."""
    b = api.play_batch(rs, LINEUP, SEEDS)
    clans = R.clans_frame(b, np.arange(len(SEEDS)), SEEDS, rs.name, ["greedy", "raider", "turtle", "random"],
                          rs.god_names, rs.group_names)
    st = Stats.from_frames(clans, R.picks_frame(b, np.arange(len(SEEDS)), rs))
    g = st["groups"]
    for dim in ("Jarl", "Valhalla clan", "game end"):
        every = g[(g["dimension"] == dim) & (g["strategy"] == ALL)]
        assert every["n"].sum() == len(SEEDS) * 4
        assert g[(g["dimension"] == dim) & (g["strategy"] != ALL)]["n"].sum() == len(SEEDS) * 4
    res = by_group(st)
    assert set(res) == {"Jarl", "Valhalla clan", "game end"}
    assert res["Jarl"]["average"] == pytest.approx(0.25)
    p = res["Valhalla clan"]["pooled"]
    assert (p["n"] * p["win_rate"]).sum() / p["n"].sum() == pytest.approx(0.25)
    assert p["share"].sum() == pytest.approx(1.0)


def _focal(seeds, P):
    return (np.asarray(seeds, np.uint64) % np.uint64(P)).astype(int)


def test_ablate_forces_and_bans_a_jarl(rs):
    """Rulings R61: forced, the bound seat (seed % P) holds the Jarl in every game; banned, never."""
    j = rs.god_names.index("Einar")
    (jid,) = rs.card_ids("Einar")
    forced = rs.with_draft_rule("Einar", E.DRAFT_FORCED, [jid], one_clan=True)
    banned = rs.with_draft_rule("Einar", E.DRAFT_BANNED, [jid], one_clan=True)
    f = _focal(SEEDS, 4)
    rf = api.play_results(forced, LINEUP, SEEDS, check=True)
    rb = api.play_results(banned, LINEUP, SEEDS, check=True)
    base = api.play_results(rs, LINEUP, SEEDS)
    g = np.arange(len(SEEDS))
    assert (rf.jarl[g, f] == j).all() and (rf.violation == 0).all()
    assert (rb.jarl[g, f] != j).all() and (base.jarl[g, f] == j).any()
    assert (rb.jarl == j).any()  # the other seats may still hold it
    with pytest.raises(RulesError, match="one-clan"):
        rs.with_draft_rule("Einar", E.DRAFT_FORCED, [jid], one_clan=False)


def test_ablate_forces_and_bans_a_card(rs):
    """Rulings R61: a forced Tactic is in the bound seat's start in every game; a banned one never;
    with every seat bound and the card removed, no seat starts with it."""
    (cid,) = rs.card_ids("Push Back")
    f = _focal(SEEDS, 4)
    g = np.arange(len(SEEDS))
    rf = api.play_results(rs.with_draft_rule("Push Back", E.DRAFT_FORCED, [cid], one_clan=True), LINEUP, SEEDS, True)
    rb = api.play_results(rs.with_draft_rule("Push Back", E.DRAFT_BANNED, [cid], one_clan=True), LINEUP, SEEDS, True)
    assert (rf.opening[g, f] == cid).any(-1).all() and (rf.violation == 0).all()
    assert not (rb.opening[g, f] == cid).any() and (rb.violation == 0).all()
    gone = rs.without_card("Push Back", [cid])
    assert gone.T.n_deck == rs.T.n_deck - sum(c.copies for c in rs.content.cards if c.name == "Push Back")
    assert not (api.play_results(gone, LINEUP, SEEDS, True).opening == cid).any()
    with pytest.raises(RulesError, match="did you mean 'Push Back'"):
        rs.card_ids("Push Bak")
    with pytest.raises(RulesError, match="did you mean 'Einar'"):
        rs.card_ids("einar")  # names are exact (the holders of an ablation are matched by name)


def test_ablate_command_for_a_jarl(tmp_path):
    r = volva("ablate", "Einar", "--ruleset", "valhalla-dice", "--games", "200", "--out", str(tmp_path / "a"))
    assert r.exit_code == 0, r.output
    assert "200 clans started with Einar in the forced arm" in r.output
    r = volva("ablate", "Einar", "--ruleset", "valhalla-dice", "--estimand", "all-clans", "--games", "20",
              "--out", str(tmp_path / "b"))
    assert r.exit_code == 2 and "allowed for a Jarl: --estimand one-clan" in r.stderr, r.output


def test_card_patch_changes_the_card(rs, tmp_path):
    """A card patch in the base game's format (core.loading.apply_row_patch): columns set, a card
    removed or added (a new card needs its kind)."""
    p = tmp_path / "p.toml"
    p.write_text('["Bear Spearman I"]\nstrength = 7\n\n["Push Back"]\nremove = true\n\n'
                 '["Bear Giant Slayer"]\nadd = true\nkind = "warrior"\nclan = "bear"\nweapons = "spear*2"\n'
                 'strength = 8\nglory = 2\n')
    v = api.load(patch=p, options={"deck_check": "false"})
    i = v.card_names.index("Bear Spearman I")
    assert v.T.strength[i] == 7 and rs.T.strength[i] != 7
    assert v.T.n_deck == rs.T.n_deck - sum(c.copies for c in rs.content.cards if c.name == "Push Back") + 1
    assert v.card_names[-1] == "Bear Giant Slayer" and v.patch_sha256 is not None
    bad = tmp_path / "bad.toml"
    bad.write_text('["Bear Spearman I"]\nstrength = "x"\n')
    with pytest.raises(RulesError, match=r"patched by .*bad.toml\): field 'strength'"):
        api.load(patch=bad)


def test_a_patch_that_breaks_the_setup_is_named(rs, tmp_path):
    """A patch removing most Warriors: the setup no longer fits (003 l.55-68); the error names the
    patch, not the untouched data files alone."""
    p = tmp_path / "short.toml"
    warriors = [c.name for c in rs.content.cards if c.kind == "warrior"]
    p.write_text("".join(f'["{n}"]\nremove = true\n\n' for n in warriors[:75]))
    with pytest.raises(RulesError, match=r"short.toml: the patched deck no longer fits every player count"):
        api.load(patch=p, options={"deck_check": "false"})


def test_compare_patch_and_report_show_the_games_groups(tmp_path):
    """compare --patch runs; the report shows win rate by Jarl / Valhalla clan / game end, the
    attacker win rate, and no Blood Rage-only section (stat paths, drafted god pairs)."""
    p = tmp_path / "p.toml"
    p.write_text('["Bear Spearman I"]\nstrength = 9\n')
    out = tmp_path / "c"
    r = volva("compare", "--ruleset", "valhalla-dice", "--patch", str(p), "--games", "400", "--out", str(out))
    assert r.exit_code == 0, r.output
    assert (out / "compare_groups.csv").exists() and not (out / "compare_stat_levels.csv").exists()
    assert "final stat levels" not in r.output and "drafted god pair" not in r.output
    r = volva("report", str(out / "variant"), "--out", str(tmp_path / "rep"))
    assert r.exit_code == 0, r.output
    rep = tmp_path / "rep"
    for f in ("group_jarl.png", "group_valhalla_clan.png", "group_game_end.png", "groups.csv", "card_forest.png"):
        assert (rep / f).exists(), f
    assert not (rep / "drafted_gods.csv").exists() and not (rep / "stat_paths.png").exists()
    html = (rep / "report.html").read_text()
    assert "By Jarl" in html and "attacker win rate" in html and "Gods of Ásgard" not in html
    assert "started with" in html


def test_compare_a_module_on_the_same_games(tmp_path):
    """compare --variant-module: the variant arm plays Loki's Deception (003 l.157-162) on the
    baseline's seeds; its run.json records the option, its report shows the module's Glory."""
    import json

    import pandas as pd
    out = tmp_path / "loki"
    r = volva("compare", "--ruleset", "valhalla-dice", "--lineup", "raider,turtle,greedy,hoarder",
              "--variant-module", "loki-deception", "--games", "400", "--out", str(out))
    assert r.exit_code == 0, r.output
    meta = json.loads((out / "variant" / "run.json").read_text())
    assert "loki_deception=true" in meta["option_args"] and meta["options"]["loki_deception"] == "true"
    assert "loki_deception=true" not in json.loads((out / "baseline" / "run.json").read_text())["option_args"]
    tab = pd.read_csv(out / "compare_strategy.csv")
    assert set(tab["strategy"]) >= {"raider", "turtle", "greedy", "hoarder"}
    r = volva("report", str(out / "variant"), "--out", str(tmp_path / "rep"))
    assert r.exit_code == 0, r.output
    src = pd.read_csv(tmp_path / "rep" / "glory_sources.csv")
    assert "Loki's Deception" in set(src["source"]) and "King of the Hill" not in set(src["source"])
    r = volva("compare", "--ruleset", "valhalla-dice", "--games", "10", "--out", str(tmp_path / "none"))
    assert r.exit_code == 2 and "compare needs a variant arm" in r.stderr


def test_compare_reports_how_the_play_moved(tmp_path):
    """compare_shape.csv: each game-shape counter (in this game's words) per strategy and over all,
    in both arms, the change and its interval (a no-op patch moves none: test_balance)."""
    import pandas as pd
    out = tmp_path / "loki"
    r = volva("compare", "--ruleset", "valhalla-dice", "--lineup", "raider,turtle,greedy,hoarder",
              "--variant-module", "loki-deception", "--games", "400", "--out", str(out))
    assert r.exit_code == 0, r.output
    assert "How the bots' play moved" in r.output
    sh = pd.read_csv(out / "compare_shape.csv")
    assert {"turns", "attacks", "defences won"} <= set(sh["counter"])
    assert set(sh["strategy"]) == {"raider", "turtle", "greedy", "hoarder", "(all)"}
    assert ((sh["delta"] - (sh["variant"] - sh["base"])).abs() < 1e-9).all()
    assert ((sh["ci_low"] <= sh["delta"]) & (sh["delta"] <= sh["ci_high"])).all()


def test_compare_a_module_across_bot_populations(tmp_path):
    """compare --population with a module variant: how the play moved in each population, side by
    side (populations_shape.csv), beside the per-card verdicts."""
    import pandas as pd
    out = tmp_path / "pop"
    r = volva("compare", "--ruleset", "valhalla-dice", "--variant-module", "king-of-the-hill", "--games", "200",
              "--population", "mixed=raider,turtle,greedy,king-hunter", "--population", "greedy=greedy,greedy,greedy,greedy",
              "--out", str(out))
    assert r.exit_code == 0, r.output
    assert "How the bots' play moved in each population" in r.output
    sh = pd.read_csv(out / "populations_shape.csv")
    assert set(sh["population"]) == {"mixed", "greedy"} and (sh["strategy"] == "(all)").all()
    st = pd.read_csv(out / "populations_strategy.csv")  # the mirror population moves no win rate: left out
    assert set(st["population"]) == {"mixed"} and set(st["strategy"]) == {"raider", "turtle", "greedy", "king-hunter"}
    assert "Each strategy's win rate" in r.output
    assert (out / "verdicts.csv").exists()
