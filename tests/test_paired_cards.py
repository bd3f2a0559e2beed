"""analysis.paired.card_sums (integer codes summed by counting) against the frame version it
replaced (pandas merges and groupbys, kept here as the reference): the same table, row for row,
on engine games of card patches (a value changed, a card removed, a card added; Blood Rage with 2, 4
and 5 players, Blood Rage: Valhalla) and on the synthetic arms of tests/test_intervals.py."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from volva.analysis.paired import (
    ALL,
    CARD_KEYS,
    CARD_SUMS,
    CELL_Q,
    HOLDER_SUMS,
    STRATEGY_Q,
    STRATEGY_TOTALS,
    VALUE_CROSS,
    VARS,
    WIN_UNIT,
    _block_moments,
    blocks,
    card_sums,
)


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
