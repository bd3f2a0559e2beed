"""Console output of the commands: rich tables of win rates, paired differences, rankings and
the progress bar. Everything here prints what analysis computed; nothing computes."""
from __future__ import annotations


def ci_text(r, fmt: str = ".4f", sep: str = "–") -> str:
    """'lo–hi' of a row with ci_low/ci_high; 'fixed' for a rate fixed by construction (a mirror
    lineup's 1/P), '—' where there is no interval."""
    if bool(getattr(r, "fixed", False)):
        return "fixed"
    lo, hi = r.ci_low, r.ci_high
    if lo != lo or hi != hi:  # NaN
        return "—"
    return f"{lo:{fmt}}{sep}{hi:{fmt}}"


def win_tables(st) -> list:
    """Rich tables of win rate by strategy and by seat (95% intervals clustered by seed block;
    'fixed' for a rate fixed by construction) from run stats."""
    from rich.table import Table

    from volva.analysis import aggregate as agg
    tables = []
    for key, df in (("strategy", agg.by_strategy(st)), ("seat", agg.by_seat(st))):
        t = Table(title=f"Win rate by {key}" + (" (1..N in turn order from seat 1)" if key == "seat" else ""))
        for col in (key, "clans", "win rate", "95% CI", "expected", "mean Glory"):
            t.add_column(col, justify="left" if col == key else "right", no_wrap=True)
        exp = 1.0 / st["clans"]["n_players"].iloc[0]
        for _, r in df.iterrows():
            label = str(r[key]) if key == "strategy" else str(int(r[key]) + 1)  # seats 1..N, as the report
            t.add_row(label, f"{int(r.n):,}", f"{r.win_rate:.4f}",
                      ci_text(r), f"{exp:.4f}", f"{r.mean_glory:.2f}")
        tables.append(t)
    sf = agg.shared_firsts(st)
    tables.append(f"{sf['shared']:,} of {sf['games']:,} games ({sf['rate']:.2%}) ended in a shared first place "
                  "(ties split the win: win rates are sums of win shares)")
    shape = shape_table(st)
    if shape is not None:
        tables.append(shape)
    return tables


def shape_table(st):
    """'How the bots played': per strategy, means per clan per game of the game-shape counters
    (analysis.aggregate.game_shape), and the per-game totals in the title; None when not counted."""
    from rich.table import Table

    from volva.analysis import aggregate as agg
    res = agg.game_shape(st)
    if res is None:
        return None
    clan, game = res
    g = game.iloc[0]
    terms = st.game.get("terms") if isinstance(st.game.get("terms"), dict) else {}
    if isinstance(terms.get("shape"), dict):  # the game's own counters and words (simulator.engines terms)
        per_game = [c for c in game.columns if c != "games"]
        t = Table(title="How the bots played, per game: " + ", ".join(
            f"{g[c]:.1%} {c}" if c in (terms.get("shape_rates") or {}) else f"{g[c]:.1f} {c}" for c in per_game)
            + ". Per clan:", title_justify="left")
        cols = [("strategy", "strategy", None), *[(v, k, ".2f") for k, v in terms["shape"].items()],
                *[(r, r, ".1%") for r in terms.get("shape_rates") or {}]]
        return _fill(t, clan, cols)
    t = Table(title=f"How the bots played, per game: {g.battles:.1f} battles ({g.battle_ties:.2f} tied), "
                    f"{g.pillages:.1f} pillages ({g.pillages_unopposed:.1f} unopposed), {g.quests_committed:.1f} "
                    f"quests committed ({g.quests_completed:.1f} completed), {g.figures_lost_to_ragnarok:.1f} "
                    f"figures lost to Ragnarök, {g.action_turns:.1f} Action turns. Per clan:", title_justify="left")
    cols = [("strategy", "strategy", None), ("turns", "actions", ".1f"), ("pillages", "pillages", ".2f"),
            ("pillages won", "pillages_won", ".2f"), ("battles", "battles", ".2f"), ("battles won", "battles_won", ".2f"),
            ("quests", "quests", ".2f"), ("quests done", "quests_done", ".2f"), ("lost to Ragnarök", "lost_ragnarok", ".2f"),
            ("stat-bonus Glory", "bonus_share", ".0%"), ("Rage", "rage_level", ".1f"),
            ("Axes", "axes_level", ".1f"), ("Horns", "horns_level", ".1f")]
    return _fill(t, clan, cols)


