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


def parse_team(text: str, content=None) -> D.Team:
    """'axe:3,spear+sword:5' or 'Bear Archer,Wolf Twin Bows' -> a Team. Each Warrior is
    weapons[:strength] (strength 1 when left out) or, with ``content``, a Warrior card's name
    (its printed weapons and strength). Raises ValueError naming the Warrior and the allowed forms."""
    warriors = []
    for part in str(text).split(","):
        if not part.strip():
            raise ValueError(f"{str(text)!r}: an empty Warrior; expected weapons[:strength] like axe:3 or "
                             "spear+sword:5, or a Warrior card's name, separated by commas")
        w, sep, s = part.strip().partition(":")
        try:
            D.parse_weapons(w)
        except ValueError as exc:
            card = _card(content, part.strip(), exc)
            warriors.append((card.weapons, card.strength))
            continue
        try:
            strength = int(s) if sep else 1
        except ValueError:
            raise ValueError(f"{part.strip()!r}: strength {s!r} is not a whole number") from None
        warriors.append((w.strip(), strength))
    return D.Team(warriors, labels=[text])


def _card(content, name: str, why: Exception):
    """The Warrior card called ``name``; ValueError with both readings when there is none."""
    if content is None or ":" in name:
        raise ValueError(f"{name!r}: {why}") from None
    try:
        card = content.card(name)
    except KeyError as exc:
        raise ValueError(f"{name!r}: neither weapons ({why}) nor a card: {exc.args[0]}") from None
    if card.kind != "warrior":
        raise ValueError(f"{name!r} is a Tactic; a team holds Warriors (use --tactic for Tactics)")
    return card


def deck_table(content, dice=(5, 6, 7), p=(1 / 6,) * D.NF) -> pd.DataFrame:
    """Every Warrior card alone, every reroll allowed, no Tactic: one row per card with p_armed_N
    and e_strength_N (N dice; the policy maximising each) and value_ratio, its E[strength] with
    6 dice (or the middle count given) over the mean of the single-weapon cards' (the calibration
    rule of valhalla-dice.md §2.1 asks each shape's mean within 0.75..1.25: :func:`shape_table`).
    Powers are not counted (they depend on the team)."""
    rows = []
    for c in content.cards:
        if c.kind != "warrior":
            continue
        team = D.Team([(c.weapons, c.strength)])
        r = {"card": c.name, "clan": c.clan, "shape": c.shape, "weapons": c.weapons, "symbols": c.symbols,
             "strength": c.strength, "glory": c.glory, "copies": c.copies, "power": _ops(c.power)}
        for n in dice:
            r[f"p_armed_{n}"] = min(1.0, D.solve(team, n, objective="armed", p=p))
            r[f"e_strength_{n}"] = D.solve(team, n, objective="strength", p=p)
        rows.append(r)
    df = pd.DataFrame(rows)
    ref = 6 if 6 in dice else sorted(dice)[len(dice) // 2]
    single = df.loc[df["shape"] == "single", f"e_strength_{ref}"]
    base = single.mean() if len(single) else float("nan")
    # no single-weapon card, or none that can arm with this die: no reference, no ratio
    df["value_ratio"] = df[f"e_strength_{ref}"] / base if base > 0 else float("nan")
    return df


def shape_table(deck: pd.DataFrame) -> pd.DataFrame:
    """By requirement shape: cards in the deck (copies counted), the copies-weighted mean value
    ratio and whether it lies in the calibration band 0.75..1.25 (valhalla-dice.md §2.1)."""
    w = deck["copies"]
    g = deck.assign(_w=w, _wr=w * deck["value_ratio"]).groupby("shape", sort=False)
    out = pd.DataFrame({"cards": g["_w"].sum(), "mean_ratio": g["_wr"].sum() / g["_w"].sum(),
                        "min_ratio": g["value_ratio"].min(), "max_ratio": g["value_ratio"].max()})
    out["in_band"] = out["mean_ratio"].between(0.75, 1.25)
    return out.reset_index()


def _ops(ops) -> str:
    return "; ".join(f"{n}({','.join(str(a) for a in args)})" for n, args in ops)


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
