"""Exact arming analysis for Valhalla's weapon dice (003 l.94–113; DIGEST §5.2, §5.3, §5.6, §5.7).

A battle phase is a one-player stochastic game over the **multiset** of unplaced dice, solved
by backward induction with keeper nodes shared between pools (the Yahtzee-solver method:
Verhoeff 1999, Glenn 2006; `../shared/design/valhalla-dice.md` §3.3). Our recurrence differs
from Yahtzee's: a reroll costs a die (DIGEST §5.6: discard one unplaced die, then reroll any
non-empty subset of the others, while ≥ 2 unplaced dice remain), so the pool bounds the rerolls.

    V(c) = max( U(c),                                             stop and arm
                max_{K ⊆ c, |K| ≤ |c|−2} E_o V(K + o), |o| = |c|−1−|K|   paid reroll
                max_{K ⊆ c, |K| ≤ |c|−1} E_o V(K + o), |o| = |c|−|K|     Push back (free)
                E_{a,b} max(V(c + a), V(c + b)) )                        New weapons

U(c) = obj[best total strength of the team's Warriors that c arms disjointly] (specific weapons
first, Ice Giants' ``any`` symbols from spare non-X dice, X dice wild under Weapons exchange).
``obj`` maps a strength to the player's goal: the strength itself (E[strength]), an indicator
``strength ≥ t`` (P(armed), P(≥ 1 armed), a defender's P(win)), or a P(win) table. Arming at the
end of the phase is the engine's ruling (DIGEST §5.6 item 8), so the state is the pool alone.

Every die of one solve has the same faces (DIGEST §5.3: the default die is the same for red,
black and grey; a layout whose grey die differs is solved with the side's colour).
"""
from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement
from math import factorial

import numba
import numpy as np

from ..core.canon import canonical

FACES = ("spear", "sword", "axe", "bow", "shield", "x")
WEAPONS = FACES[:5]
NF = 6  #: die faces: five weapons and the X (the additional-die symbol, arms nobody; 003 l.103)
FACE_X = 5
MAX_TEAM = 8  #: Warriors per solve (a team holds 4, DIGEST §5.5; more for whole-card studies)
MAX_STRENGTH = 50  #: a Warrior's strength (as cards.csv allows)
XW_ALL_ONE = 64  #: an x_wild this large means Weapons exchange all_one (armable_nb)
#: any_need of a Warrior needing any two different weapons (two_any_reading=wild, DIGEST §5.2);
#: sums of any_need over a set of Warriors stay decodable: pairs = s // ANY_PAIR, symbols = s % ANY_PAIR
ANY_PAIR = 100


