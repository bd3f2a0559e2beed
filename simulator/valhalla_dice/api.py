"""Valhalla dice game: the Python face of the engine (load, play one game, play a batch)."""
from __future__ import annotations

import hashlib
from pathlib import Path
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np

from ..core import enums as E
from ..core.batch import BatchOut, game_plan, new_batch_out, rotated, rotation_period
from ..core.coldstart import compile_cold
from ..core.loading import RulesError
from ..core.threads import spread
from . import dice as D
from .battle import ARM_DP
from .policy import VD_ARM
from .rules import CLANS, DICE_DIR, Content, check_setup_fits, load_content, loki_pre_max
from .state import (
    C_ATTACK_WINS,
    C_ATTACKS,
    C_DEFENCE_WINS,
    C_DEFENCES,
    C_GLORY_ATTACK,
    C_GLORY_DEFENCE,
    C_GLORY_JARL,
    C_GLORY_KING,
    C_GLORY_LOKI,
    C_GLORY_RAGNAROK,
    C_GLORY_SETS,
    C_GLORY_SHIELDS,
    C_NO_WINNER,
    C_SENT_DEFENCE,
    C_TACTICS_PLAYED,
    C_TURNS,
    N_CNT,
    OPENING,
    PLAYED,
    new_state,
)
from .tables import build_tables

PLAN = f"{__package__}.compile_plan"  #: the two-process cold compile (simulator.core.coldstart)


class Results(NamedTuple):
    """Per-game results of a batch (G games, P seats)."""
    glory: np.ndarray  #: int32[G, P] final Glory
    rank: np.ndarray  #: int8[G, P] 1 = winner
    cnt: np.ndarray  #: int32[G, P, N_CNT] counters (state.C_*)
    jarl: np.ndarray  #: int16[G, P] Jarl (jarls.csv row), -1 none
    own: np.ndarray  #: int8[G, P] own shields left
    turns: np.ndarray  #: int32[G]
    end: np.ndarray  #: int8[G] end trigger (state.END_*)
    violation: np.ndarray  #: int8[G] first invariant violated (playout.INV_*), 0 none
    opening: np.ndarray  #: int16[G, P, OPENING] cards each seat started with (hand kept, table Warriors), -1 padding
    played: np.ndarray  #: int16[G, P, PLAYED] Tactics played in order, -1 padding
    vclan: np.ndarray  #: int8[G, P, 5] Warriors in the seat's Valhalla at the end by clan (rules.CLANS order)


def new_results(G: int, P: int) -> Results:
    return Results(np.zeros((G, P), np.int32), np.zeros((G, P), np.int8), np.zeros((G, P, N_CNT), np.int32),
                   np.full((G, P), -1, np.int16), np.zeros((G, P), np.int8), np.zeros(G, np.int32),
                   np.zeros(G, np.int8), np.zeros(G, np.int8), np.full((G, P, OPENING), -1, np.int16),
                   np.full((G, P, PLAYED), -1, np.int16), np.zeros((G, P, len(CLANS)), np.int8))


