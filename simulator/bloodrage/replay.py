"""`volva replay`: one game as a readable log in the game's words.

The kernels record events as int rows (state.LOG_WIDTH columns: event, age,
player, a..e; codes in enums.py EV_*); this module turns them into text.
"""
from __future__ import annotations

import numpy as np

from ..core import enums as E
from ..core.batch import game_plan, rotated, rotation_period
from .api import play_game
from .rules import Ruleset
from .state import G_CAPPED, G_LOG_LOST, G_LOG_N


def _fig(f: int) -> str:
    if f == E.FIG_LEADER:
        return "Leader"
    if f == E.FIG_SHIP:
        return "Ship"
    if f >= E.FIG_MONSTER0:
        return f"Monster #{f - E.FIG_MONSTER0 + 1}"
    return f"Warrior #{f - E.FIG_WARRIOR0 + 1}"


def _text(r: Ruleset, op: int, amount: int, detail: int) -> str:
    """What a card's text did (EV_TEXT: opcode, amount, detail)."""
    stat = E.STAT_NAMES[detail] if 0 <= detail < 3 else "no stat (all at step 6)"

    def safe(label):
        # every entry below is formatted, whatever the opcode: a detail that is not a location or
        # a card for this opcode must not fail
        def f(x):
            try:
                return label(x)
            except (IndexError, KeyError):
                return str(x)
        return f

    r_loc, r_card = safe(r.loc_label), safe(r.card_label)

    class _R:
        loc_label = staticmethod(r_loc)
        card_label = staticmethod(r_card)
    r = _R
    return {
        E.OP_DESTROY_ENEMY_WARRIORS: f"destroys {amount} Warrior(s) of each opponent",
        E.OP_TIDE: "every clan keeps one figure",
        E.OP_LATE: f"+{amount} STR",
        E.OP_GLORY_ON_WIN: f"+{amount} Glory", E.OP_RAGE_ON_WIN: f"+{amount} Rage",
        E.OP_RAISE_ON_WIN: f"raises {stat}", E.OP_GRACE: f"raises {stat}", E.OP_LEADER_RAISE:
            ("raises all three stats" if amount == 3 else f"raises {stat}"), E.OP_SACRIFICE: f"raises {stat}",
        E.OP_STEAL_RAGE_ON_LOSE: f"takes {amount} Rage from P{detail}",
        E.OP_STEAL_GLORY_ON_LOSE: f"takes {amount} Glory from P{detail}",
        E.OP_POISON: f"takes P{detail}'s {amount} revealed card(s)",
        E.OP_WATCH: f"+{amount} Glory; all revealed cards discarded, everyone plays again",
        E.OP_PRIMACY: "cancels the opponents' texts",
        E.OP_GLORY_PER_DESTROYED: f"+{amount} Glory ({detail} figure(s) destroyed)",
        E.OP_INVADE_DESTROY: f"destroys {amount} enemy figure(s) in {r.loc_label(detail)}",
        E.OP_VALKYRIE: f"+{amount} Glory ({detail} enemy figure(s) destroyed)",
        E.OP_DOUBLE_REWARD: "the reward again",
        E.OP_RETREAT: f"retreats from {r.loc_label(detail)} to Yggdrasil",
        E.OP_LEADER_MOVE: f"the Leader moves to {r.loc_label(detail)}",
        E.OP_SHIP_GLORY: f"+{amount} Glory (a Ship destroyed)",
        E.OP_RELEASE_GLORY: f"+{amount} Glory ({detail} figure(s) released)",
        E.OP_ENEMIES_GLORY: f"+{amount} Glory ({detail} enemy figure(s) destroyed)",
        E.OP_SUCCOR: f"a free Warrior into {r.loc_label(detail)}",
        E.OP_BLESSING: f"a free Warrior into {r.loc_label(detail)}",
        E.OP_RAGNAROK_MULT: f"+{amount} Ragnarök Glory", E.OP_QUEST_MULT: f"+{amount} quest Glory",
        E.OP_CHALLENGE: f"pays {amount} Rage to pillage {r.loc_label(detail)} again",
        E.OP_PROTECT: f"pays {amount} Rage: the {_fig(detail)} is not destroyed",
        E.OP_PROWESS: f"pays {amount} Rage to keep {r.card_label(detail)}",
        E.OP_DOMAIN_PILLAGE: f"pays {amount} Rage to pillage {r.loc_label(detail)} at once",
        E.OP_CONQUEST: f"+{amount} Glory ({detail} figure(s) on the board)",
        E.OP_VALHALLA_INVADE: f"the {_fig(detail)} invades from Valhalla for {amount} Rage",
        E.OP_QUEST_AS_BATTLE: f"a Quest card counts +{amount}",
        E.OP_COPY_HIGHEST: f"worth {amount}",
        E.OP_WARRIOR_STR: f"Warriors count {amount}", E.OP_FREE_FIGURE: "costs 0 Rage",
        E.OP_AS_SHIP: "goes to a fjord as a Ship", E.OP_YGGDRASIL: f"STR {amount} / into Yggdrasil",
        E.OP_UPGRADE_DISCOUNT: f"the upgrade costs {amount} less",
        E.OP_QUEST_REGION: "quest met", E.OP_QUEST_YGGDRASIL: "quest met", E.OP_QUEST_VALHALLA: "quest met",
        E.OP_QUEST_WIDESPREAD: "quest met",
    }.get(op, f"opcode {op}")