class DiceTables:
    """The multiset tables of one die and pool bound, built once (lru_cache by :func:`tables`).

    ``faces``: the columns a pool may use (default all six); the others stay 0 in every pool, so a
    lumped die (:func:`arming_bank`) shares the kernels of the full one.

    Attributes (NS pools of 0..nmax dice, ordered by size):
      cnt      int8[NS, 6]    dice per face of each pool
      size     int8[NS]       dice in each pool
      add1     int32[NS, 6]   pool + one die of the face (-1 past nmax or for a column not in faces)
      sub_ptr, sub_idx        CSR: the sub-multisets (keepers) of each pool
      roll_ptr int64[NS*(nmax+1)+1], roll_dst int32[...], roll_p float64[...]
                              CSR by (keeper K, m fresh dice): pools K + o and P(o), o of size m
      pair_a, pair_b int8[≤21], pair_p float64[≤21]   the two-die rolls of New weapons
    """

    def __init__(self, nmax: int, p: tuple[float, ...], faces: tuple[int, ...] = tuple(range(NF))):
        self.nmax, self.p, self.faces = nmax, np.asarray(p, np.float64), tuple(faces)
        pools = [c for n in range(nmax + 1) for c in _multisets(n, self.faces)]
        index = {c: i for i, c in enumerate(pools)}
        self.index = index
        self.cnt = np.array(pools, np.int8).reshape(-1, NF)
        self.size = self.cnt.sum(1).astype(np.int8)
        NS = len(pools)
        self.add1 = np.full((NS, NF), -1, np.int32)
        for i, c in enumerate(pools):
            if sum(c) < nmax:
                for f in self.faces:
                    self.add1[i, f] = index[c[:f] + (c[f] + 1,) + c[f + 1:]]
        subs, ptr = [], [0]
        for c in pools:
            subs += [index[k] for k in _submultisets(c)]
            ptr.append(len(subs))
        self.sub_ptr, self.sub_idx = np.array(ptr, np.int64), np.array(subs, np.int32)
        dst, prob, rptr = [], [], [0]
        rolls = {m: [(o, _multinomial(o, self.p)) for o in _multisets(m, self.faces)] for m in range(nmax + 1)}
        for c in pools:
            for m in range(nmax + 1):
                if m >= 1 and sum(c) + m <= nmax:
                    for o, q in rolls[m]:
                        dst.append(index[tuple(a + b for a, b in zip(c, o))])
                        prob.append(q)
                rptr.append(len(dst))
        self.roll_ptr = np.array(rptr, np.int64)
        self.roll_dst, self.roll_p = np.array(dst, np.int32), np.array(prob, np.float64)
        two = list(combinations_with_replacement(self.faces, 2))
        self.pair_a = np.array([a for a, _ in two], np.int8)
        self.pair_b = np.array([b for _, b in two], np.int8)
        self.pair_p = np.array([self.p[a] * self.p[b] * (1 if a == b else 2) for a, b in two])

    @property
    def arrays(self) -> tuple:
        """The tables as one tuple for the kernels (solve_nb)."""
        return (self.size, self.add1, self.sub_ptr, self.sub_idx, self.roll_ptr, self.roll_dst, self.roll_p,
                self.pair_a, self.pair_b, self.pair_p, self.cnt)

    def pool(self, counts) -> int:
        """The state index of a pool given as 6 face counts (spear, sword, axe, bow, shield, X)."""
        return self.index[tuple(int(x) for x in counts)]


def _multisets(n: int, faces: tuple[int, ...] = tuple(range(NF))):
    """All 6-face count vectors with n dice on the given columns, 0 elsewhere (lexicographic)."""
    out = []

    def rec(prefix, left, k):
        if k == len(faces) - 1:
            out.append(tuple(prefix) + (left,))
            return
        for a in range(left, -1, -1):
            rec(prefix + [a], left - a, k + 1)
    rec([], n, 0)
    full = []
    for c in out:
        v = [0] * NF
        for f, a in zip(faces, c):
            v[f] = a
        full.append(tuple(v))
    return full


def _submultisets(c):
    out = [()]
    for x in c:
        out = [s + (a,) for s in out for a in range(x + 1)]
    return out


def _multinomial(o, p) -> float:
    n = sum(o)
    q = float(factorial(n))
    for k, pk in zip(o, p):
        q *= pk ** k / factorial(k)
    return q


@lru_cache(maxsize=64)
def tables(nmax: int, p: tuple[float, ...] = (1 / 6,) * NF, faces: tuple[int, ...] = tuple(range(NF))) -> DiceTables:
    """The tables for pools of ≤ nmax dice with face probabilities p (spear..shield, X) on the
    columns ``faces``. Raises ValueError unless 1 ≤ nmax ≤ 10 and p is 6 non-negative numbers
    summing to 1."""
    if not 1 <= nmax <= 10:
        raise ValueError(f"nmax {nmax}; allowed: 1..10 dice")
    if len(p) != NF or min(p) < 0 or abs(sum(p) - 1) > 1e-9:
        raise ValueError(f"face probabilities {p}; allowed: 6 non-negative numbers summing to 1")
    return DiceTables(nmax, tuple(float(x) for x in p), tuple(faces))