class Ruleset:
    """The loaded rule set: ``content`` (validated data), ``T`` (the kernels' tables record),
    ``dice`` (the DP policy's dice tables), and what the analyses read of any rule set (name,
    engine, options, card names and types, Jarl names as ``god_names``, ``tables`` with per-card
    card_type, card_value = strength, card_god = -1, card_age = 1)."""

    name = engine = "valhalla-dice"
    card_type_names = ("warrior", "tactic")
    one_deck = True
    patch_file = patch_sha256 = draft_note = None

    def __init__(self, content: Content, options: dict | None = None, data_dir: Path | None = None):
        self.content = content
        self.options = dict(content.rules["chosen"])  #: every rule option's value (defaults included), as Blood Rage's
        self.tables_arr = build_tables(content)
        self.T = self.tables_arr[0]
        lo, hi = content.rules["min_players"], content.rules["max_players"]
        self.players = (lo, hi)
        self._dice = None
        self.card_names = [c.name for c in content.cards]
        self.god_names = [j.name for j in content.jarls]
        self.group_names = group_names(self.god_names)
        self.n_cards = len(self.card_names)
        n = self.n_cards
        self.tables = SimpleNamespace(card_type=self.T.kind[:n].astype(np.int8), card_value=self.T.strength[:n].copy(),
                                      card_god=np.full(n, -1, np.int8), card_age=np.ones(n, np.int8),
                                      draft_one=0)
        self.data_dir = data_dir
        cards = content.cards_path or (Path(data_dir) if data_dir is not None else DICE_DIR) / "cards.csv"
        self.card_file_sha256 = hashlib.sha256(cards.read_bytes()).hexdigest()

    def dice_for(self, params) -> tuple:
        """The arming DP's dice tables (dice.arming_bank: lumped dice for pools of up to 6, 7, 8 and
        9 dice: 6 dice + 3 grey; the red die's faces, the same for every colour by default, DIGEST
        §5.3), built on first use (~1-2 s); when no seat arms by the DP, stand-ins never read."""
        if not (np.asarray(params)[:, VD_ARM] == ARM_DP).any():
            return D.stand_in_bank()
        if self._dice is None:
            self._dice = D.arming_bank(tuple(self.content.dice["red"]))
        return self._dice

    def check_players(self, P: int) -> None:
        """Raises RulesError outside 2..6 players, or when the Jarl deal needs more Jarls than exist
        for P players (003 l.48-50: '3+' Jarls out at 2 players)."""
        lo, hi = self.players
        if not lo <= P <= hi:
            raise RulesError(f"players: {P}; allowed: {lo}..{hi} for Valhalla (dice game)")
        deal = self.content.rules["chosen"].get("jarl_deal", "3")
        k = {"3": 3, "5": 5, "recommended": 1}.get(deal, 0)
        pool = [j for j in self.content.jarls if j.min_players <= P and (deal != "recommended" or j.recommended)]
        for j in np.nonzero(self.T.j_draft[:len(self.god_names)])[0]:  # volva ablate on a Jarl
            if self.content.jarls[j] not in pool:
                raise RulesError(f"{self.god_names[j]}: not dealt at {P} players (jarls.csv min_players "
                                 f"{self.content.jarls[j].min_players}, option jarl_deal={deal}); allowed: a Jarl in play")
        if k * P > len(pool):
            raise RulesError(f"option jarl_deal={deal}: {P} players need {k * P} Jarls, {len(pool)} can be dealt "
                             f"(jarls.csv); allowed at {P} players: fewer players or jarl_deal=3 / none")

    def card_ids(self, name: str) -> list[int]:
        """Rows of the card called exactly ``name``; a Jarl's name gives its row offset by the cards
        (``n_cards + row``: ``volva ablate`` takes a card or a Jarl). Raises RulesError naming the
        closest card and Jarl names."""
        if name in self.god_names:
            return [self.n_cards + self.god_names.index(name)]
        if name in self.card_names:
            return [self.card_names.index(name)]
        import difflib
        every = [*self.card_names, *self.god_names]
        close = difflib.get_close_matches(name, every, n=3) or [n for n in every if name.strip().lower() == n.lower()]
        raise RulesError(f"no card or Jarl {name!r} (names as in cards.csv and jarls.csv, exact)"
                         + (f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""))

    def with_draft_rule(self, name: str, rule: int, ids: list[int] | None = None, one_clan: bool = False) -> Ruleset:
        """A copy whose kernels mark ``ids`` (card_ids) forced or banned (E.DRAFT_*): a bound seat
        starts with a forced card and keeps it, and never keeps a banned one while it has the choice;
        a forced Jarl is dealt to it, a banned one never kept (rulings R61). ``one_clan``: the rule
        binds seat seed % P only (core.draft_rules). Raises RulesError for a Jarl under every clan
        (one copy: only one clan can hold it) or a Jarl the deal cannot give."""
        ids = ids if ids is not None else self.card_ids(name)
        out = self._copy()
        t = out.T
        for i in ids:
            if i >= self.n_cards:
                self._check_jarl(i - self.n_cards, one_clan)
                t.j_draft[i - self.n_cards] = rule
            else:
                t.draft[i] = rule
        t.draft_rules = 1
        t.draft_one = int(one_clan)
        out.tables.draft_one = int(one_clan)
        return out

    def without_card(self, name: str, ids: list[int] | None = None) -> Ruleset:
        """A copy without the card's copies in the deck (``volva ablate --ban removed``). Raises
        RulesError for a Jarl (use the one-clan estimand) or a deck then too small to deal."""
        ids = ids if ids is not None else self.card_ids(name)
        if any(i >= self.n_cards for i in ids):
            raise RulesError(f"{name}: a Jarl is not removed from the game; ablate it with --estimand one-clan")
        import dataclasses
        cards = tuple(dataclasses.replace(c, copies=0) if self.card_names.index(c.name) in ids else c
                      for c in self.content.cards)
        ch = self.content.rules["chosen"]
        loki = loki_pre_max(self.content.modules, ch.get("loki_card", "recommended")) if ch.get("loki_deception") == "true" else 0
        check_setup_fits(Path(self.data_dir) if self.data_dir is not None else DICE_DIR, self.content.rules, cards, loki)
        return Ruleset(dataclasses.replace(self.content, cards=cards), self.options, self.data_dir)

    def _check_jarl(self, j: int, one_clan: bool) -> None:
        if not one_clan:
            raise RulesError(f"{self.god_names[j]}: a Jarl has one copy, so only one clan can hold it; "
                             "allowed for a Jarl: --estimand one-clan")
        if self.content.rules["chosen"].get("jarl_deal", "3") in ("none",):
            raise RulesError(f"{self.god_names[j]}: option jarl_deal=none deals no Jarl")

    def _copy(self) -> Ruleset:
        import copy
        out = copy.copy(self)
        out.tables_arr = self.tables_arr.copy()
        out.T = out.tables_arr[0]
        out.tables = SimpleNamespace(**vars(self.tables))
        return out


