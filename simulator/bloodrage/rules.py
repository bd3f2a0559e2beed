"""Load, validate and tabulate a rule set's data files.

Reads ``simulator/data/<ruleset>/{board.toml, rules.toml, cards.csv}`` and
``simulator/data/opcodes.toml`` once, checks every field, and turns them into
the fixed-shape numpy arrays of :class:`Tables` that the kernels read.  Kernels
never read files.

Errors: any malformed entry raises :class:`RulesError` whose message names the
file, the entry, the field and what is allowed.
"""
from __future__ import annotations

import csv
import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..core import enums as E
from ..core.loading import (
    DATA_DIR,
    CardLookup,
    RulesError,
    check_int,
    check_opcode_args,
    field_error,
    load_toml,
    parse_effects,
    patch_list,
    patches_sha256,
    require_key,
    track_steps,
    unknown_option,
)
from .patches import CARD_COLUMNS, apply_card_patch

MAX_CARDS = E.MAX_CARDS

# The kernels' view of a rule set: one numpy record (passed by pointer, so a call
# costs one argument however many tables there are).  Provinces 0..8 (ring order,
# Yggdrasil 8), fjords 0..3, cards by row of cards.csv (0..n_cards-1).
TABLES_DTYPE = np.dtype([
    ("prov_villages", np.int16, (E.N_PROVINCES,)),  # village count, 99 = unlimited (Yggdrasil)
    ("prov_region", np.int8, (E.N_PROVINCES,)),  # region code, -1 none
    ("adj", np.int8, (E.N_PROVINCES, E.N_PROVINCES)),  # 1 where provinces border (Call to Battle)
    ("fjord_prov", np.int8, (E.N_FJORDS, 2)),  # the two provinces a fjord supports
    ("prov_fjord", np.int8, (E.N_PROVINCES,)),  # the fjord supporting a province, -1 none
    ("track", np.int16, (E.N_STATS, E.N_STEPS)),  # stat value per step (Rage, Axes, Horns)
    ("bonus", np.int16, (E.N_STEPS,)),  # end-of-game Glory per stat by step index
    ("fig_str", np.int16, (3,)),  # base STR of Leader, Warrior, Ship
    ("ragnarok_glory", np.int16, (3,)),  # Glory per figure destroyed by Ragnarök, by age
    ("outer_tokens", np.int8, (E.N_OUTER,)),  # reward codes shuffled onto the outer provinces
    ("ygg_token", np.int32),  # reward code on Yggdrasil
    ("glory_token", np.int32),  # Glory of the "5 Glory" reward
    ("predestroyed", np.int8, (6,)),  # provinces destroyed at setup, by player count
    ("pick_n", np.int8, (6,)),  # cards kept per draft pick, by player count
    ("deal", np.int32),  # cards dealt per clan for the draft
    ("keep", np.int32),  # cards kept from the draft
    ("carry", np.int8, (3,)),  # cards kept at Discard, per age
    ("n_cards", np.int32),  # rows used in the card tables
    ("card_age", np.int8, (MAX_CARDS,)),  # age 1..3 (0 = unused row)
    ("card_type", np.int8, (MAX_CARDS,)),  # CT_* code
    ("card_god", np.int8, (MAX_CARDS,)),  # god code, -1 none
    ("card_value", np.int16, (MAX_CARDS,)),  # Rage cost / Monster STR / battle +STR (-1 = X)
    ("card_qglory", np.int16, (MAX_CARDS,)),  # quest Glory (0 for non-quests)
    ("card_copies", np.int8, (MAX_CARDS, 6)),  # copies in the deck by player count (cumulative)
    ("card_op", np.int16, (MAX_CARDS, E.MAX_EFFECTS)),  # opcode, OP_NONE = -1
    ("card_a", np.int16, (MAX_CARDS, E.MAX_EFFECTS)),  # first parameter
    ("card_b", np.int16, (MAX_CARDS, E.MAX_EFFECTS)),  # second parameter
    ("card_opmask", np.int64, (MAX_CARDS,)),  # bit op set for each opcode of the card (from card_op)
    ("card_draft", np.int8, (MAX_CARDS,)),  # DRAFT_FREE / DRAFT_FORCED / DRAFT_BANNED (volva ablate)
    # derived from type, value and quest Glory (make_tables): greedy's draft price of the card is
    # params[card_wparam] * card_wqty / card_wdiv, its plain worth to anyone card_plain (policy.py)
    ("card_wparam", np.int16, (MAX_CARDS,)),  # P_W_BATTLE / P_W_MONSTER / P_W_QUEST / P_W_UPGRADE
    ("card_wqty", np.float64, (MAX_CARDS,)),  # +STR (3 for X), Monster STR, quest Glory, 2.5 Warrior, 1.5 other
    ("card_wdiv", np.float64, (MAX_CARDS,)),  # 3 for a quest (Glory / 3), else 1
    ("card_plain", np.float64, (MAX_CARDS,)),  # +STR (3 for X), Monster STR, quest Glory / 3, else 2
    ("fjord_here", np.int64, (1 << E.N_FJORDS,)),  # provinces (bitmask) the fjords of bitmask i support
    ("str_cap", np.float64),  # >= any figure's STR anywhere: Leader, Ship, a sheet card (actions._invade_cap)
    ("draft_one", np.int32),  # 1: the draft rules bind one clan per game (seat seed % P), one copy per age
    ("draft_rules", np.int32),  # 1 if any card_draft entry is not DRAFT_FREE
    ("opts", np.int32, (E.N_OPTIONS,)),  # rule options (OPT_* indices)
    ("n_gods", np.int32),  # gods in gods.toml
    ("gods_in_play", np.int32),  # gods drawn per game (DIGEST §2: 2)
    ("god_power", np.int8, (E.N_GODS_MAX,)),  # GP_* power of each god
    ("thor_glory", np.int16),  # Glory per enemy figure for Thor's power
    ("n_missions", np.int32),  # Rainbow Bridge god missions in play (0: none)
    ("mission_op", np.int8, (E.MAX_MISSIONS,)),  # M_* condition
    ("mission_a", np.int16, (E.MAX_MISSIONS,)),  # its threshold
    ("mission_glory", np.int16, (E.MAX_MISSIONS,)),  # Glory per age it is completed in
], align=True)