# --- lumped dice for the engine's DP policy -----------------------------------------------------
# A team uses k of the five weapons. The weapons it does not use are interchangeable, so the solve
# runs on a die whose faces are the k used weapons (columns 0..k-1), one "other weapon" face
# (column k: Ice Giants' any-symbols take it) and the X (column 5). With no Ice Giant and no wild
# X, the other weapons and the X arm nobody alike and merge into column 5 ("merged" layouts). The
# values are those of the full die (the pool's lumped counts are a sufficient statistic), on
# 28..924 pools of 6 dice instead of 924. Layout index: (nmax - 6) * 12 + k * 2 + separate.
BANK_NMAX = (6, 7, 8, 9)  #: 6 dice + up to 3 grey (New weapons, extra dice; fight.py caps at 9)
N_LAYOUTS = len(BANK_NMAX) * 12
BANK_IDENT = 22  #: off[li, BANK_IDENT] = 1: the layout is the full die (no lumping; columns as rolled)


def layout_faces(k: int, separate: bool, p) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """(columns, probabilities) of the lumped die for k used weapons (see above)."""
    q, px = float(p[0]), float(p[FACE_X])
    pc = [0.0] * NF
    for i in range(k):
        pc[i] = q
    if separate:
        faces = tuple(range(k + (k < 5))) + (FACE_X,)
        if k < 5:
            pc[k] = (5 - k) * q
        pc[FACE_X] = px
    else:
        faces = tuple(range(k)) + (FACE_X,)
        pc[FACE_X] = (5 - k) * q + px
    return faces, tuple(pc)


@lru_cache(maxsize=4)
def arming_bank(p: tuple[float, ...] = (1 / 6,) * NF) -> tuple:
    """The engine's DP tables: every layout's :attr:`DiceTables.arrays` concatenated (11 arrays,
    indices kept local to the layout) plus ``off`` int64[N_LAYOUTS, 23]: each array's start
    (0..10) and end (11..21) and BANK_IDENT. A die whose five weapons are not equally likely is
    not lumped: every layout of an nmax is then the full table (BANK_IDENT = 1). Built in ~1-2 s."""
    p = tuple(float(x) for x in p)
    lump = max(p[:5]) - min(p[:5]) < 1e-12
    parts, off = [], np.zeros((N_LAYOUTS, 2 * 11 + 1), np.int64)
    seen: dict = {}
    lens = [0] * 11
    for i, nmax in enumerate(BANK_NMAX):
        for k in range(6):
            for sep in (0, 1):
                faces, pc = layout_faces(k, bool(sep), p) if lump else (tuple(range(NF)), p)
                key = (nmax, faces, pc)
                if key not in seen:
                    arrs = tables(nmax, pc, faces).arrays
                    seen[key] = [(lens[j], lens[j] + len(a)) for j, a in enumerate(arrs)]
                    for j, a in enumerate(arrs):
                        lens[j] += len(a)
                    parts.append(arrs)
                li = i * 12 + k * 2 + sep
                for j, (a, b) in enumerate(seen[key]):
                    off[li, j], off[li, 11 + j] = a, b
                off[li, BANK_IDENT] = 0 if lump else 1
    arrays = tuple(np.concatenate([arrs[j] for arrs in parts]) for j in range(11))
    return arrays + (off,)


def stand_in_bank() -> tuple:
    """A bank of the arming_bank's types that the kernels never read (no seat arms by the DP)."""
    return tables(1).arrays + (np.zeros((N_LAYOUTS, 2 * 11 + 1), np.int64),)


