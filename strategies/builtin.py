"""Built-in strategies: name -> (policy kind, parameter vector).

A strategy is a ``(POL_* kind, float64[N_PARAMS] params)`` pair, the per-seat
element of the ``lineup`` list that :func:`simulator.engines.play_batch` takes.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from volva.simulator.core import enums as E

from .spec import greedy_defaults, library, load_strategy

#: name -> (POL_* kind, float64[N_PARAMS] default parameters); treat as read-only.
BUILTIN: dict[str, tuple[int, np.ndarray]] = {
    "random": (E.POL_RANDOM, np.zeros(E.N_PARAMS, np.float64)),
    "greedy": (E.POL_GREEDY, greedy_defaults()),
}


@lru_cache(maxsize=1)
def _card_names() -> tuple[str, ...]:
    from volva.simulator.engines import load_ruleset
    return tuple(load_ruleset().card_names)


@lru_cache(maxsize=1)
def archetypes() -> dict:
    """The shipped archetype library (strategies/library/*.toml), name -> Strategy."""
    return library(list(_card_names()))


def resolve(name: str) -> tuple[int, np.ndarray]:
    """Strategy name -> (POL_* kind, fresh float64[N_PARAMS] copy of its params).

    A name is a built-in (random, greedy), an archetype of strategies/library/, or a path
    to a strategy file (*.toml). Raises ValueError naming the allowed names, or a
    StrategyError (a ValueError) for a malformed file.
    """
    key = name.strip()
    if key in BUILTIN:
        kind, params = BUILTIN[key]
        return kind, params.copy()
    if key in archetypes():
        s = archetypes()[key]
        return s.kind, s.params.copy()
    if key.endswith(".toml"):
        s = load_strategy(key, list(_card_names()))
        return s.kind, s.params.copy()
    raise ValueError(f"unknown strategy {name!r}; allowed: {', '.join(sorted(BUILTIN) + sorted(archetypes()))}"
                     " or a strategy file (*.toml)")


def lineup_text(text: str) -> str:
    """``text`` stripped, or for ``@FILE`` the file's names joined by commas (names separated by
    commas or new lines, ``#`` comments). Raises ValueError naming the file it cannot read, or
    when there is no name at all (an empty file, or one of comments only)."""
    src = text.strip()
    if not src.startswith("@"):
        if not src:
            raise ValueError(f"lineup {text!r}: no strategy names; allowed: strategy names separated by commas")
        return src
    path = Path(src[1:])
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"lineup file {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"lineup file {str(path)!r}: not UTF-8 text (byte {exc.start}); "
                         f"allowed: strategy names separated by commas or new lines") from None
    names = ",".join(x for line in raw.splitlines() if (x := line.split("#")[0].strip()))
    if not names:
        raise ValueError(f"lineup {text!r}: no strategy names; allowed: strategy names separated by commas "
                         "or new lines")
    return names


def parse_lineup(text: str, n_players: int, resolver=None) -> list[str]:
    """A lineup -> list of n_players strategy names.

    Comma-separated names (built-in, archetype or *.toml file); ``name*k`` repeats a name k
    times, so ``thor-warlord,greedy*3`` is one strategy against a field of greedy and
    ``balanced*4`` a mirror match; ``@FILE`` reads the lineup from a text file (names
    separated by commas or new lines, ``#`` comments); ``resolver`` checks each name (default
    :func:`resolve`; Blood Rage: Valhalla's is :func:`strategies.valhalla.resolve`). Raises ValueError if the count
    differs from ``n_players`` (naming both counts), a name is unknown or the file is missing.
    """
    src = lineup_text(text)
    names = []
    for item in (x.strip() for x in src.split(",")):
        if not item:
            raise ValueError(f"lineup {text!r}: an empty name (two commas in a row, or one at an end); "
                             "allowed: strategy names separated by commas")
        name, star, count = item.partition("*")
        k = 1
        if star:
            if not count.strip().isdigit() or not 1 <= int(count) <= max(n_players, 1):
                raise ValueError(f"lineup item {item!r}: write name*k with k a whole number 1..{max(n_players, 1)} "
                                 f"(the clans of a {n_players}-player game)")
            k = int(count)
        names += [name.strip()] * k
    for n in names:  # an unknown name first: 'nobody' is a typo more often than a short lineup
        (resolver or resolve)(n)
    if len(names) != n_players:
        raise ValueError(f"lineup {text!r} names {len(names)} {'strategy' if len(names) == 1 else 'strategies'} "
                         f"but --players is {n_players}")
    return names