def format_event(r: Ruleset, row, names: list[str], S) -> str | None:
    """One log row -> one line of text (None for rows shown elsewhere)."""
    ev, age, p, a, b, c, d, e = (int(x) for x in row)
    who = f"{names[p]}" if p >= 0 else ""
    card = r.card_label
    loc = r.loc_label
    stat = E.STAT_NAMES
    if ev == E.EV_AGE:
        return f"\n=== Age {age} === first player: {names[a]}"
    if ev == E.EV_PHASE:
        return f"-- {E.PHASE_NAMES[a]} --" if a not in (E.PH_DRAFT,) else f"-- {E.PHASE_NAMES[a]} (draft) --"
    if ev == E.EV_DOOM:
        return f"Ragnarök token for age {b}: {loc(a)}"
    if ev == E.EV_PREDESTROY:
        return f"{loc(a)} is destroyed at setup"
    if ev == E.EV_TOKEN:
        return f"pillage token on {loc(a)}: {E.REWARD_NAMES[b]}"
    if ev == E.EV_PICK:
        return f"{who} picks {card(a)} (pick {b})"
    if ev == E.EV_CARRY:
        return f"{who} takes back the carried {card(a)}"
    if ev == E.EV_INVADE:
        return f"{who} invades {loc(b)} with {_fig(a)}" + (" for free" if d else f" for {c} Rage")
    if ev == E.EV_MARCH:
        return f"{who} marches {c} figure(s) from {loc(a)} to {loc(b)} (1 Rage)"
    if ev == E.EV_UPGRADE:
        rep = f", replacing {card(d)}" if d >= 0 else ""
        return f"{who} upgrades with {card(a)} in the {E.SLOT_NAMES[b]} slot for {c} Rage{rep}"
    if ev == E.EV_QUEST:
        return f"{who} commits to quest {card(a)}"
    if ev == E.EV_PILLAGE:
        return f"{who} pillages {loc(a)} (token: {E.REWARD_NAMES[b]})"
    if ev == E.EV_CALL:
        return f"  Call to Battle: {who} moves {_fig(a)} from {loc(b)} into {loc(c)}"
    if ev == E.EV_NOBATTLE:
        return f"  no enemy in {loc(a)}: pillage succeeds unopposed"
    if ev == E.EV_PLAY:
        return f"  {who} reveals {card(a)} (+{b})"
    if ev == E.EV_NOCARD:
        return f"  {who} has no card to play"
    if ev == E.EV_TOTAL:
        return f"  {who}: figures {a} + cards {b} = {c} STR"
    if ev == E.EV_WIN:
        return f"  {who} wins the battle in {loc(a)} with {c} STR and gains {b} Glory (Axes)"
    if ev == E.EV_TIE:
        return f"  tie at {b} STR in {loc(a)}: every clan loses"
    if ev == E.EV_DESTROY:
        cause = ("in battle", "by Ragnarök", "(replaced, leaves the game)", "by a card", "by its own clan")[c]
        return f"  {who}'s {_fig(a)} in {loc(b)} is destroyed {cause}" + (" -> Valhalla" if c != 2 else "")
    if ev == E.EV_TEXT:
        return f"  {who}: {card(a)}: {_text(r, b, c, d)}"
    if ev == E.EV_SAVED:
        return f"  {who}'s {_fig(a)} in {loc(b)} is not destroyed ({card(c) if c >= 0 else 'Frigga, god'})"
    if ev == E.EV_CANCEL:
        return f"  {who}'s {card(a)}: text cancelled (Thor's Primacy)"
    if ev == E.EV_GOD_PLACE:
        return f"{r.god_names[a]} (god) is placed on {loc(b)}" if b >= 0 else f"{r.god_names[a]} (god) has no province"
    if ev == E.EV_GOD_MOVE:
        return f"  {who} moves {r.god_names[a]} (god) from {loc(b)} to {loc(c)}"
    if ev == E.EV_MISSION:
        what = r.mission_labels[a] if a < len(r.mission_labels) else f"mission {a + 1}"
        return f"{who} completes Rainbow Bridge {what}: +{b} Glory"
    if ev == E.EV_GOD:
        return f"  {r.god_names[a]} (god) acts in {loc(b)}" + (f" ({c})" if c else "")
    if ev == E.EV_LATE:
        return f"  {who} adds the late card {card(a)} (+{b})"
    if ev == E.EV_REWARD:
        return f"  {who} takes the pillage reward of {loc(a)}: {E.REWARD_NAMES[b]}"
    if ev == E.EV_RAISE:
        why = ("pillage reward", "quest", "card")[c]
        return f"  {who} raises {stat[a]} to step {b + 1} ({why})"
    if ev == E.EV_PASS:
        return f"{who} passes ({a} Rage lost)"
    if ev == E.EV_KEEP:
        return f"{who} keeps {card(a)} for the next age"
    if ev == E.EV_DISCARD:
        return f"{who} discards {card(a)}"
    if ev == E.EV_QUESTRES:
        return f"{who}'s quest {card(a)}: " + (f"met, +{c} Glory" if b else "failed")
    if ev == E.EV_RAGNAROK:
        return f"Ragnarök destroys {loc(a)}: {who} loses {b} figure(s) to Valhalla, +{c} Glory"
    if ev == E.EV_RELEASE:
        return f"{who} releases {a} figure(s) from Valhalla"
    if ev == E.EV_BONUS:
        return f"{who}: {stat[a]} at step {'6' if b >= 20 else '4 or 5'} (legendary): +{b} Glory"
    if ev == E.EV_FINAL:
        g = S.glory[p]
        # the Glory slots Blood Rage shares with Valhalla (contest, valor, start) and Rainbow Bridge's
        # missions are named only when they hold Glory
        src = ", ".join(f"{n} {int(v)}" for n, v in zip(E.GLORY_SOURCE_NAMES, g)
                        if v or n not in ("contest", "valor", "start", "mission"))
        return f"{who}: {a} Glory ({src}); rank {b}; Rage left {c}"
    return f"(event {ev}: {row.tolist()})"


