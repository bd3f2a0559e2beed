"""Arming tables for ``volva dice``: P(≥ 1 Warrior armed) and E[strength] of a team by dice,
rerolls allowed and Tactic in hand, each under its own optimal policy (exact, from
:mod:`simulator.valhalla_dice.dice`; DIGEST §5.6–5.7)."""
from __future__ import annotations

import pandas as pd

from volva.simulator.valhalla_dice import dice as D

#: Tactic in hand -> solver arguments (DIGEST §5.7; Weapons exchange in its x_only reading)
TACTICS = {
    "none": {},
    "push-back": {"free_rerolls": 2},
    "new-weapons": {"new_weapons": 1},
    "weapons-exchange": {"x_wild": 6},
}
ALL = -1  #: rerolls column "all": as many as the pool allows

#: One Warrior of each base-deck shape with a typical strength (valhalla-dice.md §2.1, PROVISIONAL):
#: the default teams of ``volva dice``
SHAPES = {"single": "axe:3", "two different": "spear+sword:5", "pair": "axe*2:5", "triple": "axe*3:8",
          "two pairs": "axe*2+bow*2:10", "Ice Giant": "any*3:4"}


def parse_team(text: str) -> D.Team:
    """'axe:3,spear+sword:5' -> a Team (weapons[:strength], strength 1 when left out).
    Raises ValueError naming the Warrior and the allowed forms."""
    warriors = []
    for part in str(text).split(","):
        w, sep, s = part.strip().partition(":")
        try:
            strength = int(s) if sep else 1
        except ValueError:
            raise ValueError(f"{part.strip()!r}: strength {s!r} is not a whole number") from None
        try:
            D.parse_weapons(w)
        except ValueError as exc:
            raise ValueError(f"{part.strip()!r}: {exc}") from None
        warriors.append((w.strip(), strength))
    return D.Team(warriors, labels=[text])


def arming_table(teams: dict[str, D.Team], dice=(5, 6, 7), rerolls=(0, 1, 2, 3, ALL),
                 tactics=tuple(TACTICS), p=(1 / 6,) * D.NF) -> pd.DataFrame:
    """One row per (team, tactic, dice, rerolls): p_armed (P(≥ 1 Warrior armed), policy maximising
    it) and e_strength (E[total strength armed], policy maximising it). rerolls == ALL: as many as
    the pool allows. A shape of w symbols can use at most dice − w rerolls, so larger k repeat."""
    rows = []
    for name, team in teams.items():
        for tac in tactics:
            kw = dict(TACTICS[tac], p=p)
            for n in dice:
                for k in rerolls:
                    kk = None if k == ALL else k
                    rows.append({"team": name, "tactic": tac, "dice": n, "rerolls": "all" if k == ALL else str(k),
                                 "p_armed": D.solve(team, n, kk, objective="armed", **kw),
                                 "e_strength": D.solve(team, n, kk, objective="strength", **kw)})
    return pd.DataFrame(rows)


def parse_counts(text: str, option: str, lo: int, hi: int, allow_all: bool = False) -> list[int]:
    """'5,6,7' -> [5, 6, 7] ('all' -> ALL where allowed). Raises ValueError naming the option
    and the allowed values."""
    allowed = f"{lo}..{hi}" + (" or all" if allow_all else "")
    out = []
    for part in str(text).split(","):
        s = part.strip().lower()
        if allow_all and s == "all":
            out.append(ALL)
            continue
        try:
            v = int(s)
        except ValueError:
            raise ValueError(f"{option} {part.strip()!r}; allowed: comma-separated {allowed}") from None
        if not lo <= v <= hi:
            raise ValueError(f"{option} {v}; allowed: comma-separated {allowed}")
        out.append(v)
    return list(dict.fromkeys(out))


def parse_tactics(names: list[str] | None) -> list[str]:
    """--tactic values (None: all four). Raises ValueError naming the allowed Tactics."""
    if not names:
        return list(TACTICS)
    out = []
    for n in names:
        s = n.strip().lower()
        if s not in TACTICS:
            raise ValueError(f"--tactic {n!r}; allowed: {', '.join(TACTICS)}")
        out.append(s)
    return list(dict.fromkeys(out))
