"""analysis.records on synthetic BatchOut arrays."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import make_batch
from hypothesis import given, settings
from hypothesis import strategies as st

from volva.analysis import records as R
from volva.simulator.core import enums as E
from volva.simulator.engines import load_ruleset


def _one_game(P=3):
    b = make_batch(1, P)
    return b._replace(rank=np.array([[1, 1, 3][:P]], np.int8))


def _clans(b, strategies=None):
    G, P = b.rank.shape
    return R.clans_frame(b, np.arange(100, 100 + G, dtype=np.int64), np.arange(G, dtype=np.uint64) + 7,
                         "blood-rage", strategies or ["greedy"] * P)


def test_columns_exact():
    df = _clans(make_batch(5, 4))
    assert list(df.columns) == R.CLANS_COLUMNS == [
        "game_id", "seed", "ruleset", "n_players", "seat", "strategy", "glory", "rank", "win_share",
        "rage_level", "axes_level", "horns_level", "stat_path", "gods", "figures_at_ragnarok", "glory_battle", "glory_pillage",
        "glory_quest", "glory_ragnarok", "glory_bonus", "glory_cards", "glory_contest", "glory_valor", "glory_start",
        "glory_mission", "actions", "pillages", "pillages_won", "pillages_unopposed", "battles", "battles_won",
        "battle_ties", "quests", "quests_done", "lost_battle", "lost_ragnarok", "pillage_ties"]
    assert len(df) == 20
    assert (df["battles"] == -1).all()  # a batch without game-shape counters: -1, not counted
    for c in ("strategy", "ruleset", "stat_path"):
        assert isinstance(df[c].dtype, pd.CategoricalDtype)


def test_two_way_tie_shares_the_win():
    df = _clans(_one_game())
    assert df["win_share"].tolist() == [0.5, 0.5, 0.0]
    assert df["rank"].tolist() == [1, 1, 3]


def test_game_major_rows_and_ids():
    df = _clans(make_batch(3, 2), ["greedy", "random"])
    assert df["game_id"].tolist() == [100, 100, 101, 101, 102, 102]
    assert df["seed"].tolist() == [7, 7, 8, 8, 9, 9]
    assert df["seat"].tolist() == [0, 1] * 3
    assert df["strategy"].astype(str).tolist() == ["greedy", "random"] * 3
    assert (df["n_players"] == 2).all()


def test_stat_path_strings():
    b = _one_game()
    path = np.full((1, 3, E.MAX_PATH), -1, np.int8)
    path[0, 0, :3] = [E.STAT_AXES, E.STAT_RAGE, E.STAT_AXES]
    path[0, 2, :3] = [E.STAT_HORNS, -1, E.STAT_RAGE]  # stop at the first -1
    df = _clans(b._replace(path=path))
    assert df["stat_path"].astype(str).tolist() == ["axes,rage,axes", "", "horns"]


def test_levels_are_index_plus_one():
    b = _one_game()
    stats = np.zeros((1, 3, 3), np.int8)
    stats[0, 0] = [0, 5, 2]  # rage, axes, horns step indices
    stats[0, 1] = [5, 0, 1]
    df = _clans(b._replace(stats=stats))
    assert df[["rage_level", "axes_level", "horns_level"]].values.tolist() == [[1, 6, 3], [6, 1, 2], [1, 1, 1]]


def test_glory_is_sum_of_sources():
    b = make_batch(50, 4, seed=3)
    df = _clans(b)
    src = df[[f"glory_{s}" for s in E.GLORY_SOURCE_NAMES]].sum(axis=1)
    assert (df["glory"] == src).all()
    assert df["glory_quest"].tolist() == b.glory[:, :, E.G_QUEST].reshape(-1).tolist()


def test_shape_mismatch_raises():
    with pytest.raises(ValueError, match="shapes"):
        R.clans_frame(make_batch(2, 2), np.arange(3), np.arange(3, dtype=np.uint64), "x", ["a", "b"])


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 20), st.integers(2, 5), st.integers(0, 2**32 - 1))
def test_win_share_sums_to_one_per_game(G, P, seed):
    b = make_batch(G, P, seed)
    rng = np.random.default_rng(seed)
    rank = rng.integers(1, 3, (G, P)).astype(np.int8)
    rank[:, 0] = 1  # at least one winner
    df = _clans(b._replace(rank=rank))
    sums = df.groupby("game_id")["win_share"].sum().to_numpy()
    np.testing.assert_allclose(sums, 1.0)
    k = (rank == 1).sum(axis=1)
    np.testing.assert_allclose(df["win_share"].to_numpy(), np.where(rank == 1, 1.0 / k[:, None], 0).reshape(-1))


def test_picks_padding_dropped():
    rs = load_ruleset()
    b = make_batch(2, 2)
    picks = np.full((2, 2, 3, E.MAX_PICKS), -1, np.int16)
    picks[0, 1, 2, :3] = [5, 6, 7]
    picks[1, 0, 0, 0] = 0
    df = R.picks_frame(b._replace(picks=picks), np.array([10, 11], np.int64), rs)
    assert list(df.columns) == R.PICKS_COLUMNS == ["game_id", "seat", "age", "pick", "card"]
    assert df[["game_id", "seat", "age", "pick"]].values.tolist() == [
        [10, 1, 3, 1], [10, 1, 3, 2], [10, 1, 3, 3], [11, 0, 1, 1]]
    assert df["card"].astype(str).tolist() == [rs.card_names[c] for c in (5, 6, 7, 0)]


def test_arrow_schema_is_stable_across_batches(tmp_path):
    import pyarrow.parquet as pq
    rs = load_ruleset()
    f = tmp_path / "clans.parquet"
    with pq.ParquetWriter(f, R.CLANS_SCHEMA) as w:
        for s in range(3):
            b = make_batch(4 + 50 * s, 3, seed=s)
            df = R.clans_frame(b, np.arange(len(b.rank)), np.zeros(len(b.rank), np.uint64), rs.name, ["a", "b", "c"])
            w.write_table(R.arrow_table(df, R.CLANS_SCHEMA))
    back = pd.read_parquet(f)
    assert len(back) == 3 * (4 + 54 + 104)
    assert list(back.columns) == R.CLANS_COLUMNS


def test_gods_column_names_the_pair():
    """Issue 3 §3: the two Gods of Ásgard per game, 'odin+thor' (gods.toml order), '' without the module."""
    names = ["Odin", "Thor", "Tyr", "Loki", "Frigga", "Heimdall"]
    gods = np.array([[1, 0], [4, 2], [-1, -1]], np.int8)
    assert list(R.gods_strings(gods, names)) == ["odin+thor", "tyr+frigga", ""]


def test_plays_frame_decodes_uses():
    """card * 16 + age * 4 + use -> one row per use with the card's name, deck age and use name."""
    rs = load_ruleset()
    b = make_batch(5, 3, seed=2)
    df = R.plays_frame(b, np.arange(100, 105), rs)
    assert list(df.columns) == R.PLAYS_COLUMNS and len(df) == 5 * 3 * 6  # make_batch: 2 uses per age
    first = df.iloc[0]
    c = int(b.picks[0, 0, 0, 0])
    assert (first.game_id, first.seat, first.age, first.card, first.use) == (100, 0, 1, rs.card_names[c], "battle")
    assert first.card_age == rs.tables.card_age[c]
    assert set(df["use"].astype(str)) == {"battle", "upgrade"}


def test_of_ruleset_makes_once_per_rule_set_object():
    """records.of_ruleset (card labels and lookups a run reduces every batch with): made once per
    rule set object, even with two alternating (a compare's arms), made again for another object,
    even an equal one, and the oldest of more than four dropped."""
    from volva.analysis.records import of_ruleset

    class Rs:  # a dataclass rule set is unhashable: the cache goes by identity
        __hash__ = None
    made = []

    def make(rs):
        made.append(rs)
        return len(made)
    a, b = Rs(), Rs()
    assert [of_ruleset(a, "k", make), of_ruleset(a, "k", make), of_ruleset(a, "j", make)] == [1, 1, 2]
    assert [of_ruleset(b, "k", make), of_ruleset(a, "k", make), of_ruleset(b, "k", make)] == [3, 1, 3]
    others = [Rs() for _ in range(4)]
    for o in others:
        of_ruleset(o, "k", make)
    assert of_ruleset(a, "k", make) == 8 and made == [a, a, b, *others, a]  # a was the oldest: made again