def _fill(t, clan, cols):
    """Table ``t`` with columns (label, clan column, format or None) of the rows of ``clan``."""
    cols = [c for c in cols if c[1] in clan.columns]
    for label, _, _ in cols:
        t.add_column(label, justify="left" if label == "strategy" else "right", no_wrap=True)
    for _, r in clan.iterrows():
        t.add_row(*[str(r[k]) if f is None else format(r[k], f) for _, k, f in cols])
    return t


def progress(console, unit: str = "games"):
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class GamesPerSecond(ProgressColumn):
        def render(self, task):
            done, el = task.completed - task.fields.get("resumed", 0), task.elapsed  # this process's games
            rate = done / el if el and done else 0
            return Text(f"{rate:,.{0 if rate >= 10 else 2}f} {unit}/s" if rate else f"- {unit}/s")

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), GamesPerSecond(),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=console)


def delta_table(df, title, keys, n_col="n"):
    from rich.table import Table
    t = Table(title=title, title_justify="left")
    for k in keys:
        t.add_column(k, no_wrap=True)
    for c in ("n", "Δ win rate", "95% CI", "p", "Δ Glory", "95% CI "):
        t.add_column(c, justify="right", no_wrap=True)
    for _, r in df.iterrows():
        label = [str(r[k]) for k in keys]
        if bool(r.get("signs_differ", False)):  # a pooled row over strategies with opposite effects
            label[-1] += " (strategies differ in sign: read their rows)"
        t.add_row(*label, f"{int(r[n_col]):,}", f"{r.d_win:+.4f}",
                  ci_text(r, "+.4f", "…"), "—" if r.p_value != r.p_value else f"{r.p_value:.2g}", f"{r.d_glory:+.2f}",
                  "—" if r.glory_ci_low != r.glory_ci_low else f"{r.glory_ci_low:+.2f}…{r.glory_ci_high:+.2f}")
    return t


def rank_table(rank, players: int):
    from rich.table import Table
    t = Table(title=f"Ranking ({players} players; win rate over all games played, 95% interval clustered by seed)")
    for col in ("#", "strategy", "win rate", "95% CI", "expected", "mean Glory", "games"):
        t.add_column(col, justify="left" if col == "strategy" else "right", no_wrap=True)
    for i, r in rank.iterrows():
        t.add_row(str(i + 1), r.strategy, f"{r.win_rate:.4f}", ci_text(r),
                  f"{r.expected:.4f}", f"{r.mean_glory:.2f}", f"{int(r.games):,}")
    return t


def ratings_table(rat):
    import numpy as np
    from rich.table import Table
    zero = f"{rat.loc[rat['anchor'], 'strategy'].iloc[0]} = 0" if rat["anchor"].any() else "no finite rating"
    t = Table(title=f"Ratings (Bradley–Terry on who finishes above whom, Elo points, {zero}; "
                    "95% interval clustered on seeds)")
    for col in ("#", "strategy", "Elo", "95% CI", "score", "comparisons"):
        t.add_column(col, justify="left" if col == "strategy" else "right", no_wrap=True)
    def pts(x: float) -> str:  # Elo points, signed; a value that rounds to zero is '0' (not '-0')
        text = f"{x:+.0f}"
        return "0" if text in ("+0", "-0") else text
    for i, r in rat.iterrows():
        ci = "anchor" if r.anchor else f"{pts(r.ci_low)} to {pts(r.ci_high)}"
        if not r.anchor and np.isnan(r.ci_low) and np.isfinite(r.elo):
            ci = "— (too few games)"
        if np.isinf(r.elo):
            ci = f"none: {'above' if r.elo > 0 else 'below'} every opponent every time"
        t.add_row(str(i + 1), r.strategy, "0" if r.anchor else pts(r.elo), ci, f"{r.score:.3f}", f"{int(r.comparisons):,}")
    return t


