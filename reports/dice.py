"""``volva dice`` output: the arming table on the console and its figure."""
from __future__ import annotations

from pathlib import Path


def dice_tables(df) -> list:
    """Rich tables, one per team: rows (tactic, dice), columns rerolls allowed, cells
    'P(≥1 armed) · E[strength]'."""
    from rich.markup import escape
    from rich.table import Table
    out = []
    ks = list(dict.fromkeys(df["rerolls"]))
    for team, g in df.groupby("team", sort=False):
        t = Table(title=escape(f"{team}: P(≥ 1 armed) · E[strength], by rerolls allowed (optimal play for each)"))
        t.add_column("tactic", no_wrap=True)
        t.add_column("dice", justify="right")
        for k in ks:
            t.add_column(f"k={k}", justify="right", no_wrap=True)
        for (tac, n), h in g.groupby(["tactic", "dice"], sort=False):
            cells = {r.rerolls: f"{r.p_armed:.4f} · {r.e_strength:.2f}" for r in h.itertuples()}
            t.add_row(tac, str(n), *(cells.get(k, "—") for k in ks))
        out.append(t)
    return out


def dice_figure(df, path: Path) -> None:
    """P(≥ 1 armed) and E[strength] against rerolls allowed: one row of panels per team; colour
    = Tactic in hand, line style = dice rolled. Writes a PNG to path."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    teams = list(dict.fromkeys(df["team"]))
    ks = list(dict.fromkeys(df["rerolls"]))
    tacs = list(dict.fromkeys(df["tactic"]))
    dice = sorted(set(df["dice"]))
    colours = dict(zip(tacs, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    spare = iter(["-.", (0, (1, 4)), (0, (5, 1)), (0, (3, 1, 1, 1))] * 3)
    styles = {n: {5: "--", 6: "-", 7: ":"}.get(n) or next(spare) for n in dice}  # 6: the base roll, solid
    fig, axes = plt.subplots(len(teams), 2, figsize=(10, 2.5 * len(teams) + 1.2), squeeze=False)
    for row, team in zip(axes, teams):
        g = df[df["team"] == team]
        for (tac, n), h in g.groupby(["tactic", "dice"], sort=False):
            x = [ks.index(k) for k in h["rerolls"]]
            for ax, col in zip(row, ("p_armed", "e_strength")):
                ax.plot(x, h[col], linestyle=styles[n], color=colours[tac], marker="o", ms=2.5,
                        label=f"{tac}, {n} dice")
        for ax, lab in zip(row, ("P(≥ 1 armed)", "E[strength]")):
            ax.set_xticks(range(len(ks)), ks)
            ax.set_ylabel(lab)
            ax.set_title(team, fontsize=9)
            ax.grid(alpha=0.3)
            ax.set_ylim(0, None)
        row[0].set_ylim(0, 1.02)
    for ax in axes[-1]:
        ax.set_xlabel("paid rerolls allowed (each discards a die)")
    h, lab = axes[0, 0].get_legend_handles_labels()
    fig.legend(h, lab, loc="lower center", ncol=min(4, len(lab)), fontsize=8, frameon=False)
    fig.suptitle("Valhalla weapon dice: exact optimal arming, each figure under the policy maximising it\n"
                 "(PROVISIONAL die: one face each of spear, sword, axe, bow, shield, X; DIGEST §5.3)", fontsize=10)
    fig.tight_layout(rect=(0, 0.035 * (1 + (len(lab) - 1) // 4) * 6 / (2.5 * len(teams) + 1.2), 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def deck_tables(df) -> list:
    """A rich table of every Warrior card alone (analysis.dice.deck_table), weakest value first."""
    from rich.markup import escape
    from rich.table import Table
    dice = [int(c.rsplit("_", 1)[1]) for c in df.columns if c.startswith("p_armed_")]
    ref = 6 if 6 in dice else sorted(dice)[len(dice) // 2]
    t = Table(title=escape(f"Warrior cards alone, every reroll allowed: P(armed) by dice, E[strength] with {ref} dice, "
                           "and its ratio to the single-weapon cards' mean"))
    for col in ["card", "shape", "weapons", "str", "Glory", "copies", *[f"P {n} dice" for n in dice], f"E[str] {ref}",
                "ratio"]:
        t.add_column(escape(col), justify="left" if col in ("card", "shape", "weapons") else "right", no_wrap=True)
    for r in df.sort_values(["value_ratio", "card"]).itertuples():
        t.add_row(r.card, r.shape, r.weapons, str(r.strength), str(r.glory), str(r.copies),
                  *[f"{getattr(r, f'p_armed_{n}'):.4f}" for n in dice], f"{getattr(r, f'e_strength_{ref}'):.2f}",
                  f"{r.value_ratio:.2f}")
    from volva.analysis.dice import shape_table
    s = Table(title="By shape (copies counted): value ratio; the calibration rule asks a mean in 0.75..1.25")
    for col in ("shape", "cards", "mean ratio", "range", "in band"):
        s.add_column(col, justify="left" if col == "shape" else "right")
    for r in shape_table(df).itertuples():
        s.add_row(r.shape, str(r.cards), f"{r.mean_ratio:.2f}", f"{r.min_ratio:.2f}–{r.max_ratio:.2f}",
                  "yes" if r.in_band else "NO")
    return [t, s]


def deck_figure(df, path: Path) -> None:
    """Value ratio of every Warrior card by shape, the calibration band shaded. Writes a PNG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    shapes = list(dict.fromkeys(df.sort_values("symbols")["shape"]))
    fig, ax = plt.subplots(figsize=(8, 4.2))
    ax.axhspan(0.75, 1.25, color="tab:green", alpha=0.12, label="calibration band (±25 % of single-weapon cards)")
    ax.axhline(1.0, color="grey", lw=0.8)
    rng = np.random.default_rng(0)  # jitter only, fixed so the figure is reproducible
    from volva.analysis.dice import shape_table
    means = shape_table(df).set_index("shape")["mean_ratio"]
    for i, shape in enumerate(shapes):
        g = df[df["shape"] == shape]
        x = i + rng.uniform(-0.18, 0.18, len(g))
        ax.scatter(x, g["value_ratio"], s=14 + 6 * g["glory"], alpha=0.75)
        ax.hlines(means[shape], i - 0.3, i + 0.3, color="black", lw=1.5)
        if np.isfinite(means[shape]):
            ax.text(i, g["value_ratio"].max() + 0.06, f"mean {means[shape]:.2f}", ha="center", fontsize=8)
    ax.set_xticks(range(len(shapes)), shapes)
    ax.set_ylabel("E[strength] alone / single-weapon mean")
    ax.set_title("Warrior cards alone (6 dice, every reroll, no Tactic); dot size = Glory,\n"
                 "bar = mean with copies counted; PROVISIONAL content", fontsize=9)
    top = df["value_ratio"].max()
    ax.set_ylim(0, (top if np.isfinite(top) else 1.8) + 0.2)
    ax.legend(fontsize=8, loc="lower left")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
