"""Rainbow Bridge (rulebook 000 "Playing With Blood Rage"; DIGEST §4): a Blood Rage game, then a
Blood Rage: Valhalla game with the same clans, starting Glory 12 / 8 / 4 / 0 by the first game's
placing ("Starting Glory From Blood Rage").

:class:`RainbowBridge` looks like a rule set to the runner (its cards, gods and tables are the
Valhalla game's, whose results are the ones recorded); a seat's strategy is a pair (Blood Rage
strategy, Valhalla strategy), written ``base:valhalla`` in a lineup (one name = both games).
God missions and Reward Cards are not published: they are provisional data
(simulator/data/valhalla/missions.toml; docs/rulings.md R51), off with ``--option rb_missions=false``.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .core import enums as E


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

    def plan(self, seeds, game_ids=None, period: int = 1):
        """(Valhalla seeds uint64[G], god plans int8[G, 4]) of Rainbow Bridge games: the Valhalla
        gods are known before the Blood Rage game (their missions are played in it), drawn from
        the game seed, or the sweep's (valhalla.sweep.god_plan_for)."""
        from .valhalla.sweep import god_plan_for, sweep_combos
        seeds = np.asarray(seeds, np.uint64)
        with np.errstate(over="ignore"):
            vseeds = seeds * np.uint64(0x9E3779B97F4A7C15) + np.uint64(0x632BE59BD9B4E019)
        plan = None if game_ids is None else god_plan_for(self.valhalla, game_ids, period)
        if plan is None:
            combos = np.array(sweep_combos(self.valhalla, "gods"), np.int8)
            plan = combos[((vseeds >> np.uint64(17)) % np.uint64(len(combos))).astype(np.int64)]
        return vseeds, plan

    def missions(self):
        """(favour, {god: (condition, threshold, Glory, reward card)}), or None when off."""
        if not self.valhalla.options.get("rb_missions", True):
            return None
        if "_missions" not in self.__dict__:
            from .valhalla.rules import load_missions
            self.__dict__["_missions"] = load_missions(self.valhalla)
        return self.__dict__["_missions"]

    def base_for(self, gods):
        """The Blood Rage rule set playing the missions of ``gods`` (sorted god indices)."""
        ms = self.missions()
        if ms is None:
            return self.base
        cache = self.__dict__.setdefault("_base_cache", {})
        key = tuple(gods)
        if key not in cache:
            cache[key] = self.base.with_missions([ms[1][g][:3] for g in key if g in ms[1]],
                                                 [self.valhalla.god_names[g] for g in key if g in ms[1]])
        return cache[key]

    def rewards(self, gods, missions: np.ndarray) -> np.ndarray:
        """int16[P, 3] Reward Cards earned: mission k (of sorted ``gods``) met in >= favour ages."""
        out = np.full((missions.shape[0], E.MAX_MISSIONS), -1, np.int16)
        ms = self.missions()
        if ms is None:
            return out
        favour, table = ms
        k = 0
        for g in gods:
            if g in table:
                out[missions[:, k] >= favour, k] = table[g][3]
                k += 1
        return out

    def play_batch(self, lineup, seeds, check=False, game_ids=None, period=1):
        """lineup: [((kind, params) Blood Rage, (kind, params) Valhalla)] per seat. Each game: the
        Blood Rage game (with the missions of its Valhalla gods), then the Valhalla game with the
        starting Glory of the Blood Rage placing and the Reward Cards won."""
        from .bloodrage import play_batch
        from .valhalla import play_batch as vh_play_batch
        seeds = np.asarray(seeds, np.uint64)
        G, P = len(seeds), len(lineup)
        vseeds, plan = self.plan(seeds, game_ids, period)
        sets = np.sort(plan[:, :3].astype(np.int64), axis=1)
        key = (sets[:, 0] * 16 + sets[:, 1]) * 16 + sets[:, 2]
        rank = np.zeros((G, P), np.int8)
        viol = np.zeros(G, np.int8)
        rewards = np.full((G, P, E.MAX_MISSIONS), -1, np.int16)
        for k in np.unique(key):
            idx = np.flatnonzero(key == k)
            gods = tuple(int(x) for x in sets[idx[0]])
            b = play_batch(self.base_for(gods), [x[0] for x in lineup], seeds[idx], check)
            rank[idx], viol[idx] = b.rank, b.violation
            for j, g in enumerate(idx):
                rewards[g] = self.rewards(gods, b.missions[j])
        out = vh_play_batch(self.valhalla, [x[1] for x in lineup], vseeds, check, god_plan=plan,
                            start=starting_glory(rank), rewards=rewards)
        if check:
            out.violation[:] = np.where(viol != 0, viol, out.violation)
        return out


