"""analysis/ratings.py: Bradley–Terry ratings on the Elo scale from who finishes above whom."""
import math

import numpy as np
import pandas as pd
import pytest

from volva.analysis.ratings import ELO, RATINGS_COLUMNS, bradley_terry, comparisons, ratings


def clans_table(games: list[list[tuple[str, int]]], seeds=None) -> pd.DataFrame:
    """A clans table from games given as [(strategy, rank), ...] in seat order."""
    rows = []
    for g, game in enumerate(games):
        for seat, (s, r) in enumerate(game):
            rows.append({"game_id": g, "seed": seeds[g] if seeds is not None else g, "seat": seat, "strategy": s,
                         "rank": r})
    return pd.DataFrame(rows)


def test_two_strategies_elo_gap_is_the_logit_of_the_score():
    # a finishes above b in 30 of 40 games: r_a - r_b = logit(0.75), b anchored at 0
    games = [[("a", 1), ("b", 2)]] * 30 + [[("b", 1), ("a", 2)]] * 10
    rat = ratings(clans_table(games), anchor="b").set_index("strategy")
    assert rat.loc["a", "elo"] == pytest.approx(ELO * math.log(3.0), rel=1e-6)
    assert rat.loc["b", "elo"] == 0 and np.isnan(rat.loc["b", "ci_low"]) and rat.loc["b", "anchor"]
    assert rat.loc["a", "ci_low"] < rat.loc["a", "elo"] < rat.loc["a", "ci_high"]
    assert rat.loc["a", "score"] == pytest.approx(0.75) and rat.loc["a", "comparisons"] == 40
    assert list(rat.reset_index().columns) == RATINGS_COLUMNS


def test_equal_places_count_half_and_mirror_seats_are_not_compared():
    # every game: a and b share first place; the second seat of a is never compared with the first
    games = [[("a", 1), ("b", 1), ("a", 3)]] * 20
    comp = comparisons(clans_table(games))
    assert set(zip(comp["a"], comp["b"])) == {("a", "b")}
    assert comp["n"].sum() == 40  # two a-seats x one b-seat per game
    # seat 0 (a) ties b: 0.5; seat 2 (a, rank 3) loses to b: 0
    assert comp["score"].sum() == pytest.approx(20 * 0.5)


def test_greedy_is_the_default_anchor_and_an_unknown_anchor_is_refused():
    games = [[("greedy", 1), ("x", 2)], [("x", 1), ("greedy", 2)], [("greedy", 1), ("x", 2)]]
    rat = ratings(clans_table(games))
    assert rat.loc[rat["anchor"], "strategy"].item() == "greedy"
    with pytest.raises(ValueError, match="anchor 'nobody' did not play"):
        ratings(clans_table(games), anchor="nobody")


def test_known_strengths_are_recovered_within_their_intervals():
    # synthetic Bradley-Terry comparisons with known Elo; 95% intervals cover (nearly) all
    rng = np.random.default_rng(5)
    true = {"a": 0.0, "b": 80.0, "c": -120.0, "d": 200.0}
    names = sorted(true)
    rows = []
    for seed in range(400):
        for i, x in enumerate(names):
            for y in names[i + 1:]:
                p = 1 / (1 + 10 ** (-(true[x] - true[y]) / 400))
                rows.append({"seed": seed, "a": x, "b": y, "n": 5, "score": float(rng.binomial(5, p))})
    rat = bradley_terry(pd.DataFrame(rows), anchor="a").set_index("strategy")
    for n in ("b", "c", "d"):
        assert rat.loc[n, "ci_low"] < true[n] < rat.loc[n, "ci_high"], (n, rat.loc[n].to_dict())
        assert rat.loc[n, "ci_high"] - rat.loc[n, "ci_low"] < 60  # informative: 8,000 comparisons each
    assert list(rat.index) == ["d", "b", "a", "c"]


def test_comparisons_clustered_on_the_seed():
    # the same seed in two games: one cluster row per (seed, pair)
    games = [[("a", 1), ("b", 2)], [("b", 1), ("a", 2)], [("a", 1), ("b", 2)]]
    comp = comparisons(clans_table(games, seeds=[7, 7, 8]))
    assert comp[["seed", "n", "score"]].values.tolist() == [[7, 2, 1.0], [8, 1, 1.0]]


def test_a_strategy_above_everyone_every_time_has_no_finite_rating():
    games = [[("a", 1), ("b", 2)]] * 10 + [[("b", 1), ("c", 2)]] * 6 + [[("c", 1), ("b", 2)]] * 4 + \
        [[("a", 1), ("c", 2)]] * 5
    rat = ratings(clans_table(games)).set_index("strategy")
    assert rat.loc["a", "elo"] == np.inf and np.isnan(rat.loc["a", "ci_low"])  # above b and c in every game
    assert rat.loc["b", "anchor"] and np.isfinite(rat.loc["c", "elo"])  # b, c rated among themselves
    with pytest.raises(ValueError, match="no finite rating"):
        ratings(clans_table(games), anchor="a")
    two = ratings(clans_table([[("x", 1), ("y", 2)]] * 5))
    assert not two["anchor"].any() and set(two["elo"]) == {np.inf, -np.inf}


def test_ratings_table_writes_a_rating_that_rounds_to_zero_as_0_not_minus_0():
    """The console showed Elo '-0' (a helper session)."""
    from rich.console import Console

    from volva.reports.console import ratings_table
    rat = pd.DataFrame({"strategy": ["greedy", "balanced"], "elo": [0.0, -0.3], "ci_low": [0.0, -12.4],
                        "ci_high": [0.0, 0.4], "score": [0.5, 0.49], "comparisons": [100, 100],
                        "anchor": [True, False]})
    con = Console(width=200, record=True)
    con.print(ratings_table(rat))
    row = next(line for line in con.export_text().splitlines() if "balanced" in line)
    assert "-0" not in row.replace("-12", "") and " 0 " in row and "-12 to 0" in row, row


@pytest.mark.parametrize("seeds", [[5], [5, 6]])
def test_too_few_games_give_ratings_without_intervals(seeds):
    """A helper session: `volva tournament --games 1` crashed dividing by zero (a clustered variance
    from one seed), and `--games 2` failed inside statsmodels. One seed, or two fitted exactly (a
    zero variance), give the ratings with NaN intervals, which the console shows as too few games."""
    from rich.console import Console

    from volva.reports.console import ratings_table
    comp = pd.DataFrame({"a": ["greedy"] * len(seeds), "b": ["thor-warlord"] * len(seeds), "n": 2,
                         "score": 1.0, "seed": seeds})
    rat = bradley_terry(comp).set_index("strategy")
    assert rat.loc["thor-warlord", "elo"] == pytest.approx(0) and rat.loc["greedy", "anchor"]
    assert rat[["ci_low", "ci_high"]].isna().all().all()
    con = Console(width=200, record=True)
    con.print(ratings_table(rat.reset_index()))
    row = next(line for line in con.export_text().splitlines() if "thor-warlord" in line)
    assert "too few games" in row and "nan" not in row, row