# --- kernels ----------------------------------------------------------------------------------
@canonical("any_need", "x_wild")  # int32 counts and literal 0s: one body, not five
@numba.njit(cache=True)
def armable_nb(c, need, any_need, x_wild):
    """Whether pool c (int8[6]) arms Warriors needing ``need`` (int[5], specific symbols) plus
    ``any_need`` any-weapon symbols (Ice Giants, DIGEST §5.2), dice used once each, with
    ``x_wild`` X dice allowed to count as any weapon (Weapons exchange x_only, DIGEST §5.7);
    x_wild ≥ XW_ALL_ONE: Weapons exchange all_one (every X any weapon, and every die not placed
    turned to one chosen weapon)."""
    if x_wild >= XW_ALL_ONE:  # the loader refuses all_one with two_any_reading=wild: no pairs here
        return armable_all_one_nb(c, need, any_need)
    pairs = any_need // ANY_PAIR
    a = any_need - pairs * ANY_PAIR
    deficit = 0
    spare = 0
    distinct = 0  # dice a pair may use: at most one per pair of each weapon
    for w in range(5):
        d = need[w] - c[w]
        if d > 0:
            deficit += d
        else:
            spare -= d
            distinct += min(-d, pairs)
    wild = min(x_wild, c[FACE_X])
    if deficit > wild:
        return False
    jokers = wild - deficit  # wild X dice left: any weapon, so any pair's second (or both) die
    return distinct + jokers >= 2 * pairs and a + 2 * pairs <= spare + jokers


@numba.njit(cache=True)
def armable_all_one_nb(c, need, any_need):
    """armable_nb under Weapons exchange all_one (DIGEST §5.7 alternative, the literal 003 l.389):
    the player places the dice showing what its Warriors need, then turns every other die to one
    weapon w and each X to any weapon. Arms iff for some w the X dice cover every shortfall of the
    other weapons and there are as many dice as symbols."""
    n = 0
    total = any_need
    for x in range(NF):
        n += c[x]
    for w in range(5):
        total += need[w]
    if total > n:
        return False
    for w in range(5):
        short = 0
        for v in range(5):
            if v != w and need[v] > c[v]:
                short += need[v] - c[v]
        if short <= c[FACE_X]:
            return True
    return False


