"""`volva scenario`: set up a position from a TOML file and play scripted steps with the real engine.

A scenario file describes a position (players, age, provinces, each clan's stats, hand,
upgrades, quests and figures) and a list of steps: Action-phase actions (checked against
``legal_actions_nb``, then run by ``do_action_nb``) and whole phases (discard, quest,
Ragnarök, ...).  Every clan plays the POL_SCRIPT policy: the decisions the engine asks during a
step (Call to Battle moves, the battle card, stat raises, yes/no, ...) consume values the step
queued for that clan; when its queue is empty the greedy policy decides.

Format: docs/scenarios.md.  Errors: :class:`ScenarioError` (a ValueError) whose message names
the file, the field and the allowed values.
"""
from __future__ import annotations

import difflib
import inspect
import tomllib
from pathlib import Path

import numpy as np

from . import enums as E
from .ruleset import RulesError, Ruleset, load_ruleset

ACTIONS = ("invade", "march", "upgrade", "quest", "pillage", "challenge", "sacrifice", "pass")
PHASES = ("draft", "action_phase", "discard", "quest", "ragnarok", "release", "end_age", "end_game")
TOP_KEYS = ("ruleset", "players", "age", "first_player", "seed", "options", "destroyed", "pillaged",
            "tokens", "doom", "gods", "clan", "step", "expect")
CLAN_KEYS = ("stats", "rage", "glory", "hand", "upgrades", "quests", "figures")
STEP_KEYS = {
    "invade": ("clan", "action", "figure", "to", "choices"),
    "march": ("clan", "action", "from", "to", "figures", "choices"),
    "upgrade": ("clan", "action", "card", "slot", "free_invade", "choices"),
    "quest": ("clan", "action", "card", "choices"),
    "pillage": ("clan", "action", "province", "calls", "cards", "choices"),
    "challenge": ("clan", "action", "province", "calls", "cards", "choices"),
    "sacrifice": ("clan", "action", "choices"),
    "pass": ("clan", "action"),
}
PHASE_KEYS = ("phase", "choices")
YES = {"yes": 1, "no": 0, "true": 1, "false": 0}
DECLINE = ("pass", "no", "none", "decline")
UPGRADE_TYPES = (E.CT_LEADER, E.CT_WARRIOR, E.CT_SHIP, E.CT_MONSTER, E.CT_CLAN)


class ScenarioError(ValueError):
    """A malformed scenario file or an illegal step (message: file, field, allowed values)."""


def _fig_name(T, S, p, f, r: Ruleset) -> str:
    if f == E.FIG_LEADER:
        return "leader"
    if f == E.FIG_SHIP:
        return "ship"
    if f >= E.FIG_MONSTER0:
        c = int(S.upg[p, E.SLOT_MONSTER0 + f - E.FIG_MONSTER0])
        return r.card_names[c] if c >= 0 else f"monster {f - E.FIG_MONSTER0 + 1}"
    return "warrior"


def _close(word: str, names) -> str:
    m = difflib.get_close_matches(word, list(names), n=3, cutoff=0.6)
    return f" (did you mean {', '.join(repr(x) for x in m)}?)" if m else ""


