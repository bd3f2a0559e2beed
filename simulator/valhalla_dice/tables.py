"""Valhalla dice game: the validated content (rules.Content) as one kernel tables record.

``VDTABLES_DTYPE`` holds every number the kernels read: cards (kind, clan, weapons, strength,
Glory, power and Tactic opcodes with arguments), the deck by copies, Jarls (abilities and
conditions as opcodes), the rulebook's numbers, the shield score table of each player count and
the rule options. Opcodes are named in ``opcodes.toml``; the codes below are the kernels'. An
opcode the data names but no kernel implements is refused at load (RulesError).
"""
from __future__ import annotations

from itertools import product

import numpy as np

from ..core.loading import RulesError
from . import dice as D
from .rules import CLANS, WEAPONS, WHEN, Content

MAX_ROWS = 256  #: rows of cards.csv
MAX_DECK = 400  #: cards in the deck (copies counted)
MAX_JARLS = 64
P6 = 6  #: seats

POWERS = {"counter": 0, "ally": 1, "multi": 2, "giant_die": 3}
TACTICS = {"fury": 0, "fury_if_fewer": 1, "heroic": 2, "new_weapons": 3, "push_back": 4, "exchange": 5,
           "separate_leader": 6}
ABILITIES = {"extra_die": 0, "free_reroll": 1, "strength": 2, "x_wild": 3, "clan_strength": 4, "draw_keep": 5,
             "pair_limit": 6, "win_draw": 7, "loss_valhalla": 8, "defender_ties": 9, "opp_die": 10,
             "steal_on_win": 11, "shield_glory": 12, "ragnarok_die": 13}
CONDITIONS = {"team_ge": 0, "shields_lost_ge": 1, "attacking": 2, "defending": 3, "clans_ge": 4,
              "fewer_warriors": 5, "hand_ge": 6}
KIND_WARRIOR, KIND_TACTIC = 0, 1
ANY = 5  #: a weapon_or_any argument meaning any weapon
# rule options as integers (opts[...])
O_WEAPONS_EXCHANGE, O_RAGNAROK_ORDER, O_JARL_DEAL, O_START_HAND, O_TWO_ANY, O_LOKI, O_KING = 0, 1, 2, 3, 4, 5, 6
N_OPTS = 8
BONUSES = {"glory": 0, "draw": 1}  #: Loki's Deception bonus opcodes (modules.toml tiers)
MAX_LOKI, LOKI_TIERS, KING_LEVELS = 16, 6, 8
LOKI_RANDOM = -1  #: loki_card: one card per game, drawn from the game's seed

VDTABLES_DTYPE = np.dtype([
    ("n_rows", np.int32), ("n_deck", np.int32), ("n_jarls", np.int32),
    ("kind", np.int8, (MAX_ROWS,)), ("clan", np.int8, (MAX_ROWS,)),
    ("need", np.int8, (MAX_ROWS, 5)), ("any_need", np.int8, (MAX_ROWS,)), ("symbols", np.int8, (MAX_ROWS,)),
    ("strength", np.int16, (MAX_ROWS,)), ("glory", np.int16, (MAX_ROWS,)),
    ("power", np.int8, (MAX_ROWS,)), ("pargs", np.int16, (MAX_ROWS, 3)),  # -1: none
    ("tactic", np.int8, (MAX_ROWS,)), ("targs", np.int16, (MAX_ROWS, 2)),
    ("p_armed", np.float64, (MAX_ROWS,)),  # P(armed) alone, 6 dice, every reroll (policy card value)
    ("deck", np.int16, (MAX_DECK,)),  # card row of each deck card (copies expanded)
    ("j_min_players", np.int8, (MAX_JARLS,)), ("j_recommended", np.int8, (MAX_JARLS,)),
    ("j_combine_both", np.int8, (MAX_JARLS,)),
    ("j_op", np.int8, (MAX_JARLS, 3)), ("j_args", np.int16, (MAX_JARLS, 3, 2)),  # primary, secondary, condition
    ("pre_discard", np.int16, (P6 + 1,)), ("hand_draw", np.int16), ("hand_discard", np.int16),
    ("reshuffle_at", np.int16), ("team_cap", np.int16), ("pair_cap", np.int16), ("draw", np.int16),
    ("keep", np.int16), ("dice_att", np.int16), ("dice_def", np.int16), ("grey", np.int16), ("shields", np.int16),
    ("jarl_deal", np.int16),
    ("per_shield", np.int16), ("own_score", np.int8, (P6 + 1,)),
    ("set_bonus", np.int16, (P6 + 1, 5 ** 5)),  # best set bonus by player count and won counts per opponent
    ("cum", np.float64, (3, 6)),  # cumulative face probabilities: red, black, grey
    ("opts", np.int8, (N_OPTS,)),
    # modules (modules.toml; 003 l.157-205): Loki's Deception cards as tiers (difference at least,
    # bonus opcode, its argument; n_tiers used) and pre-discard changes, the card in play
    # (LOKI_RANDOM: one per game); King of the Hill by player count: Kings, levels, Glory and
    # the attacker's bonus dice by level, and the King's Glory at the end
    ("loki_n", np.int8), ("loki_card", np.int8), ("loki_pre", np.int16, (MAX_LOKI,)),
    ("loki_n_tiers", np.int8, (MAX_LOKI,)), ("loki_tiers", np.int16, (MAX_LOKI, LOKI_TIERS, 3)),
    ("kings", np.int8, (P6 + 1,)), ("king_levels", np.int8, (P6 + 1,)), ("king_glory", np.int16, (P6 + 1, KING_LEVELS)),
    ("king_dice", np.int8, (P6 + 1, KING_LEVELS)), ("king_end", np.int16),
    # volva ablate (core.draft_rules): DRAFT_FORCED / DRAFT_BANNED marks on cards and Jarls, any set,
    # and 1 when they bind one seat per game (seed % P) instead of every seat
    ("draft", np.int8, (MAX_ROWS,)), ("j_draft", np.int8, (MAX_JARLS,)), ("draft_rules", np.int8),
    ("draft_one", np.int8),
])


