"""Balance report of one ``volva run`` directory: PNG figures, ``report.html`` and ``report.pdf``.

``build_report(run_dir, out_dir)`` reads ``clans.parquet``, ``picks.parquet`` and ``run.json``,
computes the tables of :mod:`analysis.aggregate` and writes

- ``strategy_summary.png``  win rate +- 95% CI per strategy (1/N line)
- ``seat_advantage.png``    win rate +- 95% CI per seat (1/N line)
- ``glory_sources.png``     mean Glory by source per strategy (stacked bars)
- ``stat_paths.png``        win rate by final stat levels, top 15 paths (focal strategy)
- ``card_forest.png``       win rate when drafted +- CI per card and age (focal strategy)
- ``god_heatmap.png``       win rate per pair of gods (focal strategy; only with Gods of Asgard)
- ``convergence.png``       CI half-width of the focal strategy's win rate vs games (log x)
- ``report.html``           self-contained (PNGs inlined as base64), tables and run facts
- ``report.pdf``            every figure, one per page

The *focal* strategy is the lineup's first (seat 0).  Each plot function takes the
aggregated table(s), returns a matplotlib Figure and saves it to ``path`` when given.
Matplotlib is imported inside the functions with the Agg backend (no windows).
"""
from __future__ import annotations

import base64
import html
from pathlib import Path

import numpy as np
import pandas as pd

from volva.analysis import aggregate as agg
from volva.analysis.aggregate import RunDataError
from volva.reports import groups as groups_section
from volva.simulator.core import enums as E

DPI = 110
SIG_UP, SIG_DOWN, NS = "#1a9850", "#d73027", "#7f7f7f"



def _err(rate, lo, hi):
    """Error-bar half-widths from an interval, clipped at 0 (a Wilson bound can sit a rounding
    error past the point estimate when the rate is exactly 0, 1 or 1/k)."""
    rate, lo, hi = (np.asarray(x, float) for x in (rate, lo, hi))
    return [np.clip(rate - lo, 0, None), np.clip(hi - rate, 0, None)]

def _figure(w: float, h: float):
    import matplotlib
    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure
    return Figure(figsize=(w, h), dpi=DPI, layout="constrained")


def _save(fig, path: Path | None):
    if path is not None:
        fig.savefig(path, dpi=DPI)
    return fig


def _pct(ax, axis: str = "x"):
    from matplotlib.ticker import PercentFormatter
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_formatter(PercentFormatter(1.0, decimals=1))


# --------------------------------------------------------------------------- plots

def plot_strategy(table: pd.DataFrame, n_players: list[int], path: Path | None = None):
    """Win rate +- 95% CI (clustered by seed block) per strategy, with the no-skill 1/N line(s); a
    rate fixed by construction (a mirror lineup) is drawn without a bar."""
    fig = _figure(7, 1.6 + 0.55 * len(table))
    ax = fig.add_subplot()
    y = np.arange(len(table))
    r = table["win_rate"].to_numpy()
    ax.errorbar(r, y, xerr=_err(r, table["ci_low"], table["ci_high"]), fmt="o", color="#2c7fb8",
                capsize=4, label="win rate (95% CI, clustered by seed block)")
    for n in n_players:
        ax.axvline(1 / n, color="k", ls="--", lw=1, label=f"no-skill rate 1/{n} = {1 / n:.1%}")
    for yi, (rate, lo, hi, n) in enumerate(zip(r, table["ci_low"], table["ci_high"], table["n"])):
        ci = "fixed by construction" if lo != lo else f"[{lo:.2%}, {hi:.2%}]"
        ax.annotate(f"{rate:.2%} {ci}\nn={n:,}", (rate if lo != lo else hi, yi), xytext=(8, 0),
                    textcoords="offset points", ha="left", va="center", fontsize=8)
    ax.set_yticks(y, table["strategy"])
    ax.set_ylim(-0.7, len(table) - 0.3)
    ax.set_xlim(-0.02, max(0.5, float(np.nanmax(np.r_[table["ci_high"].to_numpy(float), r])) + 0.2))
    _pct(ax)
    ax.set_xlabel("win rate (share of games won, ties split)")
    ax.set_ylabel("strategy")
    ax.set_title("Win rate by strategy")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def plot_seats(table: pd.DataFrame, seat_strategy: dict, path: Path | None = None):
    """Win rate +- CI per (n_players, seat) with the 1/N line; x labels name each seat's strategy."""
    fig = _figure(max(6, 1.3 * len(table) + 2), 4.2)
    ax = fig.add_subplot()
    x = np.arange(len(table))
    r = table["win_rate"].to_numpy()
    ax.errorbar(x, r, yerr=_err(r, table["ci_low"], table["ci_high"]), fmt="o", color="#2c7fb8",
                capsize=5, label="win rate (95% CI, clustered by seed block)")
    multi = table["n_players"].nunique() > 1
    for n, grp in table.groupby("n_players"):
        idx = np.flatnonzero(table["n_players"].to_numpy() == n)
        ax.hlines(1 / n, idx.min() - 0.4, idx.max() + 0.4, colors="k", linestyles="--", lw=1,
                  label=f"no-skill rate 1/{n} = {1 / n:.1%}")
    labels = []
    for npl, seat in zip(table["n_players"], table["seat"]):
        strat = seat_strategy.get((int(npl), int(seat)), "")
        if strat.count("/") >= 1:  # rotated lineups: every strategy sits here in turn
            strat = "rotated"
        labels.append((f"{npl}p " if multi else "") + f"seat {seat + 1}" + (f"\n({strat})" if strat else ""))
    for xi, rate in zip(x, r):
        ax.annotate(f"{rate:.1%}", (xi, rate), xytext=(8, 0), textcoords="offset points", va="center", fontsize=8)
    ax.set_xticks(x, labels)
    ax.set_ylim(0, max(0.5, float(table["ci_high"].max()) + 0.05))
    _pct(ax, "y")
    ax.set_xlabel("seat (turn order; strategy seated there)")
    ax.set_ylabel("win rate (ties split)")
    ax.set_title("Seat advantage: win rate by seat")
    ax.legend(loc="upper right", fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path)