def verdicts_table(long, ver, focus, top: int):
    """Verdict per card across bot populations (analysis.populations): the ``focus`` cards, then
    the others that are not 'no effect', ``top`` rows in all (every row is in verdicts.csv)."""
    import pandas as pd
    from rich.table import Table
    pops = list(dict.fromkeys(long["population"]))
    shown = ver[ver["card"].isin(focus)]
    shown = pd.concat([shown, ver[~ver["card"].isin(focus) & (ver["verdict"] != "no effect")]]).head(max(top, 1))
    t = Table(title="Across bot populations: each population's effect (95% CI; * flagged, BH q < 0.05 within "
                    "it) and the verdict (consistent / bot-dependent / partial / no effect; Cochran's Q for "
                    "the difference between populations, BH over the cards)", title_justify="left",
              caption="—: no estimate in that population (every row of the card too small to test: under 100 "
                      "clans, or under 5 expected wins or losses, in a group; or no clan drafted it)",
              caption_justify="left")
    for c in ("card", "age", *pops, "p_het_adj", "verdict"):
        t.add_column(c, justify="left" if c in ("card", "verdict") else "right", no_wrap=True)
    for r in shown.itertuples():
        cells = []
        for pop in pops:
            p = long[(long["population"] == pop) & (long["card"] == r.card) & (long["age"] == r.age)]
            cells.append("—" if not len(p) else f"{p.effect.iloc[0]:+.2%} [{p.ci_low.iloc[0]:+.2%}, "
                         f"{p.ci_high.iloc[0]:+.2%}]{'*' if p.flagged.iloc[0] else ''}")
        v = r.verdict + (" (size differs)" if r.verdict == "consistent" and r.size_differs else "")
        t.add_row(str(r.card), str(r.age) if r.age else "all", *cells, f"{r.p_het_adj:.2g}", v)
    if not len(shown):
        t.add_row("(no card has an effect in any population)", "", *[""] * len(pops), "", "")
    return t


def h2h_table(mat):
    import math

    from rich.table import Table
    t = Table(title="Head to head: row's win rate in the games where row and column both played")
    t.add_column("strategy", no_wrap=True)
    for c in mat.columns:
        t.add_column(str(c), justify="right", no_wrap=True)
    for s, row in mat.iterrows():
        t.add_row(str(s), *["—" if (c == s or math.isnan(v)) else f"{v:.3f}" for c, v in row.items()])
    flat = [r.dropna() for _, r in mat.iterrows()]
    if len(mat) > 2 and all(len(r) and (r == r.iloc[0]).all() for r in flat):  # one table: all in every game
        t.caption = ("every game seats every strategy, so each row is its overall win rate; who finishes above "
                     "whom, pair by pair, is in the ratings")
        t.caption_justify = "left"
    return t


def print_wide(tables) -> None:
    """Print rich tables without squeezing their columns (widen the console if needed)."""
    from rich.console import Console
    con = Console()
    wide = con.options.update_width(100_000)
    need = max(con.measure(t, options=wide).maximum for t in tables)
    if need > con.width:
        con = Console(width=need)
    for t in tables:
        con.print(t)


def population_strategy_table(moved: list, path):
    """``volva compare --population``: each strategy's paired change of win rate in each population
    of two or more strategies (a mirror cannot move); also written to ``path`` (CSV, long)."""
    import pandas as pd
    from rich.table import Table
    long = pd.concat(moved, ignore_index=True)
    long.to_csv(path, index=False)
    t = Table(title="Each strategy's win rate, variant − baseline, in each population (paired by game and seat; "
                    "95% CI clustered by seed block)", title_justify="left")
    for c in ("population", "strategy", "Δ win rate", "95% CI"):
        t.add_column(c, justify="left" if c in ("population", "strategy") else "right", no_wrap=True)
    for _, r in long.iterrows():
        t.add_row(str(r.population), str(r.strategy), f"{r.d_win:+.4f}",
                  "fixed" if bool(r.get("fixed", False)) else f"{r.ci_low:+.4f}…{r.ci_high:+.4f}")
    return t


