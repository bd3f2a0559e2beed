"""Valhalla (the dice-and-cards game) data: ``simulator/data/valhalla-dice/``.

``rules.toml`` holds the rulebook's numbers and the named rule options; ``cards.csv`` (120
cards: Warriors of five clans and Battle Tactics), ``jarls.csv`` (25 Jarls), ``opcodes.toml``
(the vocabulary of powers, Tactics, Jarl abilities and conditions) and ``dice.toml`` are
PROVISIONAL content (DIGEST §5; ../shared/design/valhalla-dice.md Part 2): no list is
public, so a printed list replaces the files without code changes. ``dice.toml`` gives the
six faces of each die colour (red: attacker, black: defender, grey: additional dice; DIGEST
§5.1, §5.3). Errors are :class:`RulesError` naming the file, entry and
field with the allowed values.
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core.loading import DATA_DIR, RulesError, check_int, field_error, read_toml, require_key, unknown_option
from .dice import FACES, WEAPONS, parse_weapons

DICE_DIR = DATA_DIR / "valhalla-dice"
COLOURS = ("red", "black", "grey")


def load_dice(path: Path | None = None) -> dict[str, tuple[float, ...]]:
    """The face probabilities (spear, sword, axe, bow, shield, x) of each die colour.

    Returns {colour: 6 floats summing to 1}. Raises RulesError naming the file, the colour and the
    field when a colour is missing or unknown, or a die does not have six faces from FACES."""
    path = Path(path) if path is not None else DICE_DIR / "dice.toml"
    d = read_toml(path, RulesError)
    unknown = sorted(set(d) - set(COLOURS))
    if unknown:
        raise RulesError(f"{path}: [{unknown[0]}]: unknown die colour; allowed: {', '.join(COLOURS)}")
    out = {}
    for colour in COLOURS:
        entry = d.get(colour)
        if not isinstance(entry, dict):
            raise RulesError(f"{path}: [{colour}]: missing; every die colour needs a table with faces = [6 names]")
        extra = sorted(set(entry) - {"faces"})
        if extra:
            raise RulesError(f"{path}: [{colour}].{extra[0]}: unknown field; allowed: faces")
        faces = entry.get("faces")
        if not isinstance(faces, list) or len(faces) != 6:
            raise RulesError(f"{path}: [{colour}].faces: {faces!r}; expected a list of 6 face names")
        for f in faces:
            if not isinstance(f, str) or f.strip().lower() not in FACES:
                raise RulesError(f"{path}: [{colour}].faces: {f!r}; allowed: {', '.join(FACES)}")
        low = [f.strip().lower() for f in faces]
        out[colour] = tuple(low.count(f) / 6 for f in FACES)
    return out


# --- content: cards.csv, jarls.csv, opcodes.toml, rules.toml -----------------------------------
CLANS = ("bear", "wolf", "boar", "deer", "giant")  #: giant: the Ice Giants, a fifth clan (DIGEST §5.1)
WHEN = ("attack", "defend", "any")
CARD_COLUMNS = ["name", "kind", "clan", "weapons", "strength", "glory", "power", "tactic", "copies", "text"]
JARL_COLUMNS = ["name", "recommended", "min_players", "solo", "combine", "primary", "secondary", "condition", "text"]
OPCODE_KINDS = ("power", "tactic", "ability", "condition", "bonus")
ARG_KINDS = ("int", "clan", "weapon", "weapon_or_any", "when")
_OP_RE = re.compile(r"^\s*([a-z_]+)\s*(?:\(([^()]*)\))?\s*$")


@dataclass(frozen=True)
class Card:
    """One cards.csv row. need: int8[5] specific symbols (FACES order); any_need: Ice Giant symbols;
    power / tactic: (opcode, args) tuples."""
    name: str
    kind: str
    clan: str
    weapons: str
    need: np.ndarray = field(repr=False)
    any_need: int
    strength: int
    glory: int
    power: tuple
    tactic: tuple
    copies: int
    text: str

    @property
    def symbols(self) -> int:
        """Printed weapon symbols (Ice Giant symbols included; the A2 cap counts these, DIGEST §5.2)."""
        return int(self.need.sum()) + self.any_need

    @property
    def shape(self) -> str:
        """single, two different, pair, triple, two pairs, three different, Ice Giant or other."""
        if self.kind != "warrior":
            return "tactic"
        if self.any_need:
            return "Ice Giant"
        c = sorted((int(x) for x in self.need if x), reverse=True)
        return {(1,): "single", (1, 1): "two different", (2,): "pair", (3,): "triple", (2, 2): "two pairs",
                (1, 1, 1): "three different"}.get(tuple(c), "other")


@dataclass(frozen=True)
class Jarl:
    """One jarls.csv row; primary / secondary / condition: (opcode, args) tuples (condition may be None)."""
    name: str
    recommended: bool
    min_players: int
    solo: bool
    combine: str
    primary: tuple
    secondary: tuple
    condition: tuple | None
    text: str


@dataclass(frozen=True)
class LokiCard:
    """One modules.toml [[loki]] card (003 l.159-161): tiers ((difference at least, (opcode, args)), ...)
    ascending; pre_discard: cards added to the setup's pre-discard (negative: fewer)."""
    name: str
    recommended: bool
    pre_discard: int
    tiers: tuple


