"""`volva scenario` for Blood Rage: Valhalla: a position from a TOML file, steps played by the
real kernels, the result as a dict (printed as JSON). Format (docs/scenarios.md, "Valhalla")::

    ruleset = "valhalla"
    players = 3                      # 3..5
    age = 2                          # 1..3
    seed = 1                         # the random stream (setup rewards, draws)
    gods = { Gladsheim = "Tyr" }     # gods already arrived (others: none)
    tokens = ["Glitnir"]             # Region Tokens on the board (default: none)
    rewards = { Bilskirnir = "axes" }  # region rewards (default: the seed's)
    [[clan]]                         # one per player, seat order
    strategy = "quester"             # whose decisions the clan makes (default greedy)
    stats = { rage = 1, axes = 1, horns = 3 }   # steps 1..6
    rage = 6                         # Rage now (default: the Rage stat's value)
    glory = 10                       # starting Glory (source "start")
    hand = ["Mjolnir's Fall"]
    upgrades = ["Warmaster"]         # on the clan sheet (a Monster joins the reserve)
    quests = ["Valhalla's Call"]     # committed
    figures = { Gladsheim = ["elite", "warrior"], "Feast Hall" = ["warrior"], "kill pile 1" = ["elite"] }
    [[step]]                          # an action of a clan ...
    clan = 0
    action = "contest"                # contest | summon | march | upgrade | quest
    region = "Gladsheim"              # contest, summon
    figure = "warrior"                # summon: elite | warrior | a Monster's name
    moves = [["warrior", "Bilskirnir"]]   # march from `region`: (figure, destination) pairs
    card = "Mjolnir's Fall"           # upgrade, quest
    [[step]]                          # ... or a phase
    phase = "quest"                   # action | quest | valor | release | end_age | end_game

Decisions inside a step (Call to Battle, the battle card, stat choices) are the greedy
strategy's; a clan with one card in hand reveals it. Errors: ScenarioError naming the field.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..core import enums as E
from ..core.loading import ScenarioError, read_toml
from .state import G_AGE, G_LOG_N, init_state_nb, new_state

PHASES = ("action", "quest", "valor", "release", "end_age", "end_game")
ACTIONS = ("contest", "summon", "march", "upgrade", "quest")
TOP_KEYS = ("ruleset", "players", "age", "seed", "gods", "tokens", "rewards", "clan", "step", "expect")
CLAN_KEYS = ("strategy", "stats", "rage", "glory", "hand", "upgrades", "quests", "figures")
STEP_KEYS = {"contest": ("clan", "action", "region"), "summon": ("clan", "action", "region", "figure"),
             "march": ("clan", "action", "region", "moves"), "upgrade": ("clan", "action", "card"),
             "quest": ("clan", "action", "card")}


class VScenario:
    def __init__(self, path: Path, d: dict, rs):
        self.path, self.d, self.r = path, d, rs
        self.T = rs.tables
        self.log_lines: list[str] = []
        self.resolve = None  #: strategy name -> (kind, params), set by the caller

    def fail(self, field, msg):
        raise ScenarioError(f"{self.path}: field '{field}': {msg}")

    def strlist(self, v, field):
        if isinstance(v, str):
            return [v]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            self.fail(field, f"{v!r}; expected a string or a list of strings")
        return v

    def keys(self, field, d, allowed):
        """Refuse unknown keys (with the closest allowed one)."""
        import difflib
        if not isinstance(d, dict):
            self.fail(field, f"{d!r}; expected a table")
        for k in d:
            if k not in allowed:
                close = difflib.get_close_matches(k, allowed, n=1)
                self.fail(f"{field + '.' if field else ''}{k}", "unknown field" + (
                    f" (did you mean '{close[0]}'?)" if close else f"; allowed: {list(allowed)}"))

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
        if not isinstance(P, int) or not 3 <= P <= 5:
            self.fail("players", f"{P!r}; allowed: 3..5")
        clans = d.get("clan", [])
        if not isinstance(clans, list) or len(clans) != P:
            self.fail("clan", f"{len(clans) if isinstance(clans, list) else clans!r} [[clan]] tables; "
                      f"allowed: exactly players = {P}")
        age = d.get("age", 1)
        if age not in (1, 2, 3):
            self.fail("age", f"{age!r}; allowed: 1, 2, 3")
        from .engine import setup_nb
        self.P = P
        S = self.S = new_state()[0]
        init_state_nb(S, P, np.uint64(d.get("seed", 1)), True, True)
        setup_nb(T, S, np.full(4, -1, np.int8), np.zeros(P, np.int16))
        S.gs[G_AGE] = age
        S.token[:] = 0
        S.token0[:] = 0
        S.god_at[:] = -1
        S.hand[:, :] = -1
        S.hand_n[:] = 0
        for name in d.get("tokens", []):
            r = self.region("tokens", name)
            S.token[r] = S.token0[r] = 1
        for name, god in d.get("gods", {}).items():
            r = self.region("gods", name)
            if god not in self.r.god_names:
                self.fail(f"gods.{name}", f"{god!r}; allowed: {self.r.god_names}")
            S.god_at[r] = self.r.god_names.index(god)
        for name, rw in d.get("rewards", {}).items():
            r = self.region("rewards", name)
            if rw not in E.VH_REWARD_NAMES[:5]:
                self.fail(f"rewards.{name}", f"{rw!r}; allowed: {list(E.VH_REWARD_NAMES[:5])}")
            S.reward[r] = E.VH_REWARD_NAMES.index(rw)
        for p, c in enumerate(clans):
            self.build_clan(p, c)

    def build_clan(self, p, c):
        S, T = self.S, self.T
        F = f"clan[{p}]"
        self.keys(F, c, CLAN_KEYS)
        st = c.get("stats", {})
        for k, v in st.items():
            if k not in E.STAT_NAMES or not isinstance(v, int) or not 1 <= v <= 6:
                self.fail(f"{F}.stats", f"{k} = {v!r}; allowed: rage, axes, horns = 1..6")
            S.stat[p, E.STAT_NAMES.index(k)] = v - 1
        S.rage[p] = c.get("rage", int(T.track[E.STAT_RAGE, S.stat[p, E.STAT_RAGE]]))
        if c.get("glory"):
            S.glory[p, E.G_START] = int(c["glory"])
        for name in c.get("hand", []):
            S.hand[p, S.hand_n[p]] = self.card(f"{F}.hand", name)
            S.hand_n[p] += 1
        k = 0
        for key, quest in (("upgrades", 0), ("quests", 1)):
            for name in c.get(key, []):
                cid = self.card(f"{F}.{key}", name)
                if (T.card_type[cid] == E.VCT_QUEST) != bool(quest) or T.card_type[cid] == E.VCT_BATTLE:
                    self.fail(f"{F}.{key}", f"{name!r} is a {E.VH_CARD_TYPE_NAMES[T.card_type[cid]]} card")
                if k >= E.VH_N_SLOTS:
                    self.fail(F, f"more than {E.VH_N_SLOTS} upgrades and quests (the clan sheet's slots)")
                S.slot[p, k], S.slot_quest[p, k] = cid, quest
                k += 1
                if T.card_type[cid] == E.VCT_MONSTER:
                    b = int((S.mon_card[p] >= 0).sum())
                    S.mon_card[p, b] = cid
                    S.loc[p, E.VH_FIG_MONSTER0 + b] = E.VH_LOC_RESERVE
        for where, figs in c.get("figures", {}).items():
            loc = self.location(f"{F}.figures", where)
            for fig in figs:
                f = self.figure(f"{F}.figures.{where}", p, fig, E.VH_LOC_RESERVE)
                S.loc[p, f] = loc

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

    def figure(self, field, p, fig, at):
        """The first figure slot of clan p of kind ``fig`` (elite, warrior, a Monster's name) at ``at``."""
        S = self.S
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
            if S.loc[p, f] == at:
                return f
        self.fail(field, f"no {fig} of clan {p} left in {self.r.loc_label(at) if at >= -3 else at}")

    def run(self):
        from . import engine as V
        resolve = self.resolve
        S, T = self.S, self.T
        pols = []
        for p, c in enumerate(self.d.get("clan", [])):
            try:
                pols.append(resolve(c.get("strategy", "greedy")))
            except ValueError as exc:
                self.fail(f"clan[{p}].strategy", str(exc))
        kinds = np.array([k for k, _ in pols], np.int8)
        params = np.stack([prm for _, prm in pols])
        for i, st in enumerate(self.d.get("step", []), 1):
            F = f"step[{i}]"
            n0 = int(S.gs[G_LOG_N])
            if "phase" in st:
                ph = st["phase"]
                if ph not in PHASES:
                    self.fail(f"{F}.phase", f"{ph!r}; allowed: {list(PHASES)}")
                {"action": lambda: V.action_phase_nb(T, S, kinds, params),
                 "quest": lambda: V.quest_phase_nb(T, S, kinds, params),
                 "valor": lambda: V.valor_phase_nb(T, S),
                 "release": lambda: V.release_nb(T, S),
                 "end_age": lambda: V.end_age_nb(T, S, kinds, params),
                 "end_game": lambda: V.end_game_nb(T, S)}[ph]()
            else:
                self.action(F, st, kinds, params)
            from .replay import format_event
            names = [f"clan {p}" for p in range(self.P)]
            for row in S.log[n0:S.gs[G_LOG_N]]:
                t = format_event(self.r, row, names, S)
                if t is not None:
                    self.log_lines.append(t.strip("\n"))

    def action(self, F, st, kinds, params):
        from . import engine as V
        S, T = self.S, self.T
        p = st.get("clan")
        if not isinstance(p, int) or not 0 <= p < self.P:
            self.fail(f"{F}.clan", f"{p!r}; allowed: 0..{self.P - 1}")
        a = st.get("action")
        if a not in ACTIONS:
            self.fail(f"{F}.action", f"{a!r}; allowed: {list(ACTIONS)} (or phase = ...)")
        self.keys(F, st, STEP_KEYS[a])
        why = self.illegal(p, a, st)
        if why:
            self.fail(F, f"{a} by clan {p} is not legal: {why}")
        if a in ("contest", "summon", "march"):
            r = self.region(f"{F}.region", st.get("region"))
        if a == "contest":
            ok = V.contest_nb(T, S, p, r, kinds, params)
        elif a == "summon":
            f = self.figure(f"{F}.figure", p, st.get("figure", "warrior"), E.VH_LOC_RESERVE)
            ok = V.summon_nb(T, S, p, f, r)
        elif a == "march":
            dests = np.full(E.VH_NFIG, -1, np.int64)
            for fig, to in st.get("moves", []):
                f = self.figure(f"{F}.moves", p, fig, r)
                while dests[f] >= 0:  # the next figure of that kind in the region
                    f = next((g for g in range(E.VH_NFIG) if S.loc[p, g] == r and dests[g] < 0
                              and (g >= E.VH_FIG_WARRIOR0) == (f >= E.VH_FIG_WARRIOR0)), -1)
                    if f < 0:
                        self.fail(f"{F}.moves", f"more {fig}s moved than clan {p} has in {st['region']}")
                dests[f] = self.region(f"{F}.moves", to)
            ok = V.march_nb(T, S, p, r, dests)
        else:
            cid = self.card(f"{F}.card", st.get("card"))
            ok = (V.upgrade_nb if a == "upgrade" else V.quest_nb)(T, S, p, cid)
        if not ok:  # a case illegal() does not know: the kernel refused it
            self.fail(F, f"{a} by clan {p} is not legal here (the engine refused it)")

    def illegal(self, p, a, st) -> str:
        """Why the step's action is not legal (rulebook "Action Phase"), '' if it is."""
        S, T, r = self.S, self.T, self.r
        if S.rage[p] < 1:
            return f"clan {p} has no Rage (a clan at 0 Rage takes no action, not even a free one)"
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
            for fig, to in st.get("moves", []):
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
                           if S.claimed[i] >= 0}, "clans": [], "log": self.log_lines}
        for p in range(self.P):
            figs: dict[str, list[str]] = {}
            for f in range(E.VH_NFIG):
                loc = int(S.loc[p, f])
                if loc == E.VH_LOC_NONE:
                    continue
                from .replay import _fig
                name = _fig(f) if f < E.VH_FIG_MONSTER0 else r.card_names[int(S.mon_card[p, f - E.VH_FIG_MONSTER0])]
                figs.setdefault(r.loc_label(loc), []).append(name)
            out["clans"].append({
                "glory": int(S.glory[p].sum()),
                "glory_by_source": {n: int(S.glory[p, i]) for i, n in enumerate(E.GLORY_SOURCE_NAMES) if S.glory[p, i]},
                "stats": {n: int(S.stat[p, i]) + 1 for i, n in enumerate(E.STAT_NAMES)},
                "rage": int(S.rage[p]), "rank": int(S.rank[p]),
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
    path = Path(path)
    d = read_toml(path, ScenarioError) if data is None else data
    sc = VScenario(path, d, load_valhalla("valhalla"))
    sc.resolve = resolve
    sc.build()
    return sc
