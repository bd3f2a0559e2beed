"""analysis.aggregate: numbers checked against hand computation and statsmodels/scipy."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint, proportions_ztest

from volva.analysis import aggregate as A
from volva.analysis.suffstats import Stats, checkpoints, level_labels, path_prefix


def _clans(rows):
    """rows: (game_id, seat, strategy, win_share, glory) -> clans frame with the other columns filled."""
    df = pd.DataFrame(rows, columns=["game_id", "seat", "strategy", "win_share", "glory"])
    df["strategy"] = df["strategy"].astype("category")
    df["n_players"] = np.int8(df.groupby("game_id")["seat"].transform("size").max())
    for c in A.GLORY_COLUMNS:
        df[c] = 0
    df["rage_level"], df["axes_level"], df["horns_level"] = 1, 1, 1
    df["stat_path"] = pd.Categorical([""] * len(df))
    df["gods"] = pd.Categorical([""] * len(df))
    df["rank"] = np.where(df["win_share"] > 0, 1, 2)
    df["figures_at_ragnarok"] = 0
    return df


def _st(clans, picks=None, uses=None, points=None):
    return Stats.from_frames(clans, picks, uses, points=points)


def test_win_rate_and_wilson_match_statsmodels():
    # 10 games x 2 seats: 'a' (seat 0) wins 6, one tie (0.5 each), 'b' wins 3
    rows = []
    for g in range(10):
        sa = 1.0 if g < 6 else (0.5 if g == 6 else 0.0)
        rows += [(g, 0, "a", sa, 10 + g), (g, 1, "b", 1.0 - sa, 5)]
    t = A.by_strategy(_st(_clans(rows))).set_index("strategy")
    assert t.loc["a", "n"] == 10 and t.loc["a", "wins"] == pytest.approx(6.5)
    assert t.loc["a", "win_rate"] == pytest.approx(0.65)
    lo, hi = proportion_confint(6.5, 10, alpha=0.05, method="wilson")
    assert (t.loc["a", "ci_low"], t.loc["a", "ci_high"]) == pytest.approx((lo, hi))
    assert t.loc["b", "win_rate"] == pytest.approx(0.35)
    # mean Glory with a t interval
    g = np.arange(10, 20, dtype=float)
    tlo, thi = stats.t.interval(0.95, 9, loc=g.mean(), scale=stats.sem(g))
    assert t.loc["a", "mean_glory"] == pytest.approx(14.5)
    assert (t.loc["a", "glory_ci_low"], t.loc["a", "glory_ci_high"]) == pytest.approx((tlo, thi))
    assert t["small"].all()  # n = 10 < 100
    seats = A.by_seat(_st(_clans(rows)))
    assert list(seats["seat"]) == [0, 1] and (seats["expected"] == 0.5).all()


def test_wilson_known_case():
    lo, hi = A.wilson([30], [100])
    # Wilson interval of 30/100 (closed form)
    z = stats.norm.ppf(0.975)
    c = (0.3 + z * z / 200) / (1 + z * z / 100)
    h = z / (1 + z * z / 100) * np.sqrt(0.3 * 0.7 / 100 + z * z / 40000)
    assert lo[0] == pytest.approx(c - h) and hi[0] == pytest.approx(c + h)
    lo, hi = A.wilson([0], [0])
    assert np.isnan(lo[0]) and np.isnan(hi[0])


def test_wilson_coverage_at_p_0_3():
    rng = np.random.default_rng(20240601)
    n, p, reps = 250, 0.3, 2000
    wins = rng.binomial(n, p, reps)
    lo, hi = A.wilson(wins, np.full(reps, n))
    cover = np.mean((lo <= p) & (p <= hi))
    assert 0.93 <= cover <= 0.97, cover


def test_two_proportion_z_matches_statsmodels():
    z, pv = A.two_proportion_z([40], [100], [30], [120])
    zs, ps = proportions_ztest([40, 30], [100, 120])
    assert z[0] == pytest.approx(zs) and pv[0] == pytest.approx(ps)
    z, pv = A.two_proportion_z([0], [10], [0], [10])  # undefined -> p = 1
    assert pv[0] == 1.0


def _card_data(n_games=400, seed=3):
    """4-seat games, strategies x,x,y,y. Card 'Good' drafted in age 1 by winners far more often.

    Each clan drafts 2 cards in age 1 out of {Good, Bad, Meh1, Meh2}."""
    rng = np.random.default_rng(seed)
    rows, picks = [], []
    for g in range(n_games):
        winner = rng.integers(4)
        for s in range(4):
            ws = 1.0 if s == winner else 0.0
            rows.append((g, s, "x" if s < 2 else "y", ws, 50))
            good = rng.random() < (0.9 if ws else 0.2)
            others = list(rng.permutation(["Bad", "Meh1", "Meh2"]))
            hand = (["Good"] if good else []) + others
            for k, c in enumerate(hand[:2]):
                picks.append((g, s, 1, k + 1, c))
    clans = _clans(rows)
    p = pd.DataFrame(picks, columns=["game_id", "seat", "age", "pick", "card"])
    p["card"] = p["card"].astype("category")
    return clans, p


def test_cards_hand_computation_and_planted_card():
    clans, picks = _card_data()
    t = A.cards(_st(clans, picks))
    assert set(t["strategy"]) == {"x", "y"} and set(t["age"]) == {1}
    # hand computation for strategy x, card Good
    m = clans.merge(picks[picks.card == "Good"][["game_id", "seat"]].drop_duplicates().assign(d=True),
                    on=["game_id", "seat"], how="left")
    m["d"] = m["d"].fillna(False).astype(bool)
    mx = m[m.strategy == "x"]
    row = t[(t.strategy == "x") & (t.card == "Good")].iloc[0]
    assert row.n_drafted == mx.d.sum() and row.n_not == (~mx.d).sum()
    assert row.win_rate_drafted == pytest.approx(mx[mx.d].win_share.mean())
    assert row.win_rate_not == pytest.approx(mx[~mx.d].win_share.mean())
    assert row.iwd == pytest.approx(row.win_rate_drafted - row.win_rate_not)
    assert row.times_drafted == (picks.merge(clans[["game_id", "seat", "strategy"]])
                                 .query("strategy == 'x' and card == 'Good'").shape[0])
    assert row.ata == pytest.approx(1.0)  # Good is always first pick
    # planted: Good strongly positive and significant for both strategies; BH as statsmodels
    good = t[t.card == "Good"]
    assert (good.iwd > 0.3).all() and good.significant.all()
    bad = t[t.card == "Bad"]
    assert (bad.iwd < 0).all()
    assert np.allclose(t.p_adj, multipletests(t.p_value, method="fdr_bh")[1])
    # the test of iwd uses a game-clustered standard error: the same as an OLS of win_share on
    # 'drafted' with cluster-robust (by game) covariance (statsmodels), up to its df correction
    import statsmodels.api as sm
    fit = sm.OLS(mx["win_share"].to_numpy(float), sm.add_constant(mx["d"].to_numpy(float))).fit(
        cov_type="cluster", cov_kwds={"groups": mx["game_id"].to_numpy()})
    assert fit.params[1] == pytest.approx(row.iwd)
    assert row.se == pytest.approx(fit.bse[1], rel=2e-3)
    assert row.p_value == pytest.approx(2 * stats.norm.sf(abs(row.iwd / row.se)))


def test_cards_duplicate_copy_counts_once_as_drafted():
    clans = _clans([(0, 0, "x", 1.0, 1), (0, 1, "x", 0.0, 1), (1, 0, "x", 0.0, 1), (1, 1, "x", 1.0, 1)])
    picks = pd.DataFrame({"game_id": [0, 0, 0, 1, 1], "seat": [0, 0, 1, 0, 1], "age": [2] * 5,
                          "pick": [1, 3, 1, 2, 1], "card": ["Q", "Q", "R", "Q", "R"]})
    t = A.cards(_st(clans, picks)).set_index("card")
    assert t.loc["Q", "times_drafted"] == 3 and t.loc["Q", "n_drafted"] == 2 and t.loc["Q", "n_not"] == 2
    assert t.loc["Q", "ata"] == pytest.approx(2.0)
    assert t.loc["Q", "win_rate_drafted"] == 0.5 and t.loc["R", "win_rate_drafted"] == 0.5
    assert t["small"].all()


def test_glory_by_source_means():
    c = _clans([(0, 0, "x", 1, 0), (1, 0, "x", 0, 0), (0, 1, "y", 0, 0)])
    c["glory_quest"] = [4, 6, 1]
    t = A.glory_by_source(_st(c))
    q = t[(t.strategy == "x") & (t.source == "quest")].iloc[0]
    assert q["mean"] == 5 and q["n"] == 2
    lo, hi = stats.t.interval(0.95, 1, loc=5, scale=stats.sem([4, 6]))
    assert (q.ci_low, q.ci_high) == pytest.approx((lo, hi))
    assert set(t["source"]) == {"quest"} and len(t) == 2  # sources no clan scored from are left out


def test_stat_paths_labels_and_rates():
    c = _clans([(g, 0, "x", float(g % 2), 1) for g in range(6)])
    c["rage_level"] = [3, 3, 3, 3, 1, 1]
    c["axes_level"] = [6, 6, 6, 6, 2, 2]
    c["stat_path"] = pd.Categorical(["axes,rage,axes", "axes,rage", "rage", "", "axes,axes", "axes,rage,horns"])
    assert list(level_labels(c)[0]) == ["R3 A6 H1"] * 4 + ["R1 A2 H1"] * 2
    assert list(level_labels(c)[1]) == [1] * 4 + [0] * 2  # one stat on step 4+ (Axes 6)
    assert list(path_prefix(c["stat_path"], 2)) == ["axes,rage", "axes,rage", "rage", "(none)", "axes,axes",
                                                    "axes,rage"]
    t = A.by_stat_path(_st(c), "x")
    lv = t["levels"].set_index("path")
    assert lv.loc["R3 A6 H1", "n"] == 4 and lv.loc["R3 A6 H1", "win_rate"] == 0.5
    assert t["first_two"].iloc[0]["path"] == "axes,rage" and t["first_two"].iloc[0]["n"] == 3
    three = t["first_three"].set_index("path")
    assert three.loc["axes,rage,axes", "n"] == 1 and three.loc["axes,rage", "n"] == 1
    leg = t["legendary"].set_index("legendary")
    assert leg.loc[1, "n"] == 4 and leg.loc[0, "n"] == 2


def test_gods_tables_and_matrix():
    rows = [(g, s, "x" if s == 0 else "y", 1.0 if s == g % 2 else 0.0, 1) for g in range(4) for s in range(2)]
    c = _clans(rows)
    c["gods"] = pd.Categorical(["odin+thor"] * 4 + ["thor+loki"] * 4)
    t = A.by_gods(_st(c))
    assert np.allclose(t["pair"]["win_rate"], 0.5)  # 1/N by construction
    ps = t["pair_strategy"].set_index(["pair", "strategy"])
    assert ps.loc[("odin+thor", "x"), "win_rate"] == 0.5
    m = A.god_matrix(t["pair_strategy"][t["pair_strategy"].strategy == "x"])
    assert list(m.index) == ["odin", "thor", "loki"]
    assert m.at["odin", "thor"] == m.at["thor", "odin"] == 0.5 and np.isnan(m.at["odin", "loki"])
    assert A.by_gods(_st(_clans(rows))) is None


def test_convergence_last_point_is_full_data():
    rng = np.random.default_rng(0)
    G = 5000
    w = rng.random(G) < 0.4
    rows = [(g, s, "x" if s == 0 else "y", float(w[g] == (s == 0)), 1) for g in range(G) for s in range(2)]
    t = A.convergence(_st(_clans(rows), points=checkpoints(G)), "x")
    assert list(t["games"]) == [10, 20, 50, 100, 200, 500, 1000, 2000, 5000]
    assert t["games"].iloc[-1] == G and t["n"].iloc[-1] == G
    # the band is the cluster-robust interval (one clan of x per game: statsmodels' cluster OLS)
    import statsmodels.api as sm
    fit = sm.OLS(w.astype(float), np.ones(G)).fit(cov_type="cluster", cov_kwds={"groups": np.arange(G)})
    assert t["win_rate"].iloc[-1] == pytest.approx(w.mean())
    assert t["half_width"].iloc[-1] == pytest.approx(stats.t.ppf(0.975, G - 1) * fit.bse[0], rel=1e-9)
    assert (np.diff(t["games"]) > 0).all() and t["half_width"].iloc[0] > t["half_width"].iloc[-1]


def test_read_errors_name_the_file(tmp_path):
    (tmp_path / "clans.parquet").write_text("not parquet at all\n")
    with pytest.raises(A.RunDataError, match="clans.parquet"):
        A.load_clans(tmp_path)
    pq.write_table(pa.table({"a": [1, 2]}), tmp_path / "picks.parquet")
    with pytest.raises(A.RunDataError, match=r"picks.parquet.*missing columns"):
        A.load_picks(tmp_path)
    with pytest.raises(A.RunDataError, match="not found"):
        A.load_clans(tmp_path / "nowhere")


def _random_run(G=3000, P=4, seed=1):
    """Synthetic clans/picks/uses of G games (one winner each, some 2-way ties)."""
    rng = np.random.default_rng(seed)
    gid = np.repeat(np.arange(G), P)
    seat = np.tile(np.arange(P), G)
    winner = rng.integers(0, P, G)
    tie = rng.random(G) < 0.1
    second = (winner + 1) % P
    share = (seat == np.repeat(winner, P)).astype(float)
    both = np.repeat(tie, P) & ((seat == np.repeat(winner, P)) | (seat == np.repeat(second, P)))
    share = np.where(np.repeat(tie, P), np.where(both, 0.5, 0.0), share)
    clans = pd.DataFrame({
        "game_id": gid, "n_players": np.int8(P), "seat": seat.astype(np.int8),
        "strategy": pd.Categorical(np.where(seat == 2, "random", "greedy")),
        "glory": rng.integers(0, 120, G * P), "win_share": share, "rank": np.where(share > 0, 1, 2),
        "rage_level": rng.integers(1, 7, G * P), "axes_level": rng.integers(1, 7, G * P),
        "horns_level": rng.integers(1, 7, G * P), "figures_at_ragnarok": rng.integers(0, 20, G * P),
        "stat_path": pd.Categorical.from_codes(rng.integers(0, 3, G * P), ["", "axes,rage", "rage,horns,axes"]),
        "gods": pd.Categorical.from_codes(rng.integers(0, 2, G * P), ["odin+thor", "tyr+loki"]),
    })
    for c in A.GLORY_COLUMNS:
        clans[c] = rng.integers(0, 20, G * P)
    k = 4
    picks = pd.DataFrame({
        "game_id": np.repeat(gid, k), "seat": np.repeat(seat, k).astype(np.int8),
        "age": rng.integers(1, 4, G * P * k).astype(np.int8), "pick": np.tile(np.arange(1, k + 1), G * P).astype(np.int8),
        "card": pd.Categorical.from_codes(rng.integers(0, 30, G * P * k), [f"c{i}" for i in range(30)]),
    })
    uses = picks.iloc[::2][["game_id", "seat", "age", "card"]].assign(card_age=lambda d: d["age"],
        use=pd.Categorical.from_codes(rng.integers(0, 4, len(picks) // 2), ["battle", "upgrade", "quest", "keep"]))
    gods = {f"c{i}": ["odin", "thor", "tyr", ""][i % 4] for i in range(30)}
    return clans, picks, uses.reset_index(drop=True), gods


def test_sums_do_not_depend_on_batching():
    """Stats of the whole equal the sum of per-batch stats, exactly, for any batch split (the
    bounded-memory path gives the same report as all rows at once)."""
    clans, picks, uses, gods = _random_run(1200)
    pts = checkpoints(1200)
    whole = Stats.from_frames(clans, picks, uses, gods, pts)
    for size in (37, 250, 1200):
        parts = Stats()
        for first in range(0, 1200, size):
            sel = lambda d, a=first, b=first + size: d[(d["game_id"] >= a) & (d["game_id"] < b)]  # noqa: E731
            parts.add(Stats.from_frames(sel(clans), sel(picks), sel(uses), gods, pts))
        assert parts.equals(whole), size
    # and the tables agree with a direct pandas computation
    t = A.by_strategy(whole).set_index("strategy")
    direct = clans.groupby("strategy", observed=True)["win_share"].agg(["size", "mean"])
    assert t.loc["greedy", "n"] == direct.loc["greedy", "size"]
    assert t.loc["greedy", "win_rate"] == pytest.approx(direct.loc["greedy", "mean"])
    c = A.cards(whole)
    assert c["times_drafted"].sum() == len(picks)
    h = A.head_to_head(whole, value="ahead")
    assert h.at["greedy", "random"] + h.at["random", "greedy"] == pytest.approx(1.0)


def test_stats_save_load_roundtrip(tmp_path):
    clans, picks, uses, gods = _random_run(500)
    st = Stats.from_frames(clans, picks, uses, gods, checkpoints(500))
    st.save(tmp_path)
    back = Stats.load(tmp_path)
    assert back.equals(st) and back.games == 500
    (tmp_path / "stats" / "draft.parquet").write_bytes(b"PAR1 garbage")
    with pytest.raises(A.RunDataError, match="draft.parquet"):
        Stats.load(tmp_path)


def test_drafted_god_pair_rule():
    """R39: the two gods with most cards among a clan's picks, ties by god order."""
    clans = _clans([(0, s, "x", 1.0 if s == 0 else 0.0, 1) for s in range(4)])
    cards = {"T1": "thor", "T2": "thor", "L1": "loki", "O1": "odin", "Y1": "tyr", "N": ""}
    picks = pd.DataFrame({"game_id": 0, "seat": [0, 0, 0, 0, 1, 1, 2, 3],
                          "age": 1, "pick": [1, 2, 3, 4, 1, 2, 1, 1],
                          "card": ["T1", "T2", "L1", "N", "O1", "Y1", "T1", "N"]})
    st = Stats.from_frames(clans, picks, card_gods=cards)
    got = dict(zip(st["drafted_gods"]["god_pair"], st["drafted_gods"]["n"]))
    # seat 0: thor 2, loki 1 -> thor+loki; seat 1: odin 1, tyr 1 -> odin+tyr; seat 2: thor; seat 3: none
    assert got == {"thor+loki": 1, "odin+tyr": 1, "thor": 1, "(none)": 1}