def replay_text(rs: RainbowBridge, lineup_names, lineup, master_seed: int, game_id: int = 0,
                rotate: bool = True) -> str:
    """Both logs of Rainbow Bridge game ``game_id``: the Blood Rage game (with its god missions),
    then the Valhalla game with the starting Glory and Reward Cards it gives."""
    from .bloodrage import play_game
    from .bloodrage.replay import format_event
    from .core.batch import game_plan, rotated, rotation_period
    from .core.record import G_LOG_N
    from .valhalla import play_game as vh_play_game
    from .valhalla.replay import game_text
    P = len(lineup)
    period = rotation_period(list(lineup_names))
    (r, _, seeds), = game_plan(master_seed, np.array([game_id]), P, rotate, period)
    seat = rotated(lineup, r)
    vseeds, plan = rs.plan(seeds, np.array([game_id]) if rs.valhalla.sweep else None, period if rotate else 1)
    gods = tuple(int(x) for x in np.sort(plan[0, :3]))
    base = rs.base_for(gods)
    S0 = play_game(base, [x[0] for x in seat], int(seeds[0]), log=True)
    names = [f"P{i} ({n})" for i, n in enumerate(rotated(lineup_names, r))]
    start = starting_glory(np.asarray(S0.rank[:P])[None, :])[0]
    rewards = rs.rewards(gods, np.asarray(S0.mission_n[:P]))
    S1 = vh_play_game(rs.valhalla, [x[1] for x in seat], int(vseeds[0]), log=True, god_plan=plan[0],
                      start=start, rewards=rewards)
    lines = [f"Rainbow Bridge, game {game_id} (seed {master_seed}, rotation {r}): Blood Rage first, "
             + ("with the missions of " + ", ".join(rs.valhalla.god_names[g] for g in gods) if rs.missions()
                else "without god missions (rb_missions = false)")]
    for row in S0.log[: S0.gs[G_LOG_N]]:
        t = format_event(base, row, names, S0)
        if t is not None:
            lines.append(t)
    won = [f"{names[p]}: {rs.valhalla.card_names[int(c)]}" for p in range(P) for c in rewards[p] if c >= 0]
    lines.append("Reward Cards: " + ("; ".join(won) if won else "none"))
    return "\n".join(lines) + "\n\n" + game_text(
        rs.valhalla, S1, names, f"Rainbow Bridge, then Blood Rage: Valhalla (game seed {int(vseeds[0])})")


def play_batch(rs: RainbowBridge, lineup, seeds, check: bool = False, game_ids=None, period: int = 1):
    """The engine facade's play_batch (simulator.engines): :meth:`RainbowBridge.play_batch`."""
    return rs.play_batch(lineup, seeds, check, game_ids, period)


def play_game(rs: RainbowBridge, lineup, seed: int, log: bool = True, check: bool = False):
    """Not offered: a Rainbow Bridge game is two games; :func:`replay_text` shows both."""
    raise ValueError("rainbow-bridge: a single game is two records; use replay_text (volva replay)")


def load(base_options: dict | None = None, options: dict | None = None, patch=None, sweep=None) -> RainbowBridge:
    """Both rule sets of a Rainbow Bridge game: Blood Rage with ``base_options``, Valhalla with
    ``options``, the card patches and the god sweep. Raises RulesError."""
    from .bloodrage import load as load_blood_rage
    from .valhalla import load as load_valhalla
    rs = RainbowBridge(load_blood_rage("blood-rage", base_options),
                       load_valhalla("valhalla", options, patch=patch))
    rs.options = {"valhalla": rs.valhalla.options, "blood-rage": rs.base.options}
    return rs.with_sweep(sweep)