# card_opmask holds one bit per opcode in an int64
assert max(v for k, v in vars(E).items() if k.startswith("OP_") and isinstance(v, int)) < 63


def make_tables(fields: dict) -> np.ndarray:
    """dict of arrays/scalars -> 1-element record array of TABLES_DTYPE (the kernels' tables)."""
    arr = np.rec.array(np.zeros(1, TABLES_DTYPE))
    rec = arr[0]
    rec.card_op[:] = E.OP_NONE
    rec.card_god[:] = -1
    for k, v in fields.items():
        v = np.asarray(v)
        if v.ndim == 0:
            rec[k] = v
        else:
            rec[k][: v.shape[0]] = v  # card tables fill the first n_cards rows
    for k in range(E.MAX_EFFECTS):  # derived, so it cannot disagree with card_op
        op = rec.card_op[:, k].astype(np.int64)
        rec.card_opmask[:] |= np.where(op >= 0, np.left_shift(1, np.maximum(op, 0)), 0)
    _draft_prices(rec)
    pf = rec.prov_fjord.astype(np.int64)
    for fj in range(1 << E.N_FJORDS):
        rec.fjord_here[fj] = sum(1 << pr for pr in range(E.N_PROVINCES) if pf[pr] >= 0 and (fj >> pf[pr]) & 1)
    # a sheet holds no battle card (DIGEST §1.5 Upgrade); every other row counts, as
    # policy.invade_str_term may read any sheet slot's card as a Monster's
    ygg = np.where(rec.card_op == E.OP_YGGDRASIL, rec.card_a, 0)
    sheet = np.where(rec.card_type != E.CT_BATTLE, rec.card_value, 0)
    rec.str_cap = max(1, rec.fig_str.max(), sheet.max(), ygg.max())
    return arr


