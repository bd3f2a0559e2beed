"""Sequential stopping (``--until-decided``): play batch after batch until a group-sequential test
on the paired outcomes decides, with intervals that stay valid although the data were looked at
after every batch.

Design. The looks are fixed in advance: after every ``look`` games up to the budget ``games``
(information fractions t_k = n_k / n_K). The boundary is the Wang–Tsiatis family
c_k = C · t_k^(Δ − 1/2) (Δ = 0: O'Brien–Fleming, 1/2: Pocock; default Δ = 1/4), with C set so
that a stream of mean 0 crosses it at some look with probability ``alpha`` (two-sided):
C is the (1 − alpha) quantile of max_k |Z_k| · t_k^(1/2 − Δ) over 200,000 simulated Brownian
paths at the looks (a fixed seed: the same design for the same looks, every run). With several
streams (the strategies of ``compare``, the pairs of a tournament) each gets alpha / m
(Bonferroni), so the statements hold jointly.

At look k a stream with paired mean m_k and standard error s_k has the **repeated confidence
interval** m_k ± c_k · s_k (Jennison & Turnbull): it covers the true mean at every look at once
with probability 1 − alpha, so it is valid at whatever look the run stops. A stream is decided:

- ``effect``: |m_k| / s_k ≥ c_k (the interval excludes 0; the sign is the verdict);
- ``no effect``: the interval lies inside ± ``min_effect`` (the smallest effect worth detecting);
- ``precise``: the half-width c_k · s_k is at most ``target_halfwidth``;
- ``fixed``: 0 in every game so far (a mirror lineup's strategy): not a quantity to test (a
  stream with no variation and a non-zero mean, e.g. one strategy above the other in every game,
  is decided ``effect`` by its sign); either only once its n alike outcomes would be significant
  by themselves, an exact sign test at the look's nominal level (:func:`alike_decides`);

and the run stops when every stream is decided (``tournament``: also as soon as the leader is
decided better than every other strategy) or the budget is spent (``undecided``). The stopping point is a
function of the games, so of the seed. No maintained library fitted: confseq needs a C++/Boost
build and has no release since 2023, the others pull in cvxpy or are young, so the design is
these few lines of numpy (checked against null and planted streams in tests/test_sequential.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

SHAPE = 0.25  #: Wang–Tsiatis Δ of the default boundary
PATHS = 200_000  #: simulated Brownian paths that set C
DESIGN_SEED = 20_261_201


@dataclass(frozen=True)
class Design:
    """A group-sequential boundary: ``looks`` (int64[K] cumulative games, increasing), ``crit``
    (float64[K] critical |z| per look), ``alpha`` per stream and the shape Δ."""
    looks: np.ndarray
    crit: np.ndarray
    alpha: float
    shape: float = SHAPE
    level: float = 0.95  #: joint coverage of the repeated intervals (1 - alpha over all streams)


def looks_for(games: int, look: int, multiple: int = 1) -> np.ndarray:
    """Cumulative games at each look: every ``look`` games (rounded up to ``multiple``) up to
    ``games``, the last look at ``games``. Raises ValueError for a look or budget below 1."""
    if games < 1 or look < 1:
        raise ValueError(f"sequential looks: games {games}, look {look}; allowed: 1 or more")
    step = -(-look // multiple) * multiple
    pts = list(range(step, games, step)) + [games]
    return np.asarray(pts, np.int64)


def design(looks: np.ndarray, alpha: float = 0.05, streams: int = 1, shape: float = SHAPE,
           paths: int = PATHS) -> Design:
    """The Wang–Tsiatis boundary at ``looks`` for ``streams`` streams at joint level ``alpha``
    (each stream alpha / streams). Raises ValueError for alpha outside (0, 1)."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha {alpha}; allowed: between 0 and 1")
    a = alpha / max(streams, 1)
    t = np.asarray(looks, float) / float(looks[-1])
    rng = np.random.default_rng(DESIGN_SEED)
    sd = np.sqrt(np.diff(np.concatenate([[0.0], t])))
    m = np.empty(paths)
    for i in range(0, paths, 20_000):  # in chunks: memory stays small for many looks
        n = min(20_000, paths - i)
        z = np.abs(np.cumsum(rng.standard_normal((n, len(t))) * sd, axis=1)) / np.sqrt(t)
        m[i:i + n] = (z * t ** (0.5 - shape)).max(axis=1)
    c = float(np.quantile(m, 1 - a))
    return Design(np.asarray(looks, np.int64), c * t ** (shape - 0.5), a, shape, 1 - alpha)