def set_bonus_table(P: int, sets: list) -> np.ndarray:
    """int16[5**5]: for P players, the best total bonus from won shields, indexed by the counts won
    from each opponent (base 5, opponent j's count times 5**j), partitioned into sets of different
    opponents' shields, each shield in at most one set (DIGEST §5.11: the owner maximises)."""
    out = np.zeros(5 ** 5, np.int16)
    if not sets:
        return out
    opp = P - 1
    best = {}

    def solve(counts):
        key = tuple(sorted(counts, reverse=True))
        if key in best:
            return best[key]
        v = 0
        nz = [i for i, c in enumerate(counts) if c > 0]
        for size, pts in sets:
            if len(nz) >= size:
                # take one shield from the `size` opponents with the most left (optimal for equal sizes)
                from itertools import combinations
                for pick in combinations(nz, size):
                    c2 = list(counts)
                    for i in pick:
                        c2[i] -= 1
                    v = max(v, pts + solve(c2))
        best[key] = v
        return v

    for counts in product(range(5), repeat=opp):
        idx = sum(c * 5 ** j for j, c in enumerate(counts))
        out[idx] = solve(list(counts))
    return out


def build_tables(c: Content) -> np.ndarray:
    """The kernels' record as a 1-element VDTABLES_DTYPE array (kernels take element 0). Raises RulesError for content beyond the
    record's sizes or an opcode no kernel implements."""
    arr = np.rec.array(np.zeros(1, VDTABLES_DTYPE))
    t = arr[0]
    rows = list(c.cards)
    if len(rows) > MAX_ROWS or c.deck_size > MAX_DECK or len(c.jarls) > MAX_JARLS:
        raise RulesError(f"content too large: {len(rows)} card rows (max {MAX_ROWS}), {c.deck_size} cards "
                         f"(max {MAX_DECK}), {len(c.jarls)} Jarls (max {MAX_JARLS})")
    t["n_rows"], t["n_deck"], t["n_jarls"] = len(rows), c.deck_size, len(c.jarls)
    t["power"][:] = -1
    t["tactic"][:] = -1
    t["clan"][:] = -1
    deck = []
    p_armed: dict[str, float] = {}
    wild_pairs = c.rules["chosen"].get("two_any_reading") == "wild"
    for i, card in enumerate(rows):
        t["kind"][i] = KIND_WARRIOR if card.kind == "warrior" else KIND_TACTIC
        deck += [i] * card.copies
        if card.kind == "warrior":
            t["clan"][i] = CLANS.index(card.clan)
            t["need"][i] = card.need
            t["any_need"][i] = card.any_need
            t["symbols"][i] = card.symbols
            t["strength"][i], t["glory"][i] = card.strength, card.glory
            team = D.Team([(card.weapons, 1)])
            key = card.weapons
            if wild_pairs and card.any_need == 0 and sorted(card.need.tolist()) == [0, 0, 0, 1, 1]:
                # two_any_reading=wild (DIGEST §5.2): a two-different card takes any two different weapons
                t["need"][i] = 0
                t["any_need"][i] = team.any_need[0] = D.ANY_PAIR
                team.need[0] = 0
                key = "two different"
            if key not in p_armed:  # cards of one requirement share it (many do)
                p_armed[key] = D.solve(team, 6, objective="armed")
            t["p_armed"][i] = p_armed[key]
            if card.power:
                name, args = card.power[0]
                t["power"][i] = _code(POWERS, name, card.name)
                t["pargs"][i, :len(args)] = [_arg(a) for a in args]
        else:
            name, args = card.tactic[0]
            t["tactic"][i] = _code(TACTICS, name, card.name)
            t["targs"][i, :len(args)] = [_arg(a) for a in args]
    t["deck"][:len(deck)] = deck
    for j, jarl in enumerate(c.jarls):
        t["j_min_players"][j], t["j_recommended"][j] = jarl.min_players, jarl.recommended
        t["j_combine_both"][j] = jarl.combine == "both"
        for k, op in enumerate((jarl.primary, jarl.secondary, jarl.condition)):
            if op is None:
                t["j_op"][j, k] = -1
                continue
            name, args = op
            t["j_op"][j, k] = _code(CONDITIONS if k == 2 else ABILITIES, name, f"Jarl {jarl.name}")
            t["j_args"][j, k, :len(args)] = [_arg(a) for a in args]
    r = c.rules
    s, tu, di, sc = r["setup"], r["turn"], r["dice"], r["scoring"]
    t["pre_discard"][2:] = s["pre_discard"]
    t["hand_draw"], t["hand_discard"], t["reshuffle_at"] = s["hand_draw"], s["hand_discard"], s["reshuffle_hand_discards_at"]
    t["shields"], t["jarl_deal"] = s["shields"], s["jarl_deal"]
    t["team_cap"], t["pair_cap"], t["draw"], t["keep"] = tu["team_cap"], tu["pair_weapon_cap"], tu["draw"], tu["keep"]
    t["dice_att"], t["dice_def"], t["grey"] = di["attacker"], di["defender"], di["grey"]
    t["per_shield"] = sc["per_shield"]
    t["own_score"][2:] = sc["own_shields_score"]
    for P in range(2, P6 + 1):
        t["set_bonus"][P] = set_bonus_table(P, sc["set_bonus"][P - 2])
    for k, colour in enumerate(("red", "black", "grey")):
        cum = np.cumsum(c.dice[colour])
        cum[-1] = 1.0
        t["cum"][k] = cum
    ch = r["chosen"]
    for slot, name, codes in OPTION_CODES:
        v = ch.get(name, next(iter(codes)))
        if v not in codes:
            raise RulesError(f"rules.toml [options] {name}: {v!r} has no kernel yet; implemented: {', '.join(codes)}")
        if slot is not None:
            t["opts"][slot] = codes[v]
    if c.modules is not None:
        _module_tables(t, c.modules, ch.get("loki_card", "recommended"))
    return arr


