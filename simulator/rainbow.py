"""Rainbow Bridge (rulebook 000 "Playing With Blood Rage"; DIGEST §4): a Blood Rage game, then a
Blood Rage: Valhalla game with the same clans, starting Glory 12 / 8 / 4 / 0 by the first game's
placing ("Starting Glory From Blood Rage").

:class:`RainbowBridge` looks like a rule set to the runner (its cards, gods and tables are the
Valhalla game's, whose results are the ones recorded); a seat's strategy is a pair (Blood Rage
strategy, Valhalla strategy), written ``base:valhalla`` in a lineup (one name = both games).
God missions and Reward Cards are not published; they are not modelled (docs/rulings.md R49).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np



def starting_glory(rank: np.ndarray, table=(12, 8, 4)) -> np.ndarray:
    """int8[G, P] Blood Rage ranks (1 = winner, ties share) -> int16[G, P] starting Glory: 12 for
    the winner(s), 8 for second, 4 for third, 0 for everyone else ("Starting Glory From Blood
    Rage"; tied clans share the higher placing's Glory, rulings R49)."""
    rank = np.asarray(rank)
    out = np.zeros(rank.shape, np.int16)
    for place, g in enumerate(table, start=1):
        out[rank == place] = g
    return out


@dataclass
class RainbowBridge:
    """Both rule sets of a Rainbow Bridge game (``base``: Blood Rage, ``valhalla``)."""
    base: object
    valhalla: object
    name: str = "rainbow-bridge"
    engine: str = "rainbow-bridge"
    draft_note: str | None = None
    options: dict = field(default_factory=dict)

    def __getattr__(self, k):  # cards, gods, tables, sha...: the recorded (Valhalla) game's
        if k in ("base", "valhalla"):
            raise AttributeError(k)
        return getattr(self.valhalla, k)

    def check_players(self, players: int) -> None:
        self.base.check_players(players)
        self.valhalla.check_players(players)

    def with_sweep(self, sweep):
        return replace(self, valhalla=self.valhalla.with_sweep(sweep))

    def play_batch(self, lineup, seeds, check=False, game_ids=None, period=1):
        """lineup: [((kind, params) Blood Rage, (kind, params) Valhalla)] per seat. The Blood Rage
        game uses the game seed, the Valhalla game a seed derived from it."""
        from .api import play_batch
        from .valhalla.api import god_plan_for, play_batch as vh_play_batch
        seeds = np.asarray(seeds, np.uint64)
        b = play_batch(self.base, [x[0] for x in lineup], seeds, check)
        start = starting_glory(b.rank)
        with np.errstate(over="ignore"):
            vseeds = seeds * np.uint64(0x9E3779B97F4A7C15) + np.uint64(0x632BE59BD9B4E019)
        plan = None if game_ids is None else god_plan_for(self.valhalla, game_ids, period)
        out = vh_play_batch(self.valhalla, [x[1] for x in lineup], vseeds, check, god_plan=plan, start=start)
        if check:
            out.violation[:] = np.where(b.violation != 0, b.violation, out.violation)
        return out


def resolve_pair(name: str):
    """'base:valhalla' (or one name for both games) -> ((kind, params), (kind, params)).
    Raises ValueError naming the game whose strategy is unknown."""
    from strategies.builtin import resolve as base_resolve
    from strategies.valhalla import resolve as vh_resolve
    a, sep, b = name.partition(":")
    a, b = a.strip(), (b.strip() if sep else a.strip())
    try:
        pa = base_resolve(a)
    except ValueError as exc:
        raise ValueError(f"rainbow-bridge lineup item {name!r}: Blood Rage strategy: {exc}") from None
    try:
        pb = vh_resolve(b)
    except ValueError as exc:
        raise ValueError(f"rainbow-bridge lineup item {name!r}: Valhalla strategy: {exc}; "
                         "write BASE:VALHALLA, e.g. thor-warlord:thor") from None
    return pa, pb


def replay_text(rs: RainbowBridge, lineup_names, lineup, master_seed: int, game_id: int = 0,
                rotate: bool = True) -> str:
    """Both logs of Rainbow Bridge game ``game_id``: the Blood Rage game, then the Valhalla game
    with the starting Glory its placing gives."""
    from .api import game_plan, play_game, rotated, rotation_period
    from .replay import replay_text as base_text
    from .valhalla.api import god_plan_for, play_game as vh_play_game
    from .valhalla.replay import game_text
    P = len(lineup)
    period = rotation_period(list(lineup_names))
    (r, _, seeds), = game_plan(master_seed, np.array([game_id]), P, rotate, period)
    seat = rotated(lineup, r)
    S0 = play_game(rs.base, [x[0] for x in seat], int(seeds[0]), log=False)
    start = starting_glory(np.asarray(S0.rank[:P])[None, :])[0]
    with np.errstate(over="ignore"):
        vseed = int(seeds[0] * np.uint64(0x9E3779B97F4A7C15) + np.uint64(0x632BE59BD9B4E019))
    plan = god_plan_for(rs.valhalla, np.array([game_id]), period if rotate else 1)
    S1 = vh_play_game(rs.valhalla, [x[1] for x in seat], vseed, log=True,
                      god_plan=None if plan is None else plan[0], start=start)
    names = [f"P{i} ({n})" for i, n in enumerate(rotated(lineup_names, r))]
    first = base_text(rs.base, list(lineup_names), [x[0] for x in lineup], master_seed, game_id, rotate)
    return (f"Rainbow Bridge, game {game_id}: Blood Rage first\n{first}\n\n"
            + game_text(rs.valhalla, S1, names, f"Rainbow Bridge, then Blood Rage: Valhalla (game seed {vseed})"))
