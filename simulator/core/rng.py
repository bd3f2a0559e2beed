"""Per-game random numbers: splitmix64 on a one-word state (uint64[1]).

Each game owns its generator, seeded from (master seed, game id), so a game's
draws never depend on other games, threads or batch boundaries.
"""
import numpy as np
from numba import njit

from .canon import canonical

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)


@njit(cache=True)
def next_u64_nb(rs):
    """Next uint64 of the stream; rs: uint64[1] state, advanced in place."""
    rs[0] += _GOLDEN
    z = rs[0]
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@canonical("n")
@njit(cache=True)
def rand_int_nb(rs, n):
    """Uniform int in 0..n-1 (n >= 1)."""
    return np.int64(next_u64_nb(rs) % np.uint64(n))


@njit(cache=True)
def rand_float_nb(rs):
    """Uniform float in [0, 1)."""
    return np.float64(next_u64_nb(rs) >> _S11) * (1.0 / 9007199254740992.0)


@canonical("n")
@njit(cache=True)
def shuffle_nb(rs, a, n):
    """Fisher–Yates shuffle of a[:n] in place."""
    for i in range(n - 1, 0, -1):
        j = rand_int_nb(rs, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t
