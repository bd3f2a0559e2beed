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
