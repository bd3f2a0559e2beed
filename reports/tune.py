"""The tuning report of `volva tune`: the search's progress and which knobs mattered.

- ``tune_progress.png``   each trial's fitness and the best so far (trial order)
- ``tune_importance.png`` |Spearman rho| of each knob's value with the fitness over the trials
- ``tune_fresh.png``      the winner's win share against each league member on fresh seeds (95% CI)
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def _figure(w: float, h: float):
    from matplotlib.figure import Figure
    return Figure(figsize=(w, h), layout="constrained")


def plot_progress(trials: pd.DataFrame, path: Path):
    """Fitness of every trial and the running best."""
    fig = _figure(8, 4)
    ax = fig.add_subplot()
    f = trials["fitness"].to_numpy(float)
    ax.plot(trials["trial"], f, ".", color="0.6", label="trial")
    ax.plot(trials["trial"], np.maximum.accumulate(f), color="C0", lw=2, label="best so far")
    ax.axhline(1.0, color="k", ls="--", lw=1, label="par (win share 1/P against every opponent)")
    ax.set_xlabel("trial")
    ax.set_ylabel("fitness (soft minimum of P x win share)")
    ax.set_title("Tuning progress")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    fig.savefig(path, dpi=110)
    return fig


def plot_importance(imp: dict, path: Path):
    """Bar chart of the knobs' |Spearman rho| with the fitness."""
    keys = list(imp)[::-1]
    fig = _figure(7, 1.2 + 0.25 * max(len(keys), 1))
    ax = fig.add_subplot()
    ax.barh(keys, [imp[k] for k in keys], color="C0")
    ax.set_xlabel("|Spearman rho| of the knob's value with the fitness over the trials")
    ax.set_title("Which knobs mattered")
    ax.tick_params(axis="y", labelsize=8)
    ax.grid(axis="x", alpha=0.3)
    fig.savefig(path, dpi=110)
    return fig


def plot_fresh(fresh: list[dict], players: int, path: Path):
    """The winner's win share against each league member on fresh seeds, with 95% intervals."""
    t = pd.DataFrame(fresh).sort_values("win_share")
    fig = _figure(7, 1.2 + 0.3 * len(t))
    ax = fig.add_subplot()
    y = np.arange(len(t))
    m = t["win_share"].to_numpy()
    err = np.vstack([m - t["ci_low"] / players, t["ci_high"] / players - m])
    ax.errorbar(m, y, xerr=err, fmt="o", color="C0", capsize=3)
    ax.axvline(1 / players, color="k", ls="--", lw=1, label=f"par 1/{players}")
    ax.set_yticks(y, t["opponent"])
    ax.set_xlabel("win share of the tuned strategy, one seat against P-1 copies (95% CI, seed blocks)")
    ax.set_title("Fresh seeds: the tuned strategy against each league member")
    ax.legend(fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    fig.savefig(path, dpi=110)
    return fig


def build_tune_report(res, players: int, out: Path) -> list[Path]:
    """Write the figures of a :class:`analysis.tune.TuneResult` into ``out``: the progress curve and
    knob importances (when it holds a search's trials) and the fresh-seed win shares."""
    import matplotlib
    matplotlib.use("Agg", force=False)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    if res.trials:
        paths += [out / "tune_progress.png", out / "tune_importance.png"]
        plot_progress(pd.DataFrame(res.trials), paths[0])
        plot_importance(res.importances or {"(too few trials)": 0.0}, paths[1])
    paths.append(out / "tune_fresh.png")
    plot_fresh(res.fresh, players, paths[-1])
    return paths