def load(name: str = "valhalla-dice", options: dict | None = None, data_dir: Path | None = None,
         cards_path: Path | None = None, patch=None) -> Ruleset:
    """The rule set from ``data_dir/name`` (default simulator/data/valhalla-dice/), with ``cards_path``
    in place of its cards.csv and card ``patch``es applied (``volva compare --patch``: the base
    game's patch format; a new card needs ``kind``). Raises RulesError for a malformed file or
    patch, or an unknown option."""
    from ..core.loading import DATA_DIR, patch_list, patches_sha256
    folder = Path(data_dir) / name if data_dir is not None else DATA_DIR / name
    if not folder.is_dir():
        folder = DICE_DIR
    rs = Ruleset(load_content(folder, options, patch, cards_path), options, folder)
    if patch_list(patch):
        rs.patch_file = ", ".join(str(p) for p, _ in patch_list(patch))
        rs.patch_sha256 = patches_sha256(patch)
    return rs


def lineup_arrays(lineup) -> tuple[np.ndarray, np.ndarray]:
    """[(kind, params)] -> (int8[P], float64[P, VD_N])."""
    return (np.array([k for k, _ in lineup], np.int8), np.array([p for _, p in lineup], np.float64))


def play_game(rs: Ruleset, lineup, seed: int, log: bool = True, check: bool = True):
    """One game; returns the final state record (state.VDSTATE_DTYPE)."""
    from .playout import play_game_nb
    rs.check_players(len(lineup))
    kinds, params = lineup_arrays(lineup)
    compile_cold(PLAN)
    S = new_state()
    play_game_nb(rs.T, S, rs.dice_for(params), np.uint64(seed), kinds, params, log, check)
    return S


def play_results(rs: Ruleset, lineup, seeds, check: bool = False) -> Results:
    """One game per seed (uint64[G]); seat i plays lineup[i] = (kind, params); this engine's own
    per-game results (:class:`Results`)."""
    from .playout import play_chunk_nb
    from .state import VDSTATE_DTYPE
    rs.check_players(len(lineup))
    kinds, params = lineup_arrays(lineup)
    seeds = np.asarray(seeds, np.uint64)
    out = new_results(len(seeds), len(lineup))
    compile_cold(PLAN)
    dts = rs.dice_for(params)

    def play(lo: int, hi: int) -> None:
        play_chunk_nb(rs.tables_arr, dts, seeds, kinds, params, (lo, hi, 1 if check else 0), out,
                      np.empty(1, VDSTATE_DTYPE))

    spread(len(seeds), play)
    return out


