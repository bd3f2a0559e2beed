"""The per-batch reduction of a study alone (not a test): plays one batch of the default study
(the main job's lineup), then times ``runner.reduce_batch_outs`` (``batchsums.batch_stats``, no
row frames) on it, ``--repeat`` times, and prints the median and least milliseconds per batch.

    python bench/reduce.py [--games 10000] [--repeat 7] [--ruleset blood-rage] [--profile]

This is the main thread's share of a study's batch: with two engine threads it takes its CPU
from them (README, "Two threads against one"). To compare two commits, run it alternately in
each one's worktree (``bench/ab.py`` builds them), e.g.

    for i in 1 2 3 4 5; do (cd /tmp/volva-ab/OLD && .venv/bin/python /work/main/bench/reduce.py); \\
        .venv/bin/python bench/reduce.py; done

``--profile`` adds a cProfile listing of five more reductions, by own time.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

MAX_GAMES = 1_000_000  #: one batch is held in memory


def _refuse(msg: str) -> None:
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000, help="games in the batch (default: a study's batch)")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--ruleset", default=None, help="default: the study's own")
    ap.add_argument("--profile", action="store_true")
    a = ap.parse_args()
    if not 1 <= a.games <= MAX_GAMES:
        _refuse(f"--games {a.games}; allowed: 1..{MAX_GAMES:,}")
    if a.repeat < 1:
        _refuse(f"--repeat {a.repeat}; allowed: 1 or more")
    from volva.analysis import session
    from volva.analysis.runner import play_batch_outs, reduce_batch_outs
    from volva.analysis.suffstats import checkpoints
    over = {"ruleset": a.ruleset} if a.ruleset is not None else {}
    try:  # the study's experiment over 20 batches (its checkpoints), this batch its first
        exp = session.study_experiment(None, games=20 * a.games, **over)
        rs, names, pols, _ = session.setup_experiment(exp, None, {})
    except session.UsageError as exc:
        _refuse(str(exc))
    outs = play_batch_outs(rs, names, pols, exp.seed, 0, a.games, exp.rotate)
    points = checkpoints(20 * a.games)
    reduce_batch_outs(outs, rs, points, rows=False)  # compiles the analysis kernels if needed
    ms = []
    for _ in range(a.repeat):
        t = time.perf_counter()
        reduce_batch_outs(outs, rs, points, rows=False)
        ms.append(1e3 * (time.perf_counter() - t))
    print(f"{rs.name}, {', '.join(names)}: reduction of a {a.games:,}-game batch: "
          f"median {statistics.median(ms):.1f} ms, least {min(ms):.1f} ms ({a.repeat} run{'s' if a.repeat > 1 else ''})")
    if a.profile:
        import cProfile
        import pstats
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(5):
            reduce_batch_outs(outs, rs, points, rows=False)
        pr.disable()
        pstats.Stats(pr).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