def plot_glory_sources(table: pd.DataFrame, path: Path | None = None, labels: dict | None = None):
    """Stacked bars of mean Glory by source, one bar per strategy; ``labels``: the game's own name
    of a source (simulator.engines terms ``glory_sources``)."""
    wide = table.pivot(index="strategy", columns="source", values="mean")
    wide = wide[[c for c in agg.GLORY_SOURCES if c in wide.columns]]
    wide = wide.loc[:, (wide.abs() > 0).any(axis=0)] if (wide.abs() > 0).any().any() else wide
    return _stacked_sources(wide, "strategy", "Glory by source per strategy", path, labels=labels)


def _stacked_sources(wide: pd.DataFrame, xlabel: str, title: str, path: Path | None = None, ax=None,
                     labels: dict | None = None):
    """Stacked bars of mean Glory per source (columns of ``wide``), one bar per row."""
    fig = None
    if ax is None:
        fig = _figure(max(5.5, 1.6 * len(wide) + 3), 4.8)
        ax = fig.add_subplot()
    x = np.arange(len(wide))
    bottom = np.zeros(len(wide))
    import matplotlib
    colors = matplotlib.colormaps["tab10"].colors
    for src in wide.columns:
        i = list(agg.GLORY_SOURCES).index(src)
        vals = wide[src].to_numpy()
        ax.bar(x, vals, bottom=bottom, width=0.55, color=colors[i], label=(labels or {}).get(src, src))
        for xi, v, b in zip(x, vals, bottom):
            if v >= 2.5:
                ax.text(xi, b + v / 2, f"{v:.1f}", ha="center", va="center", fontsize=8, color="white")
        bottom += vals
    for xi, tot in zip(x, bottom):
        ax.text(xi, tot + 1, f"total {tot:.1f}", ha="center", va="bottom", fontsize=9)
    ax.set_xticks(x, wide.index, rotation=0 if len(wide) <= 6 else 35, ha="center" if len(wide) <= 6 else "right")
    ax.set_xlim(-0.7, len(wide) - 0.3)
    ax.set_ylim(0, bottom.max() * 1.12 + 1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("mean Glory per clan per game (points)")
    ax.set_title(title, fontsize=10)
    ax.legend(title="source", loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path) if fig is not None else None


def plot_valhalla_gods(vg: dict, strategy: str, overall: float, path: Path | None = None):
    """Blood Rage: Valhalla's gods: ``strategy``'s win rate by set of three gods in play (95% CI),
    and all clans' mean Glory by source per god set and per drafted god pair (top 10 by clans)."""
    fig = _figure(16, 11)
    gs = fig.add_gridspec(2, 2)
    ax1, ax2, ax3 = fig.add_subplot(gs[0, 0]), fig.add_subplot(gs[0, 1]), fig.add_subplot(gs[1, :])
    t = vg["set_strategy"]
    t = t[t["strategy"] == strategy].sort_values("win_rate").reset_index(drop=True)
    y = np.arange(len(t))
    ax1.errorbar(t["win_rate"], y, xerr=_err(t["win_rate"], t["ci_low"], t["ci_high"]), fmt="o", color="C0",
                 capsize=3)
    ax1.axvline(overall, color="grey", ls="--", lw=1, label=f"{strategy} overall {overall:.1%}")
    ax1.set_yticks(y, [f"{s} (n={n:,})" for s, n in zip(t["set"], t["n"])], fontsize=8)
    ax1.set_xlabel(f"win rate of {strategy} clans (95% Wilson CI)")
    ax1.set_title(f"{strategy}: win rate by the three gods in play", fontsize=10)
    ax1.legend(fontsize=8, loc="lower right")
    _pct(ax1)
    ax1.grid(axis="x", alpha=0.3)
    src = [c for c in agg.GLORY_SOURCES if c in vg["set_sources"] and vg["set_sources"][c].abs().sum() > 0]
    _stacked_sources(vg["set_sources"].set_index("set")[src], "gods in play", "Glory by source per god set "
                     "(all clans)", ax=ax2)
    ds = vg.get("drafted_sources")
    if ds is not None and len(ds):
        ds = ds[ds["god_pair"] != "(none)"].sort_values("n", ascending=False).head(10)
        src = [c for c in agg.GLORY_SOURCES if c in ds and ds[c].abs().sum() > 0]
        _stacked_sources(ds.set_index("god_pair")[src], "drafted god pair (the clan's two most drafted gods)",
                         "Glory by source per drafted god pair (all clans, 10 most common)", ax=ax3)
    return _save(fig, path)


def plot_stat_paths(levels: pd.DataFrame, first: pd.DataFrame, strategy: str, overall: float,
                    path: Path | None = None):
    """Two panels for ``strategy``: win rate +- CI per final-level path (most common first) and
    per order of the first two stat raises."""
    n = max(len(levels), len(first), 1)
    fig = _figure(13, 1.8 + 0.34 * n)
    axes = fig.subplots(1, 2)
    specs = ((axes[0], levels, "final stat levels (Rage, Axes, Horns steps 1-6)",
              f"Win rate by final stat levels: {strategy}"),
             (axes[1], first, "first two stat raises, in order",
              f"Win rate by order of the first two raises: {strategy}"))
    for ax, table, ylabel, title in specs:
        t = table.sort_values("win_rate").reset_index(drop=True)
        y = np.arange(len(t))
        r = t["win_rate"].to_numpy()
        ax.barh(y, r, color="#9ecae1", height=0.6)
        ax.errorbar(r, y, xerr=_err(r, t["ci_low"], t["ci_high"]), fmt="none", ecolor="k", capsize=3)
        ax.axvline(overall, color="#d95f0e", ls="--", lw=1.2, label=f"{strategy} overall {overall:.1%}")
        for yi, (hi, k) in enumerate(zip(t["ci_high"], t["n"])):
            ax.text(hi + 0.01, yi, f"n={k:,}", va="center", fontsize=7)
        ax.set_yticks(y, t["path"])
        ax.set_xlim(0, min(1.0, float(t["ci_high"].max()) + 0.15) if len(t) else 1.0)
        _pct(ax)
        ax.set_xlabel("win rate (95% Wilson CI)")
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=10)
        ax.legend(loc="lower right", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def plot_head_to_head(mat: pd.DataFrame, path: Path | None = None):
    """Heatmap: share of the games in which the row strategy finished above the column strategy
    (ties count one half); 50% = even."""
    fig = _figure(max(5.5, 1.1 * len(mat) + 3), max(4.2, 0.8 * len(mat) + 2))
    ax = fig.add_subplot()
    vals = mat.to_numpy(float)
    fin = np.isfinite(vals)
    span = max(float(np.nanmax(np.abs(vals - 0.5))) if fin.any() else 0.0, 0.01)
    im = ax.imshow(np.ma.masked_invalid(vals), cmap="RdBu", vmin=0.5 - span, vmax=0.5 + span)
    for i in range(vals.shape[0]):
        for j in range(vals.shape[1]):
            dark = fin[i, j] and abs(vals[i, j] - 0.5) > 0.6 * span  # white text on the deep colours
            ax.text(j, i, "—" if not fin[i, j] else f"{vals[i, j]:.1%}", ha="center", va="center", fontsize=9,
                    color="white" if dark else "black")
    ax.set_xticks(range(len(mat.columns)), mat.columns, rotation=30, ha="right")
    ax.set_yticks(range(len(mat.index)), mat.index)
    ax.set_xlabel("opponent (column)")
    ax.set_ylabel("strategy (row)")
    cb = fig.colorbar(im, ax=ax, shrink=0.85, format=lambda v, _: f"{v:.0%}")
    cb.set_label("share of shared games finishing above the opponent")
    ax.set_title("Head to head: row finishes above column (ties = ½)")
    return _save(fig, path)


def plot_card_forest(table: pd.DataFrame, strategy: str, overall: float, path: Path | None = None,
                     drafted: str = "drafted"):
    """Forest plot of win rate when drafted +- CI per (card, age), sorted; significant cards coloured
    (``drafted``: the game's word for how a clan comes to hold a card, engine terms)."""
    t = table.sort_values("win_rate_drafted").reset_index(drop=True)
    fig = _figure(9, 1.8 + 0.2 * len(t))
    ax = fig.add_subplot()
    y = np.arange(len(t))
    r = t["win_rate_drafted"].to_numpy()
    color = np.where(~t["significant"], NS, np.where(t["iwd"] > 0, SIG_UP, SIG_DOWN))
    for c, lab in ((SIG_UP, f"better than not: {drafted} (BH q<0.05)"),
                   (SIG_DOWN, f"worse than not: {drafted} (BH q<0.05)"), (NS, "not significant")):
        m = color == c
        if m.any():
            ax.errorbar(r[m], y[m], xerr=_err(r[m], t["ci_low"][m], t["ci_high"][m]), fmt="o", ms=4,
                        color=c, capsize=2, label=lab)
    ax.axvline(overall, color="k", ls="--", lw=1, label=f"{strategy} overall win rate {overall:.1%}")
    info = [f"{ty}{', ' + g if g else ''}{', ' + v if v and ty != 'quest' else ''}; "
            for ty, g, v in zip(t["type"], t["god"], t["value"])] if "type" in t.columns else [""] * len(t)
    labels = [f"{c} ({i}age {a})" + (" *" if s else "") for c, i, a, s in zip(t["card"], info, t["age"], t["small"])]
    ax.set_yticks(y, labels, fontsize=7)
    ax.set_ylim(-1, len(t))
    _pct(ax)
    ax.set_xlabel(f"win rate of clans that {drafted} the card (95% Wilson CI)")
    ax.set_ylabel("card (age)" + ("; * = fewer than 100 clans" if t["small"].any() else ""))
    ax.set_title(f"Cards: win rate when {drafted} ({strategy} clans)")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def plot_god_heatmap(win: pd.DataFrame, glory: pd.DataFrame, strategy: str, overall: float,
                     path: Path | None = None, what: str = "pair of gods in play"):
    """Two god x god heatmaps: ``strategy``'s win rate by god combination (``win``) and the
    mean Glory of all clans (``glory``); ``what`` names the combination (the Gods of Ásgard in
    play, or the clan's drafted god pair, whose diagonal is a clan that drafted one god only)."""
    fig = _figure(13, 5.8)
    axes = fig.subplots(1, 2)
    specs = ((axes[0], win, "RdBu", lambda v: f"{v:.2%}", f"win rate of {strategy} clans", True),
             (axes[1], glory, "viridis", lambda v: f"{v:.1f}", "mean Glory per clan (points)", False))
    for ax, mat, cmap, fmt, label, centred in specs:
        vals = mat.to_numpy(float)
        fin = np.isfinite(vals)
        if centred:
            span = max(float(np.nanmax(np.abs(vals - overall))) if fin.any() else 0.0, 0.005)
            lim = dict(vmin=overall - span, vmax=overall + span)
        else:
            lim = dict(vmin=float(np.nanmin(vals)), vmax=float(np.nanmax(vals))) if fin.any() else {}
        im = ax.imshow(np.ma.masked_invalid(vals), cmap=cmap, **lim)
        mid = (lim.get("vmin", 0) + lim.get("vmax", 1)) / 2 if lim else 0
        for i in range(vals.shape[0]):
            for j in range(vals.shape[1]):
                txt = "—" if not fin[i, j] else fmt(vals[i, j])
                dark = (not centred) and fin[i, j] and vals[i, j] < mid
                ax.text(j, i, txt, ha="center", va="center", fontsize=9, color="white" if dark else "black")
        ax.set_xticks(range(len(mat.columns)), mat.columns, rotation=30, ha="right")
        ax.set_yticks(range(len(mat.index)), mat.index)
        ax.set_xlabel("god")
        ax.set_ylabel("god")
        cb = fig.colorbar(im, ax=ax, shrink=0.85, format=(lambda v, _: f"{v:.1%}") if centred else None)
        cb.set_label(label)
    wv = win.to_numpy(float)
    const = np.isfinite(wv).any() and np.nanmax(wv) - np.nanmin(wv) < 1e-9
    axes[0].set_title(f"Win rate of {strategy} clans by {what}\n(overall {overall:.2%}"
                      + ("; equal in every cell: all winners play this strategy)" if const else ")"), fontsize=10)
    axes[1].set_title(f"Mean Glory of all clans by {what}", fontsize=10)
    return _save(fig, path)


def plot_convergence(table: pd.DataFrame, path: Path | None = None):
    """The focal strategy's running win rate after g games with its 95% band (cluster-robust over
    seed blocks) against g (log x), so the estimate is seen to settle; below, the band's half-width.
    A rate fixed by construction (a mirror lineup) is drawn as its constant, with no band."""
    fig = _figure(7, 6)
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [2.2, 1]})
    strategy = table["strategy"].iloc[0] if len(table) else "?"
    g = table["games"].to_numpy(float)
    r = table["win_rate"].to_numpy(float) * 100
    fixed = bool(len(table)) and bool(np.asarray(table.get("fixed", False)).all())
    top.plot(g, r, "o-", color="#2c7fb8", ms=3, label="running win rate")
    if len(table) and not fixed:
        top.fill_between(g, table["ci_low"] * 100, table["ci_high"] * 100, color="#2c7fb8", alpha=0.2,
                         label="95% interval (clustered by seed block)")
    if len(table):
        top.axhline(r[-1], ls=":", color="k", lw=1, label=f"final estimate {r[-1]:.2f}%")
    top.set_ylabel("win rate (%)")
    top.set_title(f"Convergence of the {strategy} win rate"
                  + (" (fixed by construction: it holds every seat)" if fixed else ""))
    top.legend(fontsize=8)
    top.grid(alpha=0.3)
    hw = table["half_width"].to_numpy(float) * 100 if len(table) else np.zeros(0)
    ok = np.isfinite(hw) & (hw > 0)
    if ok.any():
        bottom.plot(g[ok], hw[ok], "o-", color="#e6550d", ms=3, label="95% half-width")
        g0, h0 = g[ok][-1], hw[ok][-1]
        bottom.plot(g[ok], h0 * np.sqrt(g0 / g[ok]), ":", color="k", label=r"$\propto 1/\sqrt{games}$")
        bottom.set_yscale("log")
        bottom.text(0.03, 0.08, f"final half-width: {h0:.2f} percentage points at {int(g0):,} games",
                    transform=bottom.transAxes, fontsize=8, bbox=dict(boxstyle="round", fc="white", ec="#bbb"))
        bottom.legend(fontsize=8)
    else:
        bottom.text(0.5, 0.5, "no interval (the rate is fixed)" if fixed else "no interval", ha="center",
                    va="center", transform=bottom.transAxes)
    bottom.set_ylabel("half-width (pp)")
    bottom.set_xscale("log")
    bottom.set_xlabel("games played (cumulative, log scale)")
    bottom.grid(which="both", alpha=0.3)
    return _save(fig, path)