class _Scenario:
    def __init__(self, path: Path, data: dict):
        self.file = str(path)
        self.d = data
        self.log_lines: list[str] = []

    # --- errors and basic fields ------------------------------------------------------------
    def fail(self, field: str, msg: str):
        raise ScenarioError(f"{self.file}: {field}: {msg}" if field else f"{self.file}: {msg}")

    def keys(self, d, field, allowed):
        if not isinstance(d, dict):
            self.fail(field, f"expected a table, got {d!r}")
        for k in d:
            if k not in allowed:
                self.fail(f"{field}.{k}" if field else k,
                          f"unknown field{_close(k, allowed)}; allowed: {', '.join(allowed)}")

    def int_(self, d, key, field, lo, hi, default=None):
        if key not in d:
            if default is None:
                self.fail(field, f"missing; allowed: {lo}..{hi}")
            return default
        v = d[key]
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            self.fail(field, f"{v!r}; allowed: an integer {lo}..{hi}")
        return v

    def strlist(self, v, field):
        if isinstance(v, str):
            return [v]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            self.fail(field, f"{v!r}; expected a list of names")
        return v

    # --- names -------------------------------------------------------------------------------
    def province(self, name, field, outer=False):
        names = self.r.province_names[:E.N_OUTER] if outer else self.r.province_names
        if isinstance(name, str):
            for i, n in enumerate(names):
                if n.lower() == name.strip().lower():
                    return i
        self.fail(field, f"unknown province {name!r}{_close(str(name), names)}; allowed: {', '.join(names)}")

    def fjord_names(self):
        return [f"{n} fjord" for n in self.r.fjord_names]

    def location(self, name, field, extra=True):
        """Province index, fjord loc code, or (extra) LOC_RESERVE / LOC_VALHALLA."""
        key = name.strip().lower() if isinstance(name, str) else ""
        for i, n in enumerate(self.r.province_names):
            if n.lower() == key:
                return i
        for i, n in enumerate(self.r.fjord_names):
            if key in (n.lower(), f"{n.lower()} fjord"):
                return E.LOC_FJORD0 + i
        if extra and key == "reserve":
            return E.LOC_RESERVE
        if extra and key == "valhalla":
            return E.LOC_VALHALLA
        allowed = list(self.r.province_names) + self.fjord_names() + (["reserve", "Valhalla"] if extra else [])
        self.fail(field, f"unknown location {name!r}{_close(str(name), allowed)}; allowed: {', '.join(allowed)}")

    def loc_name(self, loc: int) -> str:
        return self.r.loc_label(loc)

    def card(self, text, field, types=None):
        """Card id for 'Name' or 'Name@age' (default: the scenario's age, else the only one)."""
        if not isinstance(text, str):
            self.fail(field, f"{text!r}; expected a card name")
        name, age = text.strip(), None
        if "@" in name:
            base, _, a = name.rpartition("@")
            if a.strip().isdigit():
                name, age = base.strip(), int(a)
        cands = [c for c, n in enumerate(self.r.card_names) if n.lower() == name.lower()]
        allowed = sorted(set(self.r.card_names))
        if types is not None:
            allowed = sorted({self.r.card_names[c] for c in range(self.r.n_cards)
                              if int(self.T.card_type[c]) in types})
        if not cands:
            self.fail(field, f"unknown card {text!r}{_close(name, allowed)}; allowed: {', '.join(allowed)}")
        ages = sorted({int(self.T.card_age[c]) for c in cands})
        if age is not None:
            cands = [c for c in cands if int(self.T.card_age[c]) == age]
            if not cands:
                self.fail(field, f"card {name!r} has no age-{age} version; allowed ages: {ages}")
        if len(cands) > 1:
            here = [c for c in cands if int(self.T.card_age[c]) == self.age]
            if not here:
                self.fail(field, f"card {name!r} exists in ages {ages}; write '{name}@AGE' to pick one")
            cands = here
        c = cands[0]
        if types is not None and int(self.T.card_type[c]) not in types:
            want = "/".join(E.CARD_TYPE_NAMES[t] for t in types)
            self.fail(field, f"{name!r} is a {E.CARD_TYPE_NAMES[int(self.T.card_type[c])]} card; "
                             f"allowed: {want} cards ({', '.join(allowed)})")
        return c

    def card_label(self, c):
        return self.r.card_names[c]

    # --- setup -------------------------------------------------------------------------------
    def build(self):
        from strategies.builtin import resolve

        from .state import G_AGE, G_FIRST, init_state_nb, new_state
        d = self.d
        self.keys(d, "", TOP_KEYS)
        rs_name = d.get("ruleset", "blood-rage")
        opts = d.get("options", {})
        if not isinstance(opts, dict):
            self.fail("options", f"{opts!r}; expected a table of rule options")
        gods = d.get("gods")
        if gods is not None:  # Gods of Ásgard (DIGEST §2): the table turns the module on
            if not isinstance(gods, dict):
                self.fail("gods", f"{gods!r}; expected a table god name = province, e.g. "
                                  f"gods = {{ Odin = \"Elvagar\" }}")
            if opts.get("gods_of_asgard", True) is not True:
                self.fail("options.gods_of_asgard", f"{opts['gods_of_asgard']!r} with a 'gods' table; "
                                                    f"allowed: true (or leave it out)")
            opts = dict(opts, gods_of_asgard=True)
        try:
            self.r = load_ruleset(rs_name, options=opts or None)
        except RulesError as exc:
            self.fail("ruleset/options", str(exc))
        self.T = self.r.tables
        T = self.T
        P = self.P = self.int_(d, "players", "players", 2, E.MAX_PLAYERS)
        self.age = self.int_(d, "age", "age", 1, 3)
        first = self.int_(d, "first_player", "first_player", 0, P - 1, 0)
        seed = self.int_(d, "seed", "seed", 0, 2 ** 63 - 1, 1)
        self.Sarr = new_state()
        S = self.S = self.Sarr[0]
        npar = len(inspect.signature(init_state_nb.py_func).parameters)
        init_state_nb(*([S, P, np.uint64(seed), True, False] + [False] * (npar - 5)))
        S.gs[G_AGE] = self.age
        S.gs[G_FIRST] = first
        for p in range(E.MAX_PLAYERS):
            S.loc[p, E.FIG_MONSTER0:] = E.LOC_NONE
        for p in range(P, E.MAX_PLAYERS):
            S.loc[p, :] = E.LOC_NONE
        _, par = resolve("greedy")
        self.kinds = np.full(P, E.POL_SCRIPT, np.int8)
        self.params = np.tile(par, (P, 1))

        # provinces
        for i, n in enumerate(self.strlist(d.get("destroyed", []), "destroyed")):
            S.destroyed[self.province(n, f"destroyed[{i}]", outer=True)] = 1
        for i, n in enumerate(self.strlist(d.get("pillaged", []), "pillaged")):
            pr = self.province(n, f"pillaged[{i}]")
            if S.destroyed[pr]:
                self.fail(f"pillaged[{i}]", f"{n!r} is destroyed")
            S.pillaged[pr] = 1
        S.token[:E.N_OUTER] = E.REWARD_RAGE
        S.token[E.YGGDRASIL] = E.REWARD_ALL
        toks = d.get("tokens", {})
        if not isinstance(toks, dict):
            self.fail("tokens", f"{toks!r}; expected a table province = reward")
        for n, v in toks.items():
            pr = self.province(n, f"tokens.{n}")
            if v not in E.REWARD_NAMES:
                self.fail(f"tokens.{n}", f"{v!r}; allowed: {', '.join(E.REWARD_NAMES)}")
            S.token[pr] = E.REWARD_NAMES.index(v)
        doom = self.strlist(d.get("doom", []), "doom")
        if len(doom) > 3:
            self.fail("doom", f"{len(doom)} provinces; allowed: at most 3 (ages 1..3)")
        standing = [pr for pr in range(E.N_OUTER) if not S.destroyed[pr]]
        used = []
        for a in range(3):
            if a < len(doom):
                pr = self.province(doom[a], f"doom[{a}]", outer=True)
                if pr in used:
                    self.fail(f"doom[{a}]", f"{doom[a]!r} is already the Ragnarök province of age {used.index(pr) + 1}")
            else:
                pr = next(x for x in standing + list(range(E.N_OUTER)) if x not in used)
            used.append(pr)
            S.doom[a] = pr
        if gods is not None:
            self.build_gods(gods)

        # clans
        clans = d.get("clan", [])
        if not isinstance(clans, list) or len(clans) != P:
            self.fail("clan", f"{len(clans) if isinstance(clans, list) else clans!r} [[clan]] tables; "
                              f"allowed: exactly one per player ({P})")
        for p, c in enumerate(clans):
            self.build_clan(p, c)
        self.check_board()

    def build_gods(self, gods):
        """``gods = { Odin = "Elvagar", ... }``: the gods in play (names of gods.toml, at most
        ``in_play``) on distinct provinces that are not destroyed (DIGEST §2)."""
        T, S, names = self.T, self.S, self.r.god_names
        n_max = int(T.gods_in_play)
        if len(gods) > n_max:
            self.fail("gods", f"{len(gods)} gods; allowed: at most {n_max} ({', '.join(names)})")
        where: dict[int, str] = {}
        for k, (g, prov) in enumerate(gods.items()):
            fld = f"gods.{g}"
            gi = next((i for i, n in enumerate(names) if n.lower() == str(g).strip().lower()), None)
            if gi is None:
                self.fail(fld, f"unknown god {g!r}{_close(str(g), names)}; allowed: {', '.join(names)}")
            if gi in S.god[:k]:
                self.fail(fld, f"{names[gi]} is named twice; allowed: each god once")
            pr = self.province(prov, fld)
            pn = self.r.province_names[pr]
            if S.destroyed[pr]:
                standing = [n for i, n in enumerate(self.r.province_names) if not S.destroyed[i]]
                self.fail(fld, f"{pn} is destroyed; allowed: a standing province ({', '.join(standing)})")
            if pr in where:
                self.fail(fld, f"{pn} already holds {where[pr]}; allowed: a province without a god "
                               f"(the two gods never share one)")
            where[pr] = names[gi]
            S.god[k] = gi
            S.god_loc[k] = pr

    def build_clan(self, p, c):
        T, S, F = self.T, self.S, f"clan[{p}]"
        self.keys(c, F, CLAN_KEYS)
        st = c.get("stats", {})
        self.keys(st, f"{F}.stats", E.STAT_NAMES)
        for s, name in enumerate(E.STAT_NAMES):
            S.stat[p, s] = self.int_(st, name, f"{F}.stats.{name}", 1, E.N_STEPS, 1) - 1
        S.rage[p] = self.int_(c, "rage", f"{F}.rage", 0, 999, int(T.track[E.STAT_RAGE, S.stat[p, E.STAT_RAGE]]))
        S.glory[p, :] = 0
        S.glory[p, E.G_BATTLE] = self.int_(c, "glory", f"{F}.glory", 0, 10 ** 6, 0)
        hand = self.strlist(c.get("hand", []), f"{F}.hand")
        if len(hand) > E.MAX_HAND:
            self.fail(f"{F}.hand", f"{len(hand)} cards; allowed: at most {E.MAX_HAND}")
        for i, n in enumerate(hand):
            S.hand[p, i] = self.card(n, f"{F}.hand[{i}]")
        S.hand_n[p] = len(hand)
        for i, n in enumerate(self.strlist(c.get("upgrades", []), f"{F}.upgrades")):
            fld = f"{F}.upgrades[{i}]"
            cid = self.card(n, fld, UPGRADE_TYPES)
            ct = int(T.card_type[cid])
            slots = {E.CT_LEADER: [E.SLOT_LEADER], E.CT_WARRIOR: [E.SLOT_WARRIOR], E.CT_SHIP: [E.SLOT_SHIP],
                     E.CT_MONSTER: [E.SLOT_MONSTER0, E.SLOT_MONSTER0 + 1],
                     E.CT_CLAN: [E.SLOT_CLAN0 + k for k in range(3)]}[ct]
            free = [s for s in slots if S.upg[p, s] < 0]
            if not free:
                self.fail(fld, f"{n!r}: no free {E.CARD_TYPE_NAMES[ct]} slot "
                               f"({', '.join(E.SLOT_NAMES[s] for s in slots)} taken)")
            S.upg[p, free[0]] = cid
            if ct == E.CT_MONSTER:
                S.loc[p, E.FIG_MONSTER0 + free[0] - E.SLOT_MONSTER0] = E.LOC_RESERVE
        quests = self.strlist(c.get("quests", []), f"{F}.quests")
        if len(quests) > E.MAX_QUESTS:
            self.fail(f"{F}.quests", f"{len(quests)} quests; allowed: at most {E.MAX_QUESTS}")
        for i, n in enumerate(quests):
            S.quests[p, i] = self.card(n, f"{F}.quests[{i}]", (E.CT_QUEST,))
        S.quest_n[p] = len(quests)
        figs = c.get("figures", {})
        if not isinstance(figs, dict):
            self.fail(f"{F}.figures", f"{figs!r}; expected a table location = [figure names]")
        placed = set()
        for where, names in figs.items():
            fld = f"{F}.figures.{where}"
            loc = self.location(where, fld)
            for j, n in enumerate(self.strlist(names, fld)):
                f = self.setup_figure(p, n, f"{fld}[{j}]", placed)
                placed.add(f)
                if E.LOC_FJORD0 <= loc and not self.shiplike(p, f):
                    self.fail(f"{fld}[{j}]", f"{n!r} cannot stand in a fjord; allowed there: ship (or Sea Serpent)")
                if 0 <= loc < E.N_PROVINCES and self.shiplike(p, f):
                    self.fail(f"{fld}[{j}]", f"{n!r} stands in a fjord, not in a province; allowed: "
                                             f"{', '.join(self.fjord_names())}")
                S.loc[p, f] = loc

    def shiplike(self, p, f):
        from .board import is_shiplike_nb
        return bool(is_shiplike_nb(self.T, self.S, p, f))

    def monster_slot(self, p, name):
        for k in range(E.N_MONSTER_SLOTS):
            c = int(self.S.upg[p, E.SLOT_MONSTER0 + k])
            if c >= 0 and self.r.card_names[c].lower() == name.lower():
                return E.FIG_MONSTER0 + k
        if name.lower() in ("monster 1", "monster 2"):
            return E.FIG_MONSTER0 + int(name[-1]) - 1
        return None

    def fig_kind_error(self, p, name, field):
        mons = [self.r.card_names[int(c)] for c in self.S.upg[p, E.SLOT_MONSTER0:E.SLOT_MONSTER0 + 2] if c >= 0]
        allowed = ["leader", "warrior", "ship"] + mons
        self.fail(field, f"unknown figure {name!r} for clan {p}; allowed: {', '.join(allowed)}"
                         + ("" if mons else " (a Monster needs its card in the clan's upgrades)"))

    def setup_figure(self, p, name, field, placed):
        if not isinstance(name, str):
            self.fail(field, f"{name!r}; expected a figure name")
        key = name.strip().lower()
        if key == "leader":
            f = E.FIG_LEADER
        elif key == "ship":
            f = E.FIG_SHIP
        elif key == "warrior":
            free = [f for f in range(E.FIG_WARRIOR0, E.FIG_WARRIOR0 + E.N_WARRIORS) if f not in placed]
            if not free:
                self.fail(field, f"clan {p} has only {E.N_WARRIORS} Warriors")
            return free[0]
        else:
            f = self.monster_slot(p, key)
            if f is None:
                self.fig_kind_error(p, name, field)
        if f in placed:
            self.fail(field, f"{name!r} is placed twice (clan {p} has one)")
        return f

    def check_board(self):
        from .board import fjord_usable_nb, horns_nb, on_board_nb
        T, S, P = self.T, self.S, self.P
        for pr in range(E.N_PROVINCES):
            who = [(p, f) for p in range(P) for f in range(E.NFIG) if S.loc[p, f] == pr]
            name = self.r.province_names[pr]
            if who and S.destroyed[pr]:
                self.fail(f"clan[{who[0][0]}].figures.{name}", f"{name} is destroyed; it holds nothing")
            if len(who) > T.prov_villages[pr]:
                self.fail(f"clan[*].figures.{name}", f"{len(who)} figures in {name}; allowed: at most "
                                                      f"{int(T.prov_villages[pr])} (its villages)")
        for p in range(P):
            for f in range(E.NFIG):
                l = S.loc[p, f]
                if l >= E.LOC_FJORD0 and not fjord_usable_nb(T, S, l - E.LOC_FJORD0):
                    self.fail(f"clan[{p}].figures", f"{self.loc_name(l)} is unusable (both its provinces destroyed)")
            n, h = int(on_board_nb(S, p)), int(horns_nb(T, S, p))
            if n > h:
                self.fail(f"clan[{p}].figures", f"{n} figures on the board; allowed: at most {h} (Horns)")

    # --- script values -------------------------------------------------------------------------
    def resolve_figure(self, p, name, field, cands, used, where=""):
        """Figure slot of clan p named ``name`` ('warrior', 'leader', 'ship', a Monster card name,
        optionally '@Location'), among ``cands`` and not in ``used``."""
        if not isinstance(name, str):
            self.fail(field, f"{name!r}; expected a figure name")
        key, at = name.strip(), None
        if "@" in key:
            key, _, loc = key.partition("@")
            at = self.location(loc, field)
        k = key.strip().lower()
        if k == "leader":
            slots = [E.FIG_LEADER]
        elif k == "ship":
            slots = [E.FIG_SHIP]
        elif k == "warrior":
            slots = list(range(E.FIG_WARRIOR0, E.FIG_WARRIOR0 + E.N_WARRIORS))
        else:
            f = self.monster_slot(p, k)
            if f is None:
                self.fig_kind_error(p, name, field)
            slots = [f]
        ok = [f for f in slots if f in cands and f not in used and (at is None or self.S.loc[p, f] == at)]
        if not ok:
            self.fail(field, f"clan {p} has no {key.strip()} {where or 'there'}"
                             + (" left" if any(f in used for f in slots) else ""))
        return ok[0]

    def choice_value(self, p, v, field, used=None):
        """A 'choices' entry -> script value (``used``: figure slots already named in this list,
        so that ``["warrior", "warrior"]`` names two different Warriors)."""
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, int):
            return v
        if not isinstance(v, str):
            self.fail(field, f"{v!r}; expected a name or an integer")
        k = v.strip().lower()
        if k in E.STAT_NAMES:
            return E.STAT_NAMES.index(k)
        if k in YES:
            return YES[k]
        if k in ("pass", "none", "decline"):
            return -1
        for i, n in enumerate(self.r.province_names):
            if n.lower() == k:
                return i
        for i, n in enumerate(self.r.fjord_names):
            if k in (n.lower(), f"{n.lower()} fjord"):
                return E.LOC_FJORD0 + i
        base = k.partition("@")[0].strip()
        if base in ("leader", "warrior", "ship") or self.monster_slot(p, base) is not None:
            onb = [f for f in range(E.NFIG) if self.S.loc[p, f] >= 0]
            used = set() if used is None else used
            f = self.resolve_figure(p, v, field, onb, used, "on the board")
            used.add(f)
            return f
        inhand = [int(c) for c in self.S.hand[p, :self.S.hand_n[p]]]
        for c in inhand:
            if self.r.card_names[c].lower() == base:
                return c
        if base in {n.lower() for n in self.r.card_names}:
            return self.card(v, field)
        allowed = ["stat names (" + ", ".join(E.STAT_NAMES) + ")", "yes/no", "pass", "province and fjord names",
                   "figure names", "card names", "integers"]
        self.fail(field, f"{v!r} is not a known choice; allowed: {'; '.join(allowed)}")

    def hand_card(self, p, text, field):
        """Card id of ``text`` in clan p's hand."""
        if not isinstance(text, str):
            self.fail(field, f"{text!r}; expected a card name")
        c0 = self.card(text, field)  # validates the name
        name = self.r.card_names[c0].lower()
        age = int(text.rpartition("@")[2]) if "@" in text and text.rpartition("@")[2].strip().isdigit() else None
        hand = [int(c) for c in self.S.hand[p, :self.S.hand_n[p]]]
        ok = [c for c in hand if self.r.card_names[c].lower() == name
              and (age is None or int(self.T.card_age[c]) == age)]
        if not ok:
            self.fail(field, f"{text!r} is not in clan {p}'s hand; hand: "
                             f"{', '.join(self.hand_label(c) for c in hand) or '(empty)'}")
        return c0 if c0 in ok else ok[0]

    def hand_label(self, c):
        n = self.r.card_names[c]
        return f"{n}@{int(self.T.card_age[c])}" if self.r.card_names.count(n) > 1 else n

    def choices(self, st, F):
        """step 'choices' table -> {clan: [script values]}."""
        out = {}
        ch = st.get("choices", {})
        if not isinstance(ch, dict):
            self.fail(f"{F}.choices", f"{ch!r}; expected a table clan = [values]")
        for k, vals in ch.items():
            p = self.clan_key(k, f"{F}.choices")
            vals = vals if isinstance(vals, list) else [vals]
            used: set[int] = set()
            out[p] = [(self.choice_value(p, v, f"{F}.choices.{k}[{j}]", used), v) for j, v in enumerate(vals)]
        return out

    def clan_key(self, k, field):
        try:
            p = int(k)
        except (TypeError, ValueError):
            p = -1
        if not 0 <= p < self.P:
            self.fail(f"{field}.{k}", f"unknown clan {k!r}; allowed: 0..{self.P - 1}")
        return p

    # --- steps ---------------------------------------------------------------------------------
    def run(self):
        from .state import G_LOG_N
        steps = self.d.get("step", [])
        if not isinstance(steps, list):
            self.fail("step", "expected [[step]] tables")
        names = [f"clan {p}" for p in range(self.P)]
        for k, st in enumerate(steps, 1):
            n0 = int(self.S.gs[G_LOG_N])
            self.step(k, st)
            for row in self.S.log[n0:self.S.gs[G_LOG_N]]:
                from .replay import format_event
                try:
                    t = format_event(self.r, row, names, self.S)
                except (IndexError, KeyError, ValueError):  # an event replay.py cannot word yet
                    t = f"(event {int(row[0])}: {[int(x) for x in row]})"
                if t is not None:
                    self.log_lines.append(t.strip("\n"))

    def queue(self, F, script):
        """Load each clan's script queue (list of (value, source text))."""
        S = self.S
        S.script_n[:] = 0
        S.script_i[:] = 0
        self.queued = script
        for p, vals in script.items():
            if len(vals) > E.MAX_SCRIPT:
                self.fail(F, f"clan {p}: {len(vals)} scripted values; allowed: at most {E.MAX_SCRIPT}")
            for i, (v, _) in enumerate(vals):
                S.script[p, i] = v
            S.script_n[p] = len(vals)

    def after(self, F, bad0):
        from .state import G_SCRIPT_BAD
        S = self.S
        if S.gs[G_SCRIPT_BAD] > bad0:
            self.fail(F, f"a scripted choice named no legal option ({int(S.gs[G_SCRIPT_BAD] - bad0)} time(s)); "
                         f"scripted: {self.script_text()} (each clan's values are used in the order the engine asks: "
                         f"Call to Battle moves, then its battle card, then the other choices)")
        for p, vals in self.queued.items():
            i = int(S.script_i[p])
            if i < len(vals):
                left = [str(src) for _, src in vals[i:]]
                self.fail(F, f"clan {p}: scripted value(s) {left} were never asked for by the engine "
                             f"(the decisions it asked came earlier in the queue, or none was asked)")

    def script_text(self):
        return "; ".join(f"clan {p}: {[str(s) for _, s in v]}" for p, v in self.queued.items())

    def step(self, k, st):
        from .state import G_SCRIPT_BAD
        F = f"step {k}"
        if not isinstance(st, dict):
            self.fail(F, f"{st!r}; expected a table")
        if ("action" in st) == ("phase" in st):
            self.fail(F, "give exactly one of 'action' (" + " | ".join(ACTIONS) + ") or 'phase' ("
                         + " | ".join(PHASES) + ")")
        bad0 = int(self.S.gs[G_SCRIPT_BAD])
        if "phase" in st:
            ph = st["phase"]
            if ph not in PHASES:
                self.fail(f"{F}.phase", f"{ph!r}; allowed: {', '.join(PHASES)}")
            self.keys(st, F, PHASE_KEYS)
            self.queue(F, self.choices(st, F))
            self.run_phase(F, ph)
        else:
            act = st["action"]
            if act not in ACTIONS:
                self.fail(f"{F}.action", f"{act!r}; allowed: {', '.join(ACTIONS)}")
            self.keys(st, F, STEP_KEYS[act])
            p = self.int_(st, "clan", f"{F}.clan", 0, self.P - 1)
            self.run_action(F, st, p, act)
        self.after(F, bad0)

    def run_phase(self, F, ph):
        from . import phases as X
        from .state import G_AGE, G_FIRST, G_PHASE, log_nb
        S = self.S
        code = {"draft": E.PH_DRAFT, "action_phase": E.PH_ACTION, "discard": E.PH_DISCARD, "quest": E.PH_QUEST,
                "ragnarok": E.PH_RAGNAROK, "release": E.PH_RELEASE, "end_game": E.PH_END}.get(ph)
        if code is not None:
            S.gs[G_PHASE] = code
            log_nb(S, E.EV_PHASE, -1, code, 0, 0, 0, 0)
        if ph == "draft":
            self.fill_deck()
            self.call(X.draft_nb)
        elif ph == "action_phase":
            self.call(X.action_phase_nb)
        elif ph == "discard":
            self.call(X.discard_phase_nb)
        elif ph == "quest":
            self.call(X.quest_phase_nb)
        elif ph == "ragnarok":
            pr = int(S.doom[S.gs[G_AGE] - 1])
            if S.destroyed[pr]:
                self.fail(F, f"the Ragnarök province of age {int(S.gs[G_AGE])}, "
                             f"{self.r.province_names[pr]}, is already destroyed (set 'doom')")
            self.call(X.ragnarok_nb)
        elif ph == "release":
            self.call(X.release_nb)
        elif ph == "end_age":
            self.call(X.end_age_nb)
            if S.gs[G_AGE] < 3:
                S.gs[G_AGE] += 1
                self.age = int(S.gs[G_AGE])
                log_nb(S, E.EV_AGE, -1, S.gs[G_FIRST], 0, 0, 0, 0)
        elif ph == "end_game":
            self.call(X.end_game_nb)
            self.ended = True

    def call(self, kernel):
        """Call a phase kernel, passing the arguments its signature names (T, S, kinds, params, rank)
        so the scenario runner keeps working while the kernels' signatures evolve."""
        fn = getattr(kernel, "py_func", kernel)
        have = {"T": self.T, "S": self.S, "kinds": self.kinds, "params": self.params, "rank": self.S.rank}
        names = list(inspect.signature(fn).parameters)
        missing = [n for n in names if n not in have]
        if missing:
            raise RuntimeError(f"{fn.__name__}: unexpected kernel parameter(s) {missing}")
        return kernel(*[have[n] for n in names])

    def fill_deck(self):
        """The age deck for a draft step: every copy for this player count, less the cards of this
        age already in hands, on clan sheets or committed; shuffled with the scenario seed."""
        T, S, P = self.T, self.S, self.P
        a = int(S.gs[1]) - 1
        deck = [c for c in range(self.r.n_cards) if int(T.card_age[c]) == a + 1 for _ in range(int(T.card_copies[c, P]))]
        used = [int(c) for p in range(P) for c in list(S.hand[p, :S.hand_n[p]]) + list(S.upg[p])
                + list(S.quests[p, :S.quest_n[p]]) if c >= 0]
        for c in used:
            if c in deck:
                deck.remove(c)
        need = int(T.deal if T.opts[E.OPT_DRAFT] == 1 else T.keep) * P
        if len(deck) < need:
            self.fail("draft", f"only {len(deck)} cards left for the age-{a + 1} deck; the draft deals {need}")
        np.random.default_rng(int(S.rs[0])).shuffle(deck)
        S.deck[a, :] = -1
        S.deck[a, :len(deck)] = deck
        S.deck_n[a] = len(deck)

    def run_action(self, F, st, p, act):
        from .actions import MAX_ACTS, do_action_nb, legal_actions_nb
        T, S = self.T, self.S
        if S.rage[p] <= 0:
            self.fail(F, f"illegal {act}: clan {p} has 0 Rage and cannot act, not even a free action (DIGEST §1.5)")
        script: dict[int, list] = {}
        why = None
        if act == "invade":
            t, a, b, why = (E.A_INVADE,) + self.invade_args(F, st, p)
        elif act == "march":
            t, a, b, why = (E.A_MARCH,) + self.march_args(F, st, p, script)
        elif act == "upgrade":
            t, a, b, why = (E.A_UPGRADE,) + self.upgrade_args(F, st, p, script)
        elif act == "quest":
            t, b = E.A_QUEST, 0
            a = self.hand_index(F, st, p)
            if T.card_type[S.hand[p, a]] != E.CT_QUEST:
                why = f"{self.r.card_names[S.hand[p, a]]} is not a Quest card"
        elif act == "pillage":
            t, b = E.A_PILLAGE, 0
            a = self.province(st.get("province"), f"{F}.province")
            why = self.pillage_why(p, a)
            if why is None:
                self.pillage_script(F, st, p, a, script)
        elif act == "challenge":
            t, b = E.A_CHALLENGE, 0
            a = self.province(st.get("province"), f"{F}.province")
            why = self.challenge_why(p, a)
            if why is None:
                self.pillage_script(F, st, p, a, script)
        elif act == "sacrifice":
            t, a, b = E.A_SACRIFICE, 0, 0
            why = self.sacrifice_why(p)
        else:
            t, a, b = E.A_PASS, 0, 0
        for q, vals in self.choices(st, F).items():
            script.setdefault(q, []).extend(vals)
        acts = np.empty((MAX_ACTS, 3), np.int64)
        n = legal_actions_nb(T, S, p, acts)
        legal = {tuple(int(x) for x in acts[i]) for i in range(n)}
        if why is not None or (t, a, b) not in legal:
            self.fail(F, f"illegal {act}: {why or 'not among the legal actions'}")
        self.queue(F, script)
        do_action_nb(T, S, p, t, a, b, self.kinds, self.params)

    # --- per action arguments and reasons --------------------------------------------------------
    def figure_of(self, F, p, name, field):
        """A reserve figure slot of clan p for an invade (the first reserve Warrior for 'warrior')."""
        S = self.S
        if not isinstance(name, str):
            self.fail(field, f"{name!r}; expected a figure name")
        k = name.strip().lower()
        src, src_name = E.LOC_RESERVE, "reserve"
        if "@" in k:
            k, _, at = k.partition("@")
            k = k.strip()
            if at.strip() != "valhalla":
                self.fail(field, f"{name!r}: an invading figure comes from the reserve, or with "
                                 f"'@Valhalla' from Valhalla (Frigga's Domain)")
            src, src_name = E.LOC_VALHALLA, "Valhalla"
        if k == "warrior":
            res = [f for f in range(E.FIG_WARRIOR0, E.FIG_WARRIOR0 + E.N_WARRIORS) if S.loc[p, f] == src]
            return (res[0], None) if res else (E.FIG_WARRIOR0, f"clan {p} has no Warrior in {src_name}")
        f = {"leader": E.FIG_LEADER, "ship": E.FIG_SHIP}.get(k)
        if f is None:
            f = self.monster_slot(p, k)
        if f is None:
            self.fig_kind_error(p, name, field)
        if S.loc[p, f] != src:
            where = "out of play" if S.loc[p, f] == E.LOC_NONE else f"in {self.loc_name(int(S.loc[p, f]))}"
            return f, f"clan {p}'s {k} is not in {src_name} (it is {where})"
        return f, None

    def invade_args(self, F, st, p):
        from .board import (can_enter_nb, horns_nb, invade_cost_nb, occupancy_nb, on_board_nb)
        T, S = self.T, self.S
        if "figure" not in st or "to" not in st:
            self.fail(F, "invade needs 'figure' (leader, warrior, ship or a Monster name) and 'to'")
        f, why = self.figure_of(F, p, st["figure"], f"{F}.figure")
        dst = self.location(st["to"], f"{F}.to", extra=False)
        if why:
            return f, dst, why
        name = st["figure"]
        if S.loc[p, f] == E.LOC_VALHALLA:
            from .board import upgrade_with_op_nb
            from .effects import op_arg_nb
            fd = int(upgrade_with_op_nb(T, S, p, E.OP_VALHALLA_INVADE))
            if fd < 0:
                return f, dst, f"clan {p} has no Frigga's Domain: figures in Valhalla cannot invade"
            cost = int(op_arg_nb(T, fd, E.OP_VALHALLA_INVADE))
        else:
            cost = int(invade_cost_nb(T, S, p, f))
        rage = int(S.rage[p])
        if cost > rage:
            return f, dst, f"not enough Rage: {name} costs {cost} Rage to invade, clan {p} has {rage}"
        n, h = int(on_board_nb(S, p)), int(horns_nb(T, S, p))
        if n >= h:
            return f, dst, f"Horns limit: clan {p} already has {n} figures on the board (Horns {h})"
        occ = np.empty(E.N_PROVINCES, np.int64)
        occupancy_nb(S, occ)
        if not can_enter_nb(T, S, p, f, dst, occ):
            dn = self.loc_name(dst)
            if self.shiplike(p, f):
                why = (f"a {name} invades a fjord, not a province" if dst < E.LOC_FJORD0
                       else f"{dn} is unusable (both its provinces are destroyed)")
            elif dst >= E.LOC_FJORD0:
                why = f"only Ships invade fjords; {name} needs a province"
            elif S.destroyed[dst]:
                why = f"{dn} is destroyed"
            elif dst == E.YGGDRASIL:
                why = "only the Dark Elf may invade Yggdrasil"
            else:
                why = f"no empty village in {dn} ({int(occ[dst])} of {int(T.prov_villages[dst])} taken)"
        return f, dst, why

    def march_args(self, F, st, p, script):
        from .board import free_villages_nb
        T, S = self.T, self.S
        if "from" not in st or "to" not in st:
            self.fail(F, "march needs 'from' and 'to' (province names)")
        src = self.location(st["from"], f"{F}.from", extra=False)
        dst = self.province(st["to"], f"{F}.to")
        if src >= E.LOC_FJORD0:
            return src, dst, "figures do not march from a fjord (Ships never march)"
        sn, dn = self.r.province_names[src], self.r.province_names[dst]
        here = [f for f in range(E.NFIG) if S.loc[p, f] == src]
        if S.rage[p] < 1:
            return src, dst, f"not enough Rage: a march costs 1, clan {p} has {int(S.rage[p])}"
        if not here:
            return src, dst, f"clan {p} has no figure in {sn}"
        if src == dst:
            return src, dst, "'from' and 'to' are the same province"
        if S.destroyed[dst]:
            return src, dst, f"{dn} is destroyed"
        room = int(free_villages_nb(T, S, dst))
        if room <= 0:
            return src, dst, f"no empty village in {dn}"
        if "figures" in st:
            names = self.strlist(st["figures"], f"{F}.figures")
            if not names:
                self.fail(f"{F}.figures", "empty; name at least one figure (or leave 'figures' out)")
            if len(names) > room:
                return src, dst, f"{len(names)} figures but only {room} empty village(s) in {dn}"
            used: list[int] = []
            for j, n in enumerate(names):
                used.append(self.resolve_figure(p, n, f"{F}.figures[{j}]", here, set(used), f"in {sn}"))
            script[p] = [(len(used), f"{len(used)} figure(s)")] + [(f, n) for f, n in zip(used, names)]
        return src, dst, None

    def hand_index(self, F, st, p):
        if "card" not in st:
            self.fail(F, "needs 'card' (a card name in the clan's hand)")
        c = self.hand_card(p, st["card"], f"{F}.card")
        return [int(x) for x in self.S.hand[p, :self.S.hand_n[p]]].index(c)

    def upgrade_args(self, F, st, p, script):
        from .actions import slot_choices_nb
        from .board import upgrade_cost_nb
        T, S = self.T, self.S
        hi = self.hand_index(F, st, p)
        c = int(S.hand[p, hi])
        ct = int(T.card_type[c])
        name = self.r.card_names[c]
        if ct not in UPGRADE_TYPES:
            return hi, -1, f"{name} is a {E.CARD_TYPE_NAMES[ct]} card, not an upgrade"
        buf = np.empty(16, np.int64)
        slots = [int(x) for x in buf[:slot_choices_nb(S, p, ct, buf)]]
        if "slot" in st:
            sname = st["slot"]
            low = [s.lower() for s in E.SLOT_NAMES]
            if not isinstance(sname, str) or sname.strip().lower() not in low:
                self.fail(f"{F}.slot", f"{sname!r}; allowed: {', '.join(E.SLOT_NAMES)}")
            slot = low.index(sname.strip().lower())
            if slot not in slots:
                return hi, slot, (f"{name} cannot go in the {E.SLOT_NAMES[slot]} slot; allowed: "
                                  f"{', '.join(E.SLOT_NAMES[s] for s in slots)}")
        else:
            slot = slots[0]
        cost, rage = int(upgrade_cost_nb(T, S, p, c)), int(S.rage[p])
        if cost > rage:
            return hi, slot, f"not enough Rage: {name} costs {cost} Rage, clan {p} has {rage}"
        if "free_invade" in st:
            v = st["free_invade"]
            if isinstance(v, str) and v.strip().lower() in DECLINE:
                script[p] = [(-1, v)]
            else:
                script[p] = [(self.location(v, f"{F}.free_invade", extra=False), v)]
        return hi, slot, None

    def challenge_why(self, p, pr):
        """Tyr's Challenge (A_CHALLENGE): pay its Rage to pillage a province already pillaged this age."""
        from .board import present_nb, upgrade_with_op_nb
        from .effects import op_arg_nb
        T, S, n = self.T, self.S, self.r.province_names[pr]
        c = int(upgrade_with_op_nb(T, S, p, E.OP_CHALLENGE))
        if c < 0:
            return f"clan {p} has no Tyr's Challenge (an upgrade with the challenge text)"
        cost = int(op_arg_nb(T, c, E.OP_CHALLENGE))
        if S.rage[p] < cost:
            return f"not enough Rage: Tyr's Challenge costs {cost}, clan {p} has {int(S.rage[p])}"
        if S.destroyed[pr]:
            return f"{n} is destroyed"
        if not S.pillaged[pr]:
            return f"{n} was not pillaged yet this age (use 'pillage')"
        if not present_nb(T, S, p, pr):
            return f"clan {p} has no figure in {n} (nor a Ship in its fjord)"
        return None

    def sacrifice_why(self, p):
        """Frigga's Sacrifice (A_SACRIFICE): destroy a of the clan's figures on the board, raise a stat."""
        from .board import on_board_nb, upgrade_with_op_nb
        from .effects import op_arg_nb
        T, S = self.T, self.S
        c = int(upgrade_with_op_nb(T, S, p, E.OP_SACRIFICE))
        if c < 0:
            return f"clan {p} has no Frigga's Sacrifice (an upgrade with the sacrifice text)"
        need, have = int(op_arg_nb(T, c, E.OP_SACRIFICE)), int(on_board_nb(S, p))
        if have < need:
            return f"clan {p} has {have} figure(s) on the board; Frigga's Sacrifice destroys {need}"
        if all(S.stat[p, s] >= E.N_STEPS - 1 for s in range(E.N_STATS)):
            return "every clan stat is already on step 6"
        return None

    def pillage_why(self, p, pr):
        from .board import present_nb
        S, n = self.S, self.r.province_names[pr]
        if S.destroyed[pr]:
            return f"{n} is destroyed"
        if S.pillaged[pr]:
            return f"{n} was already pillaged this age"
        if not present_nb(self.T, S, p, pr):
            return f"clan {p} has no figure in {n} (nor a Ship in its fjord)"
        return None

    def pillage_script(self, F, st, p, pr, script):
        from .board import is_shiplike_nb
        T, S = self.T, self.S
        calls = st.get("calls", {})
        if not isinstance(calls, dict):
            self.fail(f"{F}.calls", f"{calls!r}; expected a table clan = [figure names or 'pass']")
        pn = self.r.province_names[pr]
        for k, vals in calls.items():
            q = self.clan_key(k, f"{F}.calls")
            cands = [f for f in range(E.NFIG) if 0 <= S.loc[q, f] < E.N_PROVINCES and S.loc[q, f] != pr
                     and T.adj[S.loc[q, f], pr] == 1 and not is_shiplike_nb(T, S, q, f)]
            if not cands:
                self.fail(f"{F}.calls.{k}", f"clan {q} has no figure in a province adjacent to {pn}: the "
                                            f"engine does not ask it for Call to Battle moves")
            used: set[int] = set()
            out = script.setdefault(q, [])
            for j, v in enumerate(self.strlist(vals, f"{F}.calls.{k}")):
                if v.strip().lower() in DECLINE:
                    out.append((-1, v))
                else:
                    f = self.resolve_figure(q, v, f"{F}.calls.{k}[{j}]", cands, used,
                                            f"in a province adjacent to {pn}")
                    used.add(f)
                    out.append((f, v))
        cards = st.get("cards", {})
        if not isinstance(cards, dict):
            self.fail(f"{F}.cards", f"{cards!r}; expected a table clan = card name")
        for k, v in cards.items():
            q = self.clan_key(k, f"{F}.cards")
            for j, name in enumerate(self.strlist(v, f"{F}.cards.{k}")):
                script.setdefault(q, []).append((self.hand_card(q, name, f"{F}.cards.{k}"), name))

    # --- output --------------------------------------------------------------------------------
    def result(self) -> dict:
        T, S, r = self.T, self.S, self.r
        clans = []
        for p in range(self.P):
            figs: dict[str, list[str]] = {"reserve": [], "Valhalla": []}
            for f in range(E.NFIG):
                l = int(S.loc[p, f])
                if l != E.LOC_NONE:
                    figs.setdefault(self.loc_name(l), []).append(_fig_name(T, S, p, f, r))
            c = {
                "glory": int(S.glory[p].sum()),
                "glory_by_source": {n: int(S.glory[p, i]) for i, n in enumerate(E.GLORY_SOURCE_NAMES)},
                "rage": int(S.rage[p]),
                "stats": {n: int(S.stat[p, i]) + 1 for i, n in enumerate(E.STAT_NAMES)},
                "hand": [r.card_names[int(x)] for x in S.hand[p, :S.hand_n[p]]],
                "upgrades": {E.SLOT_NAMES[s]: r.card_names[int(S.upg[p, s])] for s in range(E.N_SLOTS)
                             if S.upg[p, s] >= 0},
                "quests": [r.card_names[int(x)] for x in S.quests[p, :S.quest_n[p]]],
                "figures": figs,
            }
            if S.carried[p] >= 0:
                c["carried"] = r.card_names[int(S.carried[p])]
            if getattr(self, "ended", False):
                c["rank"] = int(S.rank[p])
            clans.append(c)
        provinces = {}
        for pr, name in enumerate(r.province_names):
            fig: dict[str, list[str]] = {}
            for p in range(self.P):
                here = [_fig_name(T, S, p, f, r) for f in range(E.NFIG) if S.loc[p, f] == pr]
                if here:
                    fig[str(p)] = here
            provinces[name] = {"figures": fig, "pillaged": bool(S.pillaged[pr]), "destroyed": bool(S.destroyed[pr]),
                               "token": E.REWARD_NAMES[int(S.token[pr])]}
        fjords = {}
        for i, name in enumerate(r.fjord_names):
            fig = {}
            for p in range(self.P):
                here = [_fig_name(T, S, p, f, r) for f in range(E.NFIG) if S.loc[p, f] == E.LOC_FJORD0 + i]
                if here:
                    fig[str(p)] = here
            fjords[f"{name} fjord"] = {"figures": fig}
        gods = {r.god_names[int(S.god[k])]: (r.province_names[int(S.god_loc[k])] if S.god_loc[k] >= 0 else None)
                for k in range(2) if S.god[k] >= 0}
        from .state import G_AGE
        return {"scenario": self.file, "age": int(S.gs[G_AGE]), "gods": gods, "clans": clans,
                "provinces": provinces, "fjords": fjords, "log": self.log_lines}


