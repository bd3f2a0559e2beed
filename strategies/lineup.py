"""Which strategies play which engine: a strategy name -> (policy kind, parameter vector) for
each engine of simulator.engines, Rainbow Bridge pairs, and scenarios run with them."""
from __future__ import annotations

from typing import Callable

from . import builtin, valhalla

#: engine name -> resolve(strategy name) -> (kind, float64 params); raises ValueError
_RESOLVERS: dict[str, Callable] = {"blood-rage": builtin.resolve, "valhalla": valhalla.resolve}


def register(engine: str, resolve: Callable) -> None:
    """Name the strategy resolver of an engine (a new rule set adds one line here or calls this)."""
    _RESOLVERS[engine] = resolve


def resolve_for(engine: str) -> Callable:
    """The strategy resolver of ``engine`` (Rainbow Bridge: :func:`resolve_pair`). Raises KeyError."""
    if engine == "rainbow-bridge":
        return resolve_pair
    if engine not in _RESOLVERS:
        raise KeyError(f"no strategies for engine {engine!r}; known: {sorted(_RESOLVERS)}")
    return _RESOLVERS[engine]


def resolve_pair(name: str):
    """'base:valhalla' (or one name for both games) -> ((kind, params), (kind, params)).
    Raises ValueError naming the game whose strategy is unknown."""
    a, sep, b = name.partition(":")
    a, b = a.strip(), (b.strip() if sep else a.strip())
    try:
        pa = builtin.resolve(a)
    except ValueError as exc:
        raise ValueError(f"rainbow-bridge lineup item {name!r}: Blood Rage strategy: {exc}") from None
    try:
        pb = valhalla.resolve(b)
    except ValueError as exc:
        raise ValueError(f"rainbow-bridge lineup item {name!r}: Valhalla strategy: {exc}; "
                         "write BASE:VALHALLA, e.g. thor-warlord:thor") from None
    return pa, pb



def run_scenario(path, check: bool = True) -> dict:
    """Run scenario file ``path`` (simulator.engines.run_scenario) with the shipped strategies."""
    from simulator.engines import run_scenario as run
    return run(path, resolve_for, check)