# --------------------------------------------------------------------------- report

def _read_run_json(run_dir: Path) -> dict:
    p = run_dir / "run.json"
    if not p.is_file():
        arms = [d.name for d in sorted(run_dir.iterdir()) if (d / "run.json").is_file()] if run_dir.is_dir() else []
        paired = {"baseline", "variant"} <= set(arms) or {"forced", "banned"} <= set(arms)
        hint = f" ({'a paired experiment: report one of its arms' if paired else 'a folder of runs: report one'}, " \
            f"{', '.join(f'{run_dir / a}' for a in arms)})" if arms else ""
        if not arms and (run_dir / "tournament.json").is_file():
            hint = (" (a tournament: its report is its tables, tournament.csv, ratings.csv and head_to_head.csv; "
                    "volva report reads a run, study, compare arm or ablate arm)")
        elif not arms and ((run_dir / "tune.json").is_file() or (run_dir / "tune.journal").is_file()):
            hint = (" (a tuning study: its report is tune.json, trials.csv and the tune_*.png figures; volva report "
                    "reads a run, study, compare arm or ablate arm)")
        elif not arms and run_dir.is_dir():  # compare/ablate --population: OUT/NAME/<arm>/run.json
            deeper = [d for d in sorted(run_dir.glob("*/*")) if (d / "run.json").is_file()]
            if deeper:
                hint = (f" (a paired experiment over populations: report one population's arm, "
                        f"{', '.join(str(d) for d in deeper[:4])}{', ...' if len(deeper) > 4 else ''})")
        raise RunDataError(f"{p}: file not found{hint}")
    from volva.analysis.suffstats import read_json_object
    meta = read_json_object(p, RunDataError)
    return meta


