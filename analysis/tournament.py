"""Round-robin tournaments between strategies: every combination of P distinct strategies.

``run_tournament`` plays, for each combination (``itertools.combinations`` of the names, in
the order given), ``games`` games with seat rotation on shared seeds
(:func:`simulator.core.batch.game_plan`): game ``g`` of a combination plays rotation ``g mod P`` on
seed index ``g div P``, so each strategy of the combination sits in every seat equally often
on the same seeds.  ``games`` is rounded up to a multiple of P.  Every combination uses the
same master seed, so combinations are also paired with each other (common random numbers).

The result is one table of the clans' results, columns :data:`TOURNAMENT_COLUMNS`: ``match``,
the combination index, ``lineup``, the combination as ``"a,b,c"``, and the outcome columns of
:data:`analysis.records.CLANS_COLUMNS` (:func:`analysis.records.outcome_columns`: no stat path,
gods or Glory by source, which no tournament table reads: a tenth of the memory per game);
``game_id`` is unique over the whole tournament (``match * games + g``).

``ranking`` gives each strategy's win rate over all games it played (sum of ``win_share``,
so tied winners share the win) with its 95% interval, its mean Glory and games;
``pairs``/``head_to_head`` give the row strategy's win rate in the games where both the row
and the column strategy played. The intervals are cluster-robust over the seed
(:func:`analysis.aggregate.rate_from_rows`): the rotations of a deal, and the combinations that
replay it, are not independent games.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pandas as pd

from .intervals import rate_from_rows

#: games per kernel call (a multiple of every player count 2..5)
BATCH = 6_000

TOURNAMENT_COLUMNS = ["match", "lineup", "game_id", "seed", "n_players", "seat", "strategy", "glory", "rank",
                      "win_share"]
RANKING_COLUMNS = ["strategy", "games", "win_shares", "win_rate", "se", "ci_low", "ci_high", "mean_glory", "expected"]


def round_games(games: int, players: int) -> int:
    """``games`` rounded up to a multiple of ``players`` (each rotation plays as often)."""
    return -(-int(games) // players) * players


def combinations(names: list[str], players: int) -> list[tuple[str, ...]]:
    """Every combination of ``players`` distinct strategies. Raises ValueError if there are
    fewer strategies than players or a name is repeated."""
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"strategy named more than once: {', '.join(dup)}")
    if len(names) < players:
        raise ValueError(f"{len(names)} strateg{'y' if len(names) == 1 else 'ies'} for {players} players; allowed: "
                         f"at least {players} distinct strategies")
    return list(itertools.combinations(names, players))


def run_tournament(ruleset, names: list[str], players: int, games: int, seed: int,
                   policies: list | None = None,
                   progress: Callable[[int], None] | None = None, look: int | None = None,
                   decide: Callable[[int, pd.DataFrame], bool] | None = None, batches=None) -> pd.DataFrame:
    """Play the tournament and return its clans table (one row per clan per game).

    Args: ``ruleset`` from :func:`simulator.engines.load_ruleset`; ``names`` the strategies
    (anything :func:`strategies.builtin.resolve` accepts); ``players`` 2..5; ``games`` per
    combination (rounded up to a multiple of ``players``); ``seed`` the master seed.
    ``policies`` (optional) the resolved ``(kind, params)`` per name; ``progress`` is called
    with the number of games just played.  Raises ValueError for a bad player count, fewer
    strategies than players, or an unknown strategy.

    The games are played in rounds of ``look`` games per combination (default: all at once), every
    combination in each round; ``decide(games per combination so far, clans so far)`` is called
    after each round and ends the tournament early when it returns True (--until-decided). The
    games of a combination do not depend on the rounds (game g always plays the same seed).
    ``batches`` (:mod:`analysis.cluster`; default: this process) plays the batches
    (:func:`match_batch`), here or on a cluster.
    """
    import contextlib

    from volva.simulator import engines
    from volva.strategies.builtin import resolve

    from .cluster import Batches
    lo, hi = engines.get(ruleset).players  # the engine's own range (the dice game: 2..6)
    if not lo <= players <= hi:
        raise ValueError(f"players: {players}; allowed: {lo}..{hi}")
    if games < 1:
        raise ValueError(f"games: {games}; allowed: 1 or more")
    combos = combinations(list(names), players)
    pol = dict(zip(names, policies)) if policies is not None else {n: resolve(n) for n in names}
    n_games = round_games(games, players)
    step = n_games if look is None else max(round_games(look, players), players)
    parts = []
    for start in range(0, n_games, step):
        end = min(start + step, n_games)
        tasks = [(list(combo), [pol[n] for n in combo], m, first, min(first + BATCH, end))
                 for m, combo in enumerate(combos) for first in range(start, end, BATCH)]
        with contextlib.closing((batches or Batches()).map(match_batch, (ruleset, seed, n_games), tasks)) as res:
            for t, df in zip(tasks, res):
                parts.append(df)
                if progress is not None:
                    progress(t[4] - t[3])
        if decide is not None and decide(end, _frame(parts)):
            break
    return _frame(parts)


def match_batch(ruleset, seed: int, n_games: int, lineup: list[str], pols: list, m: int, first: int,
                end: int) -> pd.DataFrame:
    """Games first..end-1 of combination ``m`` (``lineup``, its policies ``pols``): their clans'
    results (TOURNAMENT_COLUMNS); game ids are ``m * n_games + g``. One task of a tournament."""
    from volva.simulator import engines

    from . import records as R
    parts = []
    ids = np.arange(first, end, dtype=np.int64)
    for r, gids, seeds in engines.game_plan(seed, ids, len(lineup), True):
        batch = engines.play_batch(ruleset, engines.rotated(pols, r), seeds)
        o = R.outcome_columns(batch, gids + m * n_games, seeds, engines.rotated(lineup, r))
        n = len(o["game_id"])
        parts.append(pd.DataFrame({"match": np.full(n, m, np.int32), "lineup": ",".join(lineup), **o}))
    return pd.concat(parts, ignore_index=True)


def _frame(parts: list[pd.DataFrame]) -> pd.DataFrame:
    clans = pd.concat(parts, ignore_index=True)
    for c in ("strategy", "lineup"):
        clans[c] = clans[c].astype(str)
    return clans.sort_values(["game_id", "seat"], kind="stable").reset_index(drop=True)


def pair_streams(clans: pd.DataFrame) -> dict[str, tuple[int, float, float]]:
    """Sequential streams of a tournament: for each pair ``a − b`` (a before b in sorted order),
    over the games where both played, (n, Σd, Σd²) of d = a's win share − b's."""
    w = clans.pivot_table(index="game_id", columns="strategy", values="win_share", aggfunc="sum", observed=True)
    names = sorted(w.columns)
    out = {}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            d = (w[a] - w[b]).dropna().to_numpy(float)
            out[f"{a} − {b}"] = (len(d), float(d.sum()), float((d * d).sum()))
    return out


def leader_decided(clans: pd.DataFrame):
    """``stop_when`` for a tournament's Monitor: the current leader (best win rate so far) is
    decided better than every other strategy (each pair with it: 'effect', the leader ahead), or
    every pair is decided (effect, no effect or precise)."""
    leader = ranking(clans)["strategy"].iloc[0]

    def stop(streams) -> bool:
        mine = [s for k, s in streams.items() if leader in k.split(" − ")]
        ahead = bool(mine) and all(s.decision == "effect" and
                                   (s.mean > 0) == (s.name.split(" − ")[0] == leader) for s in mine)
        live = [s for s in streams.values() if s.decision != "fixed"]
        return ahead or (bool(live) and all(s.decision != "undecided" for s in live))
    return stop


def ranking(clans: pd.DataFrame) -> pd.DataFrame:
    """One row per strategy, best win rate first: columns ``RANKING_COLUMNS``.

    ``games`` = games the strategy played, ``win_shares`` = sum of its ``win_share``, ``win_rate`` =
    win_shares / games with its standard error ``se`` and 95% interval (``ci_low``, ``ci_high``),
    cluster-robust over the seed (every combination replays the same deals), ``mean_glory``, and
    ``expected`` = the no-skill rate (mean of 1 / n_players).
    """
    df = clans.assign(strategy=clans["strategy"].astype(str),
                      inv_p=1.0 / clans["n_players"].astype(float))
    g = df.groupby("strategy", sort=True)
    out = g.agg(games=("win_share", "size"), win_shares=("win_share", "sum"), mean_glory=("glory", "mean"),
                expected=("inv_p", "mean")).reset_index()
    r = rate_from_rows(df, ["strategy"])
    out["win_rate"] = out["win_shares"] / out["games"]
    out["se"], out["ci_low"], out["ci_high"] = r["se"].to_numpy(), r["ci_low"].to_numpy(), r["ci_high"].to_numpy()
    out = out.sort_values(["win_rate", "strategy"], ascending=[False, True], kind="stable")
    return out[RANKING_COLUMNS].reset_index(drop=True)


def pairs(clans: pd.DataFrame) -> pd.DataFrame:
    """Long head-to-head table: one row per ordered pair (strategy, opponent) that met.

    Columns strategy, opponent, games (games where both played), wins (strategy's
    win_share in them), win_rate, se, ci_low, ci_high (95%, cluster-robust over the seed).
    """
    m = _seat_pairs(clans)
    # a strategy appears at most once per game in a tournament; count games, not rows
    g = m.groupby(["strategy", "opponent"], sort=True, observed=True)
    out = g.agg(games=("game_id", "nunique"), wins=("win_share", "sum")).reset_index()
    r = rate_from_rows(m, ["strategy", "opponent"])
    for c in ("strategy", "opponent"):  # names, as the clans table has them
        out[c] = out[c].astype(str)
    out["win_rate"] = out["wins"] / out["games"]
    for c in ("se", "ci_low", "ci_high"):
        out[c] = r[c].to_numpy()
    return out


def _seat_pairs(clans: pd.DataFrame) -> pd.DataFrame:
    """One row per game and ordered pair of its seats with different strategies, in (game_id, seat,
    other seat) order: game_id, seed, strategy, win_share (the first seat's) and opponent (both
    categorical on the sorted names). A self-merge on game_id without the merge's copies and
    strings (every game of a tournament has the same seats). Raises ValueError if the games do not."""
    df = clans.sort_values(["game_id", "seat"], kind="stable")
    gid = df["game_id"].to_numpy(np.int64)
    counts = np.unique(gid, return_counts=True)[1]
    P = int(counts[0]) if len(counts) else 1
    if (counts != P).any():
        raise ValueError("pairs: every game needs the same number of clans")
    strat = df["strategy"].astype(str).to_numpy(object)
    names = np.array(sorted(set(strat)), dtype=object)
    code = np.searchsorted(names, strat).reshape(-1, P)
    s, t = np.nonzero(~np.eye(P, dtype=bool))  # seat pairs, the first seat then the other
    a, b = code[:, s].ravel(), code[:, t].ravel()
    keep = a != b
    cat = pd.CategoricalDtype(pd.Index(names, dtype=object))
    return pd.DataFrame({"game_id": gid.reshape(-1, P)[:, s].ravel()[keep],
                         "seed": df["seed"].to_numpy().reshape(-1, P)[:, s].ravel()[keep],
                         "strategy": pd.Categorical.from_codes(a[keep], dtype=cat),
                         "win_share": df["win_share"].to_numpy(float).reshape(-1, P)[:, s].ravel()[keep],
                         "opponent": pd.Categorical.from_codes(b[keep], dtype=cat)})


def head_to_head(clans: pd.DataFrame, order: list[str] | None = None) -> pd.DataFrame:
    """Matrix of the row strategy's win rate in the games where both row and column played.

    Index and columns are the strategies (``order``, default the ranking order); NaN on the
    diagonal and where two strategies never met.  With 2 players, ``M[a, b] + M[b, a] == 1``
    (tied winners share the win).
    """
    if order is None:
        order = list(ranking(clans)["strategy"])
    p = pairs(clans)
    mat = p.pivot(index="strategy", columns="opponent", values="win_rate")
    mat = mat.reindex(index=order, columns=order).astype(float)
    for s in order:
        mat.loc[s, s] = np.nan
    mat.index.name, mat.columns.name = "strategy", None
    return mat