@dataclass(frozen=True)
class Modules:
    """modules.toml: the Loki's Deception cards and King of the Hill's bonus cards (PROVISIONAL
    numbers). king: {end_glory, kings[5], glory[5][levels], attack_dice[5][levels]} by 2..6 players."""
    loki: tuple
    king: dict


@dataclass(frozen=True)
class Content:
    """Valhalla dice-game content as loaded and validated: rules (rules.toml as a dict), opcodes,
    cards, Jarls and the die faces of each colour ({colour: 6 probabilities})."""
    rules: dict
    opcodes: dict
    cards: tuple
    jarls: tuple
    dice: dict
    cards_path: Path | None = None  #: the cards file read (cards.csv or --cards)
    modules: Modules | None = None  #: modules.toml (Loki's Deception cards, King of the Hill bonus cards)

    def card(self, name: str) -> Card:
        """The card named ``name`` (case-insensitive). Raises KeyError naming close names."""
        low = name.strip().lower()
        for c in self.cards:
            if c.name.lower() == low:
                return c
        near = [c.name for c in self.cards if low in c.name.lower()][:8]
        raise KeyError(f"no card {name!r}" + (f"; did you mean: {', '.join(near)}" if near else
                                            "; `volva dice --deck` lists them"))

    @property
    def deck_size(self) -> int:
        return sum(c.copies for c in self.cards)


def load_opcodes(path: Path) -> dict:
    """opcodes.toml -> {name: {kind, args, doc}}. Raises RulesError naming the opcode and field."""
    d = read_toml(path, RulesError)
    for name, spec in d.items():
        kind = require_key(path, name, spec, "kind", str)
        if kind not in OPCODE_KINDS:
            field_error(path, name, "kind", f"{kind!r}; allowed: {', '.join(OPCODE_KINDS)}")
        args = require_key(path, name, spec, "args", list)
        for i, a in enumerate(args):
            k = a.get("kind") if isinstance(a, dict) else None
            if k not in ARG_KINDS:
                field_error(path, name, f"args[{i}]", f"{a!r}; allowed kinds: {', '.join(ARG_KINDS)}")
            if k == "int":
                lo = check_int(path, name, f"args[{i}].min", a.get("min"), -1000, 1000)
                check_int(path, name, f"args[{i}].max", a.get("max"), lo, 1000)
        require_key(path, name, spec, "doc", str)
    return d


