"""Blood Rage: Valhalla strategies: name -> (VPOL_* kind, float64[VP_N] params) (enums VP_*).

The greedy heuristic is in simulator/valhalla/policy.py; the archetypes below change its weights
the way the rulebook's drafting tips describe each god ("Strategy Tips for Drafting"): a devotee
of a god adds a draft bonus to that god's cards. Names: random, greedy, the five devotees
(thor, loki, freya, baldr, tyr), quester (quests first), warlord (battle cards, contests at a
smaller margin), valor (Prove Valor majorities). A strategy file (*.toml, format in
:func:`load_strategy_file`) starts from one of them and changes its weights; the files in
strategies/library/valhalla/ (tuned strategies) are named like the built-ins.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from volva.simulator.core import enums as E


def greedy_params() -> np.ndarray:
    """The greedy strategy's parameters (float64[VP_N])."""
    from volva.simulator.valhalla.api import default_params
    return default_params()


def _devotee(god: str) -> np.ndarray:
    v = greedy_params()
    v[E.VP_GOD_W0 + E.VH_GOD_NAMES.index(god)] = 3.0
    return v


def _with(**kw) -> np.ndarray:
    v = greedy_params()
    for k, x in kw.items():
        v[getattr(E, k)] = x
    return v


LIBRARY = Path(__file__).parent / "library" / "valhalla"  #: strategy files named like built-ins


def library_files() -> dict[str, Path]:
    """name (the file's ``name`` key, else its stem) -> path of strategies/library/valhalla/*.toml."""
    from volva.simulator.core.loading import toml_bytes
    out = {}
    for f in sorted(LIBRARY.glob("*.toml")):
        with open(f, "rb") as fh:
            out[toml_bytes(fh.read()).get("name", f.stem)] = f
    return out


def library_plans() -> dict[str, str]:
    """name -> plan of the library files."""
    from volva.simulator.core.loading import toml_bytes
    out = {}
    for n, f in library_files().items():
        with open(f, "rb") as fh:
            out[n] = toml_bytes(fh.read()).get("plan", f"strategy file {f.name}")
    return out


def builtin() -> dict[str, tuple[int, np.ndarray]]:
    """name -> (kind, params) of every Valhalla strategy written in code (fresh arrays)."""
    out = {"random": (E.VPOL_RANDOM, np.zeros(E.VP_N)), "greedy": (E.VPOL_GREEDY, greedy_params())}
    for g in E.VH_GOD_NAMES:
        out[g] = (E.VPOL_GREEDY, _devotee(g))
    out["quester"] = (E.VPOL_GREEDY, _with(VP_W_QUEST=6.0, VP_STAT0=E.STAT_HORNS, VP_STAT1=E.STAT_RAGE,
                                           VP_STAT2=E.STAT_AXES))
    out["warlord"] = (E.VPOL_GREEDY, _with(VP_W_BATTLE=1.6, VP_W_MONSTER=1.6, VP_CONTEST_MARGIN=0.0,
                                           VP_W_QUEST=1.5))
    out["valor"] = (E.VPOL_GREEDY, _with(VP_VALOR=2.5, VP_W_MONSTER=0.8, VP_STAT0=E.STAT_RAGE))
    return out


DESCRIPTIONS = {
    "random": "uniform over legal choices",
    "greedy": "the built-in heuristic (simulator/valhalla/policy.py)",
    **{g: f"greedy, +3 draft bonus for {g.capitalize()}'s cards" for g in E.VH_GOD_NAMES},
    "quester": "greedy, quests weighted 6, raises Horns first",
    "warlord": "greedy, battle cards and Monsters weighted 1.6, contests at margin 0",
    "valor": "greedy, Prove Valor majorities weighted 2.5, raises Rage first",
}


PARAM_KEYS = {"w_battle": E.VP_W_BATTLE, "w_monster": E.VP_W_MONSTER, "w_quest": E.VP_W_QUEST,
              "w_upgrade": E.VP_W_UPGRADE, "contest_margin": E.VP_CONTEST_MARGIN, "opp_card": E.VP_OPP_CARD,
              "valor": E.VP_VALOR, "pass": E.VP_PASS}


