"""analysis.pairsums: card_sums (a compiled loop over the cells) and paired_sums, from frames and
straight from the engine's arrays, against the frame versions they replaced (pandas merges and
groupbys, kept here as the references): the same table, row for row,
on engine games of card patches (a value changed, a card removed, a card added; Blood Rage with 2, 4
and 5 players, Blood Rage: Valhalla) and on the synthetic arms of tests/test_intervals.py."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from volva.analysis.pairsums import (
    ALL,
    CARD_KEYS,
    CARD_SUMS,
    CELL_Q,
    HOLDER_SUMS,
    PAIR_KEYS,
    PAIR_SUMS,
    STRATEGY_Q,
    STRATEGY_TOTALS,
    VALUE_CROSS,
    VARS,
    WIN_UNIT,
    blocks,
    card_sums,
)


def _block_moments(df: pd.DataFrame, keys: list[str], value_cols: dict[str, str]) -> pd.DataFrame:
    """Per group of ``keys``: n, and for each value column v (name -> prefix p): the row sums p, p2
    and, over the rows' blocks ('block'), c_G, c_nn, c_<p><p>, c_<p>n (pandas groupbys: the reference)."""
    cols = list(value_cols)
    x = df[[*keys, "block", *cols]].copy()
    x["n"] = 1
    for c in cols:
        x[f"{c}2"] = x[c] * x[c]
    per_block = x.groupby([*keys, "block"], sort=True)[["n", *cols, *[f"{c}2" for c in cols]]].sum()
    nb = per_block["n"].to_numpy(np.int64)
    out = pd.DataFrame(index=per_block.index)
    out["n"], out["c_G"], out["c_nn"] = nb, 1, nb * nb
    for c, p in value_cols.items():
        v = per_block[c].to_numpy(np.int64)
        out[p], out[f"{p}2"] = v, per_block[f"{c}2"].to_numpy(np.int64)
        out[f"c_{p}{p}"], out[f"c_{p}n"] = v * v, v * nb
    return out.groupby(level=list(range(len(keys))), sort=True).sum().reset_index()


def reference_paired_sums(a: pd.DataFrame, b: pd.DataFrame, holder: np.ndarray | None = None) -> pd.DataFrame:
    """analysis.pairsums.paired_sums by pandas groupbys (the version it replaced)."""
    wa = np.rint(a["win_share"].to_numpy(float) * WIN_UNIT).astype(np.int64)
    wb = np.rint(b["win_share"].to_numpy(float) * WIN_UNIT).astype(np.int64)
    ga, gb = a["glory"].to_numpy(np.int64), b["glory"].to_numpy(np.int64)
    h = np.zeros(len(a), np.int64) if holder is None else np.asarray(holder, np.int64)
    x = pd.DataFrame({"strategy": a["strategy"].astype(str).to_numpy(object), "holder": h, "block": blocks(a),
                      "dv": wb - wa, "gv": gb - ga})
    parts = []
    for s_all in (False, True):
        for h_all in (False, True):
            y = x.assign(**({"strategy": ALL} if s_all else {}), **({"holder": -1} if h_all else {}))
            parts.append(_block_moments(y, PAIR_KEYS, {"dv": "d", "gv": "gd"}))
    out = pd.concat(parts, ignore_index=True).rename(columns={"c_dd": "c_dd", "c_gdgd": "c_gg", "c_gdn": "c_gn"})
    return out[PAIR_KEYS + PAIR_SUMS].sort_values(PAIR_KEYS).reset_index(drop=True)


