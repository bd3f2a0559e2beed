"""`volva scenario` for Valhalla, the dice game: a position from a TOML file, steps played by the
real kernels, the result as a dict (printed as JSON). Format (docs/scenarios.md, "Valhalla, the
dice game")::

    ruleset = "valhalla-dice"
    players = 3                       # 2..6
    seed = 1                          # the random stream (the deck's order, dice, random choices)
    options = { loki_deception = true, loki_card = "consolation" }   # rule options and modules
    dice = { red = "axe", black = "x" }   # every die of a colour shows this face (default: fair dice)
    deck_top = ["Fury", "Bear Axeman"]    # the next cards drawn, in order; the rest of the deck is
                                          # every card not named anywhere, shuffled by the seed
    discard = ["Wolf Axeman"]             # the discard pile
    [[clan]]                          # one per player, seat order
    strategy = "greedy"               # whose decisions the clan makes (default greedy)
    jarl = "Einar"                    # jarls.csv name, or "none" (default)
    team = ["Bear Axeman"]            # Warriors on the team (at most the team cap, 4)
    hand = ["Fury", "Wolf Twin Axes"]
    valhalla = ["Deer Axeman I"]
    won = { 1 = 1 }                   # shields won from clan 1 (its own shields fall by as many)
    king = 2                          # holds a King of the Hill card at this level (the module on)
    [[step]]                          # Phase A of a clan's turn (the turn's start first: a King's Glory)
    clan = 0
    action = "attack"                 # add | add_two | attack | draw
    target = 1                        # attack
    card = "Bear Axeman"              # add
    cards = ["Wolf Axeman", "Boar Axeman"]   # add_two
    expect_error = "no Warriors"      # any step: it must be refused with this text (and changes nothing)
    [[step]]
    clan = 0
    phase = "draw"                    # draw (Phase B) | turn (the clan's whole turn, its strategy's) |
                                      # end_game (Ragnarök from `clan`, default 0, and scoring)

Cards are conserved: a card named in the position takes one copy out of the deck (an error when
more are named than the deck holds). Decisions inside a step (which Warriors to send, Tactics,
keeps) are the clan's strategy's. Errors: ScenarioError naming the file and field; a step the
rules do not allow: ScenarioRefusal (an ``expect_error`` may expect it).
"""
from __future__ import annotations

import difflib

import numpy as np

from ..core.loading import RulesError
from ..core.record import G_LOG_N, G_TURNS
from ..core.rng import shuffle_nb
from ..core.scenario import ScenarioError, ScenarioFile, clan_tables, load_with_options, play_step
from .dice import FACES
from .state import C_GLORY_ATTACK
from .tables import KIND_WARRIOR, O_KING

TOP_KEYS = ("ruleset", "players", "seed", "options", "dice", "deck_top", "discard", "clan", "step", "expect")
CLAN_KEYS = ("strategy", "jarl", "team", "hand", "valhalla", "won", "king")
ACTIONS = ("add", "add_two", "attack", "draw")
PHASES = ("draw", "turn", "end_game")
STEP_KEYS = {"add": ("clan", "action", "card"), "add_two": ("clan", "action", "cards"),
             "attack": ("clan", "action", "target"), "draw": ("clan", "action")}
COLOURS = ("red", "black", "grey")
END_NAMES = {0: "", 1: "a clan lost its last shield", 2: "the deck ran out"}