def _draft_prices(rec) -> None:
    """card_wparam, card_wqty, card_wdiv, card_plain from each card's type, value and quest Glory
    (greedy's draft price without a branch per card; the same floating-point operations)."""
    t, v, q = rec.card_type, rec.card_value.astype(np.float64), rec.card_qglory.astype(np.float64)
    battle, monster, quest, warrior = (t == E.CT_BATTLE), (t == E.CT_MONSTER), (t == E.CT_QUEST), (t == E.CT_WARRIOR)
    sv = np.where(v < 0, 3.0, v)  # a battle card's +STR, X counted 3
    rec.card_wparam[:] = np.select([battle, monster, quest], [E.P_W_BATTLE, E.P_W_MONSTER, E.P_W_QUEST], E.P_W_UPGRADE)
    rec.card_wqty[:] = np.select([battle, monster, quest, warrior], [sv, v, q, 2.5], 1.5)
    rec.card_wdiv[:] = np.where(quest, 3.0, 1.0)
    rec.card_plain[:] = np.select([battle, monster, quest], [sv, v, q / 3.0], 2.0)


@dataclass
class Ruleset(CardLookup):
    """A loaded rule set: the kernel tables plus the names needed to read them back."""
    name: str
    tables_arr: np.ndarray  # 1-element TABLES_DTYPE record array, as the batch kernel takes it
    province_names: list[str]
    fjord_names: list[str]
    region_names: list[str]
    card_names: list[str]
    card_texts: list[str]
    card_file_sha256: str
    options: dict = field(default_factory=dict)
    god_names: list = field(default_factory=list)
    card_file: str = ""
    patch_file: str | None = None  # card patch applied on load (volva compare --patch)
    patch_sha256: str | None = None
    draft_note: str | None = None  # ablation draft rule in force (with_draft_rule / without_card)
    engine: str = "blood-rage"  #: the engine that plays it (simulator.engines)
    mission_labels: tuple = ()  #: Rainbow Bridge missions as a replay names them (with_missions)
    card_type_names = E.CARD_TYPE_NAMES  #: tables.card_type code -> name
    one_deck = False  #: an age deck per age (tables.card_age)

    @property
    def tables(self):
        """The TABLES_DTYPE record (attribute access: ``tables.card_age[:n_cards]``)."""
        return self.tables_arr[0]

    @property
    def n_cards(self) -> int:
        return len(self.card_names)

    def with_draft_rule(self, name: str, rule: int, ids: list[int] | None = None, one_clan: bool = False) -> Ruleset:
        """A copy whose card ``name`` (all ages, or the rows ``ids``) is drafted under ``rule``
        (enums.DRAFT_FORCED: a clan must draft it when it holds it; DRAFT_BANNED: never drafted);
        ``one_clan``: the rule binds one clan per game for one copy per age (core.draft_rules).
        Raises RulesError for an unknown card."""
        import copy
        ids = self.card_ids(name) if ids is None else list(ids)
        out = copy.copy(self)
        out.tables_arr = self.tables_arr.copy()
        t = out.tables_arr[0]
        t.card_draft[ids] = rule
        t.draft_rules = int(np.any(t.card_draft != E.DRAFT_FREE))
        t.draft_one = int(one_clan)
        return out

    def without_card(self, name: str, ids: list[int] | None = None) -> Ruleset:
        """A copy with every copy of card ``name`` (or of the rows ``ids``) taken out of the
        decks (the row stays, so card ids and strategies' card weights keep their meaning).
        Raises RulesError for an unknown card."""
        import copy
        ids = self.card_ids(name) if ids is None else list(ids)
        out = copy.copy(self)
        out.tables_arr = self.tables_arr.copy()
        out.tables_arr[0].card_copies[ids] = 0
        return out

    def deck_size(self, age: int, players: int) -> int:
        """Cards in the age deck (1..3) for ``players`` clans."""
        t = self.tables
        return int(t.card_copies[: self.n_cards][t.card_age[: self.n_cards] == age, players].sum())

    def check_players(self, players: int) -> None:
        """Raise RulesError when an age deck is too small for the draft of ``players`` clans
        (DIGEST §1.5: deal cards per clan), e.g. after a patch removed cards."""
        if not 2 <= players <= E.MAX_PLAYERS:
            raise RulesError(f"players: {players}; allowed: 2..{E.MAX_PLAYERS} for Blood Rage")
        t = self.tables
        need = int(t.deal if t.opts[E.OPT_DRAFT] == 1 else t.keep) * players
        for age in (1, 2, 3):
            have = self.deck_size(age, players)
            if have < need:
                src = self.card_file + (f" with patch {self.patch_file}" if self.patch_file else "")
                raise RulesError(f"{src}: age {age} deck for {players} players has {have} cards; "
                                 f"the draft deals {need} ({need // players} per clan)")

    def with_missions(self, missions: list[tuple[int, int, int]], gods: list[str] | None = None) -> Ruleset:
        """A copy playing Rainbow Bridge god missions: [(M_* condition, threshold, Glory)], at most
        MAX_MISSIONS (simulator/rainbow.py); ``gods``: the god each belongs to, for the replay."""
        arr = self.tables_arr.copy()
        t = arr[0]
        t.n_missions = len(missions)
        labels = []
        for k, (op, a, g) in enumerate(missions):
            t.mission_op[k], t.mission_a[k], t.mission_glory[k] = op, a, g
            labels.append((f"{gods[k]}'s mission " if gods else "mission ") + f"{E.MISSION_NAMES[op]}({a})")
        return replace(self, tables_arr=arr, mission_labels=tuple(labels))

    def card_label(self, c: int) -> str:
        """'Name (age N)' for card id ``c``."""
        return f"{self.card_names[c]} (age {int(self.tables.card_age[c])})"

    def loc_label(self, loc: int) -> str:
        if loc >= E.LOC_FJORD0:
            return f"{self.fjord_names[loc - E.LOC_FJORD0]} fjord"
        if loc >= 0:
            return self.province_names[loc]
        return {E.LOC_RESERVE: "reserve", E.LOC_VALHALLA: "Valhalla", E.LOC_NONE: "out of play"}[loc]