def replay_text(ruleset: Ruleset, lineup_names: list[str], lineup, master_seed: int, game_id: int = 0,
                rotate: bool = True) -> str:
    """The log of game ``game_id`` of an experiment with ``master_seed`` (the same game `volva run` plays,
    seat rotation included: core.batch.game_plan)."""
    P = len(lineup)
    (r, _, seeds), = game_plan(master_seed, np.array([game_id]), P, rotate, rotation_period(list(lineup_names)))
    seed = int(seeds[0])
    S = play_game(ruleset, rotated(lineup, r), seed, log=True)
    names = [f"P{i} ({n})" for i, n in enumerate(rotated(lineup_names, r))]
    lines = [f"Blood Rage, {P} players, seed {master_seed}, game {game_id} (game seed {seed}, rotation {r})"]
    for row in S.log[: S.gs[G_LOG_N]]:
        t = format_event(ruleset, row, names, S)
        if t is not None:
            lines.append(t)
    if S.gs[G_LOG_LOST]:
        lines.append(f"(log full: {int(S.gs[G_LOG_LOST])} later events not shown)")
    if S.gs[G_CAPPED]:
        lines.append(f"(warning: {int(S.gs[G_CAPPED])} Action phase(s) stopped by max_actions_per_phase)")
    return "\n".join(lines)