class DiceScenario(ScenarioFile):
    """A Valhalla dice-game position and its steps (:func:`load_scenario`)."""

    def card(self, field, name) -> int:
        names = self.r.card_names
        if name is None:
            self.fail(field, "missing; allowed: a card name as in cards.csv")
        if not isinstance(name, str) or name not in names:
            close = difflib.get_close_matches(str(name), names, n=3)
            self.fail(field, f"unknown card {name!r}" + (f"; did you mean {close}?" if close else
                                                          " (names as in cards.csv, exact)"))
        return names.index(name)

    def take(self, field, name) -> int:
        """A copy of card ``name`` out of the pool of undealt copies."""
        c = self.card(field, name)
        if self.left[c] == 0:
            self.fail(field, f"{name!r}: more copies named than the deck holds ({self.r.content.cards[c].copies})")
        self.left[c] -= 1
        return c

    def clan_no(self, field, v) -> int:
        return self.int_in(field, v, 0, self.P - 1)

    # --- the position ----------------------------------------------------------------------------
    def build(self):
        from . import playout as PO
        from .modules import setup_modules_nb
        from .state import G_DECK_N, G_DISC_N, G_GREY, G_KING, G_KING_LEVEL, new_state
        d, rs = self.d, self.r
        self.keys("", d, TOP_KEYS)
        lo, hi = rs.players
        self.P = P = self.int_in("players", d.get("players", 3), lo, hi)
        try:
            rs.check_players(P)
        except RulesError as exc:
            self.fail("players", str(exc))
        seed = self.int_in("seed", d.get("seed", 1), 0, 2 ** 63 - 1)
        clans = clan_tables(self, P, f"exactly {P}, one per player in seat order")
        self.T = self.dice_tables(d.get("dice", {}))
        T = self.T
        S = self.S = new_state()
        PO.init_state_nb(S, P, np.uint64(seed), True, True)
        setup_modules_nb(T, S)
        S.gs[G_GREY] = T.grey
        deck = T.deck[:T.n_deck]
        self.left = np.bincount(deck, minlength=len(rs.card_names)).astype(np.int64)
        kings = []
        for p, c in enumerate(clans):
            F = f"clan[{p}]"
            self.keys(F, c, CLAN_KEYS)
            for key, rows, count, cap in (("team", S.team, S.team_n, int(T.team_cap)),
                                          ("hand", S.hand, S.hand_n, S.hand.shape[1]),
                                          ("valhalla", S.valhalla, S.valhalla_n, S.valhalla.shape[1])):
                names = self.strlist(c.get(key, []), f"{F}.{key}")
                if len(names) > cap:
                    self.fail(f"{F}.{key}", f"{len(names)} cards; allowed: at most {cap}")
                for n in names:
                    cid = self.take(f"{F}.{key}", n)
                    if key != "hand" and T.kind[cid] != KIND_WARRIOR:
                        self.fail(f"{F}.{key}", f"{n!r} is a Battle Tactic; only Warriors go on a team or to Valhalla")
                    rows[p, count[p]] = cid
                    count[p] += 1
                    if key == "valhalla":
                        S.cnt[p, C_GLORY_ATTACK] += T.glory[cid]  # a position's Valhalla: its source is unknown
            jarl = c.get("jarl", "none")
            if jarl != "none":
                if not isinstance(jarl, str) or jarl not in rs.god_names:
                    close = difflib.get_close_matches(str(jarl), rs.god_names, n=3)
                    self.fail(f"{F}.jarl", f"{jarl!r}; allowed: a jarls.csv name or 'none'"
                                           + (f" (did you mean {close}?)" if close else
                                              f" ({', '.join(rs.god_names)})"))
                j = rs.god_names.index(jarl)
                if rs.content.jarls[j].min_players > P:
                    self.fail(f"{F}.jarl", f"{jarl!r} is a {rs.content.jarls[j].min_players}+ Jarl (jarls.csv "
                                           f"min_players), set aside at {P} players (003 l.49)")
                if j in S.jarl[:P]:
                    self.fail(f"{F}.jarl", f"{jarl!r} is already another clan's (one card of each Jarl)")
                S.jarl[p] = j
            won = c.get("won", {})
            if not isinstance(won, dict):
                self.fail(f"{F}.won", f"{won!r}; expected a table clan = shields won from it")
            for k, n in won.items():
                q = self.clan_no(f"{F}.won", int(k) if str(k).isdigit() else k)
                if q == p:
                    self.fail(f"{F}.won", f"clan {p} cannot win its own shields")
                S.won[p, q] = self.int_in(f"{F}.won.{k}", n, 0, int(T.shields))
            if "king" in c:
                if T.opts[O_KING] == 0:
                    self.fail(f"{F}.king", "King of the Hill is off; set options = { king_of_the_hill = true }")
                kings.append((p, self.int_in(f"{F}.king", c["king"], 1, int(T.king_levels[P]))))
        for p in range(P):
            lost = int(S.won[:P, p].sum())
            if lost > T.shields:
                self.fail("clan", f"clan {p} lost {lost} shields in the won tables; it has {int(T.shields)}")
            S.own_shields[p] = T.shields - lost
        if len(kings) > T.kings[P]:
            self.fail("clan", f"{len(kings)} clans hold a King card; {int(T.kings[P])} at {P} players (modules.toml)")
        for k, (p, level) in enumerate(kings):
            S.gs[G_KING + k], S.gs[G_KING_LEVEL + k] = p, level
        for n in self.strlist(d.get("discard", []), "discard"):
            S.discard[S.gs[G_DISC_N]] = self.take("discard", n)
            S.gs[G_DISC_N] += 1
        top = [self.take("deck_top", n) for n in self.strlist(d.get("deck_top", []), "deck_top")]
        rest = np.repeat(np.arange(len(self.left)), self.left).astype(np.int16)
        n = len(rest)
        S.deck[:n] = rest
        shuffle_nb(S.rs, S.deck, n)
        for c in reversed(top):  # the first named is drawn first: the top of the deck is the last slot
            S.deck[n] = c
            n += 1
        S.gs[G_DECK_N] = n

    def dice_tables(self, dice):
        """The kernels' tables, with the ``dice`` table's colours fixed to one face each."""
        self.keys("dice", dice, COLOURS)
        arr = self.r.tables_arr.copy()
        for colour, face in dice.items():
            if not isinstance(face, str) or face.lower() not in FACES:
                self.fail(f"dice.{colour}", f"{face!r}; allowed: {', '.join(FACES)} (every die of the colour shows it)")
            cum = np.zeros(6)
            cum[FACES.index(face.lower()):] = 1.0
            arr[0].cum[COLOURS.index(colour)] = cum
        self.tables_arr = arr
        return arr[0]

    # --- the steps -------------------------------------------------------------------------------
    def run(self):
        from .api import lineup_arrays
        pols = []
        for p, c in enumerate(self.d.get("clan", [])):
            name = c.get("strategy", "greedy")
            if not isinstance(name, str):
                self.fail(f"clan[{p}].strategy", f"{name!r}; expected a strategy name or file")
            try:
                pols.append(self.resolve(name))
            except ValueError as exc:
                self.fail(f"clan[{p}].strategy", str(exc))
        self.kinds, self.params = lineup_arrays(pols)
        self.dts = self.r.dice_for(self.params)
        steps = self.d.get("step", [])
        if not isinstance(steps, list):
            self.fail("step", f"{steps!r}; expected [[step]] tables")
        from .replay import format_event
        names = [f"clan {p}" for p in range(self.P)]
        for i, st in enumerate(steps, 1):
            F = f"step {i}"
            n0 = int(self.S.gs[G_LOG_N])
            play_step(self, i, st, lambda s, F=F: self.play(s, F))
            for row in self.S.log[n0:self.S.gs[G_LOG_N]]:
                t = format_event(self.r, row, names)
                if t is not None:
                    self.log_lines.append(t.strip("\n"))

    def play(self, st, F):
        from . import engine as EN
        from . import playout as PO
        from .state import G_OVER
        if not isinstance(st, dict):
            self.fail(F, f"{st!r}; expected a table")
        S, T = self.S, self.T
        if "phase" in st:
            self.keys(F, st, ("phase", "clan"))
            ph = st["phase"]
            if ph not in PHASES:
                self.fail(f"{F}.phase", f"{ph!r}; allowed: {list(PHASES)}")
        else:
            a = st.get("action")
            if a not in ACTIONS:
                self.fail(f"{F}.action", f"{a!r}; allowed: {list(ACTIONS)} (or phase = {list(PHASES)})")
            self.keys(F, st, STEP_KEYS[a])
        p = self.clan_no(f"{F}.clan", st.get("clan", 0))
        args = None if "phase" in st else self.action_args(F, st, p)
        if S.gs[G_OVER]:
            self.refuse(F, "the game is over (end_game was played)")
        kind, prm = self.kinds[p], self.params[p]
        if "phase" in st:
            if ph == "draw":
                EN.phase_b_nb(T, S, p, kind, prm)
            elif ph == "turn":
                EN.turn_nb(T, S, self.dts, p, self.kinds, self.params)
                S.gs[G_TURNS] += 1
            else:
                PO.end_game_nb(T, S, self.dts, p, self.kinds, self.params)
            return
        why = self.illegal(p, st["action"], args)
        if why:
            self.refuse(F, why)
        EN.start_turn_nb(T, S, p)
        code = {"add": EN.A_ADD1, "add_two": EN.A_ADD2, "attack": EN.A_ATTACK, "draw": EN.A_DRAW}[st["action"]]
        q, i, j = args
        EN.act_nb(T, S, self.dts, p, (code, int(q), int(i), int(j)), self.kinds, self.params)
        S.gs[G_TURNS] += 1  # the turn is counted once its action is played (as play_game_nb does)

    def action_args(self, F, st, p) -> tuple:
        """(target, hand index i, hand index j) of an action step; its names checked."""
        S = self.S
        hand = [int(c) for c in S.hand[p, :S.hand_n[p]]]
        a = st["action"]
        if a == "attack":
            return self.clan_no(f"{F}.target", st.get("target")), -1, -1
        if a == "add":
            c = self.card(f"{F}.card", st.get("card"))
            return -1, (hand.index(c) if c in hand else -1), -1
        if a == "add_two":
            cards = self.strlist(st.get("cards"), f"{F}.cards")
            if len(cards) != 2:
                self.fail(f"{F}.cards", f"{cards!r}; expected two card names")
            idx = []
            for n in cards:
                c = self.card(f"{F}.cards", n)
                k = next((k for k, h in enumerate(hand) if h == c and k not in idx), -1)
                idx.append(k)
            return -1, *(sorted(idx) if -1 not in idx else idx)
        return -1, -1, -1

    def illegal(self, p, a, args) -> str:
        """Why Phase A's action is not legal (003 l.80-92), '' if it is."""
        from . import engine as EN
        S, T, r = self.S, self.T, self.r
        q, i, j = args  # the attack reasons word engine.can_attack_nb (tests/test_valhalla_dice_scenario.py)
        warriors = [int(c) for c in S.hand[p, :S.hand_n[p]] if T.kind[c] == KIND_WARRIOR]
        if S.team_n[p] == 0 and a in ("attack", "draw") and warriors:
            return f"clan {p} has no Warriors on its team and Warriors in hand: it must add one (003 l.83)"
        if a == "add" or a == "add_two":
            if i < 0 or (a == "add_two" and j < 0):
                held = ", ".join(r.card_names[int(c)] for c in S.hand[p, :S.hand_n[p]]) or "(empty)"
                return f"clan {p} does not hold the card(s) named; its hand: {held}"
            cards = [int(S.hand[p, i])] + ([int(S.hand[p, j])] if a == "add_two" else [])
            for c in cards:
                if T.kind[c] != KIND_WARRIOR:
                    return f"{r.card_names[c]!r} is a Battle Tactic, not a Warrior"
            if a == "add_two":
                cap = EN.pair_cap_nb(T, S, p)
                sym = int(T.symbols[cards[0]] + T.symbols[cards[1]])
                if sym > cap:
                    return f"the two Warriors print {sym} weapon symbols; action 2 adds two with at most {cap} (003 l.85)"
        if a == "attack":
            if q == p:
                return f"clan {p} cannot attack itself"
            if S.team_n[p] == 0:
                return f"clan {p} has no Warriors on its team to attack with (003 l.86)"
            if S.team_n[q] == 0:
                return f"clan {q} has no Warriors on its team: it cannot be attacked (003 l.92)"
            if S.own_shields[q] == 0:
                return f"clan {q} has no own shields left: it cannot be attacked (003 l.92)"
        return ""

    # --- the result ------------------------------------------------------------------------------
    def result(self) -> dict:
        from . import state as ST
        from .fight import EV_BATTLE
        S, r, P = self.S, self.r, self.P
        names = r.card_names
        sources = {"attacks won": ST.C_GLORY_ATTACK, "defences won": ST.C_GLORY_DEFENCE,
                   "Ragnarök": ST.C_GLORY_RAGNAROK, "shields": ST.C_GLORY_SHIELDS, "shield sets": ST.C_GLORY_SETS,
                   "Jarl": ST.C_GLORY_JARL, "Loki's Deception": ST.C_GLORY_LOKI, "King of the Hill": ST.C_GLORY_KING}
        over = bool(S.gs[ST.G_OVER])
        out = {"ruleset": r.name, "players": P, "over": over, "deck": int(S.gs[ST.G_DECK_N]),
               "discard": [names[int(c)] for c in S.discard[:S.gs[ST.G_DISC_N]]],
               "grey_dice": int(S.gs[ST.G_GREY]), "end": END_NAMES.get(int(S.gs[ST.G_END]), ""),
               "loki_card": (r.content.modules.loki[int(S.gs[ST.G_LOKI])].name if S.gs[ST.G_LOKI] >= 0 else ""),
               "battles": [], "clans": [], "refusals": self.refusals, "log": self.log_lines}
        for row in S.log[:S.gs[G_LOG_N]]:
            if row[0] == EV_BATTLE:
                out["battles"].append({"attacker": int(row[2]), "defender": int(row[3]),
                                       "winner": {0: "none", 1: "attacker", 2: "defender"}[int(row[4])],
                                       "attacker_strength": int(row[5]), "defender_strength": int(row[6])})
        for p in range(P):
            by = {k: int(S.cnt[p, c]) for k, c in sources.items()}
            king = next((int(S.gs[ST.G_KING_LEVEL + k]) for k in range(2) if S.gs[ST.G_KING + k] == p), 0)
            out["clans"].append({
                "glory": int(S.glory[p]) if over else sum(by.values()),
                "glory_by_source": by, "rank": int(S.rank[p]),
                "jarl": r.god_names[int(S.jarl[p])] if S.jarl[p] >= 0 else "none",
                "team": [names[int(c)] for c in S.team[p, :S.team_n[p]]],
                "hand": [names[int(c)] for c in S.hand[p, :S.hand_n[p]]],
                "valhalla": [names[int(c)] for c in S.valhalla[p, :S.valhalla_n[p]]],
                "shields": int(S.own_shields[p]),
                "won": {str(q): int(S.won[p, q]) for q in range(P) if S.won[p, q]},
                "king": king})
        return out


#: options that act only in the setup, which a scenario replaces by its own position
SETUP_OPTIONS = ("start_hand", "jarl_deal")


def load_scenario(path, data: dict | None = None, resolve=None) -> DiceScenario:
    """Set up the dice-game scenario in ``path`` (its parsed table ``data``); ``resolve`` maps a
    strategy name to (kind, params). Raises ScenarioError (also for an option that acts only in
    the setup, which a scenario does not play)."""
    from .api import load

    def rules(opts):
        for k in SETUP_OPTIONS:
            if opts and k in opts:
                raise ScenarioError(f"{path}: field 'options.{k}': acts only in the setup, which a scenario replaces "
                                    "by its own position (hands, teams, Jarls); allowed: leave it out")
        return load(options=opts)
    return load_with_options(path, data, resolve, rules, DiceScenario)
