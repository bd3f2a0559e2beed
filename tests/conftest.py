"""Shared fixtures: synthetic BatchOut arrays of the documented shapes and dtypes."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from volva.simulator.core import enums as E
from volva.simulator.core.batch import BatchOut

# Hypothesis profiles: bounded examples in the suite ("volva-ci", the default here), and a long run
# of the input fuzzing: pytest tests/test_fuzz_inputs.py --hypothesis-profile=long --hypothesis-show-statistics
_FUZZ = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
settings.register_profile("volva-ci", max_examples=12, **_FUZZ)
settings.register_profile("long", max_examples=600, **_FUZZ)


def pytest_configure(config):
    if not config.getoption("hypothesis_profile", None):
        settings.load_profile("volva-ci")


def make_batch(G: int, P: int, seed: int = 0) -> BatchOut:
    """A random but well-formed BatchOut (G games x P seats), one winner per game."""
    rng = np.random.default_rng(seed)
    path = np.full((G, P, E.MAX_PATH), -1, np.int8)
    L = rng.integers(0, 6, (G, P))
    vals = rng.integers(0, E.N_STATS, (G, P, E.MAX_PATH)).astype(np.int8)
    mask = np.arange(E.MAX_PATH)[None, None, :] < L[..., None]
    path[mask] = vals[mask]
    picks = np.full((G, P, 3, E.MAX_PICKS), -1, np.int16)
    picks[:, :, :, :4] = rng.integers(0, 40, (G, P, 3, 4))
    rank = np.tile(np.arange(1, P + 1, dtype=np.int8), (G, 1))
    rank = np.take_along_axis(rank, rng.permuted(np.tile(np.arange(P), (G, 1)), axis=1), axis=1)
    # each clan uses the first two cards it drafted in each age: one in battle, one as an upgrade
    uses = np.full((G, P, E.MAX_USES), -1, np.int16)
    for a in range(3):
        for k, how in ((0, E.USE_BATTLE), (1, E.USE_UPGRADE)):
            uses[:, :, 2 * a + k] = picks[:, :, a, k] * 16 + (a + 1) * 4 + how
    return BatchOut(
        glory=rng.integers(0, 30, (G, P, E.N_GLORY_SRC)).astype(np.int32),
        stats=rng.integers(0, E.N_STEPS, (G, P, 3)).astype(np.int8),
        path=path, rage_end=np.zeros((G, P), np.int16), picks=picks, rank=rank.astype(np.int8),
        n_turns=np.full(G, 50, np.int32), violation=np.zeros(G, np.int8),
        fired=np.zeros((G, E.MAX_CARDS), np.int16), gods=np.full((G, 2), -1, np.int8),
        god_fired=np.zeros((G, E.N_GODS_MAX), np.int16), board_rag=rng.integers(0, 20, (G, P)).astype(np.int16),
        uses=uses, missions=np.zeros((G, P, E.MAX_MISSIONS), np.int8),
    )


@pytest.fixture
def fake_play_batch(monkeypatch):
    """Replace simulator.engines.play_batch with a synthetic one (for CLI plumbing tests)."""
    import volva.simulator.engines as engines
    calls = []

    def fake(ruleset, lineup, seeds, check=False):
        calls.append(len(seeds))
        return make_batch(len(seeds), len(lineup), seed=int(seeds[0] % 1000))

    monkeypatch.setattr(engines, "play_batch", fake)
    return calls


@pytest.fixture(scope="session")
def ruleset():
    """The Blood Rage rule set with default options (loaded once)."""
    from volva.simulator.engines import load_ruleset
    return load_ruleset()
