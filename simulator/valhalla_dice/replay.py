"""A Valhalla dice game's log as text (``volva replay --ruleset valhalla-dice``)."""
from __future__ import annotations

from ..core.record import G_LOG_N
from .modules import BONUS_GLORY, EV_KING, EV_LOKI, KING_GLORY, KING_TAKES
from .state import END_DECK, G_LOKI

EV_TURN, EV_ACTION, EV_BATTLE, EV_END, EV_RAGNAROK, EV_SCORE, EV_SETUP, EV_DRAFT = 1, 2, 3, 4, 5, 6, 7, 10
ACTIONS = {1: "adds", 2: "adds two", 3: "attacks", 4: "draws 2, keeps 1"}
OUTCOMES = {0: "no winner (the attacker armed nobody)", 1: "the attacker wins", 2: "the defender wins"}


def log_text(rs, S, names: list[str]) -> str:
    """The log rows of state S as lines of text; seats named ``names`` (strategy names)."""
    P = len(names)
    seat = [f"seat {p + 1} ({names[p]})" for p in range(P)]
    jarls = ", ".join(f"{seat[p]}: {rs.god_names[int(S.jarl[p])] if S.jarl[p] >= 0 else 'no Jarl'}" for p in range(P))
    out = [f"Valhalla (dice game), {P} players. Jarls: {jarls}"]
    if S.gs[G_LOKI] >= 0:
        out.append(f"Loki's Deception card in play: {rs.content.modules.loki[int(S.gs[G_LOKI])].name}")
    for row in S.log[:int(S.gs[G_LOG_N])]:
        line = format_event(rs, row, seat)
        if line is not None:
            out.append(line)
    return "\n".join(out)


def format_event(rs, row, seat: list[str]) -> str | None:
    """One log row as a line of text (None: a row this game does not print); ``seat``: the seats'
    names."""
    card = rs.card_names
    ev, _, p, a, b, c, d, e = (int(x) for x in row)
    if ev == EV_SETUP:
        return f"setup: {seat[p]} starts; {a} cards in the deck, {b} in the discard pile"
    if ev == EV_DRAFT:
        if a == 5:
            return f"draft of starting hands (5 cards each): {seat[p]} is the first player and opens it"
        if a == 3:
            return f"  draft: {card[b]} face up in the pool"
        if a == 4:
            return f"  draft: the {b} cards left in the pool are discarded"
        if a == 2:
            return f"  draft: {seat[p]} completes its hand and leaves the draft"
        return f"  draft: {seat[p]} {'takes' if a else 'places'} {card[b]}"
    if ev == EV_TURN:
        return f"turn {a + 1}: {seat[p]}"
    if ev == EV_ACTION:
        what = ACTIONS.get(a, str(a))
        if a == 1:
            what += f" {card[c]}"
        elif a == 2:
            what += f": {card[c]} and {card[d]}"
        elif a == 3:
            what += f" {seat[b]}"
        return f"  {seat[p]} {what}"
    if ev == EV_BATTLE:
        return f"  battle {seat[p]} -> {seat[a]}: strength {c} against {d}: {OUTCOMES.get(b, b)}"
    if ev == EV_END:
        why = "the last card of the deck is drawn" if a == END_DECK else "a player lost the last own shield"
        return f"END triggered: {why} (turn of {seat[p]}); one final turn each"
    if ev == EV_RAGNAROK:
        return f"Ragnarök: {seat[p]} arms Warriors worth {a} Glory"
    if ev == EV_LOKI:
        bonus = f"{c} Glory" if b == BONUS_GLORY else f"draws {c} card{'s' if c > 1 else ''}"
        return f"  Loki's Deception: {seat[p]} lost by {a}: {bonus}"
    if ev == EV_KING:
        if b == KING_GLORY:
            return f"  King of the Hill: {seat[p]} gains {c} Glory" + (f" (Level {d})" if d else " (King at the end)")
        if b == KING_TAKES:
            return f"  King of the Hill: {seat[p]} becomes King" + (f" (card {a + 1})" if a else "") + ", Level 1"
        return f"  King of the Hill: {seat[p]}, beaten by the other King, returns the card to the middle"
    if ev == EV_SCORE:
        return f"{seat[p]}: {a} Glory, rank {b}"
    return None
