"""Provenance of a run (its ``run.json``): the experiment, the versions and the inputs' hashes."""
from __future__ import annotations

import platform
from datetime import UTC, datetime


def volva_version() -> str:
    """Installed distribution version, or the source tree's version if not installed."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("volva")
    except PackageNotFoundError:
        return "0.1.0+source"


def versions_line() -> str:
    """'volva X (python Y, numpy Z, numba W)': ``volva version`` and ``volva --version``."""
    import numba
    import numpy as np
    return (f"volva {volva_version()} (python {platform.python_version()}, numpy {np.__version__}, "
            f"numba {numba.__version__})")


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def meta(rs, names, players, games, seed, batch_size, option_args, rotate, keep_rows, **extra) -> dict:
    """The run.json of a run starting now (status 'running', no game done). ``extra``: more keys
    (experiment, arm ...); the sweep and the mode are the rule set's own."""
    import numba
    import numpy as np

    from volva.simulator import engines
    base = getattr(rs, "base", None)  # a game of two engines (--mode): its first game's rule set
    m = {
        "volva_version": volva_version(), "python": platform.python_version(), "numpy": np.__version__,
        "numba": numba.__version__, "numba_threads": numba.get_num_threads(), "ruleset": rs.name,
        "options": rs.options, "option_args": list(option_args), "seed": seed, "players": players,
        "lineup": names, "rotate": rotate, "games": games, "batch_size": batch_size,
        "card_file_sha256": rs.card_file_sha256, "patch": rs.patch_file, "patch_sha256": rs.patch_sha256,
        "draft_rules": None, "keep_rows": keep_rows, "sweep": getattr(rs, "sweep", None),
        "mode": engines.get(rs).name if base is not None else None,
        "started": now(), "finished": None, "status": "running", "games_done": 0,
    }
    if base is not None:  # the first game's cards too
        m["base_card_file_sha256"] = base.card_file_sha256
    m.update({k: v for k, v in extra.items() if k not in ("sweep", "mode")})
    return m
