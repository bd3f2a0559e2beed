"""`volva replay --ruleset valhalla`: one Blood Rage: Valhalla game as text in the rulebook's words
(events: enums VEV_*)."""
from __future__ import annotations

import numpy as np

from ..core import enums as E
from .state import G_CAPPED, G_LOG_LOST, G_LOG_N


def _fig(f: int) -> str:
    if f < E.VH_FIG_WARRIOR0:
        return f"Elite #{f + 1}"
    if f < E.VH_FIG_MONSTER0:
        return f"Warrior #{f - E.VH_FIG_WARRIOR0 + 1}"
    return f"Monster #{f - E.VH_FIG_MONSTER0 + 1}"


def figure_label(rs, S, q: int, f: int) -> str:
    """'Elite #1', 'Warrior #3', or the Monster's card name."""
    if f >= E.VH_FIG_MONSTER0 and 0 <= q < S.mon_card.shape[0] and S.mon_card[q, f - E.VH_FIG_MONSTER0] >= 0:
        return rs.card_names[int(S.mon_card[q, f - E.VH_FIG_MONSTER0])]
    return _fig(f)


def format_event(rs, row, names: list[str], S) -> str | None:
    """One log row -> a line of text (None for rows not shown)."""
    ev, age, p, a, b, c, d, e = (int(x) for x in row)
    who = names[p] if 0 <= p < len(names) else "?"

    def loc(x):
        try:
            return rs.loc_label(x)
        except (IndexError, KeyError):
            return str(x)

    def card(x):
        return rs.card_names[x] if 0 <= x < rs.n_cards else f"card {x}"

    def fig(q, f):
        if f >= E.VH_FIG_MONSTER0 and 0 <= q < S.mon_card.shape[0] and S.mon_card[q, f - E.VH_FIG_MONSTER0] >= 0:
            return card(int(S.mon_card[q, f - E.VH_FIG_MONSTER0]))
        return _fig(f)
    stat = E.STAT_NAMES
    if ev == E.VEV_AGE:
        return f"\n=== Age {age} (first player {names[a]}) ==="
    if ev == E.VEV_PHASE:
        return f"-- {E.VH_PHASE_NAMES[a]} --"
    if ev == E.VEV_GOD:
        return f"{rs.god_names[a]} arrives in {loc(b)} (its Region Token leaves the game)"
    if ev == E.VEV_PICK:
        return f"{who} picks {card(a)} (pick {b})"
    if ev == E.VEV_CARRY:
        return f"{who} takes {card(a)} from the clan symbol into the hand" + (" (Rainbow Bridge Reward Card)" if b else "")
    if ev == E.VEV_SUMMON:
        return f"{who} summons {fig(p, a)} into {loc(b)} ({c} Rage)"
    if ev == E.VEV_MARCH:
        return f"{who} marches {fig(p, a)}: {loc(b)} -> {loc(c)}"
    if ev == E.VEV_UPGRADE:
        return f"{who} upgrades: {card(a)} on slot {b + 1} ({c} Rage)"
    if ev == E.VEV_QUEST:
        return f"{who} commits the quest {card(a)} on slot {b + 1}"
    if ev == E.VEV_CONTEST:
        return f"{who} contests {loc(a)}"
    if ev == E.VEV_CALL:
        return f"  Call to Battle: {who} moves {fig(p, a)} from {loc(b)} to {loc(c)}"
    if ev == E.VEV_NOBATTLE:
        return f"  no enemy in {loc(a)}: no battle"
    if ev == E.VEV_PLAY:
        return f"  {who} reveals {card(a)} (+{b} STR)"
    if ev == E.VEV_TOTAL:
        return f"  {who}: figures {a} STR" + (f", card {card(b)}" if b >= 0 else ", no card") + f": total {c}"
    if ev == E.VEV_WIN:
        return f"  {who} wins the battle in {loc(a)}: +{b} Glory (Axes)"
    if ev == E.VEV_TIE:
        return f"  tie in {loc(a)}: every clan loses"
    if ev == E.VEV_KILL:
        return f"  {who}'s {fig(p, a)}: {loc(b)} -> {loc(c)}"
    if ev == E.VEV_REWARD:
        what = f"{rs.god_names[c]}'s tile" if b == E.VR_GOD else E.VH_REWARD_NAMES[b]
        return f"  {who} claims the reward of {loc(a)}: {what}"
    if ev == E.VEV_PASS:
        return f"{who} passes ({a} Rage lost)"
    if ev == E.VEV_QUESTRES:
        return f"{who}'s quest {card(a)}: " + (f"met, +{c} Glory (Horns)" if b else "failed") + "; back to the hand"
    if ev == E.VEV_RAISE:
        why = ("reward", "quest", "card")[c]
        return f"  {who} raises {stat[a]} to step {b + 1} ({why})"
    if ev == E.VEV_VALOR:
        how = "ties for the majority" if d else "has the majority"
        return f"Prove Valor in {loc(a)}: {who} {how}, {b} figure(s) to the Feast Hall, +{c} Glory"
    if ev == E.VEV_RELEASE:
        return f"{who}: {a} figure(s) released to the reserve"
    if ev == E.VEV_KEEP:
        return f"{who} keeps {card(a)} for the next age"
    if ev == E.VEV_DROP:
        return f"{who} removes {card(a)} from the game"
    if ev == E.VEV_TEXT:
        return f"  {who}: {card(a)}: {rs.opcode_names.get(b, b)} ({c})"
    if ev == E.VEV_GLORY:  # the events that give Glory say so themselves, but a claimed reward's
        # Glory (the region's own, Thor's tile, Loki's with no loser to take from) has no line of its own
        return f"  {who}: +{a} Glory (contest reward)" if b == E.G_CONTEST else None
    if ev == E.VEV_BONUS:
        return f"{who}: {stat[a]} legendary: +{b} Glory"
    if ev == E.VEV_FINAL:
        src = ", ".join(f"{n} {int(v)}" for n, v in zip(E.GLORY_SOURCE_NAMES, S.glory[p]) if v)
        return f"{who}: {a} Glory ({src}); rank {b}; Rage left {c}"
    if ev == E.VEV_DRAW:
        return f"  {who} draws {card(a)}"
    if ev == E.VEV_STEAL:
        return f"  {who} takes {a} Glory from {names[b]}"
    if ev == E.VEV_RETURN:
        return f"  {who}'s {fig(p, a)} returns from {loc(b)} to the reserve (Freya)"
    return f"(event {ev}: {row.tolist()})"