def parse_op(file, entry, fld, text, opcodes, kind):
    """'name(a,b)' -> (name, (args...)) for an opcode of ``kind``. Raises RulesError naming the file,
    entry and field with the allowed opcodes or argument values."""
    m = _OP_RE.match(text or "")
    allowed = sorted(n for n, s in opcodes.items() if s["kind"] == kind)
    if not m or m.group(1) not in allowed:
        field_error(file, entry, fld, f"{(text or '').strip()!r}; allowed {kind} opcodes: {', '.join(allowed)}")
    name, spec = m.group(1), opcodes[m.group(1)]
    raw = [a.strip() for a in (m.group(2) or "").split(",") if a.strip()]
    if len(raw) != len(spec["args"]):
        field_error(file, entry, fld, f"{name} takes {len(spec['args'])} argument(s), got {len(raw)}: {text.strip()!r}")
    vals = []
    for a, s in zip(raw, spec["args"]):
        choices = {"clan": CLANS, "weapon": WEAPONS, "weapon_or_any": WEAPONS + ("any",), "when": WHEN}.get(s["kind"])
        if choices is not None:
            if a.lower() not in choices:
                field_error(file, entry, fld, f"{name}: {a!r}; allowed: {', '.join(choices)}")
            vals.append(a.lower())
            continue
        try:
            v = int(a)
        except ValueError:
            v = None
        if v is None or not s["min"] <= v <= s["max"]:
            field_error(file, entry, fld, f"{name}: {a!r}; allowed: an integer {s['min']}..{s['max']}")
        vals.append(v)
    return name, tuple(vals)


def _csv_rows(path: Path, columns: list[str], what: str) -> list[dict]:
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            lines = [ln for ln in fh if not ln.startswith("#")]
    except FileNotFoundError:
        raise RulesError(f"{path}: file not found") from None
    except UnicodeDecodeError:
        raise RulesError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise RulesError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        rows = list(csv.DictReader(lines))
    except csv.Error as exc:
        raise RulesError(f"{path}: not valid CSV: {exc}") from None
    if not rows:
        raise RulesError(f"{path}: no {what}")
    missing = [c for c in columns if c not in rows[0]]
    extra = [c for c in rows[0] if c not in columns]
    if missing or extra:
        raise RulesError(f"{path}: header: " + (f"missing column(s) {missing}" if missing else f"unknown column(s) {extra}")
                         + f"; required: {', '.join(columns)}")
    seen = set()
    for i, r in enumerate(rows):
        if None in r or any(v is None for v in r.values()):
            raise RulesError(f"{path}: row {i + 1}: {len(columns)} fields expected ({', '.join(columns)})")
        name = r["name"].strip()
        if not name:
            raise RulesError(f"{path}: row {i + 1}: field 'name': empty")
        if name.lower() in seen:
            raise RulesError(f"{path}: row {i + 1}: field 'name': {name!r} appears twice; give each row its own name")
        seen.add(name.lower())
    return rows


def _int(file, entry, fld, text, lo, hi) -> int:
    try:
        v = int(str(text).strip())
    except ValueError:
        field_error(file, entry, fld, f"{text!r}; allowed: an integer {lo}..{hi}")
    return check_int(file, entry, fld, v, lo, hi)


def _bool(file, entry, fld, text) -> bool:
    low = str(text).strip().lower()
    if low not in ("true", "false"):
        field_error(file, entry, fld, f"{text!r}; allowed: true, false")
    return low == "true"