def _flatten(d, prefix=""):
    """[expect] table -> [(dotted path, expected value)]; nested tables are walked to their leaves."""
    out = []
    for k, v in d.items():
        path = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict) and v:
            out.extend(_flatten(v, path))
        else:
            out.append((path, v))
    return out


_MISSING = object()


def _lookup(result, path):
    """Value at dotted ``path`` of a run_scenario result ('clan.0.glory' -> result['clans'][0]['glory'])."""
    cur = result
    parts = path.split(".")
    if parts and parts[0] == "clan":
        parts[0] = "clans"
    for part in parts:
        if isinstance(cur, list):
            if not part.lstrip("-").isdigit() or not -len(cur) <= int(part) < len(cur):
                return _MISSING
            cur = cur[int(part)]
        elif isinstance(cur, dict):
            if part in cur:
                cur = cur[part]
                continue
            low = {str(k).lower(): k for k in cur}
            key = low.get(part.lower(), low.get(f"{part.lower()} fjord"))
            if key is None:
                return _MISSING
            cur = cur[key]
        else:
            return _MISSING
    return cur


def _same(expected, actual):
    if isinstance(expected, list) and isinstance(actual, list):
        try:
            return sorted(expected) == sorted(actual)  # figures, hands: order does not matter
        except TypeError:
            return expected == actual
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    return expected == actual


