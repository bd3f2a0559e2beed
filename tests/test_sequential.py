"""analysis/sequential.py: the group-sequential design behind --until-decided, checked against
published boundary constants and on synthetic paired outcomes (null and planted)."""
import numpy as np
import pytest

from volva.analysis.sequential import Monitor, design, looks_for


def test_boundary_constants_match_the_published_tables():
    # one look: the fixed-sample z; Pocock (shape 1/2) and O'Brien-Fleming (shape 0) at K = 5,
    # two-sided 5%: C = 2.413 and 2.040 (Jennison & Turnbull, Tables 2.1 and 2.3)
    assert design(np.array([100]), 0.05).crit[0] == pytest.approx(1.96, abs=0.02)
    five = np.arange(1, 6) * 100
    assert design(five, 0.05, shape=0.5).crit == pytest.approx([2.413] * 5, abs=0.02)
    obf = design(five, 0.05, shape=0.0).crit
    assert obf[-1] == pytest.approx(2.040, abs=0.02) and obf[0] == pytest.approx(2.040 * np.sqrt(5), abs=0.05)
    # Bonferroni over streams, and the same looks give the same design every time
    assert design(five, 0.05, streams=4).alpha == 0.0125
    assert np.array_equal(design(five).crit, design(five).crit)


def test_looks_end_at_the_budget_in_multiples_of_the_seat_count():
    assert list(looks_for(1000, 300, 4)) == [300, 600, 900, 1000]
    assert list(looks_for(1000, 301, 4)) == [304, 608, 912, 1000]
    with pytest.raises(ValueError):
        looks_for(0, 10)


def _replicate(rng, mu, d, min_effect=0.0, target=None, per_look=500):
    """One synthetic run: paired outcomes N(mu, 1) in looks of ``per_look``; -> the monitor at the stop."""
    mon = Monitor(d, min_effect, target)
    n = s = s2 = 0.0
    for games in d.looks:
        x = rng.normal(mu, 1.0, int(games - n))
        n, s, s2 = games, s + x.sum(), s2 + (x * x).sum()
        if mon.look(int(games), {"d": (int(n), s, s2)}):
            return mon
    return mon


def test_null_replicates_keep_alpha_and_the_intervals_cover():
    d = design(looks_for(10_000, 500), 0.05)  # 20 looks
    rng = np.random.default_rng(7)
    reps = [_replicate(rng, 0.0, d) for _ in range(400)]
    fp = np.mean([m.streams["d"].decision == "effect" for m in reps])
    cover = np.mean([m.streams["d"].low <= 0.0 <= m.streams["d"].high for m in reps])
    mc = np.sqrt(0.05 * 0.95 / 400)
    assert fp <= 0.05 + 2.5 * mc, fp  # looked at 20 times, still alpha
    assert 0.93 <= cover <= 0.97, cover
    # the naive fixed-sample 1.96 interval at the same looks would reject far more often
    assert d.crit.min() > 1.96


def test_a_planted_effect_stops_early_and_a_null_with_a_margin_stops_as_no_effect():
    d = design(looks_for(10_000, 500), 0.05)
    rng = np.random.default_rng(3)
    planted = [_replicate(rng, 0.1, d) for _ in range(100)]
    assert all(m.streams["d"].decision == "effect" and m.streams["d"].mean > 0 for m in planted)
    assert np.mean([m.games for m in planted]) < 0.6 * 10_000  # fewer games than the fixed budget
    cover = np.mean([m.streams["d"].low <= 0.1 <= m.streams["d"].high for m in planted])
    assert cover >= 0.93
    null = [_replicate(rng, 0.0, d, min_effect=0.08) for _ in range(50)]
    assert np.mean([m.streams["d"].decision == "no effect" for m in null]) > 0.8
    assert all(m.status in ("decided", "budget spent") for m in null)


def test_monitor_refuses_a_look_off_the_design_and_marks_fixed_streams():
    d = design(looks_for(100, 50), 0.05)
    mon = Monitor(d)
    with pytest.raises(ValueError, match="next look is 50"):
        mon.look(40, {"a": (40, 0.0, 0.0)})
    mon = Monitor(d)
    assert not mon.look(50, {"mirror": (50, 0.0, 0.0), "x": (50, 1.0, 50.0)})
    assert mon.streams["mirror"].decision == "fixed"
    assert mon.look(100, {"mirror": (100, 0.0, 0.0), "x": (100, 2.0, 100.0)})  # the last look stops
    assert mon.status == "budget spent" and len(mon.history_frame()) == 4