#: output names of win shares (ties split the win, so a sum of shares is not a count of games)
SHARE_NAMES = {"wins": "win_shares", "wins_drafted": "win_shares_drafted", "wins_not": "win_shares_not"}


def _fmt_table(df: pd.DataFrame, pct: tuple = (), floats: dict | None = None) -> str:
    d = df.rename(columns=SHARE_NAMES)
    for c in pct:
        if c in d:
            d[c] = d[c].map(lambda v: "" if pd.isna(v) else f"{v:.2%}")
    for c, f in (floats or {}).items():
        if c in d:
            d[c] = d[c].map(lambda v, f=f: "" if pd.isna(v) else format(v, f))
    for c in d.columns:
        if d[c].dtype == bool:
            d[c] = d[c].map({True: "yes", False: ""})
        elif pd.api.types.is_integer_dtype(d[c]):
            d[c] = d[c].map(lambda v: f"{v:,}")
    return d.to_html(index=False, border=0, classes="t", escape=True)


_RATE_PCT = ("win_rate", "ci_low", "ci_high", "expected")
_RATE_FL = {"win_shares": ",.1f", "shared_win_rate": ".2%", "se": ".4f", "mean_glory": ".2f", "glory_ci_low": ".2f",
            "glory_ci_high": ".2f"}

_CSS = """body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;margin-top:2em}
table.t{border-collapse:collapse;font-size:0.85em;margin:0.5em 0}
table.t td,table.t th{border:1px solid #ddd;padding:2px 6px;text-align:right}
table.t th{background:#f3f3f3}img{max-width:100%;border:1px solid #eee}
.note{color:#555;font-size:0.9em}dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px}
dt{font-weight:bold}dd{margin:0}"""