def test_card_uses_played_and_kept():
    clans = _clans([(g, s, "x", 1.0 if s == g % 2 else 0.0, 10 * s) for g in range(4) for s in range(2)])
    uses = pd.DataFrame({"game_id": [0, 1, 2, 3, 0, 2], "seat": [0, 1, 0, 1, 1, 0], "age": 1,
                         "card": ["A"] * 6, "use": ["battle", "battle", "upgrade", "keep", "keep", "battle"]})
    u = A.card_uses(_st(clans, uses=uses)).set_index("use")
    # played (battle or upgrade): game 0 seat 0 (won), game 1 seat 1 (won), game 2 seat 0 (won)
    assert u.loc["played", "n"] == 3 and u.loc["played", "win_rate"] == 1.0
    assert u.loc["played", "n_not"] == 5 and u.loc["played", "win_rate_not"] == pytest.approx(1 / 5)
    assert u.loc["keep", "n"] == 2 and u.loc["battle", "n"] == 3  # game 2 seat 0: two copies, two ways
    assert u.loc["played", "times"] == 4
    assert u.loc["keep", "mean_glory"] == pytest.approx(10.0)


def test_holm_is_statsmodels_holm():
    """intervals.holm (Holm's step-down adjusted p-values) equals statsmodels' multipletests(...,
    method='holm'), which it replaces for the gc.collect() statsmodels runs on every call: random
    families with ties, p-values near 1 (clipped) and the one-element and empty family."""
    from volva.analysis.intervals import holm
    rng = np.random.default_rng(14)
    fams = [rng.uniform(0, 1, m) ** rng.uniform(0.2, 3) for m in (1, 2, 7, 50, 400)]
    fams += [np.round(rng.uniform(0, 0.2, 60), 2), np.array([0.03, 0.03, 0.5, 0.03]), np.array([0.9, 0.99, 1.0])]
    for p in fams:
        ref_reject, ref = multipletests(p, alpha=0.05, method="holm")[:2]
        got = holm(p)
        assert got.shape == p.shape and np.array_equal(got, ref), p
        assert np.array_equal(got <= 0.05, ref_reject)
    assert holm([]).shape == (0,)


def test_mean_glory_interval_stays_at_or_above_zero():
    """Glory is never negative (the engines' invariants), so a mean Glory's t interval is cut at 0
    (with three clans it reached -26 in a report)."""
    c = _clans([(0, 0, "x", 1, 100), (1, 0, "x", 0, 2), (2, 0, "x", 0, 0)])
    t = A.by_strategy(_st(c)).iloc[0]
    assert t["mean_glory"] == 34 and t["glory_ci_low"] == 0 and t["glory_ci_high"] > 100