def _load_board(path: Path):
    b = load_toml(path)
    regions = require_key(path, "board", b, "regions", list)
    provs = require_key(path, "board", b, "province", list)
    fjords = require_key(path, "board", b, "fjord", list)
    if len(provs) != E.N_PROVINCES:
        field_error(path, "board", "province", f"{len(provs)} entries; allowed: exactly {E.N_PROVINCES}")
    if len(fjords) != E.N_FJORDS:
        field_error(path, "board", "fjord", f"{len(fjords)} entries; allowed: exactly {E.N_FJORDS}")
    if len(regions) != E.N_REGIONS:
        field_error(path, "board", "regions", f"{len(regions)} entries; allowed: exactly {E.N_REGIONS}")
    names = [require_key(path, f"province #{i}", p, "name") for i, p in enumerate(provs)]
    if names[E.YGGDRASIL] != "Yggdrasil":
        field_error(path, f"province #{E.YGGDRASIL}", "name", "the last province must be 'Yggdrasil'")
    villages = np.zeros(E.N_PROVINCES, np.int16)
    region = np.full(E.N_PROVINCES, -1, np.int8)
    adj = np.zeros((E.N_PROVINCES, E.N_PROVINCES), np.int8)
    for i, p in enumerate(provs):
        v = check_int(path, names[i], "villages", require_key(path, names[i], p, "villages"), -1, 20)
        villages[i] = 99 if v == -1 else v
        r = require_key(path, names[i], p, "region")
        if r:
            if r not in regions:
                field_error(path, names[i], "region", f"{r!r}; allowed: {regions} or ''")
            region[i] = regions.index(r)
        for a in require_key(path, names[i], p, "adjacent", list):
            if a not in names or a == names[i]:
                field_error(path, names[i], "adjacent", f"{a!r}; allowed: other province names {names}")
            adj[i, names.index(a)] = 1
    if not (adj == adj.T).all():
        i, j = np.argwhere(adj != adj.T)[0]
        field_error(path, names[i], "adjacent", f"borders {names[j]} but {names[j]} does not list {names[i]}")
    fnames, fjord_prov = [], np.zeros((E.N_FJORDS, 2), np.int8)
    prov_fjord = np.full(E.N_PROVINCES, -1, np.int8)
    for f, fj in enumerate(fjords):
        fn = require_key(path, f"fjord #{f}", fj, "name")
        fnames.append(fn)
        sup = require_key(path, fn, fj, "supports", list)
        if len(sup) != 2 or any(s not in names[:E.N_OUTER] for s in sup):
            field_error(path, fn, "supports", f"{sup!r}; allowed: two outer province names")
        for k, s in enumerate(sup):
            pi = names.index(s)
            if prov_fjord[pi] != -1:
                field_error(path, fn, "supports", f"{s} is already supported by {fnames[prov_fjord[pi]]}")
            fjord_prov[f, k] = pi
            prov_fjord[pi] = f
    return names, fnames, list(regions), villages, region, adj, fjord_prov, prov_fjord