#: the report's wording where a run's statistics do not name the game's own terms (runs from before issue 11)
_GENERIC_TERMS = {"board_count_at": "Ragnarök", "stat_raises": "rewards, quests and card texts raise stats",
                  "kept": "kept for the next age", "drafted": "drafted"}


def _terms(st) -> dict:
    """The game's own terms recorded in the run's statistics ({} for older runs)."""
    return st.game.get("terms") if isinstance(st.game.get("terms"), dict) else {}


def _term(st, key: str) -> str:
    """The game's own word for ``key`` (simulator.engines.Engine.terms, recorded in the run's stats)."""
    terms = st.game.get("terms") if isinstance(st.game.get("terms"), dict) else {}
    return str(terms.get(key, _GENERIC_TERMS[key]))


def with_card_info(df: pd.DataFrame | None, cards: dict) -> pd.DataFrame | None:
    """``df`` with each card's type, god and value (from the run's statistics) after its ``card`` column."""
    if df is None or "card" not in df.columns or not cards:
        return df
    df = df.copy()
    at = list(df.columns).index("card") + 1
    for k in ("value", "god", "type"):
        df.insert(at, k, df["card"].map(lambda c, k=k: (cards.get(str(c)) or {}).get(k, "")).astype(str))
    return df


def load_run_stats(run_dir: Path, meta: dict):
    """The run's Stats: ``stats/`` when present, else built from the row files one row group at
    a time (runs written before stats existed). Raises RunDataError naming the file."""
    from volva.analysis.suffstats import STATS_DIR, Stats, stats_from_rows
    run_dir = Path(run_dir)
    if (run_dir / STATS_DIR).is_dir() or (run_dir / f"{STATS_DIR}.new").is_dir():
        from volva.analysis.runner import check_sums_experiment
        st = Stats.load(run_dir)
        check_sums_experiment(st, run_dir / "run.json", meta)
        return st
    if meta.get("keep_rows") is False:  # a stats-only run has nothing else to read
        from volva.analysis.records import RunDataError
        raise RunDataError(f"{run_dir / STATS_DIR}: not found; the run keeps no row files, so its report needs "
                           f"the saved statistics (run.json status: {meta.get('status', 'unknown')})")
    games = meta.get("games") if isinstance(meta.get("games"), int) else None
    # runs from before stats/ existed: the report loads no rule set, so drafted god pairs stay
    # '(none)' unless run.json names each card's god
    card_gods = meta.get("card_gods") if isinstance(meta.get("card_gods"), dict) else None
    st = stats_from_rows(run_dir, card_gods, games)
    if isinstance(meta.get("cards"), dict):  # type, god and value of each card (runs that keep rows)
        st.cards = meta["cards"]
    return st