def load_strategy_file(path: str) -> tuple[int, np.ndarray]:
    """A Valhalla strategy file (TOML)::

        base = "greedy"                  # a built-in to start from (default greedy)
        w_quest = 5.0                    # draft weights: w_battle (per STR), w_monster (per STR),
                                         # w_quest, w_upgrade; contest_margin, opp_card, valor, pass
        stat_order = ["horns", "rage", "axes"]   # which stat a free raise goes to first
        god_bonus = { loki = 3 }         # draft bonus for a god's cards
        card_bonus = { "Mjolnir's Fall" = 2 }    # draft bonus for single cards

    Raises ValueError naming the file, key and allowed values."""
    from volva.simulator.core.loading import read_toml
    return parse_strategy_doc(read_toml(Path(path), ValueError), path)


def parse_strategy_doc(d: dict, path, card_names: list[str] | None = None) -> tuple[int, np.ndarray]:
    """A parsed Valhalla strategy document (format: :func:`load_strategy_file`; ``name``, ``plan``
    and a ``provenance`` table are allowed and ignored) -> (kind, params). ``card_names``: the
    rule set's (loaded when None and the document has card bonuses). Raises ValueError naming
    ``path``, the key and the allowed values."""
    d = {k: v for k, v in d.items() if k not in ("name", "plan", "provenance")}
    allowed = ["base", "stat_order", "god_bonus", "card_bonus", *PARAM_KEYS]
    for k in d:
        if k not in allowed:
            raise ValueError(f"{path}: key '{k}': unknown; allowed: {allowed}")
    base = d.get("base", "greedy")
    b = builtin()
    if not isinstance(base, str) or base not in b:
        raise ValueError(f"{path}: key 'base': {base!r}; allowed: {sorted(b)}")
    kind, v = b[base]
    v = v.copy()
    for k, i in PARAM_KEYS.items():
        if k in d:
            x = d[k]
            if isinstance(x, bool) or not isinstance(x, (int, float)):
                raise ValueError(f"{path}: key '{k}': {x!r}; allowed: a number")
            v[i] = float(x)
    if "stat_order" in d:
        so = d["stat_order"]
        if not isinstance(so, list) or not all(isinstance(x, str) for x in so) or sorted(so) != sorted(E.STAT_NAMES):
            raise ValueError(f"{path}: key 'stat_order': {so!r}; allowed: the three of {list(E.STAT_NAMES)} in order")
        for j, st in enumerate(so):
            v[E.VP_STAT0 + j] = E.STAT_NAMES.index(st)
    for key in ("god_bonus", "card_bonus"):
        if not isinstance(d.get(key, {}), dict):
            raise ValueError(f"{path}: key '{key}': {d[key]!r}; expected a table name = number")
    for god, x in (d.get("god_bonus") or {}).items():
        if god not in E.VH_GOD_NAMES or isinstance(x, bool) or not isinstance(x, (int, float)):
            raise ValueError(f"{path}: key 'god_bonus.{god}': {x!r}; allowed: gods {list(E.VH_GOD_NAMES)} = a number")
        v[E.VP_GOD_W0 + E.VH_GOD_NAMES.index(god)] = float(x)
    cards = d.get("card_bonus") or {}
    if cards:
        from volva.simulator.engines import load_ruleset
        names = card_names if card_names is not None else load_ruleset("valhalla").card_names
        for card, x in cards.items():
            if card not in names or isinstance(x, bool) or not isinstance(x, (int, float)):
                import difflib
                close = difflib.get_close_matches(card, names, n=3)
                raise ValueError(f"{path}: key 'card_bonus.{card}': {x!r}; allowed: a card of "
                                 f"simulator/data/valhalla/cards.csv = a number"
                                 + (f" (did you mean {close}?)" if close else ""))
            v[E.VP_CARD_W0 + names.index(card)] = float(x)
    return kind, v


def resolve(name: str) -> tuple[int, np.ndarray]:
    """Strategy name (a built-in, a library file's name or a *.toml strategy file) -> (VPOL_* kind, params).
    Raises ValueError naming the allowed names."""
    b = builtin()
    key = name.strip()
    if key in b:
        return b[key]
    lib = library_files()
    if key in lib:
        return load_strategy_file(str(lib[key]))
    if key.endswith(".toml"):
        return load_strategy_file(key)
    raise ValueError(f"unknown strategy {name!r} for valhalla; allowed: {', '.join(sorted(b) + sorted(lib))} "
                     "or a strategy file (*.toml)")