def _load_gods(path: Path):
    """gods.toml -> (names, dict of table fields). Optional file: without it the module is off."""
    if not path.exists():
        return [], dict(n_gods=0, gods_in_play=0, god_power=np.zeros(0, np.int8), thor_glory=0)
    g = load_toml(path)
    gods = require_key(path, "gods", g, "god", list)
    if not 2 <= len(gods) <= E.N_GODS_MAX:
        field_error(path, "gods", "god", f"{len(gods)} entries; allowed: 2..{E.N_GODS_MAX}")
    names, powers, thor = [], [], 2
    for i, e in enumerate(gods):
        name = require_key(path, f"god #{i + 1}", e, "name")
        pw = require_key(path, name, e, "power")
        if pw not in E.GOD_POWER_NAMES:
            field_error(path, name, "power", f"{pw!r}; allowed: {list(E.GOD_POWER_NAMES)}")
        if "thor_glory" in e:
            thor = check_int(path, name, "thor_glory", e["thor_glory"], 0, 20)
        names.append(name)
        powers.append(E.GOD_POWER_NAMES.index(pw))
    in_play = check_int(path, "gods", "in_play", require_key(path, "gods", g, "in_play"), 2, 2)
    return names, dict(n_gods=len(gods), gods_in_play=in_play, god_power=np.array(powers, np.int8),
                       thor_glory=thor)


REWARD_CODES = {n: i for i, n in enumerate(E.REWARD_NAMES)}
OPTION_SPEC = {
    "leader_invade_cost": (E.OPT_LEADER_INVADE_COST, "int", (0, 3)),
    "tie_break": (E.OPT_TIE_BREAK, "choice", E.TIE_BREAK_NAMES),
    "draft": (E.OPT_DRAFT, "bool", None),
    "max_actions_per_phase": (E.OPT_MAX_ACTIONS, "int", (10, 100000)),
    "stat_tracks": (None, "choice", None),  # a [tracks.NAME] set of rules.toml (choices: that file's sets)
    "gods_of_asgard": (E.OPT_GODS, "bool", None),
    "loki_god_mode": (E.OPT_LOKI_GOD, "choice", E.LOKI_MODE_NAMES),
}


def option_vector(path, options: dict, track_sets=()) -> np.ndarray:
    """Rule options dict -> int32[N_OPTIONS]; unknown names or bad values raise RulesError.
    ``stat_tracks`` is checked against ``track_sets`` and selects tables rather than a vector slot."""
    out = np.zeros(E.N_OPTIONS, np.int32)
    for k in OPTION_SPEC:
        if k not in options:
            field_error(path, "options", k, "missing")
    for k, v in options.items():
        if k not in OPTION_SPEC:
            field_error(path, "options", k, f"unknown option; allowed: {', '.join(sorted(OPTION_SPEC))}")
        idx, kind, allowed = OPTION_SPEC[k]
        if k == "stat_tracks":
            if not isinstance(v, str) or v not in track_sets:
                field_error(path, "options", k, f"got {v!r}; allowed: {', '.join(track_sets)}")
            continue
        if kind == "int":
            out[idx] = check_int(path, "options", k, v, *allowed)
        elif kind == "bool":
            if not isinstance(v, bool):
                field_error(path, "options", k, f"got {v!r}; allowed: true, false")
            out[idx] = int(v)
        else:
            if v not in allowed:
                field_error(path, "options", k, f"got {v!r}; allowed: {', '.join(allowed)}")
            out[idx] = allowed.index(v)
    return out


