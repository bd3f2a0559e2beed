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

import inspect
from pathlib import Path

import numpy as np

from ..core import enums as E
from ..core.loading import ScenarioError, read_toml
from ..core.scenario import play_step, refused_text
from .scenario_position import (
    ACTIONS,
    DEALT,
    DECLINE,
    PHASE_KEYS,
    PHASES,
    STEP_KEYS,
    UPGRADE_TYPES,
    ScenarioPosition,
    _fig_name,
)


class _Scenario(ScenarioPosition):
    """A scenario: its position (ScenarioPosition) and the steps played from it."""

    def run(self):
        from .state import G_LOG_N
        steps = self.d.get("step", [])
        if not isinstance(steps, list):
            self.fail("step", "expected [[step]] tables")
        names = [f"clan {p}" for p in range(self.P)]
        self.rage_start = [int(x) for x in self.S.rage[:self.P]]
        for k, st in enumerate(steps, 1):
            n0 = int(self.S.gs[G_LOG_N])
            play_step(self, k, st, lambda s, k=k: self.step(k, s))
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
        from .state import G_SCRIPT_BAD, G_SCRIPT_BAD_AT
        S = self.S
        if S.gs[G_SCRIPT_BAD] > bad0:
            self.fail(F, f"a scripted choice named no legal option: {refused_text(self.queued, int(S.gs[G_SCRIPT_BAD_AT]))}"
                         f" ({int(S.gs[G_SCRIPT_BAD] - bad0)} time(s) in the step); "
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
        from .state import G_SCRIPT_BAD, G_SCRIPT_BAD_AT
        F = f"step {k}"
        self.step_k = k
        if not isinstance(st, dict):
            self.fail(F, f"{st!r}; expected a table")
        if ("action" in st) == ("phase" in st):
            self.fail(F, "give exactly one of 'action' (" + " | ".join(ACTIONS) + ") or 'phase' ("
                         + " | ".join(PHASES) + ")")
        bad0 = int(self.S.gs[G_SCRIPT_BAD])
        self.S.gs[G_SCRIPT_BAD_AT] = 0
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
        if ph == "setup":
            self.setup(F)
        elif ph == "draft":
            if not getattr(self, "dealt", False):  # after a setup step the engine's own decks are used
                self.fill_deck()
            self.call(X.draft_nb)
        elif ph == "action_phase":
            self.rage_start = [int(self.T.track[E.STAT_RAGE, S.stat[p, E.STAT_RAGE]]) for p in range(self.P)]
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
            if S.gs[G_AGE] == 3 and getattr(self, "age3_ended", False):  # a game ends age 3 once, then the game
                self.refuse(F, "age 3 has ended and there is no fourth age: end_game follows (rulebook: three ages)")
            self.age3_ended = bool(S.gs[G_AGE] == 3)
            self.call(X.end_age_nb)
            if S.gs[G_AGE] < 3 and getattr(self, "dealt", False):  # as a game does: gods placed anew
                from .playout import start_age_nb
                start_age_nb(self.T, S, S.gs[G_AGE] + 1)
                self.age = int(S.gs[G_AGE])
            elif S.gs[G_AGE] < 3:
                S.gs[G_AGE] += 1
                self.age = int(S.gs[G_AGE])
                log_nb(S, E.EV_AGE, -1, S.gs[G_FIRST], 0, 0, 0, 0)
        elif ph == "end_game":
            self.call(X.end_game_nb)
            self.ended = True

    def setup(self, F):
        """The engine's own setup (DIGEST §1.3; Gods of Ásgard §2): Ragnarök tokens, provinces destroyed
        by player count, pillage tokens, first player, shuffled age decks, the gods drawn and placed,
        then age 1 begins, all from the file's players, seed and options. Only as the first step of a
        file that leaves the dealt fields out; its [[clan]] tables may only set strategies' inputs
        that setup does not deal (none: leave them empty)."""
        from .playout import start_age_nb, start_game_nb
        if self.step_k != 1:
            self.fail(F, "setup must be the first step (it deals the whole position)")
        given = [k for k in DEALT if k in self.d] + [f"clan[{p}].{k}" for p, c in enumerate(self.d.get("clan", []))
                                                     for k in c]
        if given:
            self.fail(F, f"setup deals the position itself; leave out {', '.join(given)}")
        S = self.S
        start_game_nb(self.T, S, np.uint64(self.seed), self.P, True, False)
        start_age_nb(self.T, S, 1)
        self.age = 1
        self.dealt = True
        self.rage_start = [int(x) for x in S.rage[:self.P]]

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
        """Play one action. Whether it is legal is the engine's word (can_act_nb, legal_actions_nb);
        the runner's own checks only explain a refusal (tests/test_scenario_legality.py shows the
        two agree)."""
        from .actions import can_act_nb
        S = self.S
        # a malformed step is an error before any refusal (expect_error meets refusals only)
        t, a, b, why, script = self.action_args(F, st, p, act)
        if not can_act_nb(S, p):
            if S.passed[p]:
                self.refuse(F, f"illegal {act}: clan {p} passed this Action phase and takes no further action, "
                             f"even with Rage gained since (DIGEST §1.5)")
            self.refuse(F, f"illegal {act}: clan {p} has 0 Rage and cannot act, not even a free action (DIGEST §1.5)")
        if (t, a, b) not in self.legal_actions(p):
            self.refuse(F, f"illegal {act}: {why or 'not among the legal actions'}")
        for q, vals in self.choices(st, F).items():
            script.setdefault(q, []).extend(vals)
        self.queue(F, script)
        from .actions import do_action_nb
        do_action_nb(self.T, S, p, t, a, b, self.kinds, self.params)

    def legal_actions(self, p) -> set:
        """The engine's legal actions of clan p now, as (type, a, b) tuples."""
        from .actions import MAX_ACTS, legal_actions_nb
        acts = np.empty((MAX_ACTS, 3), np.int64)
        n = legal_actions_nb(self.T, self.S, p, acts)
        return {tuple(int(x) for x in acts[i]) for i in range(n)}

    def action_args(self, F, st, p, act):
        """The step's action as the engine's (type, a, b), the runner's reason it would be illegal
        (None: no reason found) and the decisions it scripts for each clan."""
        T, S = self.T, self.S
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
        return t, a, b, why, script

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
        from .board import can_enter_nb, horns_nb, invade_cost_nb, occupancy_nb, on_board_nb
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
                "rage_at_phase_start": self.rage_start[p],
                "rage_end": int(S.rage_end[p]),
                "passed": bool(S.passed[p]),
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
        from .state import G_AGE, G_DISCARD_N
        decks = {f"age {a + 1}": int(S.deck_n[a]) for a in range(3)}
        from .state import G_FIRST
        return {"scenario": self.file, "age": int(S.gs[G_AGE]), "first_player": int(S.gs[G_FIRST]),
                "doom": [r.province_names[int(x)] for x in S.doom], "gods": gods, "decks": decks,
                "discard": int(S.gs[G_DISCARD_N]), "clans": clans, "provinces": provinces, "fjords": fjords,
                "refusals": self.refusals, "log": self.log_lines}


def load_scenario(path, data: dict | None = None, resolve=None) -> _Scenario:
    """Set up the position of scenario file ``path`` (its parsed table ``data``; read when None);
    no step run. ``resolve`` maps a strategy name to (kind, params) (default: greedy only from
    strategies, passed by the caller). Raises ScenarioError."""
    path = Path(path)
    if data is None:
        data = read_toml(path, ScenarioError)
    sc = _Scenario(path, data)
    sc.resolve = resolve
    sc.build()
    return sc