def load_cards(path: Path, opcodes: dict, patch=None) -> tuple:
    """cards.csv (+ card patches, core.loading.apply_row_patch: a new card needs ``kind``) -> Cards,
    validated (file, entry and field in every error; DIGEST §5.1, §5.2)."""
    from ..core.loading import apply_row_patch, patch_list
    rows = _csv_rows(path, CARD_COLUMNS, "cards")
    for ppath, pdata in patch_list(patch):
        rows = apply_row_patch(rows, ppath, pdata, [c for c in CARD_COLUMNS if c != "name"], ("kind",))
    cards = []
    for r in rows:
        name = r["name"].strip()
        e = r.get("_entry") or f"card {name}"
        kind = r["kind"].strip().lower()
        if kind not in ("warrior", "tactic"):
            field_error(path, e, "kind", f"{r['kind']!r}; allowed: warrior, tactic")
        clan = r["clan"].strip().lower()
        copies = _int(path, e, "copies", r["copies"], 0, 40)  # 0: out of the deck (a patch's remove)
        if kind == "warrior":
            if clan not in CLANS:
                field_error(path, e, "clan", f"{r['clan']!r}; allowed: {', '.join(CLANS)}")
            try:
                need, anyn = parse_weapons(r["weapons"])
            except ValueError as exc:
                field_error(path, e, "weapons", str(exc))
            if (clan == "giant") != (anyn > 0) or (clan == "giant" and need.any()):
                field_error(path, e, "weapons", f"{r['weapons']!r}: Ice Giants (clan giant) print only 'any' symbols "
                                                f"and other clans only named weapons (DIGEST §5.2)")
            if need.sum() + anyn > 6:
                field_error(path, e, "weapons", f"{r['weapons']!r}: {need.sum() + anyn} symbols; allowed: at most 6")
            strength = _int(path, e, "strength", r["strength"], 1, 50)
            glory = _int(path, e, "glory", r["glory"], 0, 20)
            power = tuple(parse_op(path, e, "power", p, opcodes, "power") for p in r["power"].split(";") if p.strip())
            if r["tactic"].strip():
                field_error(path, e, "tactic", f"{r['tactic']!r}; a Warrior has no tactic (leave it empty)")
            tactic = ()
        else:
            if clan not in ("-", ""):
                field_error(path, e, "clan", f"{r['clan']!r}; a Tactic has no clan (write -)")
            for col in ("weapons", "power"):
                if r[col].strip():
                    field_error(path, e, col, f"{r[col]!r}; a Tactic has none (leave it empty)")
            for col in ("strength", "glory"):
                if r[col].strip() not in ("", "0"):
                    field_error(path, e, col, f"{r[col]!r}; a Tactic has none (0 or empty)")
            need, anyn, strength, glory, power = np.zeros(5, np.int8), 0, 0, 0, ()
            parts = [p for p in r["tactic"].split(";") if p.strip()]
            if not parts:
                field_error(path, e, "tactic", "empty; a Tactic needs an opcode: "
                                               + ", ".join(sorted(n for n, s in opcodes.items() if s["kind"] == "tactic")))
            tactic = tuple(parse_op(path, e, "tactic", p, opcodes, "tactic") for p in parts)
        cards.append(Card(name, kind, clan if kind == "warrior" else "-", r["weapons"].strip(), need, int(anyn),
                          strength, glory, power, tactic, copies, r["text"].strip()))
    return tuple(cards)


def load_jarls(path: Path, opcodes: dict) -> tuple:
    """jarls.csv -> Jarls, validated (DIGEST §5.1; 003 l.31, 38-39, 49-50)."""
    jarls = []
    for r in _csv_rows(path, JARL_COLUMNS, "Jarls"):
        name = r["name"].strip()
        e = f"Jarl {name}"
        combine = r["combine"].strip().lower()
        if combine not in ("both", "either"):
            field_error(path, e, "combine", f"{r['combine']!r}; allowed: both, either")
        cond = r["condition"].strip()
        jarls.append(Jarl(
            name, _bool(path, e, "recommended", r["recommended"]), _int(path, e, "min_players", r["min_players"], 2, 3),
            _bool(path, e, "solo", r["solo"]), combine,
            parse_op(path, e, "primary", r["primary"], opcodes, "ability"),
            parse_op(path, e, "secondary", r["secondary"], opcodes, "ability"),
            parse_op(path, e, "condition", cond, opcodes, "condition") if cond else None, r["text"].strip()))
    return tuple(jarls)


MODULE_LEVELS = 8  #: most levels a King's bonus card may have (tables.py sizes)


