"""Loading helpers both engines share: the data folder, the errors a malformed file raises
(one line naming the file, entry and field, with the allowed values), TOML reading, field
checks, the effect-text parser and the card-patch list."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from . import enums as E

DATA_DIR = Path(__file__).parents[1] / "data"


class RulesError(ValueError):
    """A rule-set data file is malformed (message: file, entry, field, allowed)."""


class CardLookup:
    """Card lookups shared by the rule sets (needs ``card_names``)."""

    def card_ids(self, name: str) -> list[int]:
        """Row ids of every card named ``name`` (one per age it appears in). Raises RulesError
        (with close names) for an unknown card."""
        ids = [i for i, n in enumerate(self.card_names) if n == name]
        if not ids:
            import difflib
            close = difflib.get_close_matches(name, sorted(set(self.card_names)), n=3)
            hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
            raise RulesError(f"unknown card {name!r}{hint}")
        return ids


def field_error(file, entry, fld, msg):
    if file == "--option" and entry == "options":  # a command line's --option NAME=VALUE
        raise RulesError(f"--option {fld}: {msg}")
    raise RulesError(f"{file}: {entry}: field '{fld}': {msg}")


def unknown_option(key: str, allowed, game: str) -> RulesError:
    """The one error line for an --option a rule set does not have: the allowed names, and the
    closest one when the key looks misspelt."""
    import difflib
    names = sorted(allowed)
    close = difflib.get_close_matches(str(key), names, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return RulesError(f"--option {key}: unknown option for {game}; allowed: {', '.join(names)}{hint}")


def toml_bytes(data: bytes) -> dict:
    """Parse TOML from the bytes of a file; a UTF-8 byte-order mark (some Windows editors write one)
    is read like none. Raises UnicodeDecodeError or tomllib.TOMLDecodeError."""
    return tomllib.loads(data.decode("utf-8-sig"))


def read_toml(path: Path, error: type = None) -> dict:
    """Parse a TOML file; raises ``error`` (default RulesError) naming the file for a missing,
    unreadable, non-UTF-8 or malformed file."""
    error = error or RulesError
    try:
        with open(path, "rb") as fh:
            return toml_bytes(fh.read())
    except FileNotFoundError:
        raise error(f"{path}: file not found") from None
    except IsADirectoryError:
        raise error(f"{path}: is a directory, not a TOML file") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise error(f"{path}: not UTF-8 text") from None
    except RecursionError:
        raise error(f"{path}: not valid TOML: nested too deeply") from None
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror or exc}") from None


def load_toml(path: Path) -> dict:
    return read_toml(path, RulesError)


def check_int(file, entry, fld, v, lo, hi):
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        field_error(file, entry, fld, f"got {v!r}; allowed: an integer {lo}..{hi}")
    return v


_KIND_NAMES = {list: "a list", dict: "a table", str: "a string"}


def require_key(file, entry, d, key, kind: type | None = None):
    """``d[key]``; RulesError naming file, entry and field when ``d`` is not a table, the key is
    missing, or (with ``kind``: list, dict or str) its value is of another type."""
    if not isinstance(d, dict):
        field_error(file, entry, key, f"{entry} is {d!r}; expected a table")
    if key not in d:
        field_error(file, entry, key, "missing")
    v = d[key]
    if kind is not None and not isinstance(v, kind):
        field_error(file, entry, key, f"{v!r}; expected {_KIND_NAMES[kind]}")
    return v


def check_opcode_args(file, name, spec) -> None:
    """An opcodes.toml entry's ``args``: a list of {kind = "int", min, max} (min <= max) or
    {kind = "region"}. Raises RulesError naming the file, opcode and field."""
    args = spec.get("args", []) if isinstance(spec, dict) else None
    if not isinstance(args, list):
        field_error(file, name, "args", f"{args!r}; expected a list of {{kind = ...}} tables")
    for i, a in enumerate(args):
        kind = a.get("kind") if isinstance(a, dict) else None
        if kind == "region":
            continue
        if kind != "int":
            field_error(file, name, f"args[{i}]", f"{a!r}; allowed: {{ kind = \"int\", min = .., max = .. }} "
                                                 f"or {{ kind = \"region\" }}")
        lo = check_int(file, name, f"args[{i}].min", a.get("min"), -10 ** 6, 10 ** 6)
        check_int(file, name, f"args[{i}].max", a.get("max"), lo, 10 ** 6)
    if len(args) > 2:
        field_error(file, name, "args", f"{len(args)} arguments; allowed: at most 2")


def track_steps(path, entry, vals, n=E.N_STEPS):
    if not isinstance(vals, list) or len(vals) != n:
        field_error(path, entry, "steps", f"{vals!r}; allowed: a list of {n} integers")
    return [check_int(path, entry, "steps", v, 0, 100) for v in vals]


_EFFECT_RE = re.compile(r"^\s*([a-z_]+)\s*(?:\(([^)]*)\))?\s*$")


def parse_effects(file, entry, text: str, opcodes: dict, regions: list[str]):
    """'name(a,b); name' -> list of (code, a, b). Raises RulesError on unknown names/args."""
    out = []
    for part in [p for p in text.split(";") if p.strip()]:
        m = _EFFECT_RE.match(part)
        name = part.strip().split("(")[0].strip()
        if not m and name in opcodes:
            n = len(opcodes[name].get("args", []))
            form = f"{name}({', '.join('ab'[:n])})" if n else name
            field_error(file, entry, "effects", f"{part.strip()!r}: malformed; write {form}")
        if not m or m.group(1) not in opcodes:
            field_error(file, entry, "effects", f"{part.strip()!r}; allowed opcodes: {sorted(opcodes)}")
        spec = opcodes[m.group(1)]
        raw = [a.strip() for a in (m.group(2) or "").split(",") if a.strip()]
        spec = dict(spec, args=spec.get("args", []))  # an opcode without args takes none
        if len(raw) != len(spec["args"]):
            field_error(file, entry, "effects", f"{m.group(1)} takes {len(spec['args'])} argument(s), got {len(raw)}")
        vals = []
        for a, s in zip(raw, spec["args"]):
            if s["kind"] == "region":
                if a not in regions:
                    field_error(file, entry, "effects", f"{m.group(1)}: region {a!r}; allowed: {regions}")
                vals.append(regions.index(a))
            else:
                try:
                    v = int(a)
                except ValueError:
                    v = None
                if v is None or not s["min"] <= v <= s["max"]:
                    field_error(file, entry, "effects", f"{m.group(1)}: {a!r}; allowed: an integer {s['min']}..{s['max']}")
                vals.append(v)
        vals += [0] * (2 - len(vals))
        out.append((spec["code"], vals[0], vals[1]))
    if len(out) > E.MAX_EFFECTS:
        field_error(file, entry, "effects", f"{len(out)} effects; allowed: at most {E.MAX_EFFECTS}")
    return out


class ScenarioError(ValueError):
    """A malformed scenario file or an illegal step (message: file, field, allowed values)."""


class ScenarioRefusal(ScenarioError):
    """A well-formed step the engine refuses as illegal (what ``expect_error`` may expect)."""


def patch_list(patch) -> list[tuple[Path, dict | None]]:
    """None | path | [path or (label, dict), ...] -> [(path or label, dict or None)]."""
    if patch is None:
        return []
    items = patch if isinstance(patch, (list, tuple)) and not (len(patch) == 2 and isinstance(patch[1], dict)) \
        else [patch]
    return [(Path(x[0]), x[1]) if isinstance(x, tuple) else (Path(x), None) for x in items]


def patches_sha256(patch) -> str | None:
    """SHA-256 over the card patches (file bytes, or the JSON of an inline table), None without."""
    items = patch_list(patch)
    if not items:
        return None
    import hashlib
    import json
    h = hashlib.sha256()
    for pp, pdata in items:
        h.update(pp.read_bytes() if pdata is None else json.dumps(pdata, sort_keys=True).encode())
    return h.hexdigest()




def _games_with_card(card: str) -> list[str]:
    """The shipped rule sets (folders of DATA_DIR) whose cards.csv has a card named ``card``: the
    hint for a patch given to another game."""
    import csv
    games = []
    for path in sorted(DATA_DIR.glob("*/cards.csv")):
        with path.open(encoding="utf-8") as f:
            rows = csv.DictReader(line for line in f if not line.startswith("#"))
            if any((r.get("name") or "").strip() == card for r in rows):
                games.append(path.parent.name)
    return games


#: top-level keys of an experiment file (analysis/experiment.py) that take a value, not a table:
#: a patch file holding one is an experiment file given to --patch
_EXPERIMENT_KEYS = ("name", "ruleset", "players", "lineup", "games", "seed", "batch_size", "rotate", "keep_rows",
                    "patches", "modules", "sweep", "mode")


def patch_entry(patch_path, card: str, change, fields_ok: list[str], extra: list[str], names: list[str]) -> dict:
    """Check one card's table of a card patch: a table whose keys are card columns
    (``fields_ok``), ``remove``/``add`` (true or false) or ``extra`` keys; values integers or
    strings; ``remove`` alone; ``add`` only for a new name, any other name one of ``names`` (checked
    first, with close names). Returns the column changes.
    Raises RulesError naming the patch file, the card and the field."""
    entry = f"card {card!r}"
    allowed = fields_ok + ["remove", "add"] + extra
    if not isinstance(change, dict):
        if card in _EXPERIMENT_KEYS:  # `volva study FILE`'s keys: its [patch] table is not a patch file
            raise RulesError(f"{patch_path}: key {card!r}: an experiment file (volva study FILE), not a card "
                             "patch; for --patch, put its [patch] table in a file of its own")
        raise RulesError(f"{patch_path}: {entry}: expected a table of fields (e.g. [\"{card}\"] value = 4); "
                         f"allowed fields: {allowed}")
    if change.get("add") is not True and card not in names:  # before its fields: a card of another game
        import difflib
        close = difflib.get_close_matches(card, names, n=3)
        hint = f"; did you mean {', '.join(repr(x) for x in close)}?" if close else ""
        games = _games_with_card(card)
        if games:
            which = " and ".join(repr(g) for g in games)
            hint += f"{' It' if close else '; it'} is a card of the rule set {which} (--ruleset {games[0]})"
        raise RulesError(f"{patch_path}: {entry}: no such card (add 'add = true' for a new one){hint}")
    bad = [k for k in change if k not in allowed]
    if bad:
        raise RulesError(f"{patch_path}: {entry}: field '{bad[0]}': unknown; allowed: {allowed}")
    for flag in ("remove", "add"):
        if flag in change and not isinstance(change[flag], bool):
            raise RulesError(f"{patch_path}: {entry}: field '{flag}': {change[flag]!r}; allowed: true or false")
    fields = {k: v for k, v in change.items() if k in fields_ok}
    for k, v in fields.items():
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            raise RulesError(f"{patch_path}: {entry}: field '{k}': {v!r}; allowed: an integer or a string")
    if change.get("remove") and fields:
        raise RulesError(f"{patch_path}: {entry}: field 'remove': with other fields ({', '.join(fields)}); "
                         "a removed card is out of the decks, so change nothing else")
    if change.get("add") and card in names:
        raise RulesError(f"{patch_path}: {entry}: field 'add': a card of that name exists; "
                         "drop 'add = true' to change it")
    return fields


def note_patched(row: dict, changes: dict, patch_path, entry: str, remove: bool = False) -> None:
    """Record in ``row['_set']`` which patch set each column of a card row (``remove``: the patch
    removes the card). Raises RulesError when an earlier patch (another file or table) set a
    column to another value, or removed the card another changes (or the reverse): with several
    patches the last would win without a word, so they must not disagree."""
    seen = row["_set"] = dict(row.get("_set", {}))
    mine = str(patch_path)
    others = {k: v for k, v in seen.items() if v[0] != mine}
    if remove and others:
        k, (who, _) = next(iter(others.items()))
        raise RulesError(f"{patch_path}: {entry}: field 'remove': {who} changes the card ('{k}'); "
                         "allowed: patches that agree (put the change in one patch)")
    if "remove" in others and changes:
        raise RulesError(f"{patch_path}: {entry}: field '{next(iter(changes))}': {others['remove'][0]} removes "
                         "the card; allowed: patches that agree (put the change in one patch)")
    for k, v in changes.items():
        prev = others.get(k)
        if prev is not None and prev[1] != str(v):
            raise RulesError(f"{patch_path}: {entry}: field '{k}': {v}, but {prev[0]} sets it to {prev[1]}; "
                             "allowed: patches that agree on each field (put the change in one patch)")
        seen[k] = (mine, str(v))
    if remove:
        seen["remove"] = (mine, "true")


def check_added_twice(rows: list[dict], patch_path, card: str, change) -> None:
    """Raise RulesError when ``change`` adds a card an earlier patch added already (the same patch
    given twice, or two patches adding one name)."""
    if not (isinstance(change, dict) and change.get("add") is True):
        return
    for r in rows:
        who = r.get("_set", {}).get("add")
        if who is not None and (r["name"] or "").strip() == card:
            again = " (the same patch given twice?)" if who[0] == str(patch_path) else ""
            raise RulesError(f"{patch_path}: card {card!r}: field 'add': {who[0]} adds this card already{again}; "
                             "allowed: one patch that adds it (change its fields there)")


def apply_row_patch(rows: list[dict], patch_path: Path, data: dict | None, fields_ok: list[str],
                    required_new: tuple = ()) -> list[dict]:
    """Apply a card patch to rows read from a cards.csv (dicts of column -> text): one table per
    card name, setting columns (``fields_ok``), ``remove = true`` (no copies; the row stays, so card
    ids keep) or ``add = true`` (a new card: the ``required_new`` columns given, copies default 1).
    Changed rows get ``_entry`` naming the patch, for the row validation's errors. Returns new rows;
    raises RulesError naming the patch file, card and field."""
    patch_path = Path(patch_path)
    data = read_toml(patch_path) if data is None else data
    if not data:
        raise RulesError(f"{patch_path}: empty patch (expected one table per card name)")
    rows = [dict(r) for r in rows]
    names = sorted({(r["name"] or "").strip() for r in rows})
    columns = ["name", *fields_ok]
    for card, change in data.items():
        entry = f"card {card!r}"
        check_added_twice(rows, patch_path, card, change)
        fields = patch_entry(patch_path, card, change, fields_ok, [], names)
        if change.get("add"):
            for col in required_new:
                if col not in fields:
                    raise RulesError(f"{patch_path}: {entry}: field '{col}': required for a new card")
            new = {col: "" for col in columns}
            new["copies"] = "1"
            new.update({k: str(v) for k, v in fields.items()}, name=card)
            new["_entry"] = f"{entry} (added by {patch_path})"
            note_patched(new, dict(fields, add="true"), patch_path, entry)
            rows.append(new)
            continue
        for r in rows:
            if (r["name"] or "").strip() == card:
                note_patched(r, fields, patch_path, entry, remove=bool(change.get("remove")))
                if change.get("remove"):
                    r["copies"] = "0"
                r.update({k: str(v) for k, v in fields.items()})
                r["_entry"] = f"{entry} (patched by {patch_path})"
    return rows
