"""Card patches: what-if edits of a card list, as data (volva compare --patch, experiment
[patch] tables, volva run/study --patch).

A patch is TOML with one table per card name (format in :func:`apply_card_patch`); it edits
the rows read from cards.csv before they are validated like any other row, so a patched card
set is checked exactly as the shipped one.
"""
from __future__ import annotations

from pathlib import Path

from ..core.loading import RulesError, check_added_twice, note_patched, patch_entry, read_toml

CARD_COLUMNS = ["age", "name", "type", "god", "value", "quest_glory", "copies_min1",
                "copies_3p", "copies_4p", "copies_5p", "effects", "effect"]  #: cards.csv header

PATCH_FIELDS = [c for c in CARD_COLUMNS if c != "name"]
COPY_COLUMNS = ["copies_min1", "copies_3p", "copies_4p", "copies_5p"]


def apply_card_patch(rows: list[dict], patch_path: Path, data: dict | None = None) -> list[dict]:
    """Apply a card patch (TOML) to card rows; returns new rows (the input is not changed).

    Format: one table per card name, e.g. ``"Tyr's Smite".value = 4`` or::

        ["Tyr's Smite"]          # every row of that name (all ages) ...
        ages = [2]               # ... or only these ages
        value = 4                # any cards.csv column but name
        ["Troll"]
        remove = true            # every copy out of the decks (the row stays, so card ids keep)
        ["Fenrir's Bite"]
        add = true               # a new card: every column of cards.csv (copies default 0)
        age = 2
        type = "battle"

    A changed or added row is validated like a cards.csv row; errors name the patch file and
    the card. Raises RulesError for unknown cards (with close names), unknown fields, ``add``
    of an existing name, or a bad value type.  ``data``: the patch as a dict already read
    (``patch_path`` then only labels errors, e.g. an experiment file's [patch] table).
    """
    patch_path = Path(patch_path)
    if data is None:
        data = read_toml(patch_path)
    if not data:
        raise RulesError(f"{patch_path}: empty patch (expected one table per card name)")
    rows = [dict(r) for r in rows]
    names = sorted({(r["name"] or "").strip() for r in rows})
    for card, change in data.items():
        entry = f"card {card!r}"
        check_added_twice(rows, patch_path, card, change)
        fields = patch_entry(patch_path, card, change, PATCH_FIELDS, ["ages"], names)
        if change.get("add"):
            need = [k for k in ("age", "type") if k not in fields]
            if need:
                raise RulesError(f"{patch_path}: {entry}: field '{need[0]}': required for a new card")
            if not any(int(str(fields.get(c, 0)) or 0) > 0 for c in COPY_COLUMNS
                       if str(fields.get(c, 0)).strip().lstrip("-").isdigit()):
                raise RulesError(f"{patch_path}: {entry}: field 'copies_min1': a new card needs copies "
                                 f"({', '.join(COPY_COLUMNS)}), or it is never dealt")
            new = {c: "" for c in CARD_COLUMNS}
            new.update({c: "0" for c in COPY_COLUMNS})
            new.update({k: str(v) for k, v in fields.items()}, name=card)
            new["_file"], new["_entry"] = str(patch_path), f"{entry} (added)"
            note_patched(new, dict(fields, add="true"), patch_path, entry)
            rows.append(new)
            continue
        ages = change.get("ages")
        if ages is not None and (not isinstance(ages, list) or not all(isinstance(a, int) and 1 <= a <= 3
                                                                       for a in ages)):
            raise RulesError(f"{patch_path}: {entry}: field 'ages': {ages!r}; allowed: a list of ages 1..3")
        hit = 0
        for r in rows:
            if (r["name"] or "").strip() != card or (ages is not None and int(r["age"]) not in ages):
                continue
            hit += 1
            t = str(fields.get("type", r["type"])).strip()
            if t == "quest" and "value" in fields:
                raise RulesError(f"{patch_path}: {entry}: field 'value': a quest has no value; "
                                 "its Glory is 'quest_glory'")
            note_patched(r, fields, patch_path, entry, remove=bool(change.get("remove")))
            if change.get("remove"):
                r.update({c: "0" for c in COPY_COLUMNS})
            r.update({k: str(v) for k, v in fields.items()})
            r["_file"], r["_entry"] = str(patch_path), f"{entry} ({r['_entry']} of the card file)"
        if hit == 0:
            raise RulesError(f"{patch_path}: {entry}: field 'ages': no row of that card in ages {ages}")
    return rows