def _load_rules(path: Path):
    r = load_toml(path)
    clan = require_key(path, "rules", r, "clan")
    fig_str = np.array([check_int(path, "clan", k, require_key(path, "clan", clan, k), 0, 20)
                        for k in ("leader_str", "warrior_str", "ship_str")], np.int16)
    sets = require_key(path, "rules", r, "tracks")
    if not isinstance(sets, dict) or not sets or not all(isinstance(v, dict) for v in sets.values()):
        field_error(path, "tracks", "tracks", "allowed: one or more [tracks.NAME] tables")
    tracks = {}
    for name, tr in sets.items():
        tracks[name] = (
            np.array([track_steps(path, f"tracks.{name}.{s}", require_key(path, f"tracks.{name}", tr, s)) for s in E.STAT_NAMES],
                     np.int16),
            np.array(track_steps(path, f"tracks.{name}.bonus", require_key(path, f"tracks.{name}", tr, "bonus")), np.int16))
    su = require_key(path, "rules", r, "setup")
    pre = require_key(path, "setup", su, "predestroyed")
    predestroyed = np.zeros(6, np.int8)
    for n in range(2, 6):
        predestroyed[n] = check_int(path, "setup.predestroyed", str(n), require_key(path, "setup.predestroyed", pre, str(n)), 0, 5)
    toks = require_key(path, "setup", su, "outer_tokens", list)
    if len(toks) != E.N_OUTER or any(not isinstance(t, str) or t not in REWARD_CODES for t in toks):
        field_error(path, "setup", "outer_tokens", f"{toks!r}; allowed: {E.N_OUTER} of {list(REWARD_CODES)}")
    ygg = require_key(path, "setup", su, "yggdrasil_token")
    if not isinstance(ygg, str) or ygg not in REWARD_CODES:
        field_error(path, "setup", "yggdrasil_token", f"{ygg!r}; allowed: {list(REWARD_CODES)}")
    age = require_key(path, "rules", r, "age")
    rg = require_key(path, "age", age, "ragnarok_glory", list)
    if len(rg) != 3:
        field_error(path, "age", "ragnarok_glory", f"{rg!r}; allowed: 3 integers")
    pick = require_key(path, "age", age, "pick")
    pick_n = np.zeros(6, np.int8)
    deal = check_int(path, "age", "deal", require_key(path, "age", age, "deal"), 1, E.MAX_DEAL)
    keep = check_int(path, "age", "keep", require_key(path, "age", age, "keep"), 1, deal)
    for n in range(2, 6):
        pick_n[n] = check_int(path, "age.pick", str(n), require_key(path, "age.pick", pick, str(n)), 1, keep)
        if keep % pick_n[n]:
            field_error(path, "age.pick", str(n), f"{pick_n[n]} does not divide keep={keep}")
    carry = require_key(path, "age", age, "carry", list)
    if len(carry) != 3:
        field_error(path, "age", "carry", f"{carry!r}; allowed: 3 integers")
    opts = require_key(path, "rules", r, "options", dict)
    return tracks, dict(
        fig_str=fig_str, predestroyed=predestroyed,
        outer_tokens=np.array([REWARD_CODES[t] for t in toks], np.int8),
        ygg_token=REWARD_CODES[ygg],
        glory_token=check_int(path, "setup", "glory_token_value", require_key(path, "setup", su, "glory_token_value"), 0, 100),
        ragnarok_glory=np.array([check_int(path, "age", "ragnarok_glory", v, 0, 100) for v in rg], np.int16),
        pick_n=pick_n, deal=deal, keep=keep,
        carry=np.array([check_int(path, "age", "carry", v, 0, 10) for v in carry], np.int8),
        options=opts,
    )