def build_report(run_dir: Path, out_dir: Path) -> list[Path]:
    """Write the PNG figures, report.html and report.pdf of ``run_dir`` into ``out_dir``.

    Reads ``run.json`` and the sufficient statistics ``stats/`` (or the row files of an older
    run).  Returns the written paths.  Raises RunDataError (naming the file) if the run
    directory or one of its files is missing, unreadable or not Volva output.
    """
    import matplotlib
    matplotlib.use("Agg", force=False)
    from matplotlib.backends.backend_pdf import PdfPages

    run_dir, out_dir = Path(run_dir), Path(out_dir)
    if not run_dir.is_dir():
        raise RunDataError(f"{run_dir}: run directory not found")
    meta = _read_run_json(run_dir)
    st = load_run_stats(run_dir, meta)
    strategies = sorted(st["clans"]["strategy"].astype(str).unique())
    lineup = meta.get("lineup") if isinstance(meta.get("lineup"), list) else []
    focal = str(lineup[0]) if lineup and str(lineup[0]) in strategies else strategies[0]
    games_done = meta.get("games_done") if isinstance(meta.get("games_done"), int) else None
    res = agg.aggregate(st, focal, games_done)
    for k in ("cards", "card_uses"):
        res[k] = with_card_info(res.get(k), st.cards)
    strat_tab = res["strategy"]
    focal_rate = float(strat_tab.loc[strat_tab["strategy"] == focal, "win_rate"].iloc[0])
    n_players = sorted(int(x) for x in res["seat"]["n_players"].unique())
    ss = res["seat_strategy"].groupby(["n_players", "seat"])["strategy"].agg(lambda s: "/".join(sorted(set(s))))
    seat_strategy = {(int(k[0]), int(k[1])): v for k, v in ss.items()}

    out_dir.mkdir(parents=True, exist_ok=True)
    figs: list[tuple[str, str, object, str]] = []  # (file, title, fig, note)

    def add(name, title, fig, note=""):
        figs.append((name, title, fig, note))

    add("strategy_summary.png", "Win rate by strategy",
        plot_strategy(strat_tab, n_players, out_dir / "strategy_summary.png"))
    if len(res["h2h"]) and len(strategies) > 1:
        add("head_to_head.png", "Head to head",
            plot_head_to_head(res["h2h"], out_dir / "head_to_head.png"),
            "Each cell: over the games where both strategies played, the share in which the row strategy "
            "finished with a better rank than the column strategy (ties count one half).")
    add("seat_advantage.png", "Seat advantage",
        plot_seats(res["seat"], seat_strategy, out_dir / "seat_advantage.png"),
        "Seats are numbered 1..N in turn order. With seat rotation (the default) every strategy sits in "
        "every seat equally often, so the seat effect is not confounded with strategy.")
    src_labels = _terms(st).get("glory_sources") if isinstance(_terms(st).get("glory_sources"), dict) else {}
    add("glory_sources.png", "Glory by source",
        plot_glory_sources(res["glory_sources"], out_dir / "glory_sources.png", src_labels))
    if src_labels:  # the tables in the game's own words too, without the sources the game has not
        gs = res["glory_sources"]
        some = gs.groupby("source")["mean"].apply(lambda m: bool((m.abs() > 0).any()))
        keep = [s for s in src_labels if some.get(s, False)]  # a source no clan scored from (a module off): no rows
        res["glory_sources"] = gs[gs["source"].isin(keep)].assign(source=lambda d: d["source"].map(src_labels))
        src_labels = {k: src_labels[k] for k in keep}  # ... nor columns in the other tables
    has_stats = _terms(st).get("clan_stats", True) is not False
    if not has_stats:  # a game without clan stat tracks or figures on a board (Valhalla, the dice game)
        res["stat_paths"] = {}
        res["strategy"] = res["strategy"].drop(columns=["figures_at_ragnarok", "legendary"], errors="ignore")
    else:
        sp = res["stat_paths"][focal]
        add("stat_paths.png", "Stat paths",
            plot_stat_paths(sp["levels"], sp["first_two"], focal, focal_rate, out_dir / "stat_paths.png"),
            f"{focal} clans. Left: final track levels (R = Rage, A = Axes, H = Horns; step 1..6), the 15 most "
            "frequent. Right: the order of the first two stat raises ("
            + _term(st, "stat_raises") + ").")
    cards_tab = res["cards"]
    if cards_tab is not None and len(cards_tab):
        fc = cards_tab[cards_tab["strategy"] == focal]
        add("card_forest.png", "Cards",
            plot_card_forest(fc, focal, focal_rate, out_dir / "card_forest.png", _term(st, "drafted")),
            f"Each row: {focal} clans that {_term(st, 'drafted')} the card in that age (95% Wilson CI of their "
            f"win rate). Colour = z-test of {_term(st, 'drafted')} vs not (same age, same strategy) with a standard error "
            "clustered by seed block, Benjamini–Hochberg adjusted over the tested card×age×strategy rows of "
            "cards.csv. Drafting is a choice, so this measures association, not causation: "
            "`volva ablate CARD` measures the card's effect.")
    gods_note = ""
    if res["gods"] is not None:
        ps = res["gods"]["pair_strategy"]
        mat = agg.god_matrix(ps[ps["strategy"] == focal])
        gmat = agg.god_matrix(res["gods"]["pair"], "mean_glory")
        add("god_heatmap.png", "Gods of Ásgard",
            plot_god_heatmap(mat, gmat, focal, focal_rate, out_dir / "god_heatmap.png"),
            f"Win rate of {focal} clans in games with that pair of gods. Over all clans every pair's "
            "rate is 1/N by construction, so the per-strategy rate is shown.")
    elif res.get("valhalla_gods") is not None:
        gods_note = ""
        add("valhalla_gods.png", "Gods of Blood Rage: Valhalla",
            plot_valhalla_gods(res["valhalla_gods"], focal, focal_rate, out_dir / "valhalla_gods.png"),
            f"Top left: win rate of {focal} clans by the set of three gods in play (their 75 cards make the deck; "
            "a god's region pays its tile). Top right and bottom: mean Glory per clan by source. Pooled over "
            "all clans every set's win rate is 1/N, so the per-strategy rate is shown. `volva run --sweep gods` "
            "plays every ordered combination equally often.")
    else:
        gods_note = "No Gods of Ásgard heatmap: this run did not use the Gods of Ásgard module."
    dg = res["drafted_gods"]
    if _has_god_pairs(dg):
        dfocal = dg[dg["strategy"] == focal]
        pooled = agg.rate_table(st["drafted_gods"], ["god_pair"])
        add("drafted_gods.png", "Drafted god pairs",
            plot_god_heatmap(agg.god_matrix(dfocal, col="god_pair"), agg.god_matrix(pooled, "mean_glory",
                                                                                    col="god_pair"),
                             focal, focal_rate, out_dir / "drafted_gods.png", what="drafted god pair"),
            "A clan's drafted god pair: the two gods with most cards among its draft picks over the game "
            "(ties by god order; the diagonal is a clan that drafted one god's cards only; rulings R39).")
    group_figs, res["groups"], group_csv = groups_section.build(st, out_dir, src_labels)
    figs.extend(group_figs)
    add("convergence.png", "Convergence",
        plot_convergence(res["convergence"], out_dir / "convergence.png"))

    written = [out_dir / f[0] for f in figs] + group_csv
    pdf_path = out_dir / "report.pdf"
    with PdfPages(pdf_path) as pdf:
        for _, _, fig, _ in figs:
            pdf.savefig(fig)
        info = pdf.infodict()
        info["Title"] = f"Volva balance report: {run_dir.name}"
    written.append(pdf_path)
    if not _has_god_pairs(res["drafted_gods"]):
        res["drafted_gods"] = None
    res["card_summary_all"] = with_card_info(agg.card_summary(st), st.cards) if len(st["draft"]) else None
    for k, v in (res.get("valhalla_gods") or {}).items():
        res[f"vg_{k}"] = v
    if res.get("game_shape") is not None:
        res["shape_clan"], res["shape_game"] = res["game_shape"]
        names = _terms(st).get("shape") if isinstance(_terms(st).get("shape"), dict) else {}
        if names:  # the CSV in the game's words, without the counters it does not fill
            drop = [c for c in E.SHAPE_NAMES if c not in names] + [f"se_{c}" for c in E.SHAPE_NAMES if c not in names] \
                + [f"{x}_level" for x in E.STAT_NAMES]
            res["shape_clan"] = res["shape_clan"].drop(columns=drop + ["bonus_share"], errors="ignore").rename(
                columns={**names, **{f"se_{k}": f"se {v}" for k, v in names.items()}})
    for name, key in (("cards.csv", "card_summary_all"), ("card_uses.csv", "card_uses"), ("strategy.csv", "strategy"),
                      ("seat.csv", "seat_strategy"), ("seat_pooled.csv", "seat"), ("head_to_head.csv", "h2h_long"),
                      ("drafted_gods.csv", "drafted_gods"), ("glory_sources.csv", "glory_sources"),
                      ("god_combos.csv", "vg_combo_strategy"), ("god_sets.csv", "vg_set_strategy"),
                      ("god_by_age.csv", "vg_god_age_strategy"), ("god_set_sources.csv", "vg_set_sources"),
                      ("game_shape.csv", "shape_clan"), ("game_shape_per_game.csv", "shape_game")):
        df = res.get(key)
        if df is not None and len(df):
            df.rename(columns=SHARE_NAMES).to_csv(out_dir / name, index=False)
            written.append(out_dir / name)

    html_path = out_dir / "report.html"
    html_path.write_text(_html(run_dir, meta, res, figs, out_dir, gods_note, st), encoding="utf-8")
    written.append(html_path)
    return written