@numba.njit(cache=True)
def best_strength_nb(cnt, add1, need, any_need, strength, x_wild):
    """int32[NS]: for each pool, the highest total strength of a set of the team's Warriors it
    arms disjointly. cnt int8[NS, 6] and add1 int32[NS, 6] of DiceTables (pools ordered by size);
    need int8[T, 5], any_need int8[T], strength int32[T] (T ≤ MAX_TEAM).

    A set armed by a pool uses exactly its symbols' count of dice, so a pool's best is the best of
    its pools one die smaller (pushed up the add1 links) or a set needing exactly its size that it
    arms: each pool checks only the sets of its own size."""
    NS, T = cnt.shape[0], need.shape[0]
    M = (1 << T) - 1
    tot = np.zeros((M, 5), np.int32)
    anyt = np.zeros(M, np.int32)
    st = np.zeros(M, np.int32)
    req = np.zeros(M, np.int64)
    for mask in range(1, M + 1):
        for t in range(T):
            if mask >> t & 1:
                for w in range(5):
                    tot[mask - 1, w] += need[t, w]
                anyt[mask - 1] += any_need[t]
                st[mask - 1] += strength[t]
        req[mask - 1] = tot[mask - 1].sum() + anyt[mask - 1] % ANY_PAIR + 2 * (anyt[mask - 1] // ANY_PAIR)
    by = np.argsort(req, kind="mergesort")  # the sets by the dice they use
    nmax = 0
    for s in range(NS):
        nmax = max(nmax, int(cnt[s].sum()))
    lo = np.searchsorted(req[by], np.arange(nmax + 2))  # sets using n dice: by[lo[n]:lo[n + 1]]
    out = np.zeros(NS, np.int32)
    for s in range(NS):
        n = 0
        for x in range(NF):
            n += cnt[s, x]
        for j in range(lo[n], lo[n + 1]):
            m = by[j]
            if st[m] > out[s] and armable_nb(cnt[s], tot[m], anyt[m], x_wild):
                out[s] = st[m]
        for x in range(NF):
            c = add1[s, x]
            if c >= 0 and out[s] > out[c]:
                out[c] = out[s]
    return out


@numba.njit(cache=True)
def keeper_values_nb(size, roll_ptr, roll_dst, roll_p, V, nmax, top):
    """float64[NS, nmax+1]: W[K, m] = E V(K + o) over m fresh dice o (m ≥ 1, |K| + m ≤ top ≤ nmax;
    0 elsewhere)."""
    NS = size.shape[0]
    W = np.zeros((NS, nmax + 1))
    for k in range(NS):
        if size[k] >= top:
            break  # pools are ordered by size
        for m in range(1, top + 1 - size[k]):
            j = k * (nmax + 1) + m
            acc = 0.0
            for e in range(roll_ptr[j], roll_ptr[j + 1]):
                acc += roll_p[e] * V[roll_dst[e]]
            W[k, m] = acc
    return W


@numba.njit(cache=True)
def keeper_value_nb(roll_ptr, roll_dst, roll_p, V, K, m, nmax):
    """E V(K + o) over m fresh dice o (one keeper node of keeper_values_nb)."""
    j = K * (nmax + 1) + m
    acc = 0.0
    for e in range(roll_ptr[j], roll_ptr[j + 1]):
        acc += roll_p[e] * V[roll_dst[e]]
    return acc


@numba.njit(cache=True)
def _fill_keepers_nb(roll_ptr, roll_dst, roll_p, size, V, W, s, nmax):
    """W[K, s - |K|] = E V(K + o) for every keeper K smaller than s (pools of size s are final)."""
    for K in range(size.shape[0]):
        if size[K] >= s:
            break  # pools are ordered by size
        W[K, s - size[K]] = keeper_value_nb(roll_ptr, roll_dst, roll_p, V, K, s - size[K], nmax)


@numba.njit(cache=True)
def solve_nb(tabs, stop, rerolls, free_rerolls, new_weapons):
    """Optimal values V[k, f, g, pool] (float64[K, free_rerolls+1, new_weapons+1, NS]) with k paid
    rerolls, f free rerolls and g New weapons left (pools of more than nmax - g dice: 0, never
    reached). ``tabs`` is :attr:`DiceTables.arrays`; ``stop`` float64[NS] is the value of arming
    now. rerolls < 0: as many as the pool allows, one layer (K = 1) solved by pool size, smallest
    first, since a paid reroll leaves one die fewer; else K = rerolls + 1 layers."""
    size, add1, sub_ptr, sub_idx, roll_ptr, roll_dst, roll_p, pair_a, pair_b, pair_p, _ = tabs
    NS = size.shape[0]
    nmax = roll_ptr.shape[0] // NS - 1
    unlimited = rerolls < 0
    KL = 1 if unlimited else rerolls + 1
    V = np.zeros((KL, free_rerolls + 1, new_weapons + 1, NS))
    Wp = np.zeros((NS, nmax + 1))
    for k in range(KL):
        for f in range(free_rerolls + 1):
            for g in range(new_weapons + 1):
                # with g New weapons left, at most new_weapons - g were added: pools of ≤ nmax - g
                # dice are reached (the phase starts with ≤ nmax - new_weapons), the rest stay 0
                top = nmax - g
                if k > 0:
                    Wp = keeper_values_nb(size, roll_ptr, roll_dst, roll_p, V[k - 1, f, g], nmax, top)
                if f > 0:
                    Wf = keeper_values_nb(size, roll_ptr, roll_dst, roll_p, V[k, f - 1, g], nmax, top)
                done = 0  # unlimited: keepers filled for pools of sizes < done
                for c in range(NS):
                    if size[c] > top:
                        break  # pools are ordered by size
                    n = size[c]
                    if unlimited and n >= 2 and done < n - 1:
                        _fill_keepers_nb(roll_ptr, roll_dst, roll_p, size, V[0, f, g], Wp, n - 1, nmax)
                        done = n - 1
                    best = stop[c]
                    if (unlimited or k > 0) and n >= 2:  # discard one, reroll the rest but K (DIGEST §5.6)
                        for e in range(sub_ptr[c], sub_ptr[c + 1]):
                            K = sub_idx[e]
                            if size[K] <= n - 2 and Wp[K, n - 1 - size[K]] > best:
                                best = Wp[K, n - 1 - size[K]]
                    if f > 0 and n >= 1:  # Push back: reroll any subset, no discard (§5.7)
                        for e in range(sub_ptr[c], sub_ptr[c + 1]):
                            K = sub_idx[e]
                            if size[K] <= n - 1 and Wf[K, n - size[K]] > best:
                                best = Wf[K, n - size[K]]
                    if g > 0 and n < nmax:  # New weapons: roll 2 grey dice, keep 1 (§5.7)
                        acc = 0.0
                        for e in range(pair_a.shape[0]):
                            va = V[k, f, g - 1, add1[c, pair_a[e]]]
                            vb = V[k, f, g - 1, add1[c, pair_b[e]]]
                            acc += pair_p[e] * max(va, vb)
                        if acc > best:
                            best = acc
                    V[k, f, g, c] = best
    return V


# --- the Python face ---------------------------------------------------------------------------
def parse_weapons(text: str) -> tuple[np.ndarray, int]:
    """A card's ``weapons`` (cards.csv grammar: ``axe``, ``spear+sword``, ``axe*2+bow*2``,
    ``any*3``) -> (int8[5] specific symbols in FACES order, number of ``any`` symbols).
    Raises ValueError naming the allowed weapons."""
    need = np.zeros(5, np.int8)
    anyn = 0
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{text!r}; expected weapons like axe, spear+sword, axe*2+bow*2 or any*3")
    for part in text.strip().lower().split("+"):
        name, _, k = part.strip().partition("*")
        name = name.strip()
        try:
            k = int(k) if k.strip() else 1
        except ValueError:
            raise ValueError(f"{part!r}: count {k!r} is not a whole number") from None
        if not 1 <= k <= 9:  # a Warrior's total is checked by its user (a card: 6, a team: 9)
            raise ValueError(f"{part!r}: count {k}; allowed: 1..9")
        if name == "any":
            anyn += k
        elif name in WEAPONS:
            need[WEAPONS.index(name)] += k
        else:
            raise ValueError(f"{name!r}; allowed weapons: {', '.join(WEAPONS)}, any")
    return need, anyn


class Team:
    """Warriors as the solver sees them: need int8[T, 5], any_need int8[T], strength int32[T]."""

    def __init__(self, warriors: list[tuple[str, int]], labels: list[str] | None = None):
        if not 1 <= len(warriors) <= MAX_TEAM:
            raise ValueError(f"{len(warriors)} Warriors; allowed: 1..{MAX_TEAM}")
        parsed = [parse_weapons(w) for w, _ in warriors]
        self.need = np.array([n for n, _ in parsed], np.int8).reshape(-1, 5)
        self.any_need = np.array([a for _, a in parsed], np.int8)
        strengths = [int(s) for _, s in warriors]
        if any(not 1 <= s <= MAX_STRENGTH for s in strengths):
            raise ValueError(f"strength {max(strengths, key=lambda s: abs(s))}; allowed: 1..{MAX_STRENGTH} for every Warrior")
        self.strength = np.array(strengths, np.int32)
        symbols = self.need.sum(1) + self.any_need
        if (symbols > 9).any():
            raise ValueError(f"a Warrior with {int(symbols.max())} weapon symbols; allowed: at most 9 (the most dice rolled)")
        self.labels = labels or [f"{w} {s}" for w, s in warriors]

    @property
    def symbols(self) -> int:
        return int(self.need.sum() + self.any_need.sum())


def best_strength(team: Team, tb: DiceTables, x_wild: int = 0) -> np.ndarray:
    """int32[NS]: the team's best armed strength in each pool of ``tb``."""
    return best_strength_nb(tb.cnt, tb.add1, team.need, team.any_need, team.strength, x_wild)


def solve(team: Team, dice: int = 6, rerolls: int | None = None, *, objective: str | int | np.ndarray = "strength",
          free_rerolls: int = 0, new_weapons: int = 0, x_wild: int = 0,
          p: tuple[float, ...] = (1 / 6,) * NF) -> float:
    """The optimal value of one battle phase from the first roll of ``dice`` dice.

    rerolls: most paid rerolls (None: as many as the pool allows, DIGEST §5.6);
    objective: "strength" (E[strength]), "armed" (P(≥ 1 Warrior armed)), an int t (P(strength ≥ t))
      or float64[max strength + 1], the value of each armed strength;
    free_rerolls: rerolls that discard no die (Push back gives 2, DIGEST §5.7; a Jarl's free_reroll);
    new_weapons: New weapons cards in hand (each: roll 2 grey dice, keep 1; DIGEST §5.7);
    x_wild: how many X dice may count as any weapon at the end (Weapons exchange, x_only reading:
      all of them, 6; a Jarl's x_wild(n): n).
    Returns a float (an expectation or a probability). Raises ValueError on a bad argument."""
    if not 1 <= dice <= 9:
        raise ValueError(f"dice {dice}; allowed: 1..9")
    nmax = dice + new_weapons
    tb = tables(nmax, tuple(p))
    k = -1 if rerolls is None else min(int(rerolls), nmax)
    for name, v, hi in (("rerolls", 0 if rerolls is None else rerolls, 10), ("free_rerolls", free_rerolls, 10),
                        ("new_weapons", new_weapons, 3),
                        ("x_wild", x_wild, 10)):
        if not 0 <= v <= hi:
            raise ValueError(f"{name} {v}; allowed: 0..{hi}")
    best = best_strength(team, tb, x_wild)
    obj = objective_values(team, objective)
    stop = obj[best]
    V = solve_nb(tb.arrays, stop, k, free_rerolls, new_weapons)
    j = 0 * (nmax + 1) + dice  # the empty keeper, `dice` fresh dice: the first roll
    e = slice(tb.roll_ptr[j], tb.roll_ptr[j + 1])
    return float(tb.roll_p[e] @ V[-1, free_rerolls, new_weapons][tb.roll_dst[e]])


def objective_values(team: Team, objective) -> np.ndarray:
    """float64[max strength + 1]: the value of finishing the phase with each armed strength."""
    top = int(team.strength.sum())
    s = np.arange(top + 1)
    if isinstance(objective, np.ndarray):
        if objective.shape != (top + 1,):
            raise ValueError(f"objective table of shape {objective.shape}; expected ({top + 1},)")
        return objective.astype(np.float64)
    if objective == "strength":
        return s.astype(np.float64)
    if objective == "armed":
        return (s >= 1).astype(np.float64)
    if isinstance(objective, (int, np.integer)) and not isinstance(objective, bool):
        return (s >= int(objective)).astype(np.float64)
    raise ValueError(f"objective {objective!r}; allowed: strength, armed, an integer threshold, a table")


def p_attacker_wins(attacker: Team, defender: Team, dice: int = 6, defender_dice: int = 6,
                    p: tuple[float, ...] = (1 / 6,) * NF, defender_p: tuple[float, ...] | None = None) -> float:
    """P(the attacker wins one battle), both sides playing optimally, no Tactics or Jarls.

    The defender knows the attacker's strength S and maximises P(S_def > S); the attacker maximises
    P(win) (003 l.105: an attacker arming nobody wins nothing; l.116: a defender arming nobody
    loses; l.119: a tie goes to the attacker). An attacking Ice Giant's die is not modelled here:
    pass ``defender_dice=5`` for it. Returns a probability."""
    top = int(attacker.strength.sum())
    dtop = int(defender.strength.sum())
    reach = [solve(defender, defender_dice, objective=t, p=defender_p or p) if t <= dtop else 0.0
             for t in range(top + 2)]
    obj = np.array([0.0] + [1.0 - reach[s + 1] for s in range(1, top + 1)])
    return solve(attacker, dice, objective=obj, p=p)
