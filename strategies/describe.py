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


def valhalla_differences(params) -> list[tuple[str, str, str, str]]:
    """Blood Rage: Valhalla parameters away from greedy's: [(parameter, value, greedy, meaning)]
    (strategies.valhalla file keys; stat order and god bonuses included)."""
    from volva.simulator.core import enums as E
    from volva.strategies.valhalla import PARAM_KEYS, greedy_params
    g = greedy_params()
    meaning = {"w_battle": "draft weight per battle-card STR", "w_monster": "draft weight per Monster STR",
               "w_quest": "draft weight of quests", "w_upgrade": "draft weight of upgrades",
               "contest_margin": "STR margin to contest a region", "opp_card": "assumed STR of an opponent's card",
               "valor": "weight of Prove Valor majorities", "pass": "score below which the clan passes"}
    rows = [(k, _fmt(params[i]), _fmt(g[i]), meaning[k]) for k, i in PARAM_KEYS.items() if params[i] != g[i]]
    order = [E.STAT_NAMES[int(params[E.VP_STAT0 + k])] for k in range(3)]
    g_order = [E.STAT_NAMES[int(g[E.VP_STAT0 + k])] for k in range(3)]
    if order != g_order:
        rows.append(("stat_order", ",".join(order), ",".join(g_order), "which stat a free raise goes to first"))
    for j, god in enumerate(E.VH_GOD_NAMES):
        i = E.VP_GOD_W0 + j
        if params[i] != g[i]:
            rows.append((f"god_bonus.{god}", _fmt(params[i]), _fmt(g[i]), f"draft bonus for {god.capitalize()}'s cards"))
    return rows


def show_blood_rage(name: str) -> tuple[str, str, str | None, list[str], list[tuple]]:
    """``volva strategies show`` for Blood Rage: (header line, plan, policy line or None for random,
    column names, rows away from greedy). Raises ValueError."""
    from volva.simulator.core import enums as E
    sname, plan, kind, params, path = strategy_object(name)
    if kind == E.POL_RANDOM:
        return f"{sname}  ({path if path else 'built-in'})", plan, None, [], []
    return (f"{sname}  ({path if path else 'built-in'})", plan, "greedy heuristic",
            ["section", "parameter", "value", "greedy", "meaning"], strategy_differences(params, card_names()))


def _head_plan(module, name: str) -> tuple:
    """(kind, params, head line, plan) of a strategy of ``module`` (strategies.valhalla or
    .valhalla_dice: resolve, library_files, library_plans, DESCRIPTIONS). Raises ValueError."""
    from volva.simulator.core.loading import toml_bytes
    key = name.strip()
    kind, params = module.resolve(key)
    path = module.library_files().get(key) or (Path(key) if key.endswith(".toml") else None)
    plan = (module.DESCRIPTIONS | module.library_plans()).get(key, "")
    if path is not None and not plan:
        plan = toml_bytes(Path(path).read_bytes()).get("plan", "")
    return kind, params, f"{key}  ({path if path else 'built-in'})", plan


def show_valhalla(name: str) -> tuple[str, str, str | None, list[str], list[tuple]]:
    """``volva strategies show --ruleset valhalla``: as :func:`show_blood_rage`. Raises ValueError."""
    from volva.simulator.core import enums as E
    from volva.strategies import valhalla as vh
    kind, params, head, plan = _head_plan(vh, name)
    if kind == E.VPOL_RANDOM:
        return head, plan, None, [], []
    return (head, plan, "greedy heuristic (simulator/valhalla/policy.py)", ["parameter", "value", "greedy", "meaning"],
            valhalla_differences(params))


def validate_blood_rage(path: Path) -> str:
    """The strategy's name, or ValueError naming the file, key and allowed values."""
    from volva.strategies.spec import load_strategy
    return load_strategy(path, card_names()).name


def validate_valhalla(path: Path) -> str:
    from volva.strategies.valhalla import load_strategy_file
    return _validate_file(path, load_strategy_file)


def _validate_file(path: Path, load) -> str:
    """The name of the strategy file ``path`` after ``load`` checked it; raises ValueError."""
    from volva.simulator.core.loading import toml_bytes
    if Path(path).is_dir():
        raise ValueError(f"{path}: is a directory; allowed: a strategy file (*.toml)")
    load(str(path))
    return toml_bytes(Path(path).read_bytes()).get("name", Path(path).stem)



def show_valhalla_dice(name: str) -> tuple[str, str, str | None, list[str], list[tuple]]:
    """``volva strategies show --ruleset valhalla-dice``: as :func:`show_blood_rage` (the knobs away
    from greedy's and the Jarl preferences). Raises ValueError."""
    from volva.simulator.valhalla_dice.policy import VD_JARL_W0, VDPOL_RANDOM
    from volva.strategies import valhalla_dice as vd
    kind, params, head, plan = _head_plan(vd, name)
    if kind == VDPOL_RANDOM:
        return head, plan, None, [], []
    g = vd.greedy_params()
    rows = [(k, _fmt(params[i]), _fmt(g[i]), meaning) for k, (i, _, _, meaning) in vd.PARAM_KEYS.items()
            if params[i] != g[i]]
    from volva.simulator.valhalla_dice.api import load
    for j, jarl in enumerate(load().god_names):
        if params[VD_JARL_W0 + j] != g[VD_JARL_W0 + j]:
            rows.append((f"jarl_bonus.{jarl}", _fmt(params[VD_JARL_W0 + j]), _fmt(g[VD_JARL_W0 + j]),
                         "preference when keeping 1 of the Jarls dealt"))
    return (head, plan, "greedy heuristic (simulator/valhalla_dice/engine.py, policy.py)",
            ["parameter", "value", "greedy", "meaning"], rows)


def validate_valhalla_dice(path: Path) -> str:
    """The strategy's name, or ValueError naming the file, key and allowed values."""
    from volva.strategies.valhalla_dice import load_strategy_file
    return _validate_file(path, load_strategy_file)