def load_modules(path: Path, opcodes: dict) -> Modules:
    """modules.toml -> Modules, validated (003 l.157-162, 192-205; DIGEST §5.12). Raises RulesError
    naming the file, entry and field with the allowed values."""
    d = read_toml(path, RulesError)
    extra = sorted(set(d) - {"loki", "king"})
    if extra:
        field_error(path, "modules", extra[0], "unknown table; allowed: [[loki]], [king]")
    cards = require_key(path, "modules", d, "loki", list)
    if not 1 <= len(cards) <= 16:
        field_error(path, "modules", "loki", f"{len(cards)} cards; allowed: 1..16 [[loki]] tables")
    loki, seen = [], set()
    for i, c in enumerate(cards):
        if not isinstance(c, dict):
            field_error(path, f"loki[{i}]", "loki", f"{c!r}; allowed: a [[loki]] table")
        e = f"loki[{i}]"
        unknown = sorted(set(c) - {"name", "recommended", "pre_discard", "tiers"})
        if unknown:
            field_error(path, e, unknown[0], "unknown field; allowed: name, recommended, pre_discard, tiers")
        name = require_key(path, e, c, "name", str).strip()
        if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name) or name in ("recommended", "random") or name in seen:
            field_error(path, e, "name", f"{name!r}; allowed: a new lowercase name of letters, digits, '-' and '_' "
                                         "(not 'recommended' or 'random'; --option loki_card=NAME takes it)")
        seen.add(name)
        e = f"loki {name}"
        rec = require_key(path, e, c, "recommended", bool)
        pre = check_int(path, e, "pre_discard", c.get("pre_discard"), -40, 40)
        tiers = require_key(path, e, c, "tiers", list)
        if not 1 <= len(tiers) <= 6:
            field_error(path, e, "tiers", f"{len(tiers)} tiers; allowed: 1..6 [difference, bonus] pairs")
        out, last = [], -1
        for k, t in enumerate(tiers):
            if not (isinstance(t, list) and len(t) == 2 and isinstance(t[1], str)):
                field_error(path, e, f"tiers[{k}]", f"{t!r}; allowed: [difference at least, \"bonus(n)\"]")
            lo = check_int(path, e, f"tiers[{k}] difference", t[0], 0, 100)
            if lo <= last:
                field_error(path, e, f"tiers[{k}] difference", f"{lo}; allowed: above the tier before ({last})")
            last = lo
            out.append((lo, parse_op(path, e, f"tiers[{k}]", t[1], opcodes, "bonus")))
        loki.append(LokiCard(name, rec, pre, tuple(out)))
    if sum(c.recommended for c in loki) != 1:
        field_error(path, "loki", "recommended", f"{sum(c.recommended for c in loki)} cards marked; allowed: exactly 1 "
                                                 "(the card for the first game, 003 l.160)")
    k = require_key(path, "modules", d, "king", dict)
    unknown = sorted(set(k) - {"end_glory", "kings", "glory", "attack_dice"})
    if unknown:
        field_error(path, "king", unknown[0], "unknown field; allowed: end_glory, kings, glory, attack_dice")
    check_int(path, "king", "end_glory", k.get("end_glory"), 0, 20)
    kings = require_key(path, "king", k, "kings", list)
    if len(kings) != 5:
        field_error(path, "king", "kings", f"{kings!r}; allowed: 5 integers 1..2, for 2..6 players")
    for P, v in enumerate(kings, 2):
        check_int(path, "king", f"kings[{P - 2}]", v, 1, min(2, P // 2 if P >= 4 else 1))
    for fld, hi in (("glory", 20), ("attack_dice", 3)):
        rows = require_key(path, "king", k, fld, list)
        if len(rows) != 5 or not all(isinstance(r, list) and 1 <= len(r) <= MODULE_LEVELS for r in rows):
            field_error(path, "king", fld, f"{rows!r}; allowed: 5 lists (2..6 players) of 1..{MODULE_LEVELS} levels")
        for P, r in enumerate(rows, 2):
            for v in r:
                check_int(path, "king", f"{fld}[{P - 2}]", v, 0, hi)
            if fld == "attack_dice" and len(r) != len(k["glory"][P - 2]):
                field_error(path, "king", f"attack_dice[{P - 2}]", f"{len(r)} levels; allowed: as many as glory[{P - 2}] "
                                                                   f"({len(k['glory'][P - 2])})")
    return Modules(tuple(loki), dict(k))


def loki_pre_max(content_modules: Modules, choice: str) -> int:
    """The largest pre-discard change the chosen Loki card can bring (``random``: any card)."""
    cards = content_modules.loki
    if choice == "random":
        return max(c.pre_discard for c in cards)
    if choice == "recommended":
        return next(c.pre_discard for c in cards if c.recommended)
    return next(c.pre_discard for c in cards if c.name == choice)


def load_rules(path: Path) -> dict:
    """rules.toml, validated: engine, players, setup, turn, dice, scoring and options."""
    d = read_toml(path, RulesError)
    if d.get("engine") != "valhalla-dice":
        field_error(path, "rules", "engine", f"{d.get('engine')!r}; expected 'valhalla-dice'")
    lo = check_int(path, "rules", "min_players", d.get("min_players"), 2, 6)
    check_int(path, "rules", "max_players", d.get("max_players"), lo, 6)
    ints = {"setup": {"deck": (1, 400), "shields": (1, 10), "jarl_deal": (0, 5), "hand_draw": (0, 20),
                      "hand_discard": (0, 20), "reshuffle_hand_discards_at": (2, 7)},
            "turn": {"team_cap": (1, 8), "pair_weapon_cap": (2, 12), "draw": (1, 5), "keep": (1, 5)},
            "dice": {"attacker": (1, 9), "defender": (1, 9), "grey": (0, 9)},
            "scoring": {"per_shield": (0, 20)}}
    for sec, keys in ints.items():
        t = require_key(path, "rules", d, sec, dict)
        for k, (a, b) in keys.items():
            check_int(path, sec, k, t.get(k), a, b)
    pre = require_key(path, "setup", d["setup"], "pre_discard", list)
    if len(pre) != 5:
        field_error(path, "setup", "pre_discard", f"{pre!r}; allowed: 5 integers, for 2..6 players")
    for v in pre:
        check_int(path, "setup", "pre_discard", v, 0, 400)
    sc = d["scoring"]
    own = require_key(path, "scoring", sc, "own_shields_score", list)
    if len(own) != 5 or not all(isinstance(v, bool) for v in own):
        field_error(path, "scoring", "own_shields_score", f"{own!r}; allowed: 5 true/false, for 2..6 players")
    bonus = require_key(path, "scoring", sc, "set_bonus", list)
    if len(bonus) != 5:
        field_error(path, "scoring", "set_bonus", f"{bonus!r}; allowed: 5 lists of [set size, bonus], for 2..6 players")
    for i, sets in enumerate(bonus):
        if not isinstance(sets, list) or not all(isinstance(s, list) and len(s) == 2 for s in sets):
            field_error(path, "scoring", f"set_bonus[{i}]", f"{sets!r}; allowed: a list of [set size, bonus]")
        for size, pts in sets:
            check_int(path, "scoring", f"set_bonus[{i}] set size", size, 2, 5)
            check_int(path, "scoring", f"set_bonus[{i}] bonus", pts, 0, 50)
    opts = require_key(path, "rules", d, "options", dict)
    for k, vals in opts.items():
        if not isinstance(vals, list) or not vals or not all(isinstance(v, str) for v in vals):
            field_error(path, "options", k, f"{vals!r}; allowed: a list of values, the default first")
    return d


def load_content(data_dir: Path | None = None, options: dict | None = None, patch=None,
                 cards_path: Path | None = None) -> Content:
    """The content of ``data_dir`` (default: simulator/data/valhalla-dice/), validated.

    options: {name: value} of rules.toml [options] (deck_check = "false" accepts a deck of another
    size); patch: card patches (core.loading.patch_list); cards_path: a cards file in place of
    data_dir's cards.csv. Raises RulesError naming the file, entry
    and field with the allowed values."""
    data_dir = Path(data_dir) if data_dir is not None else DICE_DIR
    rules = load_rules(data_dir / "rules.toml")
    opts = {k: v[0] for k, v in rules["options"].items()}
    opcodes = load_opcodes(data_dir / "opcodes.toml")
    modules = load_modules(data_dir / "modules.toml", opcodes) if (data_dir / "modules.toml").exists() else None
    loki_names = [c.name for c in modules.loki] if modules else []
    for k, v in (options or {}).items():
        if k not in rules["options"]:
            raise unknown_option(k, rules["options"], "Valhalla (dice game)")
        text = str(v).lower() if isinstance(v, bool) else str(v)  # --option deck_check=false arrives as False
        allowed = rules["options"][k] + (loki_names if k == "loki_card" else [])
        if text not in allowed:
            raise RulesError(f"--option {k}={v!r}; allowed: {', '.join(allowed)}")
        opts[k] = text
    for k in ("loki_deception", "king_of_the_hill"):
        if opts.get(k) == "true" and modules is None:
            raise RulesError(f"{data_dir / 'modules.toml'}: file not found; option {k}=true needs it")
    if opts.get("loki_card", "recommended") != "recommended" and opts.get("loki_deception") != "true":
        raise RulesError(f"--option loki_card={opts['loki_card']}: Loki's Deception is off; allowed with "
                         "--module loki-deception (option loki_deception=true)")
    if opts.get("two_any_reading") == "wild" and opts.get("weapons_exchange") == "all_one":
        raise RulesError("option two_any_reading=wild with weapons_exchange=all_one: not built together; "
                         "allowed: either one with the other's default (x_only / printed)")
    cards_path = Path(cards_path) if cards_path is not None else data_dir / "cards.csv"
    cards = load_cards(cards_path, opcodes, patch)
    if opts.get("clan_powers") == "swap_wolf_deer":
        cards = swap_clan_powers(cards, "wolf", "deer")
    jarls = load_jarls(data_dir / "jarls.csv", opcodes)
    n = sum(c.copies for c in cards)
    if opts.get("deck_check", "true") == "true" and n != rules["setup"]["deck"]:
        src = f"{cards_path}" + (" with the card patches" if patch else "")
        raise RulesError(f"{src}: copies: the deck holds {n} cards; rules.toml [setup] deck = "
                         f"{rules['setup']['deck']} (or option deck_check=false)")
    extra = loki_pre_max(modules, opts.get("loki_card", "recommended")) if opts.get("loki_deception") == "true" else 0
    try:
        check_setup_fits(data_dir, rules, cards, extra)
    except RulesError as exc:
        if not patch:
            raise
        from ..core.loading import patch_list
        names = ", ".join(str(p) for p, _ in patch_list(patch))
        raise RulesError(f"{names}: the patched deck no longer fits every player count ({exc})") from None
    rules = dict(rules, chosen=opts)
    return Content(rules, opcodes, cards, jarls, load_dice(data_dir / "dice.toml"), cards_path, modules)


def swap_clan_powers(cards: tuple, a: str, b: str) -> tuple:
    """Option clan_powers=swap_wolf_deer (valhalla-dice.md §2.1, a sensitivity test of the
    PROVISIONAL power assignment): the k-th card of clan ``a`` with a power takes the power (and
    its text) of the k-th of clan ``b``, and the other way round, in cards.csv order; cards past the
    shorter list keep theirs."""
    import dataclasses
    rows = list(cards)
    ia = [i for i, c in enumerate(rows) if c.clan == a and c.power]
    ib = [i for i, c in enumerate(rows) if c.clan == b and c.power]
    for i, j in zip(ia, ib):
        ci, cj = rows[i], rows[j]
        rows[i] = dataclasses.replace(ci, power=cj.power, text=cj.text)
        rows[j] = dataclasses.replace(cj, power=ci.power, text=ci.text)
    return tuple(rows)


def check_setup_fits(data_dir: Path, rules: dict, cards: tuple, loki_pre: int = 0) -> None:
    """The setup of every player count fits the deck (003 l.55-68): the pre-discard (plus
    ``loki_pre``, a Loki's Deception card's change, 003 l.159), P + 1 table Warriors and P hands;
    hands keep something. Raises RulesError naming rules.toml's field."""
    s = rules["setup"]
    path = data_dir / "rules.toml"
    if s["hand_discard"] > s["hand_draw"]:
        field_error(path, "setup", "hand_discard", f"{s['hand_discard']}; allowed: 0..hand_draw ({s['hand_draw']})")
    n = sum(c.copies for c in cards)
    warriors = sum(c.copies for c in cards if c.kind == "warrior")
    for P in range(rules["min_players"], rules["max_players"] + 1):
        pre = max(0, s["pre_discard"][P - 2] + loki_pre)
        need = pre + (P + 1) + P * s["hand_draw"]
        if need > n:
            field_error(path, "setup", f"pre_discard[{P - 2}]",
                        f"{P} players need {need} cards (pre-discard {pre}"
                        + (f" with the Loki card's {loki_pre:+d}" if loki_pre else "")
                        + f", {P + 1} table Warriors, {P} hands of {s['hand_draw']}); the deck holds {n}")
        if warriors - pre < P + 1:
            raise RulesError(f"{data_dir / 'cards.csv'}: {warriors} Warriors; {P} players need at least "
                             f"{P + 1 + pre} (the pre-discard, then {P + 1} table Warriors)")
