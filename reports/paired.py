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
        ci = "fixed (0 by construction)" if lo != lo else f"[{lo:+.2%}, {hi:+.2%}]"
        ax.annotate(f"{v:+.2%} {ci}", (v if lo != lo else hi, yi), xytext=(6, 0), textcoords="offset points",
                    va="center", fontsize=8)
    ax.set_yticks(y, strategy["strategy"])
    ax.set_ylim(-0.7, len(strategy) - 0.3)
    vals = np.abs(np.r_[strategy[["ci_low", "ci_high"]].to_numpy(float).ravel(), np.asarray(d, float)])
    vals = vals[np.isfinite(vals)]
    span = max(float(vals.max()) if len(vals) else 0.0, 0.01)  # a fixed row has no interval
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


def plot_populations(long: pd.DataFrame, ver: pd.DataFrame, title: str, xlabel: str, path: Path | None = None,
                     focus: list[str] = (), top: int = 12):
    """A card's effect in each bot population side by side (95% CI), one row per card, its verdict
    on the right (analysis/populations.py). Cards shown: those in ``focus`` (e.g. the patched
    ones), then the others that are not 'no effect', largest first, ``top`` in all."""
    shown = [r for r in ver.itertuples() if r.card in focus]
    shown += [r for r in ver.itertuples() if r.card not in focus and r.verdict != "no effect"]
    shown = shown[:top] or list(ver.itertuples())[:1]
    pops = list(dict.fromkeys(long["population"]))
    fig = _figure(10, 2.3 + 0.22 * len(shown) * max(len(pops), 2))
    ax = fig.add_subplot()
    step = 0.8 / max(len(pops), 1)
    labels = []
    for i, r in enumerate(reversed(shown)):
        labels.append(f"{r.card}" + (f" (age {r.age})" if r.age else ""))
        rows = long[(long["card"] == r.card) & (long["age"] == r.age)]
        for j, pop in enumerate(pops):
            p = rows[rows["population"] == pop]
            if not len(p):
                continue
            p = p.iloc[0]
            y = i - 0.4 + step * (j + 0.5)
            ax.errorbar([p.effect], [y], xerr=_err([p.effect], [p.ci_low], [p.ci_high]), fmt="o",
                        mfc=None if p.flagged else "white", ms=5, color=f"C{j}", capsize=2,
                        label=pop if i == 0 else None)
        ax.annotate(r.verdict, (1.01, i), xycoords=("axes fraction", "data"), va="center", fontsize=8,
                    color={"consistent": SIG_UP, "bot-dependent": SIG_DOWN}.get(r.verdict, NS))
    ax.axvline(0, color="k", lw=1)
    ax.set_yticks(np.arange(len(shown)), labels, fontsize=8)
    ax.set_ylim(-0.6, len(shown) - 0.4)
    _pct(ax)
    ax.set_xlabel(xlabel + " (95% CI; filled: flagged, BH q < 0.05 within the population)")
    fig.legend(loc="outside lower center", ncol=max(len(pops), 1), fontsize=8, title="population",
               title_fontsize=8)  # below the axes: it never hides a point
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(title, fontsize=10)
    return _save(fig, path)