def _has_god_pairs(dg: pd.DataFrame | None) -> bool:
    """True for a game whose cards have gods (a clan's drafted god pair means something)."""
    return dg is not None and len(dg) > 0 and bool((dg["god_pair"].astype(str) != "(none)").any())


def _shape_html(res: dict, terms: dict) -> list[str]:
    """The 'How the bots played' section (analysis.aggregate.game_shape), empty when not counted; a
    game's ``terms['shape']`` names the counters it fills in its own words (the others are left out)."""
    if res.get("game_shape") is None:
        return []
    clan, game = res["game_shape"]
    show = clan[[c for c in clan.columns if not c.startswith("se_")]]
    note = ("Per game (all clans together): battles are pillages that met an enemy, ties the battles that ended "
            "in a tie (every clan loses). Per clan: means per game; bonus_share is the share of Glory from the "
            "end-of-game stat bonuses; *_level the mean final track level.")
    names = terms.get("shape") if isinstance(terms.get("shape"), dict) else None
    if names:
        rates = list(terms.get("shape_rates") or {})
        keep = ["strategy", "clans", *names, *[c for c in show.columns if any(c.startswith(r) for r in rates)]]
        show = show[[c for c in keep if c in show.columns]].rename(columns=names)
        note = str(terms.get("shape_note", "Per clan: means per game."))
    rates = tuple(c for c in show.columns if any(c.startswith(r) for r in terms.get("shape_rates") or {}))
    return ["<h2>How the bots played</h2>",
            f"<p class='note'>{html.escape(note)} Compare with real play to judge the bots (game_shape.csv has "
            "standard errors).</p>",
            _fmt_table(game, rates, {c: ".2f" for c in game.columns if c not in ("games", *rates)}),
            _fmt_table(show, ("bonus_share", *rates),
                       {c: ".2f" for c in show.columns if c not in ("strategy", "clans", "bonus_share", *rates)})]