def game_text(rs, S, names: list[str], header: str) -> str:
    """The text log of a finished game state S (VSTATE_DTYPE, logged)."""
    gods = " > ".join(rs.god_names[int(g)] for g in S.gods)
    lines = [f"{header}; gods by age: {gods}"]
    tok = [rs.region_names[i] for i in range(len(rs.region_names)) if S.token0[i]]
    lines.append("Region Tokens: " + ", ".join(tok) + "; rewards: " + ", ".join(
        f"{rs.region_names[i]} {E.VH_REWARD_NAMES[int(S.reward[i])]}" for i in range(len(rs.region_names))))
    if S.glory[:len(names), E.G_START].any():
        lines.append("Starting Glory: " + ", ".join(f"{n} {int(S.glory[i, E.G_START])}" for i, n in enumerate(names)))
    rows = S.log[: S.gs[G_LOG_N]]
    i = 0
    while i < len(rows):
        row = rows[i]
        if row[0] == E.VEV_MARCH:  # one March action: its figures on one line
            j = i
            while j + 1 < len(rows) and rows[j + 1][0] == E.VEV_MARCH and rows[j + 1][2] == row[2] \
                    and rows[j + 1][4] == row[4]:
                j += 1
            moves = ", ".join(f"{figure_label(rs, S, int(rows[k][2]), int(rows[k][3]))} -> "
                              f"{rs.loc_label(int(rows[k][5]))}" for k in range(i, j + 1))
            who = names[int(row[2])]
            lines.append(f"{who} marches from {rs.loc_label(int(row[4]))}: {moves}")
            i = j + 1
            continue
        t = format_event(rs, row, names, S)
        if t is not None:
            lines.append(t)
        i += 1
    if S.gs[G_LOG_LOST]:
        lines.append(f"(log full: {int(S.gs[G_LOG_LOST])} later events not shown)")
    if S.gs[G_CAPPED]:
        lines.append(f"(warning: {int(S.gs[G_CAPPED])} Action phase(s) stopped by max_actions_per_phase)")
    return "\n".join(lines)


def replay_text(rs, lineup_names, lineup, master_seed: int, game_id: int = 0, rotate: bool = True) -> str:
    """The log of game ``game_id`` of a Valhalla experiment (the game `volva run` plays, god sweep
    included)."""
    from ..core.batch import game_plan, rotated, rotation_period
    from .api import play_game
    from .sweep import god_plan_for
    P = len(lineup)
    period = rotation_period(list(lineup_names))
    (r, _, seeds), = game_plan(master_seed, np.array([game_id]), P, rotate, period)
    seed = int(seeds[0])
    plan = god_plan_for(rs, np.array([game_id]), period if rotate else 1)
    S = play_game(rs, rotated(lineup, r), seed, log=True, god_plan=None if plan is None else plan[0])
    names = [f"P{i} ({n})" for i, n in enumerate(rotated(lineup_names, r))]
    return game_text(rs, S, names, f"Blood Rage: Valhalla, {P} players, seed {master_seed}, game {game_id} "
                                   f"(game seed {seed}, rotation {r})")