def _module_tables(t, m, loki_card: str) -> None:
    """modules.toml into the record (rules.Modules; loki_card: recommended, random or a name)."""
    t["loki_n"] = len(m.loki)
    for i, card in enumerate(m.loki):
        t["loki_pre"][i] = card.pre_discard
        t["loki_n_tiers"][i] = len(card.tiers)
        for k, (lo, (name, args)) in enumerate(card.tiers):
            t["loki_tiers"][i, k] = (lo, _code(BONUSES, name, f"loki {card.name}"), args[0] if args else 0)
    names = [card.name for card in m.loki]
    t["loki_card"] = (LOKI_RANDOM if loki_card == "random" else
                      next(i for i, card in enumerate(m.loki) if card.recommended) if loki_card == "recommended"
                      else names.index(loki_card))
    k = m.king
    t["king_end"] = k["end_glory"]
    for P in range(2, P6 + 1):
        t["kings"][P] = k["kings"][P - 2]
        n = len(k["glory"][P - 2])
        t["king_levels"][P] = n
        t["king_glory"][P, :n] = k["glory"][P - 2]
        t["king_dice"][P, :n] = k["attack_dice"][P - 2]


#: rule options the kernels read: (opts slot, name, {value: code}); the first value is the default
OPTION_CODES = (
    (O_WEAPONS_EXCHANGE, "weapons_exchange", {"x_only": 0, "all_one": 1}),
    (O_RAGNAROK_ORDER, "ragnarok_order", {"continue": 0, "first_player": 1}),
    (O_JARL_DEAL, "jarl_deal", {"3": 3, "5": 5, "recommended": 1, "none": 0}),
    (O_START_HAND, "start_hand", {"7-2": 0, "5": 1, "draft": 2}),
    (O_TWO_ANY, "two_any_reading", {"printed": 0, "wild": 1}),
    (None, "clan_powers", {"digest": 0, "swap_wolf_deer": 1}),  # applied by the loader (rules.swap_clan_powers)
    (O_LOKI, "loki_deception", {"false": 0, "true": 1}),
    (O_KING, "king_of_the_hill", {"false": 0, "true": 1}),
)


def _code(table: dict, name: str, where: str) -> int:
    if name not in table:
        raise RulesError(f"{where}: opcode {name!r} has no kernel yet; implemented: {', '.join(table)}")
    return table[name]


def _arg(a) -> int:
    """An opcode argument as an integer: clans, weapons and 'when' by their index."""
    if isinstance(a, int):
        return a
    if a in CLANS:
        return CLANS.index(a)
    if a in WEAPONS:
        return WEAPONS.index(a)
    if a == "any":
        return ANY
    return WHEN.index(a)