def test_a_stream_with_no_variation_decides_only_when_its_signs_are_evidence():
    """One deal played from both seats and won by the same side (2 games) is no evidence: a stream
    with no variation decides by its sign (or as fixed, all 0) only once an exact sign test of its
    n alike outcomes clears the look's nominal level (it decided at 2 games, so a tournament of two
    close strategies with --until-decided named a winner after one deal in 2 runs of 3)."""
    from volva.analysis.sequential import alike_decides
    d = design(looks_for(2_000, 2, 2), 0.05)
    mon = Monitor(d)
    assert not mon.look(2, {"a − b": (2, 2.0, 2.0), "mirror": (2, 0.0, 0.0)})  # not stopped
    assert mon.streams["a − b"].decision == "undecided" and mon.streams["mirror"].decision == "undecided"
    assert np.isnan(mon.streams["a − b"].low)  # no interval from two alike outcomes
    # at the fixed-sample 5% level (boundary 1.96): 6 alike outcomes (p = 2/64) decide, 5 (2/32) do not
    assert alike_decides(6, 1.96) and not alike_decides(5, 1.96)
    # the same stream seen long enough decides: by its sign, or as fixed when it is 0 throughout
    n = 200
    mon = Monitor(design(looks_for(n, n), 0.05))
    assert mon.look(n, {"a − b": (n, float(n), float(n)), "mirror": (n, 0.0, 0.0)})
    assert mon.streams["a − b"].decision == "effect" and mon.streams["mirror"].decision == "fixed"


# --- the commands, end to end ---------------------------------------------------

@pytest.mark.slow
def test_ablate_until_decided_stops_at_the_same_look_for_a_seed(tmp_path):
    import pandas as pd
    from typer.testing import CliRunner

    from volva.cli import app
    runs = []
    for k in range(2):
        out = tmp_path / f"a{k}"
        res = CliRunner().invoke(app, ["ablate", "Tyr's Smite", "--players", "2", "--lineup", "greedy*2",
                                       "--games", "4000", "--look", "200", "--until-decided", "--seed", "5",
                                       "--out", str(out)])
        assert res.exit_code == 0, res.output
        assert "repeated CI" in res.output and "stopped after" in res.output
        runs.append(pd.read_csv(out / "sequential.csv"))
    pd.testing.assert_frame_equal(runs[0], runs[1])  # the stopping point is a function of the seed
    h = runs[0]
    assert h["games"].max() <= 4000 and set(h["games"]) <= set(range(200, 4001, 200))
    last = h[h["games"] == h["games"].max()].iloc[0]
    assert last["rci_low"] <= last["mean"] <= last["rci_high"]


@pytest.mark.slow
def test_tournament_until_decided_separates_a_strong_leader_early(tmp_path):
    from typer.testing import CliRunner

    from volva.cli import app
    res = CliRunner().invoke(app, ["tournament", "--strategies", "tuned-4p,random,greedy", "--players", "2",
                                   "--games", "4000", "--look", "100", "--until-decided", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "(decided)" in res.output and (tmp_path / "sequential.csv").is_file()
    import pandas as pd
    h = pd.read_csv(tmp_path / "sequential.csv")
    assert h["games"].max() < 4000  # decided before the budget


def test_until_decided_refuses_a_mirror_compare(tmp_path):
    from typer.testing import CliRunner

    from volva.cli import app
    p = tmp_path / "p.toml"
    p.write_text('["Tyr\'s Smite"]\nvalue = 9\n')
    res = CliRunner().invoke(app, ["compare", "--patch", str(p), "--lineup", "greedy*4", "--until-decided",
                                   "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "mirror lineup" in res.output and not (tmp_path / "o").exists()


def test_sequential_options_need_until_decided_and_a_look_within_the_budget(tmp_path):
    from typer.testing import CliRunner

    from volva.cli import app
    for args, msg in ((["--look", "100"], "--look: only with --until-decided"),
                      (["--alpha", "0.1"], "--alpha: only with --until-decided"),
                      (["--until-decided", "--look", "900", "--games", "400"], "--look 900: more than --games 400")):
        for cmd in (["ablate", "Troll", "--lineup", "greedy,balanced,greedy,greedy"],
                    ["tournament", "--strategies", "greedy,balanced,random,quester"]):
            res = CliRunner().invoke(app, [*cmd, "--out", str(tmp_path / "o"), *args])
            assert res.exit_code == 2 and msg in res.output, (cmd, args, res.output)