def population_shape_table(shapes: list, path):
    """``volva compare --population``: how the bots' play moved (all strategies) in each population,
    one column per population (Δ and 95% CI); also written to ``path`` (CSV, long)."""
    import pandas as pd
    from rich.table import Table
    long = pd.concat(shapes, ignore_index=True)
    long.to_csv(path, index=False)
    pops = list(dict.fromkeys(long["population"]))
    t = Table(title="How the bots' play moved in each population, per clan per game (variant − baseline, 95% CI)",
              title_justify="left")
    t.add_column("counter", no_wrap=True)
    for p in pops:
        t.add_column(str(p), justify="right", no_wrap=True)
    for counter in dict.fromkeys(long["counter"]):
        cells = []
        for p in pops:
            r = long[(long["population"] == p) & (long["counter"] == counter)]
            cells.append("" if r.empty else f"{r.delta.iloc[0]:+.3f} [{r.ci_low.iloc[0]:+.3f}, {r.ci_high.iloc[0]:+.3f}]")
        t.add_row(str(counter), *cells)
    return t


def compare_tables_rich(tabs: dict, games: int, top: int, variant: str = "") -> list:
    """Rich tables of what moved in a comparison (analysis.paired.compare_tables output); ``variant``:
    what the variant arm changes (patch files, options), named in the first title."""
    import pandas as pd
    from rich.table import Table
    what = f" ({variant})" if variant else ""
    tables = [delta_table(tabs["strategy"], f"Variant{what} − baseline, paired by game and seat ({games:,} games; "
                          "95% CI clustered by seed block)", ["strategy"])]
    if len(tabs["strategy"]) == 1:  # a mirror lineup (the default: greedy in every seat)
        tables[0].caption = (f"{tabs['strategy']['strategy'].iloc[0]} in every seat: its win rate cannot move; the "
                             "tables below show what changed; --lineup A,B,... compares strategies")
        tables[0].caption_justify = "left"
    sh = tabs.get("shape")
    if sh is not None and len(sh):
        t = Table(title="How the bots' play moved, per clan per game, all strategies (variant − baseline; 95% CI "
                        "from both arms' standard errors; per strategy in compare_shape.csv)", title_justify="left")
        for c in ("counter", "base", "variant", "Δ", "95% CI"):
            t.add_column(c, justify="left" if c == "counter" else "right", no_wrap=True)
        for _, r in sh[sh["strategy"] == "(all)"].iterrows():
            t.add_row(str(r.counter), f"{r.base:.3f}", f"{r.variant:.3f}", f"{r.delta:+.3f}",
                      f"{r.ci_low:+.3f}…{r.ci_high:+.3f}")
        tables.append(t)
    cv = tabs.get("card_value")
    if cv is not None and len(cv):
        tested = cv[cv["tested"].astype(bool)]
        t = Table(title="What the variant changed in each card: worth to a holder (variant − baseline in the same game "
                        "and seat, clans holding it in the variant minus the strategy's other clans; 95% CI "
                        "clustered by seed block; "
                        f"Benjamini–Hochberg over {len(tested):,} tested rows) and who drafts it (draft rate, ATA)",
                  title_justify="left")
        for c in ("strategy", "age", "card", "holders", "held in both", "drafted base", "drafted variant",
                  "ATA base", "ATA variant", "Δ worth to holder", "95% CI", "p_adj", "flag"):
            t.add_column(c, justify="left" if c in ("strategy", "card") else "right", no_wrap=True)
        shown = pd.concat([tested.head(top), tested.tail(min(3, max(len(tested) - top, 0)))]).drop_duplicates()
        both = shown["holders_both"] / shown["holders"].where(shown["holders"] > 0)
        for (_, r), b in zip(shown.iterrows(), both):
            t.add_row(str(r.strategy), str(r.age), str(r.card), f"{int(r.holders):,}", _or_dash(b, ".0%"),
                      _or_dash(r.draft_rate_a, ".1%"),
                      _or_dash(r.draft_rate_b, ".1%"), _or_dash(r.ata_a, ".2f"), _or_dash(r.ata_b, ".2f"),
                      f"{r.d_value:+.4f}",
                      ci_text(r, "+.4f", "…"), f"{r.p_adj:.2g}", "*" if r.significant else "")
        if (both[shown["significant"].astype(bool)] < 0.5).any():  # the variant's holders are mostly other clans
            t.caption = ("held in both < 50% on a flagged row: most of its holders drafted it in the variant only, so "
                         "its Δ worth reads who drafts the card as much as what it does; d_held_both in "
                         "compare_card_value.csv holds the drafters fixed")
            t.caption_justify = "left"
        tables.append(t)
    ci = tabs.get("card_iwd")
    if ci is not None and len(ci):
        paired = bool(ci["paired"].all()) if "paired" in ci else False
        t = Table(title=f"Largest moves: a card's improvement when drafted (IWD = win rate drafted − not drafted, "
                        f"same strategy and age; z with a seed-block-clustered SE{', paired' if paired else ''}; "
                        f"Benjamini–Hochberg over {int(ci['tested'].sum()):,} tested rows; small rows only in the "
                        "CSV)",
                  title_justify="left")
        for c in ("strategy", "age", "card", "ATA base", "ATA variant", "IWD base", "IWD variant", "Δ IWD",
                  "95% CI", "p_adj", "flag"):
            t.add_column(c, justify="left" if c in ("strategy", "card") else "right", no_wrap=True)
        shown = ci[~ci["small"].astype(bool)] if "small" in ci else ci  # small rows are in the CSV, untested
        for _, r in shown.head(top).iterrows():
            t.add_row(str(r.strategy), str(r.age), str(r.card), f"{r.ata_a:.2f}", f"{r.ata_b:.2f}",
                      f"{r.iwd_a:+.4f}", f"{r.iwd_b:+.4f}", f"{r.d_iwd:+.4f}", f"{r.ci_low:+.4f}…{r.ci_high:+.4f}",
                      f"{r.p_adj:.2g}", "*" if r.significant else "")
        tables.append(t)
    for k, label in (("drafted_gods", "win rate by drafted god pair"), ("gods", "win rate by Gods of Ásgard pair"),
                     ("groups", "win rate by " + ", ".join(pd.unique(tabs["groups"]["dimension"])) if "groups" in tabs
                      and len(tabs["groups"]) else ""), ("stat_levels", "win rate by final stat levels")):
        if k not in tabs or not len(tabs[k]):
            continue
        df = tabs[k].dropna(subset=["d_win"])
        if "small" in df:
            df = df[~df["small"].astype(bool)]  # shown in the CSV, not tested
        df = df.sort_values("p_value").head(top)
        keys = [c for c in df.columns if c in ("strategy", "age", "card", "god_pair", "pair", "levels", "dimension",
                                               "value")]
        t = Table(title=f"Largest moves: {label} (two-proportion z, Newcombe 95% CI, Benjamini–Hochberg over "
                        f"{int(tabs[k]['tested'].sum()):,} tested rows; flagged = p_adj < 0.05; small rows only in "
                        "the CSV)",
                  title_justify="left")
        for c in keys + ["n base", "n variant", "base", "variant", "Δ", "95% CI", "p_adj", "flag"]:
            t.add_column(c, justify="left" if c in keys else "right", no_wrap=True)
        for _, r in df.iterrows():
            t.add_row(*[str(r[c]) for c in keys], f"{r.n_a:,}", f"{r.n_b:,}", f"{r.win_rate_a:.4f}",
                      f"{r.win_rate_b:.4f}", f"{r.d_win:+.4f}", f"{r.ci_low:+.4f}…{r.ci_high:+.4f}",
                      f"{r.p_adj:.2g}", "*" if r.significant else "")
        tables.append(t)
    return tables


def tune_table(fresh: list[dict], players: int):
    """The tuned strategy's win share against each league member on fresh seeds (volva tune)."""
    from rich.table import Table
    t = Table(title=f"Tuned strategy on fresh seeds: one seat against {players - 1} copies (par {1 / players:.1%})")
    for c in ("opponent", "win share", "95% CI"):
        t.add_column(c, justify="left" if c == "opponent" else "right")
    for r in sorted(fresh, key=lambda r: r["win_share"]):
        t.add_row(r["opponent"], f"{r['win_share']:.1%}",
                  f"[{r['ci_low'] / players:.1%}, {r['ci_high'] / players:.1%}]")
    return t


def _or_dash(v, spec: str) -> str:
    """``v`` formatted, or '—' where it is undefined (NaN: a card one arm's decks do not hold)."""
    return "—" if v is None or (isinstance(v, float) and v != v) else format(v, spec)  # NaN != NaN
