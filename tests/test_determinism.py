"""A game is a pure function of (rules, options, cards, lineup, seed) — issue 2 §5.

Same seed twice; 1 thread vs 2; one batch of 1,000 vs ten of 100; a single game vs
its row in a batch; and the kernels run uncompiled (NUMBA_DISABLE_JIT=1) give the
very same games as compiled.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np

from volva.simulator import engines
from volva.strategies.builtin import resolve

LINEUP = [resolve(n) for n in ("greedy", "random", "greedy", "random")]


def _same(a: engines.BatchOut, b: engines.BatchOut):
    for name, x, y in zip(a._fields, a, b):
        np.testing.assert_array_equal(x, y, err_msg=name)


def test_same_seed_twice(ruleset):
    seeds = engines.game_seeds(11, 0, 500)
    _same(engines.play_batch(ruleset, LINEUP, seeds), engines.play_batch(ruleset, LINEUP, seeds))


def test_different_seeds_differ(ruleset):
    a = engines.play_batch(ruleset, LINEUP, engines.game_seeds(11, 0, 200))
    b = engines.play_batch(ruleset, LINEUP, engines.game_seeds(12, 0, 200))
    assert not np.array_equal(a.glory, b.glory)


def test_one_thread_vs_two(ruleset):
    seeds = engines.game_seeds(3, 0, 1000)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = engines.play_batch(ruleset, LINEUP, seeds)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = engines.play_batch(ruleset, LINEUP, seeds)
    finally:
        numba.set_num_threads(before)
    _same(one, two)


def test_one_batch_vs_ten(ruleset):
    whole = engines.play_batch(ruleset, LINEUP, engines.game_seeds(5, 0, 1000))
    parts = [engines.play_batch(ruleset, LINEUP, engines.game_seeds(5, 100 * k, 100)) for k in range(10)]
    _same(whole, engines.BatchOut(*(None if x[0] is None else np.concatenate(x) for x in zip(*parts))))


def test_single_game_equals_batch_row(ruleset):
    seeds = engines.game_seeds(9, 0, 20)
    batch = engines.play_batch(ruleset, LINEUP, seeds)
    for g in (0, 7, 19):
        S = engines.play_game(ruleset, LINEUP, int(seeds[g]), log=True)
        np.testing.assert_array_equal(S.glory[:4], batch.glory[g])
        np.testing.assert_array_equal(S.rank[:4], batch.rank[g])


_SCRIPT = """
import json, numpy as np
from volva.simulator import engines
from volva.simulator.engines import load_ruleset
from volva.strategies.builtin import resolve
r = load_ruleset()
lineup = [resolve(n) for n in ("greedy", "random", "greedy", "random")]
out = []
for seed in engines.game_seeds(21, 0, 3):
    S = engines.play_game(r, lineup, int(seed), log=False, check=True)
    out.append([S.glory[:4].tolist(), S.rank[:4].tolist(), int(S.gs[11])])
print(json.dumps(out))
"""


def test_kernels_run_without_jit(ruleset):
    """NUMBA_DISABLE_JIT=1 runs the same kernels as plain Python (so a person can step through
    them) and plays exactly the games the compiled kernels play."""
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=str(root))
    res = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True,
                         timeout=600, cwd=root)
    assert res.returncode == 0, res.stderr[-2000:]
    plain = json.loads(res.stdout.strip().splitlines()[-1])
    for seed, (glory, rank, violation) in zip(engines.game_seeds(21, 0, 3), plain):
        S = engines.play_game(ruleset, LINEUP, int(seed), log=False, check=True)
        assert glory == S.glory[:4].tolist() and rank == S.rank[:4].tolist()
        assert violation == 0
