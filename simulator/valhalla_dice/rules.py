"""Valhalla (the dice-and-cards game) data: ``simulator/data/valhalla-dice/``.

``dice.toml`` gives the six faces of each die colour (red: attacker, black: defender, grey:
additional dice; DIGEST §5.1, §5.3). The layout is PROVISIONAL (no printed layout is public):
replace the file to study another die. Errors are :class:`RulesError` naming the file, entry and
field with the allowed values.
"""
from __future__ import annotations

from pathlib import Path

from ..core.loading import DATA_DIR, RulesError, read_toml
from .dice import FACES

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
