"""Describing strategies for people: built-in plans, resolving a name or file, and the
parameters a greedy-kind vector sets away from greedy's defaults (`volva strategies show`)."""
from __future__ import annotations

from pathlib import Path

BUILTIN_PLANS = {
    "random": "Uniform over the legal choices at every decision (the no-skill baseline).",
    "greedy": "The built-in heuristic: draft quests, Monsters, battle cards and upgrades by value, "
              "pillage with a 1-STR margin, go to the doomed province when Rage runs low, raise Axes, Rage, Horns.",
}


def strategy_object(name: str):
    """NAME (built-in or archetype) or FILE (*.toml) -> (name, plan, kind, params, path). Raises ValueError."""
    from volva.strategies.builtin import BUILTIN, archetypes, resolve
    from volva.strategies.spec import load_strategy
    key = name.strip()
    if key in BUILTIN:
        kind, params = BUILTIN[key]
        return key, BUILTIN_PLANS.get(key, ""), kind, params.copy(), None
    if key in archetypes():
        s = archetypes()[key]
        return s.name, s.plan, s.kind, s.params.copy(), s.path
    if key.endswith(".toml") or Path(key).is_file():
        s = load_strategy(key, card_names())
        return s.name, s.plan, s.kind, s.params.copy(), s.path
    resolve(key)  # raises the usual "unknown strategy ...; allowed: ..." error
    raise ValueError(f"unknown strategy {name!r}")


def card_names() -> list[str]:
    from volva.strategies.builtin import _card_names as names
    return list(names())


def _fmt(x: float) -> str:
    return f"{x:g}"


def strategy_differences(params, card_names: list[str]) -> list[tuple[str, str, str, str, str]]:
    """Non-default parameters of a greedy-kind vector: [(section, parameter, value, greedy default, meaning)]."""
    from volva.simulator.core import enums as E
    from volva.strategies.spec import DRAFT_KEYS, PLAY_KEYS, greedy_defaults
    d = greedy_defaults()
    rows = []
    units = {"battle": "per +STR of a battle card", "monster": "per STR of a Monster",
             "quest": "per quest", "upgrade": "per upgrade"}
    for k, i in DRAFT_KEYS.items():
        if params[i] != d[i]:
            rows.append(("draft by type", k, _fmt(params[i]), _fmt(d[i]), f"draft weight {units.get(k, '')}"))
    for j, g in enumerate(E.GOD_NAMES):
        i = E.P_GOD_W0 + j
        if params[i] != d[i]:
            rows.append(("draft by god", g, f"{params[i]:+g}", _fmt(d[i]), f"draft bonus per {g.capitalize()} card"))
    seen = set()
    for c, n in enumerate(card_names):
        i = E.P_CARD_W0 + c
        if n in seen or i >= len(params):
            continue
        seen.add(n)
        if params[i] != d[i]:
            rows.append(("draft by card", n, f"{params[i]:+g}", _fmt(d[i]), "draft bonus for this card"))
    play_help = {"pillage_margin": "STR margin wanted before pillaging", "opponent_card": "card value assumed per opponent",
                 "late_rage": "at or below this Rage: go to the doomed province",
                 "doom": "extra wish for the doomed province", "pass_score": "pass when no action scores above"}
    for k, (i, _) in PLAY_KEYS.items():
        if params[i] != d[i]:
            rows.append(("play", k, _fmt(params[i]), _fmt(d[i]), play_help.get(k, "")))

    def path(p):
        return " > ".join(E.STAT_NAMES[int(p[E.P_STAT0 + k])] for k in range(E.N_STATS))
    if path(params) != path(d):
        rows.append(("play", "stat_path", path(params), path(d), "order of stat raises"))
    return rows
