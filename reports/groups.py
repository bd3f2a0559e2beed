"""The report's section on the engine's seat groups (analysis.groups): one forest figure and one
table per dimension (Valhalla dice: Jarl, Valhalla clan, game end), and ``groups.csv``."""
from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import pandas as pd

from volva.analysis.groups import by_group

SIG_UP, SIG_DOWN, NS = "#1a9850", "#d73027", "#7f7f7f"


def file_name(dim: str) -> str:
    """'Valhalla clan' -> 'group_valhalla_clan.png'."""
    return "group_" + re.sub(r"[^a-z0-9]+", "_", dim.lower()).strip("_") + ".png"


def plot_group(dim: str, t: pd.DataFrame, average: float, path: Path | None = None):
    """Forest plot: win rate +- 95% CI of the clans of each value of ``dim`` (all strategies),
    values sorted by rate, coloured where the BH-corrected test against the average clan rejects."""
    import matplotlib.pyplot as plt
    t = t.sort_values("win_rate").reset_index(drop=True)
    fig = plt.figure(figsize=(9, 2.4 + 0.22 * len(t)), dpi=110)
    ax = fig.add_subplot()
    y = np.arange(len(t))
    r = t["win_rate"].to_numpy(float)
    sig = t["significant"].fillna(False).to_numpy(bool)
    color = np.where(~sig, NS, np.where(t["vs_average"] > 0, SIG_UP, SIG_DOWN))
    lo = np.clip(r - t["ci_low"].to_numpy(float), 0, None)
    hi = np.clip(t["ci_high"].to_numpy(float) - r, 0, None)
    for c, lab in ((SIG_UP, "above the average clan (BH q<0.05)"), (SIG_DOWN, "below the average clan (BH q<0.05)"),
                   (NS, "fixed by construction" if t["fixed"].all() else "not significant or small")):
        m = color == c
        if m.any():
            ax.errorbar(r[m], y[m], xerr=[lo[m], hi[m]], fmt="o", ms=4, color=c, capsize=2, label=lab)
    ax.axvline(average, color="k", ls="--", lw=1, label=f"average clan {average:.1%}")
    labels = [f"{v} ({s:.1%} of clans)" + (" *" if sm else "") for v, s, sm in zip(t["value"], t["share"], t["small"])]
    ax.set_yticks(y, labels, fontsize=7)
    ax.set_ylim(-1, len(t))
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.1%}"))
    ax.set_xlabel("win rate of the clans in the group, all strategies (95% CI clustered by seed block)")
    ax.set_title(f"Win rate by {dim}" + ("; * = small" if t["small"].any() else ""))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, fontsize=8, frameon=False)  # off the dots
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path)
    return fig


def build(st, out_dir: Path, sources: dict | None = None) -> tuple[list[tuple[str, str, object, str]], dict, list[Path]]:
    """(figures as (file, title, fig, note), {dimension: tables}, written CSVs) for the run's
    seat groups; nothing when the engine has none. ``sources``: the game's Glory sources in its
    own words (engine terms ``glory_sources``): the other sources' columns are left out."""
    groups = by_group(st)
    if sources:
        for tabs in groups.values():
            p = tabs["pooled"]
            drop = [c for c in p.columns if c.startswith("glory_") and c[6:] not in sources
                    and c not in ("glory_ci_low", "glory_ci_high")]
            tabs["pooled"] = p.drop(columns=drop).rename(columns={f"glory_{k}": f"Glory from {v}"
                                                                  for k, v in sources.items()})
    figs, written = [], []
    rows = []
    for dim, tabs in groups.items():
        name = file_name(dim)
        if tabs["per_game"]:
            note = (f"Every clan of a game shares its {dim}, so over all strategies each value's win rate is the "
                    "average clan's by construction (shown fixed, not tested): read the share of games and the "
                    "Glory by source here, and the per-strategy table below for which strategy wins in each.")
        else:
            note = (f"Clans grouped by {dim}, over every strategy. A group is what a clan had or did, so this is "
                    "an association: the clans' strategy and luck come with it (`volva ablate` measures a cause). "
                    "Colour: z-test of the group's win rate against the average clan's, Benjamini–Hochberg "
                    "corrected over the values of this dimension.")
        figs.append((name, f"By {dim}", plot_group(dim, tabs["pooled"], tabs["average"], out_dir / name), note))
        rows.append(tabs["pooled"].assign(dimension=dim, strategy="(all)"))
        rows.append(tabs["strategy"].assign(dimension=dim))
    if rows:
        df = pd.concat(rows, ignore_index=True)
        df = df[["dimension", "strategy", "value", *[c for c in df.columns if c not in ("dimension", "strategy",
                                                                                       "value")]]]
        df.to_csv(out_dir / "groups.csv", index=False)
        written.append(out_dir / "groups.csv")
    return figs, groups, written


def html_section(groups: dict, fig_block, fmt_table, pct: tuple, floats: dict) -> list[str]:
    """The HTML of the section: per dimension its figure, the pooled table and the per-strategy table."""
    parts = []
    for dim, tabs in groups.items():
        e = html.escape
        p = tabs["pooled"].drop(columns=["se", "fixed", "clustered"], errors="ignore")
        what = {"Valhalla clan": "the clan with most Warriors in the player's Valhalla at the end ('mixed': a "
                                  "tie; '(empty)': none)"}.get(dim, "")
        parts += [f"<h2>By {e(dim)}</h2>", f"<p class='note'>{e(dim)}: {e(what)}</p>" if what else "",
                  fig_block(file_name(dim)),
                  fmt_table(p, (*pct, "share", "vs_average"), {**floats, "p_value": ".2g", "p_adj": ".2g",
                                                              **{c: ".2f" for c in p.columns if c.startswith("Glory from")}}),
                  f"<h3>By {e(dim)} and strategy</h3>", fmt_table(tabs["strategy"], pct, floats)]
    return parts
