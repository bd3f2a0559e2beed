"""Figures of the paired experiments: what moved in ``volva compare`` and the causal effect of
``volva ablate``. Same conventions as :mod:`reports.report` (Agg backend, a Figure returned
and saved to ``path`` when given)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from volva.reports.report import NS, SIG_DOWN, SIG_UP, _err, _figure, _pct, _save


def plot_compare(strategy: pd.DataFrame, cards: pd.DataFrame | None, title: str, path: Path | None = None,
                 top: int = 20):
    """What moved, two panels: each strategy's paired change of win rate (95% paired t interval)
    and the ``top`` cards whose improvement when drafted moved most (|z|), Δ IWD ± 95% CI,
    flagged ones (BH q < 0.05) coloured."""
    if cards is not None and "small" in cards:
        cards = cards[~cards["small"]]  # rows under SMALL_N clans are not tested (rulings R42)
    c = cards.head(top).iloc[::-1].reset_index(drop=True) if cards is not None and len(cards) else None
    fig = _figure(13, 2.2 + 0.32 * max(len(strategy), 0 if c is None else len(c)))
    axes = fig.subplots(1, 2, width_ratios=[1, 1.4])
    ax = axes[0]
    y = np.arange(len(strategy))
    d = strategy["d_win"].to_numpy()
    ax.errorbar(d, y, xerr=_err(d, strategy["ci_low"], strategy["ci_high"]), fmt="o", color="#2c7fb8", capsize=4)
    ax.axvline(0, color="k", lw=1)
    for yi, (v, lo, hi) in enumerate(zip(d, strategy["ci_low"], strategy["ci_high"])):
        ax.annotate(f"{v:+.2%} [{lo:+.2%}, {hi:+.2%}]", (hi, yi), xytext=(6, 0), textcoords="offset points",
                    va="center", fontsize=8)
    ax.set_yticks(y, strategy["strategy"])
    ax.set_ylim(-0.7, len(strategy) - 0.3)
    span = float(np.nanmax(np.abs(strategy[["ci_low", "ci_high"]].to_numpy()))) if len(strategy) else 0.01
    ax.set_xlim(-span * 1.1 - 0.005, span * 2.2 + 0.01)
    _pct(ax)
    ax.set_xlabel("change of win rate, paired by game and seat (95% CI)")
    ax.set_ylabel("strategy")
    ax.set_title("Strategies", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    ax = axes[1]
    if c is not None:
        y = np.arange(len(c))
        dv = c["d_iwd"].to_numpy()
        col = np.where(~c["significant"], NS, np.where(dv > 0, SIG_UP, SIG_DOWN))
        for colour, lab in ((SIG_UP, "up (BH q<0.05)"), (SIG_DOWN, "down (BH q<0.05)"), (NS, "not significant")):
            m = col == colour
            if m.any():
                ax.errorbar(dv[m], y[m], xerr=_err(dv[m], c["ci_low"][m], c["ci_high"][m]), fmt="o", ms=4,
                            color=colour, capsize=2, label=lab)
        ax.axvline(0, color="k", lw=1)
        ax.set_yticks(y, [f"{r.card} (age {r.age}, {r.strategy})" for r in c.itertuples()], fontsize=7)
        ax.set_ylim(-1, len(c))
        ax.legend(loc="lower right", fontsize=8)
    _pct(ax)
    ax.set_xlabel("change of the card's improvement when drafted (IWD, 95% CI)")
    ax.set_title(f"Cards that moved most (top {top} by |z|)", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.suptitle(title)
    return _save(fig, path)


def plot_ablation(table: pd.DataFrame, card: str, path: Path | None = None):
    """Forced − banned change of win rate (paired 95% CI) per group and strategy."""
    t = table.iloc[::-1].reset_index(drop=True)
    fig = _figure(9, 1.8 + 0.42 * len(t))
    ax = fig.add_subplot()
    y = np.arange(len(t))
    d = t["d_win"].to_numpy()
    ax.errorbar(d, y, xerr=_err(d, t["ci_low"], t["ci_high"]), fmt="o", color="#2c7fb8", capsize=4)
    ax.axvline(0, color="k", lw=1)
    for yi, (v, n) in enumerate(zip(d, t["n"])):
        ax.annotate(f"{v:+.2%}  n={int(n):,}", (v, yi), xytext=(0, 7), textcoords="offset points", ha="center",
                    fontsize=7)
    ax.set_yticks(y, [f"{g}: {s}" for g, s in zip(t["group"], t["strategy"])], fontsize=8)
    ax.set_ylim(-0.7, len(t) - 0.3)
    _pct(ax)
    ax.set_xlabel("change of win rate, forced − banned, paired by game and seat (95% CI)")
    ax.set_title(f"Causal effect of {card}")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)