def reference_holders(fr_a, card: str, ages: list[int] | None, one_clan: bool = False) -> np.ndarray:
    """analysis.pairsums.holders on frames (the version it replaced): bool per clan row of arm A,
    the clan drafted ``card`` (in ``ages``, default any) or holds it as the value of one of the
    engine's seat groups; with ``one_clan``, only the clan the draft rule binds (seat seed % P)."""
    from volva.analysis.records import GROUP_PREFIX
    from volva.analysis.suffstats import _row_index
    pk = fr_a.picks
    h = np.zeros(len(fr_a.clans), bool)
    if len(pk):
        m = (pk["card"].astype(str) == card).to_numpy().copy()
        if ages:
            m &= np.isin(pk["age"].to_numpy(), ages)
        found, rows = _row_index(fr_a.clans, pk["game_id"].to_numpy()[m], pk["seat"].to_numpy()[m])
        h[rows] = True
    for col in [c for c in fr_a.clans.columns if str(c).startswith(GROUP_PREFIX)]:
        h |= (fr_a.clans[col].astype(str) == card).to_numpy()
    if one_clan:
        c = fr_a.clans
        h &= (c["seed"].to_numpy(np.uint64) % c["n_players"].to_numpy(np.uint64)) == c["seat"].to_numpy(np.uint64)
    return h


def reference_drafters(frame, block: np.ndarray) -> pd.DataFrame:
    """One row per clan and (age, card) it drafted: row index into the clans, age, card."""
    from volva.analysis.suffstats import _row_index
    pk = frame.picks
    found, rows = _row_index(frame.clans, pk["game_id"].to_numpy(), pk["seat"].to_numpy())
    d = pd.DataFrame({"row": rows, "age": pk["age"].to_numpy(np.int64)[found],
                      "card": pk["card"].astype(str).to_numpy(object)[found]})
    return d.drop_duplicates().reset_index(drop=True)



def reference_card_sums(fa, fb) -> pd.DataFrame:
    """Per (strategy, age, card) of one batch of both arms (frames with ``clans`` and ``picks``,
    rows paired as in :func:`paired_sums`): CARD_SUMS (module doc). Integer sums (wins x60), so
    they add exactly over batches."""
    a, b = fa.clans, fb.clans
    blk = blocks(a)
    strat = a["strategy"].astype(str).to_numpy(object)
    wa = np.rint(a["win_share"].to_numpy(float) * WIN_UNIT).astype(np.int64)
    wb = np.rint(b["win_share"].to_numpy(float) * WIN_UNIT).astype(np.int64)
    da, db = reference_drafters(fa, blk), reference_drafters(fb, blk)
    # holder effect: the variant's drafters, paired with themselves in the baseline
    # and the clans that drafted it in both arms (the same holder, the card's value changed)
    both = db.merge(da, on=["row", "age", "card"])
    hs = None
    for pre, d in (("h_", db), ("k_", both)):
        x = d.assign(strategy=strat[d["row"]], block=blk[d["row"]], dv=(wb - wa)[d["row"]])
        x = _block_moments(x, CARD_KEYS, {"dv": "d"}).rename(columns={c: pre + c for c in HOLDER_SUMS})
        hs = x if hs is None else hs.merge(x, on=CARD_KEYS, how="outer")
    # cross moments of the variant holders with their strategy's totals per block (value change
    # relative to the strategy's non-holders: card_value)
    dT = pd.DataFrame({"strategy": strat, "block": blk, "D": wb - wa, "T": 1}).groupby(["strategy", "block"]).sum()
    hb = db.assign(strategy=strat[db["row"]], block=blk[db["row"]], dv=(wb - wa)[db["row"]], nv=1) \
        .groupby([*CARD_KEYS, "block"], sort=True)[["dv", "nv"]].sum().reset_index() \
        .merge(dT.reset_index(), on=["strategy", "block"], how="left")
    hb["x_dD"], hb["x_dT"] = hb["dv"] * hb["D"], hb["dv"] * hb["T"]
    hb["x_nD"], hb["x_nT"] = hb["nv"] * hb["D"], hb["nv"] * hb["T"]
    hs = hs.merge(hb.groupby(CARD_KEYS, sort=True)[VALUE_CROSS].sum().reset_index(), on=CARD_KEYS, how="outer")
    # per (cell, block): drafters and their wins in each arm
    cells = []
    for arm, d, w in (("A", da, wa), ("B", db, wb)):
        x = d.assign(strategy=strat[d["row"]], block=blk[d["row"]], wd=w[d["row"]], nd=1)
        cells.append(x.groupby([*CARD_KEYS, "block"], sort=True)[["wd", "nd"]].sum()
                     .rename(columns={"wd": f"wd{arm}", "nd": f"nd{arm}"}))
    c = cells[0].join(cells[1], how="outer").fillna(0).astype(np.int64).reset_index()
    tot = pd.DataFrame({"strategy": strat, "block": blk, "WA": wa, "WB": wb, "T": 1}) \
        .groupby(["strategy", "block"], sort=True).sum()
    c = c.merge(tot.reset_index(), on=["strategy", "block"], how="left")
    v = {k: c[k].to_numpy(np.int64) for k in VARS}
    for q in CELL_Q:
        x, y = q[2:].split("_")
        c[q] = v[x] * v[y]
    cs = c.groupby(CARD_KEYS, sort=True)[CELL_Q].sum().reset_index()
    t = tot.reset_index()
    for q in STRATEGY_Q:
        x, y = q[2:].split("_")
        t[q] = t[x] * t[y]
    t["c_G"], t["s_D"], t["s_T"] = 1, t["WB"] - t["WA"], t["T"]
    ss = t.groupby("strategy", sort=True)[["c_G", *STRATEGY_Q, *STRATEGY_TOTALS]].sum().reset_index() \
        .assign(age=0, card=ALL)
    out = pd.concat([cs.merge(hs, on=CARD_KEYS, how="outer"), ss], ignore_index=True)
    for k in CARD_SUMS:
        out[k] = out[k].fillna(0).astype(np.int64) if k in out else np.zeros(len(out), np.int64)
    return out[CARD_KEYS + CARD_SUMS].sort_values(CARD_KEYS).reset_index(drop=True)


