"""Scenario positions: parse and validate the position of a scenario file (players, age,
provinces, clans' stats, hands, upgrades, quests, figures, gods) and the values scripted
choices name, and build the engine state. scenario.py runs the steps; format: docs/scenarios.md.
Errors: :class:`ScenarioError` (a ValueError) naming the file, the field and the allowed values.
"""
from __future__ import annotations

import difflib
import inspect
from pathlib import Path

import numpy as np

from ..core import enums as E
from ..core.loading import RulesError, ScenarioError, ScenarioRefusal  # noqa: F401  (ScenarioError: raised by fail)
from ..core.scenario import clan_tables
from .rules import Ruleset
from .rules import load_blood_rage as load_ruleset

ACTIONS = ("invade", "march", "upgrade", "quest", "pillage", "challenge", "sacrifice", "pass")
PHASES = ("setup", "draft", "action_phase", "discard", "quest", "ragnarok", "release", "end_age", "end_game")
#: what a `setup` step deals itself: a file that starts before setup leaves these out
DEALT = ("age", "first_player", "destroyed", "pillaged", "tokens", "doom", "gods")
TOP_KEYS = ("ruleset", "players", "age", "first_player", "seed", "options", "destroyed", "pillaged",
            "tokens", "doom", "gods", "clan", "step", "expect")
CLAN_KEYS = ("stats", "rage", "rage_end", "passed", "glory", "hand", "upgrades", "quests", "figures")
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


class ScenarioPosition:
    """A parsed, validated scenario position; ``build`` makes the state record."""

    def __init__(self, path: Path, data: dict):
        self.file = str(path)
        self.d = data
        self.log_lines: list[str] = []
        self.refusals: list[dict] = []  #: steps refused as their expect_error asked
        self.resolve = None  #: strategy name -> (kind, params), set by the caller

    # --- errors and basic fields ------------------------------------------------------------
    def fail(self, field: str, msg: str, kind=ScenarioError):
        raise kind(f"{self.file}: {field}: {msg}" if field else f"{self.file}: {msg}")

    def refuse(self, field: str, msg: str):
        """A legal-looking step the engine refuses (ScenarioRefusal: an expect_error may expect it)."""
        self.fail(field, msg, ScenarioRefusal)

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
        except RulesError as exc:  # an option's error names it: "--option NAME: ..." (core.loading)
            msg = str(exc)
            if msg.startswith("--option "):
                self.fail("options", msg[len("--option "):])
            self.fail("ruleset/options", msg)
        self.T = self.r.tables
        P = self.P = self.int_(d, "players", "players", 2, E.MAX_PLAYERS)
        self.age = self.int_(d, "age", "age", 1, 3, 1)
        first = self.int_(d, "first_player", "first_player", 0, P - 1, 0)
        seed = self.seed = self.int_(d, "seed", "seed", 0, 2 ** 63 - 1, 1)
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
        _, par = self.resolve("greedy")
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
        clans = clan_tables(self, P, f"exactly one per player ({P})")
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
        # the tie-break reads the Rage left at the end of the latest Action phase (DIGEST §1.5 End of game)
        S.rage_end[p] = self.int_(c, "rage_end", f"{F}.rage_end", 0, 999, int(S.rage[p]))
        passed = c.get("passed", False)
        if not isinstance(passed, bool):
            self.fail(f"{F}.passed", f"{passed!r}; allowed: true, false")
        S.passed[p] = int(passed)  # passed this Action phase: it takes no further action (DIGEST §1.5)
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
        from .board import sheet_refresh_nb
        sheet_refresh_nb(self.T, S, p)  # the kept opcode mask of the sheet (S.opmask)
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
            if not -2 ** 31 < v < 2 ** 31:
                self.fail(field, f"{v!r}; allowed: an integer -2147483647..2147483647 (or a name)")
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
            self.refuse(field, f"{text!r} is not in clan {p}'s hand; hand: "
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