def play_batch(rs: Ruleset, lineup, seeds, check: bool = False, game_ids=None, period: int = 1) -> BatchOut:
    """The engine facade's batch (simulator.engines): results as a BatchOut in the shared slots,
    which the engine's ``terms`` name in this game's words.

    - Glory by source: attacks won -> battle, defences won -> contest, Ragnarök -> ragnarok,
      shields -> bonus, shield sets -> cards, a Jarl's (loss_valhalla, shield_glory) -> mission,
      Loki's Deception -> pillage, King of the Hill -> quest;
    - ``picks`` (age 1): the cards a seat started with (its kept hand, then its table Warriors);
    - ``uses``: each Tactic played, as a battle use;
    - ``game_shape``: turns -> actions, attacks -> pillages, attacks won -> pillages_won, attacks
      without a winner -> battle_ties, defences -> battles, defences won -> battles_won, Tactics
      played -> quests, Warriors sent from won defences -> quests_done, own shields lost -> lost_battle;
    - ``groups``: the seat's Jarl, Valhalla clan and the game's end (``rs.group_names``)."""
    r = play_results(rs, lineup, seeds, check)
    G, P = r.glory.shape
    out = new_batch_out(G, P, cards=max(rs.n_cards, 1))
    for slot, c in ((E.G_BATTLE, C_GLORY_ATTACK), (E.G_CONTEST, C_GLORY_DEFENCE), (E.G_RAGNAROK, C_GLORY_RAGNAROK),
                    (E.G_BONUS, C_GLORY_SHIELDS), (E.G_CARDS, C_GLORY_SETS), (E.G_MISSION, C_GLORY_JARL),
                    (E.G_PILLAGE, C_GLORY_LOKI), (E.G_QUEST, C_GLORY_KING)):
        out.glory[:, :, slot] = r.cnt[:, :, c]
    out.rank[:] = r.rank
    out.n_turns[:] = r.turns
    out.violation[:] = r.violation
    out.picks[:, :, 0, :OPENING] = r.opening
    k = min(E.MAX_USES, PLAYED)
    out.uses[:, :, :k] = np.where(r.played[:, :, :k] >= 0, r.played[:, :, :k].astype(np.int16) * 16 + 4 + E.USE_BATTLE, -1)
    shape = out.game_shape
    shape[:] = 0
    for name, c in SHAPE_COUNTERS.items():
        shape[:, :, E.SHAPE_NAMES.index(name)] = np.minimum(r.cnt[:, :, c], np.iinfo(np.int16).max)
    shape[:, :, E.SHAPE_NAMES.index("lost_battle")] = int(rs.T.shields) - r.own
    return out._replace(groups=seat_groups(r, len(rs.god_names)))


#: game_shape slot -> this engine's counter (the terms name the slots in this game's words)
SHAPE_COUNTERS = {"actions": C_TURNS, "pillages": C_ATTACKS, "pillages_won": C_ATTACK_WINS, "battle_ties": C_NO_WINNER,
                  "battles": C_DEFENCES, "battles_won": C_DEFENCE_WINS, "quests": C_TACTICS_PLAYED,
                  "quests_done": C_SENT_DEFENCE}
#: the values of the "game end" group (state.END_*; 0: the turn cap stopped the game)
END_NAMES = ("turn cap", "a clan lost its last shield", "the deck ran out")
CLAN_NAMES = ("Bear", "Wolf", "Boar", "Deer", "Ice Giants")  #: rules.CLANS in the report's words


def group_names(jarls: list[str]) -> dict[str, list[str]]:
    """The report's groups of seats (BatchOut.groups): dimension -> its values' names."""
    return {"Jarl": [*jarls, "(no Jarl)"], "Valhalla clan": [*CLAN_NAMES, "mixed", "(empty)"],
            "game end": list(END_NAMES)}


def seat_groups(r: Results, n_jarls: int) -> np.ndarray:
    """int16[G, P, 3]: Jarl row (n_jarls: none), the clan with most Warriors in the seat's Valhalla
    at the end (5: a tie at the top, 6: empty), the end trigger (END_NAMES)."""
    G, P = r.glory.shape
    g = np.empty((G, P, 3), np.int16)
    g[:, :, 0] = np.where(r.jarl >= 0, r.jarl, n_jarls)
    v = r.vclan.astype(np.int16)
    top = v.max(axis=2)
    clan = v.argmax(axis=2)
    tie = (v == top[:, :, None]).sum(axis=2) > 1
    g[:, :, 1] = np.where(top == 0, len(CLAN_NAMES) + 1, np.where(tie, len(CLAN_NAMES), clan))
    g[:, :, 2] = np.asarray(r.end, np.int16)[:, None]
    return g


def replay_text(rs: Ruleset, lineup_names, lineup, master_seed: int, game_id: int = 0, rotate: bool = True) -> str:
    """The readable log of game ``game_id`` of an experiment (the game ``volva run`` plays)."""
    from .replay import log_text
    (r, _, seeds), = game_plan(master_seed, np.array([game_id]), len(lineup), rotate,
                               rotation_period(list(lineup_names)))  # a mirror lineup is not rotated
    S = play_game(rs, rotated(lineup, r), int(seeds[0]), log=True, check=True)
    return log_text(rs, S, rotated(lineup_names, r))
