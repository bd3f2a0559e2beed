"""Golden digests: fixed-seed runs whose sufficient statistics must not move (issue 11).

Each case plays 2,000 games through ``volva run`` and hashes the statistics tables that
existed when the digests were recorded (SHA-256 of each table as CSV, tables in name order).
A refactor or speed change must leave every digest as it is; a commit that changes game
behaviour on purpose updates the digest here and says why in its message.

History: rainbow-bridge-4p moved once (issue 11), when a Rainbow Bridge run's card uses took
the Valhalla game's age of use as ``card_age`` (before: 1 for every card); the games are the same.
All four moved once in issue 16, when the digest stopped hashing column names and cluster sums
(recorded on the code before the statistics changed, so the games are the same).
"""
from __future__ import annotations

import hashlib

import pytest
from typer.testing import CliRunner

#: the tables hashed (new tables added later do not move the digests), and in each the sums that
#: describe the games: keys and first-order sums, values only. Cluster sums (c_*) are left out: they
#: depend on how the statistics cluster the games (issue 16), not on the games.
TABLES = ("clans", "convergence", "draft", "drafted_gods", "gods", "h2h", "levels", "paths", "use")
#: sums added to a table after its digest was recorded (h2h's 'pairs' was named 'games' then)
LATER = {"h2h": ("games",), "clans": ("tied", "tied_w")}

CASES = {
    "base-4p-greedy": (["--lineup", "greedy*4"],
                       "b4ac2ac69235c7ef"),
    "base-4p-archetypes-asgard": (["--lineup", "balanced,ragnarok-diver,thor-warlord,loki-martyr",
                                   "--module", "gods-of-asgard"],
                                  # moved (was 21943bc9c2a7522c) by the pass rule (DIGEST §1.5, issue 15):
                                  # a passed clan that regains Rage no longer acts; measured alone
                                  "c9137fafa2b5c102"),
    "valhalla-4p-gods": (["--ruleset", "valhalla", "--lineup", "thor,loki,quester,warlord", "--sweep", "gods"],
                         # moved (was ee4eaf7e2e016ed4) by Protect in a tie (rulings R48: the first
                         # figures a protect upgrade covers go to the reserve in a tie too); alone
                         "a1c292b66f8c258d"),
    "rainbow-bridge-4p": (["--mode", "rainbow-bridge", "--lineup",
                           "thor-warlord:thor,balanced:loki,ragnarok-diver:quester,loki-martyr:warlord"],
                          # moved (was 9903165fd5e55500) by the pass rule alone, as above; then
                          # (was e0b5314c440b57c6) by Protect in a tie alone, as valhalla-4p-gods
                          "82e40722839518a2"),
    # recorded in issue 12 when this game's picks and uses were first filled (5e875d73dd68823d, the
    # games of 510e7ae); moved by rulings R62: a Jarl's shield_glory, draw_keep and pair_limit act by
    # R55's 'either'/'both' and conditions (they acted unconditionally), and its Glory is the Jarl's
    # moved (was 0f0a8f71b9ff9108) by the DP's New weapons tie rule alone (two grey dice of equal value
    # within 1e-12: keep the first face; rounding decided it): the old engine with that one line changed
    # gives 6fd61ed7f628714a too, so the lumped dice (issue 12, dp speed) change no game
    # Two digests, the same code: the dice game's digest differs between machines (issue 14's session
    # found 1fde3347f2d515bd on an AMD EPYC without AVX-512, glibc 2.36, numpy 2.4.6, numba 0.68.1, where
    # 6fd61ed7f628714a was recorded and passed CI before; the cause is not yet found, not libm's pow and
    # not numba's target CPU). A change to the games gives a third digest on either machine.
    "valhalla-dice-4p": (["--ruleset", "valhalla-dice", "--lineup", "greedy,raider,turtle,greedy-dp"],
                         ("6fd61ed7f628714a", "1fde3347f2d515bd")),
}


def stats_digest(run_dir) -> str:
    """SHA-256 (first 16 hex digits) of the TABLES of ``run_dir/stats`` as CSV, in name order."""
    from volva.analysis.suffstats import Stats
    st = Stats.load(run_dir)
    h = hashlib.sha256(str(st.games).encode())
    for name in TABLES:
        t = st[name]
        h.update(name.encode())
        cols = [c for c in t.columns if not c.startswith("c_") and c not in LATER.get(name, ())]
        h.update(t[cols].to_csv(index=False, header=False).encode())
    return h.hexdigest()[:16]


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_digest(case, tmp_path):
    from volva.cli import app
    args, want = CASES[case]
    res = CliRunner().invoke(app, ["run", *args, "--games", "2000", "--seed", "2024", "--batch-size", "1000",
                                   "--no-keep-rows", "--out", str(tmp_path / case)])
    assert res.exit_code == 0, res.output
    assert stats_digest(tmp_path / case) in ((want,) if isinstance(want, str) else want)