def _engine_arms(ruleset: str, players: int, lineup: str | None, patch: dict, games: int):
    from volva.analysis import runner, session
    rs_a, names, pols = session.setup(players, lineup, None, ruleset)
    rs_b, _, _ = session.setup(players, lineup, None, ruleset, [("patch", patch)])
    pts = runner.checkpoints(games)
    return [runner.reduce_batch_outs(runner.play_batch_outs(rs, names, pols, 7, 0, games, True), rs, pts)
            for rs in (rs_a, rs_b)]


SMITE = {"Tyr's Smite": {"value": 4}}


@pytest.mark.parametrize("ruleset,players,lineup,patch", [
    ("blood-rage", 4, "greedy,greedy,greedy,greedy", SMITE),
    ("blood-rage", 4, "greedy,random,greedy,random", SMITE),
    ("blood-rage", 2, "greedy,random", {"Troll": {"remove": True}}),  # a card only arm A deals
    ("blood-rage", 5, None, {"Fenrir's Bite": {"add": True, "age": 2, "type": "battle", "value": 3,  # only arm B
                                               "copies_min1": 4}}),
    ("valhalla", 4, None, {"Mjolnir's Fall": {"value": 9}}),
])
def test_card_sums_equal_the_frame_version_on_engine_games(ruleset, players, lineup, patch):
    fa, fb = _engine_arms(ruleset, players, lineup, patch, 240)
    got, ref = card_sums(fa, fb), reference_card_sums(fa, fb)
    assert len(got) > 50 and (got["h_n"] > 0).any() and (got["k_n"] < got["h_n"]).any()
    pd.testing.assert_frame_equal(got, ref, check_exact=True)


def test_card_sums_equal_the_frame_version_on_synthetic_arms():
    from tests.test_intervals import paired_games
    for per_replicate in (None, 40):
        fa, fb = paired_games(120, np.random.default_rng(5), per_replicate=per_replicate)
        pd.testing.assert_frame_equal(card_sums(fa, fb), reference_card_sums(fa, fb), check_exact=True)