def _html(run_dir: Path, meta: dict, res: dict, figs, out_dir: Path, gods_note: str, st) -> str:
    e = html.escape
    focal = res["focal"]
    facts = [
        ("run directory", str(run_dir)), ("status", f"{meta.get('status', '?')} "
                                           f"({meta.get('games_done', '?'):,} of {meta.get('games', '?'):,} games)"
         if isinstance(meta.get("games_done"), int) and isinstance(meta.get("games"), int)
         else str(meta.get("status", "?"))),
        ("seed", meta.get("seed")), ("players", meta.get("players")),
        ("lineup (seat 1..N)", ", ".join(map(str, meta.get("lineup", []) or []))),
        ("rule set", meta.get("ruleset")),
        ("options", ", ".join(f"{k}={v}" for k, v in (meta.get("options") or {}).items())),
        ("option arguments", " ".join(meta.get("option_args") or []) or "(none)"),
        ("batch size", meta.get("batch_size")),
        ("versions", f"volva {meta.get('volva_version')}, python {meta.get('python')}, "
                     f"numpy {meta.get('numpy')}, numba {meta.get('numba')}"),
        ("games in the statistics", f"{st.games:,}"),
        ("experiment", (f"{meta.get('experiment')} (file {meta.get('experiment_file')})"
                        if str(meta.get("experiment_file", "")).endswith(".toml") else "the built-in default")
         if meta.get("experiment") else "(volva run)"),
        ("card file SHA-256", meta.get("card_file_sha256")),
        ("card patch", f"{meta.get('patch')} (SHA-256 {meta.get('patch_sha256')})" if meta.get("patch") else "(none)"),
        ("draft rule", meta.get("draft_rules") or "(none)"),
        ("started / finished", f"{meta.get('started')} / {meta.get('finished')}"),
        ("focal strategy", f"{focal} (seat 1's strategy; used for card, stat-path, god and convergence views)"),
    ]
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Volva report: {e(run_dir.name)}</title>"
             f"<style>{_CSS}</style></head><body>",
             f"<h1>Volva balance report: {e(run_dir.name)}</h1>",
             "<p class='note'>All rates are win rates (sum of win_share / clans; a k-way tie for first counts "
             "1/k). Their 95% intervals treat the <b>seed block</b> as the unit (the games that share a deal: "
             "clans of one game and rotations of one deal are dependent): cluster-robust standard errors "
             "(<i>clustered</i> = True); a rate that cannot vary, such as a strategy holding every seat, is "
             "<i>fixed</i> with no interval. Over all strategies the win rates weighted by clans per game "
             "(rate × seats held) sum to 1. Glory means have 95% t intervals. Rows with fewer than "
             f"{agg.SMALL_N} clans or fewer than 5 wins or losses are flagged <i>small</i> (Wilson interval "
             "at the effective sample size; not tested). Each multiple-testing correction runs over the "
             "tested rows of its own table (cards.csv, card_uses.csv).</p>",
             "<h2>Run</h2><dl>"]
    for k, v in facts:
        parts.append(f"<dt>{e(str(k))}</dt><dd>{e(str(v))}</dd>")
    parts.append("</dl>")

    def fig_block(name):
        for f, title, _, note in figs:
            if f == name:
                data = base64.b64encode((out_dir / f).read_bytes()).decode("ascii")
                s = f"<h3>{e(title)}</h3><img alt='{e(title)}' src='data:image/png;base64,{data}'>"
                return s + (f"<p class='note'>{e(note)}</p>" if note else "")
        return ""

    at = _term(st, "board_count_at")
    strat = res["strategy"].rename(columns={"figures_at_ragnarok": "figures_at_" + "_".join(at.lower().split())}) \
        if at != "Ragnarök" else res["strategy"]
    sf = agg.shared_firsts(st)
    parts += ["<h2>Strategies</h2>", fig_block("strategy_summary.png"),
              f"<p class='note'>Ties split the win: <i>win_shares</i> sums each clan's share (1/k for k clans "
              f"tied first). {sf['shared']:,} of {sf['games']:,} games ({sf['rate']:.2%}) ended in a shared first "
              "place; <i>shared_wins</i> counts a strategy's clans among the tied winners.</p>",
              _fmt_table(strat, _RATE_PCT, {**_RATE_FL, "figures_at_ragnarok": ".2f", "figures_at_prove_valor": ".2f",
                                            "legendary": ".2f"}),
              fig_block("head_to_head.png"),
              "<h3>By player count</h3>", _fmt_table(res["players"], _RATE_PCT, _RATE_FL),
              "<h2>Seats</h2>", fig_block("seat_advantage.png"),
              _fmt_table(res["seat"].assign(seat=res["seat"]["seat"] + 1), _RATE_PCT, _RATE_FL),
              "<h3>By seat and strategy</h3>",
              _fmt_table(res["seat_strategy"].assign(seat=res["seat_strategy"]["seat"] + 1), _RATE_PCT, _RATE_FL),
              "<h2>Glory by source</h2>", fig_block("glory_sources.png"),
              _fmt_table(res["glory_sources"], (), {"mean": ".2f", "ci_low": ".2f", "ci_high": ".2f"}),
              *_shape_html(res, _terms(st)),
              *groups_section.html_section(res.get("groups") or {}, fig_block, _fmt_table, _RATE_PCT, _RATE_FL),
              *(["<h2>Stat paths</h2>", fig_block("stat_paths.png")] if res["stat_paths"] else [])]
    for s, tabs in res["stat_paths"].items():
        parts += [f"<h3>{e(s)}: final levels (top 15 by n)</h3>", _fmt_table(tabs["levels"], _RATE_PCT, _RATE_FL),
                  f"<h3>{e(s)}: first two raises (top 15 by n)</h3>",
                  _fmt_table(tabs["first_two"], _RATE_PCT, _RATE_FL),
                  f"<h3>{e(s)}: first three raises (top 15 by n)</h3>",
                  _fmt_table(tabs["first_three"], _RATE_PCT, _RATE_FL),
                  f"<h3>{e(s)}: legendary stats (stats on step 4 or higher at the end)</h3>",
                  _fmt_table(tabs["legendary"], _RATE_PCT, _RATE_FL)]
    parts += ["<h2>Cards</h2>", fig_block("card_forest.png")]
    cs = res["card_summary"]
    if cs is not None and len(cs):
        if _terms(st).get("cards_note"):  # a game without a draft says what its card table means
            parts.append(f"<h3>{e(focal)}: {e(_term(st, 'drafted'))} and played</h3><p class='note'>"
                         f"{e(str(_terms(st)['cards_note']))}</p>")
        else:
            parts.append(f"<h3>{e(focal)}: drafted, played and kept</h3><p class='note'>ata = average pick "
                         "position (1 = first pick of the age); iwd = win rate when drafted − win rate when not "
                         "drafted (same age and strategy); p_adj = Benjamini–Hochberg adjusted p of the "
                         "z-test of iwd with a standard error clustered by seed block, over the tested rows of "
                         "cards.csv; played = used in a battle, as an upgrade or as a quest; kept = "
                         + _term(st, "kept")
                         + "; glory_* = mean final Glory of those clans.</p>")
        cs = cs.sort_values("iwd", ascending=False).drop(
            columns=["se", "p_value", "tested", "p_holm", "n_not", "win_rate_not"], errors="ignore")  # in cards.csv
        parts.append(_fmt_table(cs, ("win_rate_drafted", "ci_low", "ci_high", "iwd", "win_rate_played",
                                     "win_rate_kept"),
                                {"ata": ".2f", "p_adj": ".2g", "mean_glory": ".1f", "glory_played": ".1f",
                                 "glory_kept": ".1f", "n_played": ",.0f", "n_kept": ",.0f"}))
    ct = res["cards"]
    if ct is not None and len(ct):
        cols = ["strategy", "age", "card", *[c for c in ("type", "god", "value") if c in ct.columns], "times_drafted",
                "ata", "n_drafted", "win_rate_drafted", "ci_low", "ci_high", "n_not", "win_rate_not", "iwd", "z",
                "p_adj", "p_holm", "significant", "small"]
        ct = ct.sort_values(["strategy", "iwd"], ascending=[True, False])[cols]
        parts.append("<h3>Every strategy: drafted vs not drafted</h3>")
        parts.append(_fmt_table(ct, ("win_rate_drafted", "ci_low", "ci_high", "win_rate_not", "iwd"),
                                {"ata": ".2f", "z": ".2f", "p_adj": ".2g", "p_holm": ".2g"}))
    vg = res.get("valhalla_gods")
    if vg is not None:
        parts += ["<h2>Gods of Blood Rage: Valhalla</h2>", fig_block("valhalla_gods.png"),
                  "<h3>Per set of three gods and strategy</h3>", _fmt_table(vg["set_strategy"], _RATE_PCT, _RATE_FL),
                  "<h3>Per god, the age it arrives, and strategy</h3>",
                  _fmt_table(vg["god_age_strategy"], _RATE_PCT, _RATE_FL),
                  "<h3>Per ordered combination (age 1 > age 2 > age 3) and strategy</h3>",
                  _fmt_table(vg["combo_strategy"], _RATE_PCT, _RATE_FL)]
    elif res["gods"] is None:
        if not res.get("groups"):  # a game with groups of its own (Jarls) has no Gods of Ásgard to miss
            parts += ["<h2>Gods of Ásgard</h2>", f"<p class='note'>{e(gods_note)}</p>"]
    else:
        parts += ["<h2>Gods of Ásgard</h2>", fig_block("god_heatmap.png"), "<h3>Per pair and strategy</h3>",
                  _fmt_table(res["gods"]["pair_strategy"], _RATE_PCT, _RATE_FL)]
    if _has_god_pairs(res["drafted_gods"]):
        parts += ["<h2>Drafted god pairs</h2>", fig_block("drafted_gods.png"),
                  _fmt_table(res["drafted_gods"], _RATE_PCT, _RATE_FL)]
    parts += ["<h2>Convergence</h2>", fig_block("convergence.png"),
              _fmt_table(res["convergence"], ("win_rate", "ci_low", "ci_high", "half_width")),
              "</body></html>"]
    return "\n".join(parts)
