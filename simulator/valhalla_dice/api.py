"""Valhalla dice game: the Python face of the engine (load, play one game, play a batch)."""
from __future__ import annotations

import hashlib
from pathlib import Path
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np

from ..core import enums as E
from ..core.batch import BatchOut, game_plan, new_batch_out, rotated
from ..core.loading import RulesError
from . import dice as D
from .battle import ARM_DP
from .policy import VD_ARM
from .rules import DICE_DIR, Content, load_content
from .state import (
    C_GLORY_ATTACK,
    C_GLORY_DEFENCE,
    C_GLORY_JARL,
    C_GLORY_RAGNAROK,
    C_GLORY_SETS,
    C_GLORY_SHIELDS,
    N_CNT,
    new_state,
)
from .tables import build_tables


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


def new_results(G: int, P: int) -> Results:
    return Results(np.zeros((G, P), np.int32), np.zeros((G, P), np.int8), np.zeros((G, P, N_CNT), np.int32),
                   np.full((G, P), -1, np.int16), np.zeros((G, P), np.int8), np.zeros(G, np.int32),
                   np.zeros(G, np.int8), np.zeros(G, np.int8))


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
        self.options = dict(options or {})
        self.tables_arr = build_tables(content)
        self.T = self.tables_arr[0]
        lo, hi = content.rules["min_players"], content.rules["max_players"]
        self.players = (lo, hi)
        self._dice = None
        self.card_names = [c.name for c in content.cards]
        self.god_names = [j.name for j in content.jarls]
        self.n_cards = len(self.card_names)
        n = self.n_cards
        self.tables = SimpleNamespace(card_type=self.T.kind[:n].astype(np.int8), card_value=self.T.strength[:n].copy(),
                                      card_god=np.full(n, -1, np.int8), card_age=np.ones(n, np.int8))
        cards = (Path(data_dir) if data_dir is not None else DICE_DIR) / "cards.csv"
        self.card_file_sha256 = hashlib.sha256(cards.read_bytes()).hexdigest()

    def dice_for(self, params) -> tuple:
        """The arming DP's dice tables (DiceTables.arrays for pools of up to 6, 7, 8 and 9 dice: 6
        dice + 3 grey; the red die's faces, the same for every colour by default, DIGEST §5.3), built
        on first use (~1 s); when no seat arms by the DP, one-die stand-ins the kernels never read."""
        if not (np.asarray(params)[:, VD_ARM] == ARM_DP).any():
            return (D.tables(1).arrays,) * 4
        if self._dice is None:
            self._dice = tuple(D.tables(n, self.content.dice["red"]).arrays for n in (6, 7, 8, 9))
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
        if k * P > len(pool):
            raise RulesError(f"option jarl_deal={deal}: {P} players need {k * P} Jarls, {len(pool)} can be dealt "
                             f"(jarls.csv); allowed at {P} players: fewer players or jarl_deal=3 / none")

    def card_ids(self, name: str) -> list[int]:
        """Rows of the card called ``name`` (case-insensitive). Raises ValueError naming close ones."""
        try:
            c = self.content.card(name)
        except KeyError as exc:
            raise ValueError(exc.args[0]) from None
        return [self.card_names.index(c.name)]


def load(name: str = "valhalla-dice", options: dict | None = None, data_dir: Path | None = None,
         cards_path: Path | None = None, patch=None) -> Ruleset:
    """The rule set from ``data_dir/name`` (default simulator/data/valhalla-dice/). Raises RulesError
    for a malformed file, an unknown option, or a card patch / cards file (not supported yet)."""
    if patch is not None or cards_path is not None:
        raise RulesError("valhalla-dice: card patches and --cards files are not supported yet; edit a copy of "
                         "simulator/data/valhalla-dice/ instead")
    from ..core.loading import DATA_DIR
    folder = Path(data_dir) / name if data_dir is not None else DATA_DIR / name
    if not folder.is_dir():
        folder = DICE_DIR
    return Ruleset(load_content(folder, options), options, folder)


def lineup_arrays(lineup) -> tuple[np.ndarray, np.ndarray]:
    """[(kind, params)] -> (int8[P], float64[P, VD_N])."""
    return (np.array([k for k, _ in lineup], np.int8), np.array([p for _, p in lineup], np.float64))


def play_game(rs: Ruleset, lineup, seed: int, log: bool = True, check: bool = True):
    """One game; returns the final state record (state.VDSTATE_DTYPE)."""
    from .playout import play_game_nb
    rs.check_players(len(lineup))
    kinds, params = lineup_arrays(lineup)
    S = new_state()
    play_game_nb(rs.T, S, rs.dice_for(params), np.uint64(seed), kinds, params, log, check)
    return S


def play_results(rs: Ruleset, lineup, seeds, check: bool = False) -> Results:
    """One game per seed (uint64[G]); seat i plays lineup[i] = (kind, params); this engine's own
    per-game results (:class:`Results`)."""
    from .playout import play_batch_nb
    rs.check_players(len(lineup))
    kinds, params = lineup_arrays(lineup)
    seeds = np.asarray(seeds, np.uint64)
    out = new_results(len(seeds), len(lineup))
    play_batch_nb(rs.tables_arr, sum(rs.dice_for(params), ()), seeds, kinds, params, check, out)
    return out


def play_batch(rs: Ruleset, lineup, seeds, check: bool = False, game_ids=None, period: int = 1) -> BatchOut:
    """The engine facade's batch (simulator.engines): results as a BatchOut. Glory by source:
    attacks won -> battle, defences won -> contest, Ragnarök -> ragnarok, shields -> bonus, shield
    sets -> cards, a Jarl's loss_valhalla -> mission (the game's words: engines' terms)."""
    r = play_results(rs, lineup, seeds, check)
    G, P = r.glory.shape
    out = new_batch_out(G, P, cards=max(rs.n_cards, 1))
    for slot, c in ((E.G_BATTLE, C_GLORY_ATTACK), (E.G_CONTEST, C_GLORY_DEFENCE), (E.G_RAGNAROK, C_GLORY_RAGNAROK),
                    (E.G_BONUS, C_GLORY_SHIELDS), (E.G_CARDS, C_GLORY_SETS), (E.G_MISSION, C_GLORY_JARL)):
        out.glory[:, :, slot] = r.cnt[:, :, c]
    out.rank[:] = r.rank
    out.n_turns[:] = r.turns
    out.violation[:] = r.violation
    out.game_shape[:] = -1
    return out


def replay_text(rs: Ruleset, lineup_names, lineup, master_seed: int, game_id: int = 0, rotate: bool = True) -> str:
    """The readable log of game ``game_id`` of an experiment (the game ``volva run`` plays)."""
    from .replay import log_text
    (r, _, seeds), = game_plan(master_seed, np.array([game_id]), len(lineup), rotate)
    S = play_game(rs, rotated(lineup, r), int(seeds[0]), log=True, check=True)
    return log_text(rs, S, rotated(lineup_names, r))