@pytest.mark.parametrize("ruleset,players,lineup,patch", [
    ("blood-rage", 4, "greedy,random,greedy,random", SMITE),
    ("valhalla", 4, None, {"Mjolnir's Fall": {"value": 9}}),
])
def test_paired_sums_equal_the_frame_version_on_engine_games(ruleset, players, lineup, patch):
    """analysis.pairsums.paired_sums (bincounts over (group, block) codes) equals the pandas version,
    without and with a holder column."""
    from volva.analysis.pairsums import paired_sums
    fa, fb = _engine_arms(ruleset, players, lineup, patch, 240)
    card = str(fa.picks["card"].iloc[0])
    for h in (None, reference_holders(fa, card, None)):
        got, ref = paired_sums(fa.clans, fb.clans, h), reference_paired_sums(fa.clans, fb.clans, h)
        assert (got["holder"] == 1).any() == (h is not None) and (got["n"] > 0).all()
        pd.testing.assert_frame_equal(got, ref, check_exact=True)


def test_paired_sums_equal_the_frame_version_on_synthetic_arms():
    from tests.test_intervals import paired_games
    from volva.analysis.pairsums import paired_sums
    for per_replicate in (None, 40):
        fa, fb = paired_games(120, np.random.default_rng(6), per_replicate=per_replicate)
        h = np.random.default_rng(7).random(len(fa.clans)) < 0.3
        pd.testing.assert_frame_equal(paired_sums(fa.clans, fb.clans, h), reference_paired_sums(fa.clans, fb.clans, h),
                                      check_exact=True)


@pytest.mark.parametrize("ruleset,players,lineup,patch,card,ages,one_clan", [
    ("blood-rage", 4, "greedy,random,greedy,random", SMITE, None, None, False),
    ("blood-rage", 5, None, {"Fenrir's Bite": {"add": True, "age": 2, "type": "battle", "value": 3,
                                               "copies_min1": 4}}, None, None, False),
    ("blood-rage", 3, None, SMITE, "Tyr's Smite", [2, 3], False),
    ("blood-rage", 4, None, SMITE, "Troll", None, True),
    ("valhalla", 4, None, {"Mjolnir's Fall": {"value": 9}}, None, None, False),
    ("valhalla-dice", 4, None, None, "jarl", None, False),  # a Jarl: a seat group's value
])
def test_batch_sums_from_engine_arrays_equal_the_frame_versions(ruleset, players, lineup, patch, card, ages,
                                                                one_clan):
    """analysis.pairsums.paired_batch_sums (what compare and ablate keep of a batch, with no row
    frames) equals paired_sums and card_sums of the same batch's frames, holders included."""
    from volva.analysis import runner, session
    from volva.analysis.pairsums import paired_batch_sums, paired_sums
    rs_a, names, pols = session.setup(players, lineup, None, ruleset)
    rs_b = session.setup(players, lineup, None, ruleset, [("patch", patch)] if patch else None)[0]
    outs = [runner.play_batch_outs(rs, names, pols, 11, 0, 120, True) for rs in (rs_a, rs_b)]
    fa, fb = (runner.reduce_batch_outs(o, rs, None, plays=False) for o, rs in zip(outs, (rs_a, rs_b)))
    if card == "jarl":
        card = next(iter(rs_a.group_names.values()))[0]
    sums, cards = paired_batch_sums(outs[0], rs_a, outs[1], rs_b, card, ages, one_clan)
    h = reference_holders(fa, card, ages, one_clan) if card is not None else None
    if h is not None:
        assert 0 < h.sum() < len(h)
    pd.testing.assert_frame_equal(sums, paired_sums(fa.clans, fb.clans, h), check_exact=True)
    if card is None:
        assert len(cards) > 20
        pd.testing.assert_frame_equal(cards, card_sums(fa, fb), check_exact=True)
    else:
        assert cards is None
