"""`volva scenario` for Blood Rage: Valhalla: a position from a TOML file, steps played by the
real kernels, the result as a dict (printed as JSON). Format (docs/scenarios.md, "Valhalla")::

    ruleset = "valhalla"
    players = 3                      # 3..5
    age = 2                          # 1..3
    seed = 1                         # the random stream (setup rewards, draws)
    options = { call_one = false }   # rule options (as volva run --option)
    gods = { Gladsheim = "Tyr" }     # gods already arrived (others: none)
    tokens = ["Glitnir"]             # Region Tokens on the board (default: none)
    rewards = { Bilskirnir = "axes" }  # region rewards (default: the seed's)
    [[clan]]                         # one per player, seat order
    strategy = "quester"             # whose decisions the clan makes (default greedy)
    stats = { rage = 1, axes = 1, horns = 3 }   # steps 1..6
    rage = 6                         # Rage now (default: the Rage stat's value)
    passed = false                   # passed this Action phase (takes no further action)
    glory = 10                       # starting Glory (source "start")
    hand = ["Mjolnir's Fall"]
    upgrades = ["Warmaster"]         # on the clan sheet (a Monster joins the reserve)
    quests = ["Valhalla's Call"]     # committed
    figures = { Gladsheim = ["elite", "warrior"], "Feast Hall" = ["warrior"], "kill pile 1" = ["elite"] }
    [[step]]                          # an action of a clan ...
    clan = 0
    action = "contest"                # contest | summon | march | upgrade | quest | pass
    region = "Gladsheim"              # contest, summon
    calls = { 2 = ["warrior"] }       # contest: scripted Call to Battle answers ("pass" declines)
    cards = { 0 = "Serpent's Bite" }  # contest: scripted battle cards
    choices = { 0 = ["horns"] }       # contest and phases: other scripted decisions (stats, cards)
    expect_error = "passed"           # any step: it must be refused with this text (and changes nothing)
    figure = "warrior"                # summon: elite | warrior | a Monster's name
    moves = [["warrior", "Bilskirnir"]]   # march from `region`: (figure, destination) pairs
    card = "Mjolnir's Fall"           # upgrade, quest
    [[step]]                          # ... or a phase
    phase = "quest"                   # action | quest | valor | release | end_age | end_game

Decisions inside a step (Call to Battle, the battle card, stat choices) are scripted while a
clan's queue lasts (VPOL_SCRIPT), then its strategy's. Errors: ScenarioError naming the field.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..core import enums as E
from ..core.loading import ScenarioError
from ..core.scenario import ScenarioFile, clan_tables, load_with_options, play_step, refused_text
from .board import sheet_refresh_nb
from .state import G_AGE, G_LOG_N, G_SCRIPT_BAD, G_SCRIPT_BAD_AT, init_state_nb, new_state
from .view import region_view_nb

PHASES = ("action", "quest", "valor", "release", "end_age", "end_game")
ACTIONS = ("contest", "summon", "march", "upgrade", "quest", "pass")
TOP_KEYS = ("ruleset", "players", "age", "seed", "options", "gods", "tokens", "rewards", "clan", "step", "expect")
CLAN_KEYS = ("strategy", "stats", "rage", "passed", "glory", "hand", "upgrades", "quests", "figures")
SCRIPTED = ("calls", "cards", "choices")  #: a step's scripted decisions, queued in this order
STEP_KEYS = {"contest": ("clan", "action", "region") + SCRIPTED, "summon": ("clan", "action", "region", "figure"),
             "march": ("clan", "action", "region", "moves"), "upgrade": ("clan", "action", "card"),
             "quest": ("clan", "action", "card"), "pass": ("clan", "action")}
PHASE_KEYS = ("phase", "cards", "choices")
DECLINE = ("pass", "no", "none", "decline")


class VScenario(ScenarioFile):
    def __init__(self, path: Path, d: dict, rs):
        super().__init__(path, d, rs)
        self.T = rs.tables

    def tab(self, field, v) -> dict:
        if not isinstance(v, dict):
            self.fail(field, f"{v!r}; expected a table")
        return v

    def region(self, field, name):
        if name not in self.r.region_names:
            self.fail(field, f"{name!r}; allowed: {self.r.region_names}")
        return self.r.region_names.index(name)

    def card(self, field, name):
        if name not in self.r.card_names:
            import difflib
            close = difflib.get_close_matches(str(name), self.r.card_names, n=3)
            self.fail(field, f"unknown card {name!r}" + (f"; did you mean {close}?" if close else ""))
        return self.r.card_names.index(name)

    def build(self):
        d, T = self.d, self.T
        self.keys("", d, TOP_KEYS)
        P = d.get("players", 4)
        if isinstance(P, bool) or not isinstance(P, int) or not 3 <= P <= 5:
            self.fail("players", f"{P!r}; allowed: 3..5")
        clans = clan_tables(self, P, f"exactly players = {P}")
        age = self.int_in("age", d.get("age", 1), 1, 3)
        seed = self.int_in("seed", d.get("seed", 1), 0, 2 ** 63 - 1)
        from .engine import setup_nb
        self.P = P
        S = self.S = new_state()[0]
        init_state_nb(S, P, np.uint64(seed), True, True)
        setup_nb(T, S, np.full(4, -1, np.int8), np.zeros(P, np.int16))
        S.gs[G_AGE] = age
        S.token[:] = 0
        S.token0[:] = 0
        S.god_at[:] = -1
        S.hand[:, :] = -1
        S.hand_n[:] = 0
        for name in self.strlist(d.get("tokens", []), "tokens"):
            r = self.region("tokens", name)
            S.token[r] = S.token0[r] = 1
        for name, god in self.tab("gods", d.get("gods", {})).items():
            r = self.region("gods", name)
            if god not in self.r.god_names:
                self.fail(f"gods.{name}", f"{god!r}; allowed: {self.r.god_names}")
            S.god_at[r] = self.r.god_names.index(god)
        for name, rw in self.tab("rewards", d.get("rewards", {})).items():
            r = self.region("rewards", name)
            if rw not in E.VH_REWARD_NAMES[:5]:
                self.fail(f"rewards.{name}", f"{rw!r}; allowed: {list(E.VH_REWARD_NAMES[:5])}")
            S.reward[r] = E.VH_REWARD_NAMES.index(rw)
        for p, c in enumerate(clans):
            self.build_clan(p, c)
        S.view_stale[:] = 1  # figures placed by hand: the kept board view is recomputed
        region_view_nb(T, S)  # tokens, gods and rewards placed by hand

    def build_clan(self, p, c):
        S, T = self.S, self.T
        F = f"clan[{p}]"
        self.keys(F, c, CLAN_KEYS)
        st = self.tab(f"{F}.stats", c.get("stats", {}))
        for k, v in st.items():
            if k not in E.STAT_NAMES or not isinstance(v, int) or not 1 <= v <= 6:
                self.fail(f"{F}.stats", f"{k} = {v!r}; allowed: rage, axes, horns = 1..6")
            S.stat[p, E.STAT_NAMES.index(k)] = v - 1
        S.rage[p] = self.int_in(f"{F}.rage", c.get("rage", int(T.track[E.STAT_RAGE, S.stat[p, E.STAT_RAGE]])), 0, 999)
        passed = c.get("passed", False)
        if not isinstance(passed, bool):
            self.fail(f"{F}.passed", f"{passed!r}; allowed: true, false")
        S.passed[p] = int(passed)  # passed this Action phase: it takes no further action
        S.glory[p, E.G_START] = self.int_in(f"{F}.glory", c.get("glory", 0), 0, 10 ** 6)
        hand = self.strlist(c.get("hand", []), f"{F}.hand")
        if len(hand) > E.VH_MAX_HAND:
            self.fail(f"{F}.hand", f"{len(hand)} cards; allowed: at most {E.VH_MAX_HAND}")
        for name in hand:
            S.hand[p, S.hand_n[p]] = self.card(f"{F}.hand", name)
            S.hand_n[p] += 1
        k = 0
        for key, quest in (("upgrades", 0), ("quests", 1)):
            for name in self.strlist(c.get(key, []), f"{F}.{key}"):
                cid = self.card(f"{F}.{key}", name)
                if (T.card_type[cid] == E.VCT_QUEST) != bool(quest) or T.card_type[cid] == E.VCT_BATTLE:
                    self.fail(f"{F}.{key}", f"{name!r} is a {E.VH_CARD_TYPE_NAMES[T.card_type[cid]]} card")
                if k >= E.VH_N_SLOTS:
                    self.fail(F, f"more than {E.VH_N_SLOTS} upgrades and quests (the clan sheet's slots)")
                S.slot[p, k], S.slot_quest[p, k] = cid, quest
                k += 1
                if T.card_type[cid] == E.VCT_MONSTER:
                    b = int((S.mon_card[p] >= 0).sum())
                    if b >= min(E.VH_N_MONSTERS, int(T.monster_bases)):
                        self.fail(f"{F}.{key}", f"{name!r}: no free Monster base; allowed: at most "
                                                f"{min(E.VH_N_MONSTERS, int(T.monster_bases))} Monster upgrades")
                    S.mon_card[p, b] = cid
                    S.loc[p, E.VH_FIG_MONSTER0 + b] = E.VH_LOC_RESERVE
        sheet_refresh_nb(T, S, p)
        for where, figs in self.tab(f"{F}.figures", c.get("figures", {})).items():
            loc = self.location(f"{F}.figures", where)
            for fig in self.strlist(figs, f"{F}.figures.{where}"):
                f = self.figure(f"{F}.figures.{where}", p, fig, E.VH_LOC_RESERVE)
                S.loc[p, f] = loc

    def moves(self, F, st) -> list:
        mv = st.get("moves", [])
        if not isinstance(mv, list) or not all(isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) for x in m)
                                               for m in mv):
            self.fail(f"{F}.moves", f"{mv!r}; expected [[figure, region], ...] pairs of names")
        return mv

    def location(self, field, where):
        if where == "Feast Hall":
            return E.VH_LOC_FEAST
        if where == "reserve":
            return E.VH_LOC_RESERVE
        if where.startswith("kill pile "):
            q = where[len("kill pile "):]
            if not q.isdigit() or int(q) >= self.P:
                self.fail(field, f"{where!r}; allowed: kill pile 0..{self.P - 1}")
            return E.VH_LOC_KILL0 - int(q)
        return self.region(field, where)

    def figure(self, field, p, fig, at, used=()):
        """The first figure slot of clan p of kind ``fig`` (elite, warrior, a Monster's name) at ``at``,
        skipping the slots in ``used``."""
        S = self.S
        if not isinstance(fig, str):
            self.fail(field, f"{fig!r}; allowed: elite, warrior or a Monster's name")
        if fig == "elite":
            slots = range(E.VH_FIG_ELITE0, E.VH_FIG_ELITE0 + int(self.T.n_elites))
        elif fig == "warrior":
            slots = range(E.VH_FIG_WARRIOR0, E.VH_FIG_WARRIOR0 + int(self.T.n_warriors))
        else:
            if fig not in self.r.card_names:
                import difflib
                close = difflib.get_close_matches(str(fig), ["elite", "warrior"] + self.r.card_names, n=1)
                self.fail(field, f"{fig!r}; allowed: elite, warrior or a Monster's name"
                          + (f" (did you mean {close[0]!r}?)" if close else ""))
            cid = self.card(field, fig)
            slots = [E.VH_FIG_MONSTER0 + b for b in range(E.VH_N_MONSTERS) if S.mon_card[p, b] == cid]
            if not slots:
                self.fail(field, f"{fig!r}: the clan has no such Monster upgrade (list it in upgrades)")
        for f in slots:
            if S.loc[p, f] == at and f not in used:
                return f
        self.refuse(field, f"no {fig} of clan {p} left in {self.r.loc_label(at) if at >= -3 else at}")

    def run(self):
        from . import engine as V
        resolve = self.resolve
        S, T = self.S, self.T
        pols = []
        for p, c in enumerate(self.d.get("clan", [])):
            try:
                name = c.get("strategy", "greedy") if isinstance(c, dict) else "greedy"
                if not isinstance(name, str):
                    self.fail(f"clan[{p}].strategy", f"{name!r}; expected a strategy name or file")
                pols.append(resolve(name))
            except ValueError as exc:
                self.fail(f"clan[{p}].strategy", str(exc))
        own = np.array([k for k, _ in pols], np.int8)
        params = np.stack([prm for _, prm in pols])

        def play(st, F):
            if not isinstance(st, dict):
                self.fail(F, f"{st!r}; expected a table")
            kinds = self.queue(F, st, own)
            if "phase" in st:
                ph = st["phase"]
                if ph not in PHASES:
                    self.fail(f"{F}.phase", f"{ph!r}; allowed: {list(PHASES)}")
                self.keys(F, st, PHASE_KEYS)
                {"action": lambda: V.action_phase_nb(T, S, kinds, params),
                 "quest": lambda: V.quest_phase_nb(T, S, kinds, params),
                 "valor": lambda: V.valor_phase_nb(T, S),
                 "release": lambda: V.release_nb(T, S),
                 "end_age": lambda: V.end_age_nb(T, S, kinds, params),
                 "end_game": lambda: V.end_game_nb(T, S)}[ph]()
            else:
                self.action(F, st, kinds, params)
            self.after(F)

        steps = self.d.get("step", [])
        if not isinstance(steps, list):
            self.fail("step", f"{steps!r}; expected [[step]] tables")
        for i, st in enumerate(steps, 1):
            F = f"step {i}"
            n0 = int(S.gs[G_LOG_N])
            play_step(self, i, st, lambda s, F=F: play(s, F))
            from .replay import format_event
            names = [f"clan {p}" for p in range(self.P)]
            for row in S.log[n0:S.gs[G_LOG_N]]:
                t = format_event(self.r, row, names, S)
                if t is not None:
                    self.log_lines.append(t.strip("\n"))

    # --- scripted decisions (VPOL_SCRIPT) ----------------------------------------------------
    def queue(self, F, st, own):
        """Fill each clan's script queue from the step's calls, cards and choices (in that order);
        a clan with a queue plays VPOL_SCRIPT for the step (greedy once it runs out). Returns the
        step's kinds."""
        S = self.S
        S.script_n[:] = 0
        S.script_i[:] = 0
        S.gs[G_SCRIPT_BAD] = 0
        S.gs[G_SCRIPT_BAD_AT] = 0
        vals: dict[int, list] = {}
        self.called: dict[int, set] = {}
        region = st.get("region")
        for key in SCRIPTED:
            table = st.get(key, {})
            if not isinstance(table, dict):
                self.fail(f"{F}.{key}", f"{table!r}; expected a table clan = [values]")
            for k, v in table.items():
                if not str(k).isdigit() or int(k) >= self.P:
                    self.fail(f"{F}.{key}", f"clan {k!r}; allowed: 0..{self.P - 1}")
                q = int(k)
                for j, x in enumerate([v] if not isinstance(v, list) else v):
                    fld = f"{F}.{key}.{k}[{j}]"
                    vals.setdefault(q, []).append((self.script_value(fld, key, q, x, region), x))
        kinds = own.copy()
        self.queued = vals
        for q, vs in vals.items():
            if own[q] == E.VPOL_RANDOM:
                self.fail(F, f"clan {q} plays a random strategy; scripted decisions need a greedy-kind one")
            if len(vs) > E.MAX_SCRIPT:
                self.fail(F, f"clan {q}: {len(vs)} scripted values; allowed: at most {E.MAX_SCRIPT}")
            for i, (v, _) in enumerate(vs):
                S.script[q, i] = v
            S.script_n[q] = len(vs)
            kinds[q] = E.VPOL_SCRIPT
        return kinds

    def script_value(self, fld, key, q, x, region):
        """A scripted value as the engine reads it: a card id, a stat code, a figure slot, -1."""
        if isinstance(x, bool) or not isinstance(x, (str, int)):
            self.fail(fld, f"{x!r}; expected a name or an integer")
        if isinstance(x, int):
            if not -2 ** 15 <= x < 2 ** 15:
                self.fail(fld, f"{x!r}; allowed: an integer -32768..32767 (or a name)")
            return x
        low = x.strip().lower()
        if low in DECLINE:
            return -1
        if key == "cards":  # a battle card: revealed from the hand (as the base game's scenarios check)
            return self.hand_card(fld, q, x)
        if key == "choices" and x in self.r.card_names:
            return self.card(fld, x)
        if key == "choices":
            if low in E.STAT_NAMES:
                return E.STAT_NAMES.index(low)
            self.fail(fld, f"{x!r}; allowed: a stat ({', '.join(E.STAT_NAMES)}), a card name, "
                           f"{' / '.join(DECLINE)}, or an integer")
        # calls: a figure of clan q next to the contested region ("warrior@Region" picks one)
        fig, _, at = x.partition("@")
        if region not in self.r.region_names:
            self.fail(fld, "calls need the step's 'region' (the contested one)")
        r = self.r.region_names.index(region)
        cands = [self.region(fld, at.strip())] if at else [
            g for g in range(len(self.r.region_names)) if g != r and self.T.adj[g, r] == 1]
        used = self.called.setdefault(q, set())  # ["warrior", "warrior"] names two Warriors
        for g in cands:
            f = self.figure_at(q, fig.strip(), g, used)
            if f >= 0:
                used.add(f)
                return f
        self.fail(fld, f"{x!r}: clan {q} has no such figure in a region next to {region}")

    def hand_card(self, fld, q, x):
        """Card id of the card named ``x`` in clan q's hand now; refused when it holds none."""
        name = self.r.card_names[self.card(fld, x)].lower()  # validates the name
        hand = [int(c) for c in self.S.hand[q, :self.S.hand_n[q]]]
        for c in hand:
            if self.r.card_names[c].lower() == name:
                return c
        self.refuse(fld, f"{x!r} is not in clan {q}'s hand; hand: "
                         f"{', '.join(self.r.card_names[c] for c in hand) or '(empty)'}")

    def figure_at(self, p, fig, at, used=()):
        """The first figure slot of clan p of kind ``fig`` at ``at`` not in ``used``, or -1."""
        try:
            return self.figure("", p, fig, at, used)
        except ScenarioError:
            return -1

    def after(self, F):
        S = self.S
        if S.gs[G_SCRIPT_BAD] > 0:
            self.fail(F, f"a scripted choice named no legal option: {refused_text(self.queued, int(S.gs[G_SCRIPT_BAD_AT]))}"
                         f" ({int(S.gs[G_SCRIPT_BAD])} time(s) in the step); scripted: "
                         + "; ".join(f"clan {q}: {[str(x) for _, x in v]}" for q, v in self.queued.items()))
        for q, vs in self.queued.items():
            i = int(S.script_i[q])
            if i < len(vs):
                self.fail(F, f"clan {q}: scripted value(s) {[str(x) for _, x in vs[i:]]} were never asked for "
                             f"by the engine (the decisions it asked came earlier in the queue, or none was asked)")
        S.script_n[:] = 0

    def action(self, F, st, kinds, params):
        from . import engine as V
        S = self.S
        p = st.get("clan")
        if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < self.P:
            self.fail(f"{F}.clan", f"{p!r}; allowed: 0..{self.P - 1}")
        a = st.get("action")
        if a not in ACTIONS:
            self.fail(f"{F}.action", f"{a!r}; allowed: {list(ACTIONS)} (or phase = ...)")
        self.keys(F, st, STEP_KEYS[a])
        # legality is the engine's word (can_act_nb, then the action's kernel, which returns False
        # changing nothing); illegal() only explains a refusal (tests/test_scenario_legality.py)
        if not V.can_act_nb(S, p):
            self.refuse(F, f"{a} by clan {p} is not legal: {self.illegal(p, a, st)}")
        if a == "pass":
            V.pass_nb(S, p)
            return
        if not self.play_action(F, st, p, a, kinds, params):
            self.refuse(F, f"{a} by clan {p} is not legal: {self.illegal(p, a, st) or 'the engine refused it'}")

    def play_action(self, F, st, p, a, kinds, params) -> bool:
        """Call the action's kernel; its return says whether the action was legal."""
        from . import engine as V
        S, T = self.S, self.T
        if a in ("contest", "summon", "march"):
            r = self.region(f"{F}.region", st.get("region"))
        if a == "contest":
            return bool(V.contest_nb(T, S, p, r, kinds, params))
        if a == "summon":
            f = self.figure(f"{F}.figure", p, st.get("figure", "warrior"), E.VH_LOC_RESERVE)
            return bool(V.summon_nb(T, S, p, f, r))
        if a == "march":
            dests = np.full(E.VH_NFIG, -1, np.int64)
            for fig, to in self.moves(F, st):
                f = self.figure(f"{F}.moves", p, fig, r)
                while dests[f] >= 0:  # the next figure of that kind in the region
                    f = next((g for g in range(E.VH_NFIG) if S.loc[p, g] == r and dests[g] < 0
                              and (g >= E.VH_FIG_WARRIOR0) == (f >= E.VH_FIG_WARRIOR0)), -1)
                    if f < 0:
                        self.fail(f"{F}.moves", f"more {fig}s moved than clan {p} has in {st['region']}")
                dests[f] = self.region(f"{F}.moves", to)
            return bool(V.march_nb(T, S, p, r, dests))
        cid = self.card(f"{F}.card", st.get("card"))
        return bool((V.upgrade_nb if a == "upgrade" else V.quest_nb)(T, S, p, cid))

    def illegal(self, p, a, st) -> str:
        """Why the step's action is not legal (rulebook "Action Phase"), '' if it is."""
        S, T, r = self.S, self.T, self.r
        if S.passed[p]:
            return f"clan {p} passed this Action phase and takes no further action, even with Rage gained since"
        if S.rage[p] < 1:
            return f"clan {p} has no Rage (a clan at 0 Rage takes no action, not even a free one)"
        if a == "pass":
            return ""
        if a in ("contest", "summon", "march"):
            reg = self.region("step.region", st.get("region"))
            name = r.region_names[reg]
        if a == "contest":
            if S.token[reg]:
                return f"{name} holds a Region Token (it cannot be contested)"
            if S.claimed[reg] >= 0:
                return f"{name}'s reward was already claimed this age (by clan {int(S.claimed[reg])})"
            if not (S.loc[p] == reg).any():
                return f"clan {p} has no figure in {name}"
        elif a == "summon":
            if reg == T.valhalla:
                return "figures may not be summoned into Valhalla"
            if S.god_at[reg] >= 0 or S.token[reg]:
                return f"{name} holds a {'god' if S.god_at[reg] >= 0 else 'Region Token'} (not a common region)"
        elif a == "march":
            for fig, to in self.moves("step", st):
                d = self.region("step.moves", to)
                if T.adj[reg, d] == 0:
                    return f"{to} is not joined to {name} by a pathway"
        else:
            cid = self.card("step.card", st.get("card"))
            t = int(T.card_type[cid])
            if cid not in S.hand[p, :S.hand_n[p]]:
                return f"{st['card']!r} is not in clan {p}'s hand"
            if (S.slot[p] >= 0).all():
                return f"clan {p}'s {E.VH_N_SLOTS} slots are full"
            if a == "quest" and t != E.VCT_QUEST:
                return f"{st['card']!r} is not a quest"
            if a == "upgrade":
                if t in (E.VCT_BATTLE, E.VCT_QUEST):
                    return f"{st['card']!r} is a {E.VH_CARD_TYPE_NAMES[t]} card, not an upgrade"
                if T.card_value[cid] > S.rage[p]:
                    return f"it costs {int(T.card_value[cid])} Rage; clan {p} has {int(S.rage[p])}"
                if t == E.VCT_MONSTER and (S.mon_card[p, :int(T.monster_bases)] >= 0).all():
                    return f"clan {p} has no free Monster base"
        return ""

    def result(self) -> dict:
        S, r = self.S, self.r
        out = {"ruleset": r.name, "players": self.P, "age": int(S.gs[G_AGE]),
               "claimed": {r.region_names[i]: int(S.claimed[i]) for i in range(len(r.region_names))
                           if S.claimed[i] >= 0}, "clans": [], "refusals": self.refusals, "log": self.log_lines}
        for p in range(self.P):
            figs: dict[str, list[str]] = {}
            for f in range(E.VH_NFIG):
                loc = int(S.loc[p, f])
                if loc == E.VH_LOC_NONE:
                    continue
                name = ("elite" if f < E.VH_FIG_WARRIOR0 else "warrior" if f < E.VH_FIG_MONSTER0
                        else r.card_names[int(S.mon_card[p, f - E.VH_FIG_MONSTER0])])  # the input's names
                where = f"kill pile {E.VH_LOC_KILL0 - loc}" if loc <= E.VH_LOC_KILL0 else r.loc_label(loc)
                figs.setdefault(where, []).append(name)  # places named as the input names them
            out["clans"].append({
                "glory": int(S.glory[p].sum()),
                "glory_by_source": {n: int(S.glory[p, i]) for i, n in enumerate(E.GLORY_SOURCE_NAMES)},
                "stats": {n: int(S.stat[p, i]) + 1 for i, n in enumerate(E.STAT_NAMES)},
                "rage": int(S.rage[p]), "rage_end": int(S.rage_end[p]), "passed": bool(S.passed[p]),
                "rank": int(S.rank[p]),
                "hand": [r.card_names[int(c)] for c in S.hand[p, :S.hand_n[p]]],
                "discard": [r.card_names[int(c)] for c in S.discard[p, :S.discard_n[p]]],
                "slots": [r.card_names[int(c)] for c in S.slot[p] if c >= 0],
                "kill_pile": int((S.loc[:self.P] == E.VH_LOC_KILL0 - p).sum()),  # enemy figures in it
                "figures": figs})
        return out


def load_scenario(path, data: dict | None = None, resolve=None) -> VScenario:
    """Set up the Valhalla scenario in ``path`` (its parsed table ``data``); ``resolve`` maps a
    strategy name to (kind, params). Raises ScenarioError."""
    from .rules import load_valhalla
    return load_with_options(path, data, resolve, lambda opts: load_valhalla("valhalla", options=opts), VScenario)