@dataclass
class Stream:
    """One paired quantity: its estimate, standard error and decision at the current look."""
    name: str
    mean: float = float("nan")
    se: float = float("nan")
    n: int = 0
    low: float = float("nan")  #: repeated confidence interval at the current look
    high: float = float("nan")
    decision: str = "undecided"  #: effect | no effect | precise | undecided | fixed

    def update(self, n: int, total: float, total2: float, crit: float, min_effect: float,
               target_halfwidth: float | None) -> None:
        """Sums over the paired outcomes so far (n, Σd, Σd²) -> estimate, interval and decision."""
        self.n = int(n)
        if n < 2:
            return
        m = total / n
        var = max(total2 / n - m * m, 0.0) * n / (n - 1)
        self.mean, self.se = m, math.sqrt(var / n)
        if self.se == 0:  # every outcome alike so far
            if not alike_decides(n, crit):  # e.g. one deal, each side seated once, won by the same side
                self.low = self.high = float("nan")
                self.decision = "undecided"
                return
            self.low = self.high = m
            # 0 every game: fixed by construction (a mirror lineup), nothing to test; otherwise one
            # side won every comparison: decided by its sign
            self.decision = "fixed" if m == 0 else "effect"
            return
        half = crit * self.se
        self.low, self.high = m - half, m + half
        if abs(m) / self.se >= crit:
            self.decision = "effect"
        elif min_effect > 0 and -min_effect < self.low and self.high < min_effect:
            self.decision = "no effect"
        elif target_halfwidth is not None and half <= target_halfwidth:
            self.decision = "precise"
        else:
            self.decision = "undecided"


def alike_decides(n: int, crit: float) -> bool:
    """True when n outcomes all alike are evidence at a look with boundary ``crit``: an exact sign
    test of n like signs (two-sided p = 2 * 2**-n) is below the look's nominal level 2(1 - Phi(crit)).
    Without it a stream with no variation yet (2 games, one strategy ahead in both) was decided
    by its sign however few its games (at the 0.05 level of one look, n >= 6)."""
    return 2.0 * 0.5 ** n <= math.erfc(crit / math.sqrt(2.0))


@dataclass
class Monitor:
    """Runs the design over the looks: call :meth:`look` with the streams' sums after each look;
    it says whether to stop. ``history`` keeps (games, name, mean, low, high, decision) rows."""
    design: Design
    min_effect: float = 0.0
    target_halfwidth: float | None = None
    streams: dict = field(default_factory=dict)
    history: list = field(default_factory=list)
    k: int = -1  #: index of the last look
    decided: bool = False  #: the stopping rule was met at the last look

    def look(self, games: int, sums: dict[str, tuple[int, float, float]], stop_when=None) -> bool:
        """``sums``: stream name -> (n, Σd, Σd²) so far, after ``games`` games (a look of the
        design). ``stop_when(streams)`` overrides "every stream decided". Returns True to stop
        (also at the last look). Raises ValueError when ``games`` is not the design's next look."""
        self.k += 1
        if self.k >= len(self.design.looks) or games != self.design.looks[self.k]:
            raise ValueError(f"sequential look at {games} games; the design's next look is "
                             f"{self.design.looks[min(self.k, len(self.design.looks) - 1)]}")
        crit = float(self.design.crit[self.k])
        for name, (n, s, s2) in sums.items():
            st = self.streams.setdefault(name, Stream(name))
            st.update(n, s, s2, crit, self.min_effect, self.target_halfwidth)
            self.history.append((games, name, st.mean, st.low, st.high, st.decision))
        live = [s for s in self.streams.values() if s.decision != "fixed"]
        done = stop_when(self.streams) if stop_when is not None else \
            bool(live) and all(s.decision != "undecided" for s in live)
        self.decided = bool(done)
        return done or self.k == len(self.design.looks) - 1

    @property
    def games(self) -> int:
        return int(self.design.looks[self.k]) if self.k >= 0 else 0

    @property
    def status(self) -> str:
        """'decided' (the stopping rule was met), else 'budget spent' or 'stopped' (interrupted)."""
        if self.decided:
            return "decided"
        return "budget spent" if self.k == len(self.design.looks) - 1 else "stopped"

    def table(self):
        """pandas DataFrame: one row per stream at the stop (name, n, mean, se, low, high, decision)."""
        import pandas as pd
        return pd.DataFrame([{"stream": s.name, "n": s.n, "mean": s.mean, "se": s.se, "rci_low": s.low,
                              "rci_high": s.high, "decision": s.decision} for s in self.streams.values()])

    def history_frame(self):
        import pandas as pd
        return pd.DataFrame(self.history, columns=["games", "stream", "mean", "rci_low", "rci_high", "decision"])

    def summary(self) -> str:
        return (f"sequential test ({self.status} after {self.games:,} of {int(self.design.looks[-1]):,} games, "
                f"look {self.k + 1} of {len(self.design.looks)}; Wang–Tsiatis Δ = {self.design.shape}, "
                f"alpha {self.design.alpha:.3g} per stream; intervals are repeated confidence intervals, "
                "valid at any look)")
