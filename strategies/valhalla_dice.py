"""Strategies of Valhalla, the dice game: parameter vectors (simulator/valhalla_dice/policy.py
VD_*) under a name. ``greedy`` is the heuristic player; the archetypes play as named."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from volva.simulator.valhalla_dice.battle import ARM_DP, ARM_NONE
from volva.simulator.valhalla_dice.policy import (
    VD_ARM,
    VD_ATT_TACTICS,
    VD_ATTACK_TEAM,
    VD_ATTACK_VALUE,
    VD_ENDGAME_DECK,
    VD_HOLD_TACTICS,
    VD_IDLE_ATTACK,
    VD_JARL_W0,
    VD_KING_TARGET,
    VD_SEND_GLORY,
    VD_TACTIC_VALUE,
    VD_TARGET_SET,
    VD_W_GLORY,
    VDPOL_GREEDY,
    VDPOL_RANDOM,
    greedy_params,
)


def _with(changes: dict) -> np.ndarray:
    """greedy_params() with {VD_* index: value} changed."""
    v = greedy_params()
    for k, x in changes.items():
        v[k] = x
    return v


#: name -> (policy kind, parameters, what it does)
STRATEGIES = {
    "random": (VDPOL_RANDOM, greedy_params, "uniform over the legal actions, targets and keeps; greedy keep rule"),
    "greedy": (VDPOL_GREEDY, greedy_params, "builds to 2 Warriors worth 5 strength, then attacks the weakest team; "
               "greedy keep rule when rolling"),
    "raider": (VDPOL_GREEDY, lambda: _with({VD_ATTACK_TEAM: 1, VD_ATTACK_VALUE: 0.0, VD_ATT_TACTICS: 3}),
               "attacks whenever it may, with every strength Tactic"),
    "turtle": (VDPOL_GREEDY, lambda: _with({VD_ATTACK_TEAM: 4, VD_ATTACK_VALUE: 14.0, VD_SEND_GLORY: 1,
                                            VD_ENDGAME_DECK: 3}),
               "fills its team before attacking; banks every won defence in Valhalla"),
    "hoarder": (VDPOL_GREEDY, lambda: _with({VD_ATTACK_TEAM: 4, VD_ATTACK_VALUE: 14.0, VD_W_GLORY: 6.0,
                                             VD_SEND_GLORY: 99, VD_ENDGAME_DECK: 3, VD_HOLD_TACTICS: 1}),
                "plays for Ragnarök: fills its team with Glory-rich Warriors, keeps its defenders on it and "
                "its dice Tactics for Ragnarök"),
    "set-collector": (VDPOL_GREEDY, lambda: _with({VD_TARGET_SET: 3.0}),
                      "greedy that attacks where a won shield completes a shield set"),
    "king-hunter": (VDPOL_GREEDY, lambda: _with({VD_KING_TARGET: 10.0}),
                    "greedy that, when it attacks, attacks the King of the Hill if it may (bonus dice, the title)"),
    "greedy-dp": (VDPOL_GREEDY, lambda: _with({VD_ARM: ARM_DP}),
                  "greedy, arming by the exact DP (optimal rerolls) instead of the keep rule"),
    "no-reroll": (VDPOL_GREEDY, lambda: _with({VD_ARM: ARM_NONE}), "greedy that never rerolls (a baseline)"),
}
DESCRIPTIONS = {n: d for n, (_, _, d) in STRATEGIES.items()}


#: strategy file key -> (VD_* index, lowest, highest, what it sets)
PARAM_KEYS = {
    "arming": (VD_ARM, 0, 2, "0 the greedy keep rule, 1 the exact DP, 2 no reroll"),
    "attack_team": (VD_ATTACK_TEAM, 0, 99, "attack only with at least this many Warriors on the team"),
    "attack_value": (VD_ATTACK_VALUE, 0, 100, "... and this expected strength (strength x P(armed) summed)"),
    "w_glory": (VD_W_GLORY, 0, 20, "card value: weight of a Warrior's Glory beside strength x P(armed)"),
    "tactic_value": (VD_TACTIC_VALUE, 0, 20, "card value of a Battle Tactic"),
    "send_glory": (VD_SEND_GLORY, -99, 99, "a winning defender sends activated Warriors with at least this Glory"),
    "endgame_deck": (VD_ENDGAME_DECK, 0, 200, "with this few cards left in the deck, attack whenever allowed"),
    "attack_tactics": (VD_ATT_TACTICS, 0, 99, "strength Tactics the attacker plays at most in a battle"),
    "target_set": (VD_TARGET_SET, 0, 20, "target choice: weight of the set bonus a won shield adds"),
    "idle_attack": (VD_IDLE_ATTACK, 0, 1, "1 attack when there is nothing to build, 0 draw"),
    "hold_tactics": (VD_HOLD_TACTICS, 0, 1, "1 keep Push back, New weapons, Weapons exchange for Ragnarök"),
    "king_target": (VD_KING_TARGET, 0, 100, "target choice: preference for attacking a King (King of the Hill)"),
}


#: knobs that count (Warriors, Glory, cards, Tactics) or switch: whole numbers only
INT_KEYS = ("arming", "attack_team", "send_glory", "endgame_deck", "attack_tactics", "idle_attack", "hold_tactics")


def load_strategy_file(path) -> tuple[int, np.ndarray]:
    """A strategy file of Valhalla, the dice game (TOML)::

        name = "patient-raider"        # optional; also plan = "..." and a provenance table
        base = "raider"                # a built-in to start from (default greedy; not random)
        attack_team = 2                # any of PARAM_KEYS, each a number in its range
        arming = 1                     # 1: arm by the exact DP
        jarl_bonus = { Einar = 0.1 }   # preference when keeping 1 of the Jarls dealt (jarls.csv
                                       # names; the highest is kept, then a recommended one)

    Raises ValueError naming the file, key and allowed values."""
    from volva.simulator.core.loading import read_toml
    return parse_strategy_doc(read_toml(Path(path), ValueError), path)


def parse_strategy_doc(d: dict, path) -> tuple[int, np.ndarray]:
    """A parsed strategy document (format: :func:`load_strategy_file`; ``name``, ``plan`` and a
    ``provenance`` table are allowed and ignored) -> (kind, params). Raises ValueError naming
    ``path``, the key and the allowed values."""
    d = {k: v for k, v in d.items() if k not in ("name", "plan", "provenance")}
    allowed = ["base", "jarl_bonus", *PARAM_KEYS]
    for k in d:
        if k not in allowed:
            raise ValueError(f"{path}: key '{k}': unknown; allowed: {', '.join(allowed)}")
    base = d.get("base", "greedy")
    bases = [n for n in STRATEGIES if n != "random"]
    if not isinstance(base, str) or base not in bases:
        raise ValueError(f"{path}: key 'base': {base!r}; allowed: {', '.join(bases)}")
    kind, make, _ = STRATEGIES[base]
    v = make()
    for k, (i, lo, hi, _) in PARAM_KEYS.items():
        if k in d:
            x = d[k]
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not lo <= x <= hi:
                kind_ = "an integer" if k in INT_KEYS else "a number"
                raise ValueError(f"{path}: key '{k}': {x!r}; allowed: {kind_} {lo}..{hi}")
            if k in INT_KEYS and x != int(x):
                raise ValueError(f"{path}: key '{k}': {x!r}; allowed: an integer {lo}..{hi}")
            v[i] = float(x)
    bonus = d.get("jarl_bonus", {})
    if not isinstance(bonus, dict):
        raise ValueError(f"{path}: key 'jarl_bonus': {bonus!r}; expected a table Jarl name = number")
    if bonus:
        from volva.simulator.valhalla_dice.api import load
        names = load().god_names
        for jarl, x in bonus.items():
            if jarl not in names:
                import difflib
                close = difflib.get_close_matches(str(jarl), names, n=3)
                raise ValueError(f"{path}: key 'jarl_bonus.{jarl}': no such Jarl; allowed: a Jarl of "
                                 "simulator/data/valhalla-dice/jarls.csv" + (f" (did you mean {', '.join(close)}?)"
                                                                             if close else ""))
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not -100 <= x <= 100:
                raise ValueError(f"{path}: key 'jarl_bonus.{jarl}': {x!r}; allowed: a number -100..100")
            v[VD_JARL_W0 + names.index(jarl)] = float(x)
    return kind, v


LIBRARY = Path(__file__).parent / "library" / "valhalla-dice"  #: strategy files named like built-ins


def library_files() -> dict[str, Path]:
    """name (the file's ``name`` key, else its stem) -> path of strategies/library/valhalla-dice/*.toml."""
    from volva.simulator.core.loading import toml_bytes
    out = {}
    for f in sorted(LIBRARY.glob("*.toml")):
        out[toml_bytes(f.read_bytes()).get("name", f.stem)] = f
    return out


def library_plans() -> dict[str, str]:
    """name -> plan of the library files."""
    from volva.simulator.core.loading import toml_bytes
    return {n: toml_bytes(f.read_bytes()).get("plan", f"strategy file {f.name}") for n, f in library_files().items()}


def resolve(name: str):
    """A strategy name or a strategy file (*.toml, :func:`load_strategy_file`) -> (kind, float64[VD_N]
    params). Raises ValueError naming the allowed ones."""
    key = name.strip() if isinstance(name, str) else name
    if key in STRATEGIES:
        kind, params, _ = STRATEGIES[key]
        return kind, params()
    lib = library_files()
    if key in lib:
        return load_strategy_file(lib[key])
    if isinstance(key, str) and key.endswith(".toml"):
        return load_strategy_file(key)
    raise ValueError(f"unknown strategy {name!r}; allowed: {', '.join([*STRATEGIES, *lib])} or a strategy file "
                     "(*.toml)")
