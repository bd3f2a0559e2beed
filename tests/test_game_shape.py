"""Game-shape counters (issue 13): how the bots play, counted in the engine (enums SH_*), carried
into the clans table, the stats (``shape``), the report and the console summary. The counters
are checked against each other and against what the engine already records, on real games."""
import numpy as np
import pytest

from volva.simulator.core import enums as E


@pytest.fixture(scope="module")
def played():
    from volva.simulator import engines
    from volva.strategies.builtin import resolve
    rs = engines.load_ruleset("blood-rage")
    lineup = [resolve(n) for n in ("tuned-4p", "balanced", "ragnarok-diver", "loki-martyr")]
    seeds = np.arange(300, dtype=np.uint64) + 11
    return engines.play_batch(rs, lineup, seeds)


def _k(b, name):
    return b.game_shape[:, :, E.SHAPE_NAMES.index(name)].astype(np.int64)


def test_counters_agree_with_each_other_and_the_engine(played):
    b = played
    assert (b.game_shape >= 0).all()
    # one Action turn a counter step (DIGEST §1.5 Action); n_turns counts the same turns
    assert np.array_equal(_k(b, "actions").sum(1), b.n_turns)
    # every battle has one pillager and ends with one winner or a tie (DIGEST §1.6 step 5)
    battles = _k(b, "pillages").sum(1) - _k(b, "pillages_unopposed").sum(1)
    assert np.array_equal(_k(b, "battles_won").sum(1) + _k(b, "pillage_ties").sum(1), battles)
    # a battle has at least two clans in it; a tie is tied for each of them
    assert (_k(b, "battles").sum(1) >= 2 * battles).all()
    assert (_k(b, "battle_ties").sum(1) >= 2 * _k(b, "pillage_ties").sum(1)).all()
    # an unopposed pillage always succeeds; a won battle is counted once per pillage won or defended
    assert (_k(b, "pillages_unopposed") <= _k(b, "pillages_won")).all()
    assert (_k(b, "pillages_won") <= _k(b, "pillages")).all()
    assert (_k(b, "battles_won") <= _k(b, "battles")).all() and (_k(b, "quests_done") <= _k(b, "quests")).all()
    # Ragnarök pays 2/3/4 Glory by age for each figure it destroys (DIGEST §1.5 Ragnarök; card
    # texts may add more), so at least 2 per figure counted
    lost = _k(b, "lost_ragnarok")
    assert (b.glory[:, :, E.G_RAGNAROK] >= 2 * lost).all() and lost.sum() > 0
    # the bots do play: battles, quests and pillages happen
    assert battles.mean() > 1 and _k(b, "quests").sum(1).mean() > 1


def test_stats_report_and_console_show_the_game_shape(played, tmp_path):
    from volva.analysis import aggregate as agg
    from volva.analysis.records import clans_frame
    from volva.analysis.suffstats import Stats
    from volva.reports.console import shape_table
    names = ["tuned-4p", "balanced", "ragnarok-diver", "loki-martyr"]
    clans = clans_frame(played, np.arange(300), np.arange(300, dtype=np.uint64), "blood-rage", names)
    st = Stats.from_frames(clans)
    clan, game = agg.game_shape(st)
    assert list(clan["strategy"]) == sorted(names) + ["(all)"]
    assert clan.set_index("strategy").loc["(all)", "clans"] == 1200
    battles = (clans["pillages"].sum() - clans["pillages_unopposed"].sum()) / 300
    assert game["battles"].iloc[0] == pytest.approx(battles)
    share = clans["glory_bonus"].sum() / clans["glory"].sum()
    assert clan.set_index("strategy").loc["(all)", "bonus_share"] == pytest.approx(share)
    assert clan["rage_level"].between(1, 6).all()
    st.save(tmp_path)
    assert Stats.load(tmp_path)["shape"].equals(st["shape"])
    assert "How the bots played" in str(shape_table(st).title)


def test_an_engine_that_does_not_count_leaves_no_shape_table(tmp_path):
    from conftest import make_batch

    from volva.analysis import aggregate as agg
    from volva.analysis.records import clans_frame
    from volva.analysis.suffstats import Stats
    b = make_batch(10, 4)
    st = Stats.from_frames(clans_frame(b, np.arange(10), np.arange(10, dtype=np.uint64), "x", ["greedy"] * 4))
    assert agg.game_shape(st) is None and not len(st["shape"])
    # stats written before the table existed still load
    st.save(tmp_path)
    (tmp_path / "stats" / "shape.parquet").unlink()
    import json
    meta = json.loads((tmp_path / "stats" / "meta.json").read_text())
    del meta["sha256"]["shape"]
    (tmp_path / "stats" / "meta.json").write_text(json.dumps(meta))
    assert not len(Stats.load(tmp_path)["shape"])
