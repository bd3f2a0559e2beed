"""Blood Rage: Valhalla rule set: data files -> one kernel tables record (VTABLES_DTYPE) + names.

Files of ``simulator/data/valhalla/`` (all PROVISIONAL content, DIGEST §3.1, except the rule
numbers the rulebook prints): ``board.toml`` (regions, numbers, pathways), ``rules.toml``
(clan, tracks, setup, age, options), ``gods.toml`` (god tiles), ``cards.csv`` (5 god decks +
Monsters, effects in ``opcodes.toml``'s vocabulary). Every field is validated; errors are
:class:`simulator.ruleset.RulesError` naming the file, entry and field with the allowed values.
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
    apply_row_patch,
    check_int,
    check_opcode_args,
    field_error,
    load_toml,
    parse_effects,
    require_key,
    track_steps,
    unknown_option,
)

MAXR = E.VH_MAX_REGIONS
MAXC = E.VH_MAX_CARDS
CARD_COLUMNS = ["name", "god", "type", "value", "copies", "effects", "effect"]

VTABLES_DTYPE = np.dtype([
    ("n_regions", np.int32),  # regions on the board (the last is Valhalla)
    ("n_outer", np.int32),  # outer regions (Region Token numbers 1..n_outer, indices 0..n_outer-1)
    ("valhalla", np.int32),  # region index of Valhalla
    ("adj", np.int8, (MAXR, MAXR)),  # 1 where a pathway joins two regions
    ("adj_n", np.int8, (MAXR,)),  # pathways of each region
    ("adj_to", np.int8, (MAXR, MAXR)),  # the regions each region's pathways join, ascending
    ("spread", np.float64, (E.MAX_PLAYERS, MAXR)),  # greedy's Summon tie-break: 0.001 x ((7 region + 3 seat) % 11)
    ("track", np.int16, (E.N_STATS, E.N_STEPS)),  # stat value per step (Rage, Axes, Horns)
    ("bonus", np.int16, (E.N_STEPS,)),  # end-of-game Glory per stat by step index
    ("fig_str", np.int16, (2,)),  # base STR of Elites, Warriors
    ("n_elites", np.int32), ("n_warriors", np.int32), ("monster_bases", np.int32),
    ("start_rage", np.int32),
    ("region_tokens", np.int32),  # Region Tokens placed at setup
    ("monsters_pp", np.int32),  # Monster cards per player shuffled into the deck
    ("outer_rewards", np.int8, (MAXR,)),  # VR_* codes shuffled onto the outer regions
    ("valhalla_reward", np.int32),
    ("glory_reward", np.int32),
    ("deal", np.int32), ("keep", np.int32), ("carry", np.int32),
    ("pass_left", np.int8, (3,)),  # 1: pass to the left in that age's draft
    ("valor_glory", np.int16, (3,)),  # Prove Valor Glory per figure, by age
    ("start_glory", np.int16, (E.MAX_PLAYERS,)),  # starting Glory per seat (Rainbow Bridge)
    ("opts", np.int32, (E.N_VOPTS,)),
    ("n_gods", np.int32),
    ("god_power", np.int8, (E.VH_N_GODS_MAX,)),  # VGP_* of each god in gods.toml
    ("god_amount", np.int16, (E.VH_N_GODS_MAX,)),
    ("n_cards", np.int32),
    ("card_type", np.int8, (MAXC,)),  # VCT_*
    ("card_vgod", np.int8, (MAXC,)),  # index into gods.toml, -1 (Monsters)
    ("card_god", np.int8, (MAXC,)),  # enums.CARD_GOD_NAMES code (analysis), -1
    ("card_age", np.int8, (MAXC,)),  # 1 for every card (one deck; tables key uses by age of use)
    ("card_value", np.int16, (MAXC,)),  # battle +STR / upgrade cost / Monster STR
    ("card_bv", np.int16, (MAXC,)),  # card_value of a battle card, else 0 (derived on load)
    # a battle card's worth to reveal in a battle it may lose, else 0 (derived; policy.battle_card_nb)
    ("card_lose", np.float64, (MAXC,)),
    ("card_copies", np.int8, (MAXC,)),
    ("card_opmask", np.int64, (MAXC,)),  # bit 1 << op for each opcode of the card (derived; contest.battle_mask_nb)
    ("card_op", np.int16, (MAXC, 2)),
    ("card_a", np.int16, (MAXC, 2)),
    ("card_draft", np.int8, (MAXC,)),  # DRAFT_FREE / FORCED / BANNED
    ("draft_one", np.int32),  # 1: the draft rules bind one clan per game (seat seed % P), one copy per age
    ("draft_rules", np.int32),
], align=True)

REWARDS = {n: i for i, n in enumerate(E.VH_REWARD_NAMES)}
LOSE_OPS = [E.VOP_GLORY_ON_LOSE, E.VOP_STEAL_ON_LOSE, E.VOP_RAGE_ON_LOSE]  #: what a card pays its loser
OPTIONS = {"tie_break": (E.VOPT_TIE_BREAK, "choice", E.TIE_BREAK_NAMES),
           "max_actions_per_phase": (E.VOPT_MAX_ACTIONS, "int", (10, 100000)),
           "call_one": (E.VOPT_CALL_ONE, "bool", None),
           "rb_missions": (None, "bool", None),
           "valor_tie": (E.VOPT_VALOR_TIE, "choice", E.VALOR_TIE_NAMES),
           "start_glory": (None, "list", None)}


@dataclass
class VRuleset(CardLookup):
    """A loaded Blood Rage: Valhalla rule set (the attributes the analysis reads match
    :class:`simulator.bloodrage.rules.Ruleset`'s)."""
    name: str
    tables_arr: np.ndarray  # 1-element VTABLES_DTYPE record array
    region_names: list[str]
    card_names: list[str]
    card_texts: list[str]
    card_file_sha256: str
    options: dict = field(default_factory=dict)
    god_names: list = field(default_factory=list)
    card_file: str = ""
    patch_file: str | None = None
    patch_sha256: str | None = None
    draft_note: str | None = None
    engine: str = "valhalla"
    card_type_names = E.VH_CARD_TYPE_NAMES  #: tables.card_type code -> name
    one_deck = True  #: one deck for the three ages (a card has no age of its own)
    opcode_names: dict = field(default_factory=dict)  # VOP code -> opcodes.toml name
    sweep: str | None = None  # "gods" / "god-sets": games cycle through the god combinations

    def with_sweep(self, sweep: str | None) -> VRuleset:
        """A copy whose games sweep the god combinations (sweep.SWEEPS). Raises RulesError."""
        from .sweep import SWEEPS
        if sweep is not None and sweep not in SWEEPS:
            raise RulesError(f"--sweep {sweep!r}; allowed: {', '.join(SWEEPS)}")
        return replace(self, sweep=sweep)

    def sweep_size(self) -> int:
        from .sweep import sweep_combos
        return len(sweep_combos(self, self.sweep)) if self.sweep else 1

    @property
    def tables(self):
        return self.tables_arr[0]

    @property
    def n_cards(self) -> int:
        return len(self.card_names)

    @property
    def province_names(self) -> list[str]:  # the base engine's name for board spaces
        return self.region_names

    def deck_size(self, players: int) -> int:
        """Cards in the deck: every god's cards (3 gods in play) + 3 Monsters per player."""
        t = self.tables
        n = self.n_cards
        per_god = [int(t.card_copies[:n][t.card_vgod[:n] == g].sum()) for g in range(int(t.n_gods))]
        gods = sorted(per_god)[:E.VH_GODS_IN_PLAY]  # the smallest three: the worst case
        return sum(gods) + min(int(t.monsters_pp) * players, self.n_monsters())

    def n_monsters(self) -> int:
        t = self.tables
        return int(t.card_copies[: self.n_cards][t.card_type[: self.n_cards] == E.VCT_MONSTER].sum())

    def check_players(self, players: int) -> None:
        """Raise RulesError for a player count outside 3..5 (rulebook: 3-5 players) or a deck
        too small for three drafts (6 cards per clan per age)."""
        if not 3 <= players <= 5:
            raise RulesError(f"players: {players}; allowed for {self.name}: 3..5 (rulebook \"Introduction\")")
        sg = self.options.get("start_glory")
        if isinstance(sg, list) and any(sg) and len(sg) != players:
            raise RulesError(f"--option start_glory: {len(sg)} value(s) {'/'.join(map(str, sg))} for {players} "
                             f"players; allowed: one per seat")
        t = self.tables
        need = int(t.deal) * players
        have = self.deck_size(players)
        if have < need:
            raise RulesError(f"{self.card_file}: the deck for {players} players has {have} cards; "
                             f"the draft deals {need}")
        if int(t.n_gods) < E.VH_GODS_IN_PLAY:
            raise RulesError(f"gods.toml: {int(t.n_gods)} gods; allowed: at least {E.VH_GODS_IN_PLAY}")

    def with_draft_rule(self, name: str, rule: int, ids: list[int] | None = None, one_clan: bool = False) -> VRuleset:
        ids = ids if ids is not None else self.card_ids(name)
        arr = self.tables_arr.copy()
        arr[0].card_draft[ids] = rule
        arr[0].draft_rules = 1
        arr[0].draft_one = int(one_clan)
        label = {E.DRAFT_FORCED: "forced", E.DRAFT_BANNED: "banned"}.get(rule, "free")
        return replace(self, tables_arr=arr, draft_note=f"{name}: {label}")

    def without_card(self, name: str, ids: list[int] | None = None) -> VRuleset:
        ids = ids if ids is not None else self.card_ids(name)
        arr = self.tables_arr.copy()
        arr[0].card_copies[ids] = 0
        return replace(self, tables_arr=arr, draft_note=f"{name}: removed")

    def card_label(self, c: int) -> str:
        return self.card_names[c]

    def loc_label(self, loc: int) -> str:
        if loc >= 0:
            return self.region_names[loc]
        if loc <= E.VH_LOC_KILL0:
            return f"P{E.VH_LOC_KILL0 - loc}'s kill pile"
        return {E.VH_LOC_RESERVE: "reserve", E.VH_LOC_FEAST: "Feast Hall", E.VH_LOC_NONE: "out of play"}[loc]


def load_board(path: Path):
    """board.toml -> (names, numbers, adjacency int8[R, R], valhalla index)."""
    b = load_toml(path)
    regs = require_key(path, "board", b, "region")
    if not isinstance(regs, list) or not 3 <= len(regs) <= MAXR:
        field_error(path, "board", "region", f"{len(regs) if isinstance(regs, list) else regs!r} regions; "
             f"allowed: 3..{MAXR} [[region]] tables")
    names = []
    for i, r in enumerate(regs):
        n = require_key(path, f"region {i + 1}", r, "name")
        if not isinstance(n, str) or not n or n in names:
            field_error(path, f"region {i + 1}", "name", f"{n!r}; allowed: a unique non-empty name")
        names.append(n)
    vh = [i for i, r in enumerate(regs) if r.get("valhalla") is True]
    if len(vh) != 1 or vh[0] != len(regs) - 1:
        field_error(path, "board", "valhalla", "exactly one region, the last, must have valhalla = true")
    outer = len(regs) - 1
    for i, r in enumerate(regs[:-1]):
        num = check_int(path, names[i], "number", require_key(path, names[i], r, "number"), 1, outer)
        if num != i + 1:
            field_error(path, names[i], "number", f"{num}; allowed: {i + 1} (regions in Region Token order)")
    adj = np.zeros((len(regs), len(regs)), np.int8)
    for i, r in enumerate(regs):
        nb = require_key(path, names[i], r, "adjacent")
        if not isinstance(nb, list):
            field_error(path, names[i], "adjacent", f"{nb!r}; allowed: a list of region names")
        for n in nb:
            if n not in names or n == names[i]:
                field_error(path, names[i], "adjacent", f"{n!r}; allowed: {[x for x in names if x != names[i]]}")
            adj[i, names.index(n)] = 1
    for i in range(len(regs)):
        for j in range(len(regs)):
            if adj[i, j] != adj[j, i]:
                field_error(path, names[i], "adjacent", f"{names[j]!r} lists {names[i]!r} only one way; pathways join both")
    return names, adj, len(regs) - 1


def load_gods(path: Path):
    g = load_toml(path)
    gods = require_key(path, "gods", g, "god")
    if not isinstance(gods, list) or not 1 <= len(gods) <= E.VH_N_GODS_MAX:
        field_error(path, "gods", "god", f"allowed: 1..{E.VH_N_GODS_MAX} [[god]] tables")
    names, power, amount = [], [], []
    for i, d in enumerate(gods):
        n = require_key(path, f"god {i + 1}", d, "name")
        if not isinstance(n, str) or not n or n in names:
            field_error(path, f"god {i + 1}", "name", f"{n!r}; allowed: a unique non-empty name")
        p = require_key(path, n, d, "power")
        if p not in E.VH_GOD_NAMES:
            field_error(path, n, "power", f"{p!r}; allowed: {list(E.VH_GOD_NAMES)}")
        names.append(n)
        power.append(E.VH_GOD_NAMES.index(p))
        amount.append(check_int(path, n, "amount", d.get("amount", 2), 0, 20))
    return names, power, amount


def load_rules(path: Path, options: dict | None):
    r = load_toml(path)
    out = {}
    clan = require_key(path, "rules", r, "clan")
    out["fig_str"] = [check_int(path, "clan", k, require_key(path, "clan", clan, k), 0, 20) for k in ("elite_str", "warrior_str")]
    out["n_elites"] = check_int(path, "clan", "elites", require_key(path, "clan", clan, "elites"), 0, E.VH_N_ELITES)
    out["n_warriors"] = check_int(path, "clan", "warriors", require_key(path, "clan", clan, "warriors"), 0, E.VH_N_WARRIORS)
    out["monster_bases"] = check_int(path, "clan", "monster_bases", require_key(path, "clan", clan, "monster_bases"), 0,
                                E.VH_N_MONSTERS)
    out["start_rage"] = check_int(path, "clan", "start_rage", require_key(path, "clan", clan, "start_rage"), 0, 50)
    tracks = require_key(path, "rules", r, "tracks", dict)
    if "digest" not in tracks:
        field_error(path, "tracks", "digest", "missing")
    tr = tracks["digest"]
    out["track"] = [track_steps(path, "tracks.digest", require_key(path, "tracks.digest", tr, k)) for k in E.STAT_NAMES]
    out["bonus"] = track_steps(path, "tracks.digest", require_key(path, "tracks.digest", tr, "bonus"))
    su = require_key(path, "rules", r, "setup")
    out["region_tokens"] = check_int(path, "setup", "region_tokens", require_key(path, "setup", su, "region_tokens"), 0, MAXR)
    out["monsters_pp"] = check_int(path, "setup", "monsters_per_player", require_key(path, "setup", su, "monsters_per_player"),
                              0, 10)
    orw = require_key(path, "setup", su, "outer_rewards", list)
    for x in orw:
        if x not in E.VH_REWARD_NAMES[:5]:
            field_error(path, "setup", "outer_rewards", f"{x!r}; allowed: {list(E.VH_REWARD_NAMES[:5])}")
    out["outer_rewards"] = [REWARDS[x] for x in orw]
    vr = require_key(path, "setup", su, "valhalla_reward")
    if vr not in E.VH_REWARD_NAMES[:5]:
        field_error(path, "setup", "valhalla_reward", f"{vr!r}; allowed: {list(E.VH_REWARD_NAMES[:5])}")
    out["valhalla_reward"] = REWARDS[vr]
    out["glory_reward"] = check_int(path, "setup", "glory_reward", require_key(path, "setup", su, "glory_reward"), 0, 100)
    ag = require_key(path, "rules", r, "age")
    check_int(path, "age", "ages", require_key(path, "age", ag, "ages"), 3, 3)
    out["deal"] = check_int(path, "age", "deal", require_key(path, "age", ag, "deal"), 1, E.MAX_DEAL)
    out["keep"] = check_int(path, "age", "keep", require_key(path, "age", ag, "keep"), 1, out["deal"])
    out["carry"] = check_int(path, "age", "carry", require_key(path, "age", ag, "carry"), 0, 10)
    pl = require_key(path, "age", ag, "pass_left")
    if not isinstance(pl, list) or len(pl) != 3 or not all(isinstance(x, bool) for x in pl):
        field_error(path, "age", "pass_left", f"{pl!r}; allowed: a list of 3 booleans")
    out["pass_left"] = [int(x) for x in pl]
    vg = require_key(path, "age", ag, "valor_glory")
    if not isinstance(vg, list) or len(vg) != 3:
        field_error(path, "age", "valor_glory", f"{vg!r}; allowed: a list of 3 integers")
    out["valor_glory"] = [check_int(path, "age", "valor_glory", v, 0, 100) for v in vg]
    opts = dict(require_key(path, "rules", r, "options", dict))
    for k in OPTIONS:
        if k not in opts:
            field_error(path, "options", k, "missing")
    vec = np.zeros(E.N_VOPTS, np.int32)
    src = {k: path for k in opts}
    for k, v in (options or {}).items():  # command-line (or experiment) overrides
        if k not in OPTIONS:
            raise unknown_option(k, OPTIONS, "Blood Rage: Valhalla")
        opts[k], src[k] = v, "--option"
    for k, v in opts.items():
        where = src[k]
        if k not in OPTIONS:
            field_error(where, "options", k, f"unknown option; allowed: {', '.join(sorted(OPTIONS))}")
        idx, kind, allowed = OPTIONS[k]
        if kind == "int":
            vec[idx] = check_int(where, "options", k, v, *allowed)
        elif kind == "bool":
            if not isinstance(v, bool):
                field_error(where, "options", k, f"got {v!r}; allowed: true, false")
            if idx is not None:
                vec[idx] = int(v)
        elif kind == "choice":
            if v not in allowed:
                field_error(where, "options", k, f"got {v!r}; allowed: {', '.join(allowed)}")
            vec[idx] = allowed.index(v)
        else:  # start_glory: a list, or "12/8/4/0"
            items = v.split("/") if isinstance(v, str) else v
            if not isinstance(items, list) or not 1 <= len(items) <= E.MAX_PLAYERS:
                field_error(where, "options", k, f"got {v!r}; allowed: 1..{E.MAX_PLAYERS} integers 0..1000, "
                     "one per seat, written 12/8/4/0")
            vals = []
            for x in items:
                try:
                    x = int(x) if isinstance(x, str) else x
                except ValueError:
                    field_error(where, "options", k, f"item {x!r} of {v!r}; allowed: integers 0..1000 (e.g. 12/8/4/0)")
                vals.append(check_int(where, "options", k, x, 0, 1000))
            out["start_glory"] = vals + [0] * (E.MAX_PLAYERS - len(vals))
            opts[k] = vals
    vec[E.VOPT_GLORY_REWARD] = out["glory_reward"]
    out["opts"] = vec
    return out, opts


def read_card_rows(path: Path) -> list[dict]:
    """cards.csv -> row dicts (lines starting with '#' are comments), with '_entry' for errors."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            lines = [ln for ln in fh if not ln.startswith("#")]
    except FileNotFoundError:
        raise RulesError(f"{path}: file not found") from None
    except UnicodeDecodeError:
        raise RulesError(f"{path}: not UTF-8 text") from None
    rows = list(csv.DictReader(lines))
    if not rows:
        raise RulesError(f"{path}: no cards")
    missing = [c for c in CARD_COLUMNS if c not in rows[0]]
    if missing:
        raise RulesError(f"{path}: header: missing column(s) {missing}; required: {CARD_COLUMNS}")
    for i, r in enumerate(rows):
        r["_entry"] = f"card {(r['name'] or '').strip() or '?'}"
    return rows


def apply_patch(rows: list[dict], patch_path: Path, data: dict | None = None) -> list[dict]:
    """A card patch (the base game's format, simulator.bloodrage.patches.apply_card_patch, without
    ``ages``; core.loading.apply_row_patch): a new card needs ``type``. Raises RulesError."""
    return apply_row_patch(rows, patch_path, data, [c for c in CARD_COLUMNS if c != "name"], ("type",))


def load_cards(path: Path, opcodes: dict, god_names: list[str], patch=None):
    """cards.csv (+ card patches) -> (names, texts, arrays). Raises RulesError naming file, card
    and column."""
    from ..core.loading import patch_list
    rows = read_card_rows(path)
    for ppath, pdata in patch_list(patch):
        rows = apply_patch(rows, ppath, pdata)
    C = len(rows)
    if C > MAXC:
        src = f"{path}" + (" with its card patches" if patch else "")
        raise RulesError(f"{src}: {C} cards; allowed: at most {MAXC}")
    a = dict(card_type=np.zeros(C, np.int8), card_vgod=np.full(C, -1, np.int8), card_god=np.full(C, -1, np.int8),
             card_age=np.ones(C, np.int8), card_value=np.zeros(C, np.int16), card_copies=np.zeros(C, np.int8),
             card_op=np.full((C, 2), E.VOP_NONE, np.int16), card_a=np.zeros((C, 2), np.int16))
    names, texts = [], []
    lower = [g.lower() for g in god_names]
    for i, r in enumerate(rows):
        entry = r["_entry"]
        name = (r["name"] or "").strip()
        if not name:
            field_error(path, f"row {i + 3}", "name", "empty")
        if name in names:
            field_error(path, entry, "name", "duplicate; allowed: a name not used by another card")
        names.append(name)
        texts.append(r["effect"] or "")
        t = (r["type"] or "").strip()
        if t not in E.VH_CARD_TYPE_NAMES:
            field_error(path, entry, "type", f"{t!r}; allowed: {list(E.VH_CARD_TYPE_NAMES)}")
        a["card_type"][i] = E.VH_CARD_TYPE_NAMES.index(t)
        g = (r["god"] or "").strip()
        if t == "monster":
            if g:
                field_error(path, entry, "god", f"{g!r}; allowed: empty for a Monster")
        elif g.lower() not in lower:
            field_error(path, entry, "god", f"{g!r}; allowed: {god_names}")
        else:
            a["card_vgod"][i] = lower.index(g.lower())
            if g.lower() in E.CARD_GOD_NAMES:
                a["card_god"][i] = E.CARD_GOD_NAMES.index(g.lower())
        v = (r["value"] or "").strip()
        lo, hi = {"battle": (0, 20), "elite": (0, 10), "clan": (0, 10), "monster": (1, 10), "quest": (0, 0)}[t]
        if t == "quest" and v == "":
            v = "0"
        try:
            x = int(v)
        except ValueError:
            x = None
        if x is None or not lo <= x <= hi:
            field_error(path, entry, "value", f"{v!r}; allowed: an integer {lo}..{hi}" + (" or empty" if t == "quest" else ""))
        a["card_value"][i] = x
        cp = (r["copies"] or "").strip()
        if not cp.isdigit() or not 0 <= int(cp) <= 9:
            field_error(path, entry, "copies", f"{cp!r}; allowed: an integer 0..9")
        a["card_copies"][i] = int(cp)
        effs = parse_effects(path, entry, r["effects"] or "", opcodes, [])
        if len(effs) > 2:
            field_error(path, entry, "effects", f"{len(effs)} effects; allowed: at most 2")
        for k, (code, x, _) in enumerate(effs):
            a["card_op"][i, k], a["card_a"][i, k] = code, x
        nq = sum(c in E.VOP_QUESTS for c, _, _ in effs)
        if t == "quest" and nq != 1:
            field_error(path, entry, "effects", "a quest needs exactly one q_* opcode")
        if t != "quest" and nq:
            field_error(path, entry, "effects", "q_* opcodes are for quests only")
    return names, texts, a


def load_opcodes(path: Path) -> dict:
    ops = load_toml(path)
    for name, spec in ops.items():
        check_int(path, name, "code", require_key(path, name, spec, "code"), 0, E.N_VOPS - 1)
        check_opcode_args(path, name, spec)
        if require_key(path, name, spec, "hook") not in E.VH_HOOK_NAMES:
            field_error(path, name, "hook", f"{spec['hook']!r}; allowed: {list(E.VH_HOOK_NAMES)}")
    return ops


def load_valhalla(name: str = "valhalla", options: dict | None = None, data_dir: Path = DATA_DIR,
                  cards_path: Path | None = None, board_path: Path | None = None, patch=None) -> VRuleset:
    """Load and validate the Blood Rage: Valhalla rule set in ``data_dir/name``.

    ``board_path``/``cards_path`` replace board.toml / cards.csv (a user's own components).
    Raises RulesError naming the file, entry and field.
    """
    root = data_dir / name
    rnames, adj, vh = load_board(Path(board_path) if board_path else root / "board.toml")
    rules, opts = load_rules(root / "rules.toml", options)
    gnames, gpower, gamount = load_gods(root / "gods.toml")
    cards_path = Path(cards_path) if cards_path else root / "cards.csv"
    ops = load_opcodes(root / "opcodes.toml")
    cnames, ctexts, ca = load_cards(cards_path, ops, gnames, patch)
    R = len(rnames)
    if len(rules["outer_rewards"]) != R - 1:
        raise RulesError(f"{root / 'rules.toml'}: setup: field 'outer_rewards': {len(rules['outer_rewards'])} "
                         f"rewards; allowed: one per outer region ({R - 1} on {board_path or 'board.toml'})")
    if rules["region_tokens"] > R - 1:
        raise RulesError(f"{root / 'rules.toml'}: setup: field 'region_tokens': {rules['region_tokens']}; "
                         f"allowed: at most {R - 1} (outer regions)")
    arr = np.rec.array(np.zeros(1, VTABLES_DTYPE))
    t = arr[0]
    t.card_op[:] = E.VOP_NONE
    t.card_vgod[:] = -1
    t.card_god[:] = -1
    t.n_regions, t.n_outer, t.valhalla = R, R - 1, vh
    t.adj[:R, :R] = adj
    for r in range(R):
        to = np.flatnonzero(adj[r])
        t.adj_n[r] = len(to)
        t.adj_to[r, : len(to)] = to
    seat, region = np.indices(t.spread.shape)
    t.spread[:] = 0.001 * ((region * 7 + seat * 3) % 11)
    for k in ("track", "bonus", "fig_str", "valor_glory", "pass_left"):
        t[k][:] = np.asarray(rules[k])
    t.outer_rewards[: R - 1] = rules["outer_rewards"]
    for k in ("n_elites", "n_warriors", "monster_bases", "start_rage", "region_tokens", "monsters_pp",
              "valhalla_reward", "glory_reward", "deal", "keep", "carry"):
        t[k] = rules[k]
    t.start_glory[:] = rules.get("start_glory", [0] * E.MAX_PLAYERS)
    t.opts[:] = rules["opts"]
    t.n_gods = len(gnames)
    t.god_power[: len(gnames)] = gpower
    t.god_amount[: len(gnames)] = gamount
    t.n_cards = len(cnames)
    for k, v in ca.items():
        t[k][: len(cnames)] = v
    battle = t.card_type == E.VCT_BATTLE
    t.card_bv[:] = np.where(battle, t.card_value, 0)  # policy.best_battle_value_nb
    on_lose = sum(np.where(np.isin(t.card_op[:, e], LOSE_OPS), t.card_a[:, e], 0) for e in range(2))
    t.card_lose[:] = np.where(battle, t.card_value + 2.0 * on_lose, 0.0)
    for e in range(2):
        op = t.card_op[:, e].astype(np.int64)
        t.card_opmask[:] |= np.where(op >= 0, np.left_shift(1, np.maximum(op, 0)), 0)
    sha = hashlib.sha256(cards_path.read_bytes()).hexdigest()
    from ..core.loading import patch_list, patches_sha256
    patches = patch_list(patch)
    psha = patches_sha256(patch)
    return VRuleset(name, arr, rnames, cnames, ctexts, sha, opts, gnames, str(cards_path),
                    ", ".join(str(p) for p, _ in patches) or None, psha,
                    opcode_names={int(v["code"]): k for k, v in ops.items()})


def load_missions(rs: VRuleset, path: Path | None = None) -> tuple[int, dict]:
    """missions.toml -> (favour, {god index: (M_* condition, threshold, Glory, reward card id)}).
    Raises RulesError naming the file, mission and field."""
    import re
    path = Path(path) if path else DATA_DIR / rs.name / "missions.toml"
    d = load_toml(path)
    favour = check_int(path, "missions", "favour", d.get("favour", 2), 1, 3)
    out = {}
    for i, m in enumerate(require_key(path, "missions", d, "mission")):
        entry = f"mission {i + 1}"
        god = require_key(path, entry, m, "god")
        if god not in rs.god_names:
            field_error(path, entry, "god", f"{god!r}; allowed: {rs.god_names}")
        cond = str(require_key(path, entry, m, "condition"))
        mm = re.fullmatch(r"\s*([a-z]+)\((\d+)\)\s*", cond)
        if not mm or mm.group(1) not in E.MISSION_NAMES:
            field_error(path, entry, "condition", f"{cond!r}; allowed: {[n + '(a)' for n in E.MISSION_NAMES]}")
        glory = check_int(path, entry, "glory", m.get("glory", 0), 0, 100)
        reward = require_key(path, entry, m, "reward")
        if reward not in rs.card_names:
            field_error(path, entry, "reward", f"{reward!r}; allowed: a card of {rs.card_file}")
        out[rs.god_names.index(god)] = (E.MISSION_NAMES.index(mm.group(1)), int(mm.group(2)), glory,
                                        rs.card_names.index(reward))
    return favour, out