def check_expect(sc: "_Scenario", result: dict) -> None:
    """Compare the scenario's [expect] table with ``result``; raise one ScenarioError listing every
    failing path (expected vs actual). See docs/scenarios.md, "Expectations"."""
    exp = sc.d.get("expect")
    if exp is None:
        return
    if not isinstance(exp, dict):
        sc.fail("expect", f"{exp!r}; expected a table of dotted paths = values")
    bad = []
    for path, want in _flatten(exp):
        if path == "log":
            lines = result.get("log", [])
            for w in sc.strlist(want, "expect.log"):
                if not any(w in line for line in lines):
                    bad.append(f"log: no line contains {w!r}")
            continue
        if path == "log_order":  # each string in a later line than the previous one
            lines, i = result.get("log", []), 0
            for w in sc.strlist(want, "expect.log_order"):
                j = next((j for j in range(i, len(lines)) if w in lines[j]), None)
                if j is None:
                    where = "no line" if not any(w in line for line in lines) else "no later line"
                    bad.append(f"log_order: {where} contains {w!r}"
                               + (f" (after {lines[i - 1].strip()!r})" if i else ""))
                    break
                i = j + 1
            continue
        got = _lookup(result, path)
        if got is _MISSING:
            if want == [] and ".figures." in f".{path}.":  # a location without figures
                continue
            bad.append(f"{path}: expected {want!r}, actual: (no such path)")
        elif not _same(want, got):
            bad.append(f"{path}: expected {want!r}, actual {got!r}")
    if bad:
        sc.fail("expect", f"{len(bad)} expectation(s) failed:\n  " + "\n  ".join(bad))


def load_scenario(path) -> _Scenario:
    """Read and set up the position of scenario file ``path`` (no step run). Raises ScenarioError."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ScenarioError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise ScenarioError(f"{path}: is a directory, not a scenario file") from None
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{path}: not valid TOML: {exc}") from None
    sc = _Scenario(path, data)
    sc.build()
    return sc


def run_scenario(path, check: bool = True) -> dict:
    """Set up scenario ``path``, run its steps with the engine, and return the resulting position
    (clans, provinces, fjords, log) as a JSON-ready dict. With ``check`` (default), the file's
    ``[expect]`` table is compared with the result: any mismatch raises a ScenarioError listing
    every failing path. Raises ScenarioError."""
    sc = load_scenario(path)
    sc.run()
    result = sc.result()
    if check:
        check_expect(sc, result)
    return result