def load_opcodes(path: Path = DATA_DIR / "blood-rage" / "opcodes.toml") -> dict:
    """The effect vocabulary: name -> {code, hook, args, doc}."""
    ops = load_toml(path)
    for name, spec in ops.items():
        check_int(path, name, "code", require_key(path, name, spec, "code"), 0, E.N_OPCODES - 1)
        check_opcode_args(path, name, spec)
        if require_key(path, name, spec, "hook") not in E.HOOK_NAMES:
            field_error(path, name, "hook", f"{spec['hook']!r}; allowed: {list(E.HOOK_NAMES)}")
    return ops




def read_card_rows(path: Path) -> list[dict]:
    """cards.csv -> list of row dicts (strings), each with '_file' and '_entry' for error messages.
    Raises RulesError for a missing, unreadable or headerless file."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            rows = list(csv.DictReader(fh))
    except FileNotFoundError:
        raise RulesError(f"{path}: file not found") from None
    except UnicodeDecodeError:
        raise RulesError(f"{path}: not UTF-8 text") from None
    except (OSError, csv.Error) as exc:
        raise RulesError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    if not rows:
        raise RulesError(f"{path}: no cards")
    missing = [c for c in CARD_COLUMNS if c not in rows[0]]
    if missing:
        raise RulesError(f"{path}: header: missing column(s) {missing}; required: {CARD_COLUMNS}")
    for i, r in enumerate(rows):
        r["_file"], r["_entry"] = str(path), f"row {i + 2} ({(r['name'] or '').strip() or '?'})"
    return rows


def load_cards(path: Path, opcodes: dict, regions: list[str], patch=None):
    """cards.csv (and optional card patches, see :func:`patch_list`) -> (names, texts, arrays dict).
    Raises RulesError naming the file, row and column."""
    rows = read_card_rows(path)
    patches = patch_list(patch)
    for ppath, pdata in patches:
        rows = apply_card_patch(rows, ppath, pdata)
    patch = ", ".join(str(p) for p, _ in patches) or None
    card_file = path
    C = len(rows)
    a = dict(
        card_age=np.zeros(C, np.int8), card_type=np.zeros(C, np.int8),
        card_god=np.full(C, -1, np.int8), card_value=np.zeros(C, np.int16),
        card_qglory=np.zeros(C, np.int16), card_copies=np.zeros((C, 6), np.int8),
        card_op=np.full((C, E.MAX_EFFECTS), E.OP_NONE, np.int16),
        card_a=np.zeros((C, E.MAX_EFFECTS), np.int16), card_b=np.zeros((C, E.MAX_EFFECTS), np.int16),
    )
    names, texts = [], []
    gods = [g.capitalize() for g in E.GOD_NAMES]

    def num(i, entry, col, lo, hi, blank=None):
        v = rows[i][col].strip()
        if v == "" and blank is not None:
            return blank
        try:
            x = int(v)
        except ValueError:
            x = None
        if x is None or not lo <= x <= hi:
            field_error(path, entry, col, f"{v!r}; allowed: an integer {lo}..{hi}")
        return x

    for i, r in enumerate(rows):
        name = (r["name"] or "").strip()
        path, entry = r["_file"], r["_entry"]
        if not name:
            field_error(path, entry, "name", "empty")
        names.append(name)
        texts.append(r["effect"] or "")
        a["card_age"][i] = num(i, entry, "age", 1, 3)
        t = r["type"].strip()
        if t not in E.CARD_TYPE_NAMES:
            field_error(path, entry, "type", f"{t!r}; allowed: {list(E.CARD_TYPE_NAMES)}")
        a["card_type"][i] = E.CARD_TYPE_NAMES.index(t)
        g = r["god"].strip()
        if g:
            if g not in gods:
                field_error(path, entry, "god", f"{g!r}; allowed: {gods} or empty")
            a["card_god"][i] = gods.index(g)
        if t == "quest":
            a["card_qglory"][i] = num(i, entry, "quest_glory", 0, 100)
        elif r["value"].strip() == "X":
            a["card_value"][i] = -1
        else:
            a["card_value"][i] = num(i, entry, "value", 0, 20)
        cum = 0
        for n, col in ((2, "copies_min1"), (3, "copies_3p"), (4, "copies_4p"), (5, "copies_5p")):
            cum += num(i, entry, col, 0, 9)
            a["card_copies"][i, n] = cum
        effs = parse_effects(path, entry, r["effects"] or "", opcodes, regions)
        for k, (code, x, y) in enumerate(effs):
            a["card_op"][i, k], a["card_a"][i, k], a["card_b"][i, k] = code, x, y
        if t == "quest" and not any(c in (E.OP_QUEST_REGION, E.OP_QUEST_YGGDRASIL, E.OP_QUEST_VALHALLA,
                                          E.OP_QUEST_WIDESPREAD) for c, _, _ in effs):
            field_error(path, entry, "effects", "a quest needs one quest_* opcode")
        if a["card_value"][i] == -1 and not any(c == E.OP_COPY_HIGHEST for c, _, _ in effs):
            field_error(path, entry, "value", "'X' needs the copy_highest opcode")
    src = f"{card_file}" if patch is None else f"{card_file} with patch {patch}"
    if C > MAX_CARDS:
        raise RulesError(f"{src}: {C} cards; allowed: at most {MAX_CARDS}")
    for age in (1, 2, 3):
        n = int(a["card_copies"][a["card_age"] == age, 5].sum())
        if n > E.MAX_DECK:
            raise RulesError(f"{src}: age {age}: {n} cards for 5 players; allowed: at most {E.MAX_DECK}")
    return names, texts, a


def load_blood_rage(name: str = "blood-rage", options: dict | None = None,
                 cards_path: Path | None = None, data_dir: Path = DATA_DIR,
                 patch=None) -> Ruleset:
    """Load and validate rule set ``name``; ``options`` override rules.toml [options];
    ``patch`` is a card patch (TOML, format in :func:`simulator.bloodrage.patches.apply_card_patch`) applied to cards.csv.

    Raises RulesError for an unknown rule set, option or malformed file.
    """
    root = data_dir / name
    if not root.is_dir():
        known = sorted(p.name for p in data_dir.iterdir() if p.is_dir())
        raise RulesError(f"unknown rule set {name!r}; allowed: {', '.join(known)}")
    pnames, fnames, regions, villages, region, adj, fjord_prov, prov_fjord = _load_board(root / "board.toml")
    track_sets, r = _load_rules(root / "rules.toml")
    opts = dict(r.pop("options"))
    option_vector(root / "rules.toml", opts, track_sets)  # the file's own defaults must be valid
    for k, v in (options or {}).items():
        if k not in OPTION_SPEC:
            raise unknown_option(k, OPTION_SPEC, "Blood Rage")
        opts[k] = v
    opt_vec = option_vector("--option", opts, track_sets)
    r["track"], r["bonus"] = track_sets[opts["stat_tracks"]]
    cards_path = Path(cards_path) if cards_path else root / "cards.csv"
    cnames, ctexts, ca = load_cards(cards_path, load_opcodes(root / "opcodes.toml"), regions, patch)
    god_names, gods = _load_gods(root / "gods.toml")
    if opts.get("gods_of_asgard") and not god_names:
        raise RulesError(f"--option gods_of_asgard: {root / 'gods.toml'} is missing")
    tables = make_tables(dict(prov_villages=villages, prov_region=region, adj=adj, fjord_prov=fjord_prov,
                              prov_fjord=prov_fjord, opts=opt_vec, n_cards=len(cnames), **r, **ca, **gods))
    sha = hashlib.sha256(cards_path.read_bytes()).hexdigest()
    patches = patch_list(patch)
    psha = patches_sha256(patch)
    return Ruleset(name, tables, pnames, fnames, regions, cnames, ctexts, sha, opts, god_names,
                   str(cards_path), ", ".join(str(p) for p, _ in patches) or None, psha)
