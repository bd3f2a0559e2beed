"""The two-process cold compile (simulator.core.coldstart, simulator/bloodrage/compile_plan.py):
the same games as a compile in one process, each planned kernel compiled once, no helper when
the cache is warm or when turned off."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from volva.simulator import engines
from volva.simulator.bloodrage import compile_plan
from volva.simulator.core import coldstart
from volva.simulator.valhalla import compile_plan as valhalla_plan
from volva.simulator.valhalla_dice import compile_plan as dice_plan
from volva.strategies.lineup import resolve_for

#: rule set -> (its engine's plan, a lineup); the games: game_seeds(*SEEDS)
CASES = {"blood-rage": (compile_plan, ["greedy", "balanced", "thor-warlord", "greedy"]),
         "valhalla": (valhalla_plan, ["thor", "loki", "quester", "warlord"]),
         "valhalla-dice": (dice_plan, ["greedy", "raider", "turtle", "greedy-dp"])}
SEEDS = (40, 7, 1)


def batch_digest(out) -> str:
    """SHA-256 of every array of a BatchOut (name, dtype, shape and bytes)."""
    h = hashlib.sha256()
    for name, a in out._asdict().items():
        if a is not None:
            a = np.ascontiguousarray(a)
            h.update(f"{name}{a.dtype}{a.shape}".encode() + a.tobytes())
    return h.hexdigest()


CHILD = f"""
import json, sys
sys.path[:0] = {json.dumps([str(p) for p in sys.path if p])}
from tests.test_coldstart import CASES, SEEDS, batch_digest
from volva.simulator import engines
from volva.simulator.core import coldstart
from volva.strategies.lineup import resolve_for
compile_plan, lineup = CASES[sys.argv[1]]
r = engines.load_ruleset(sys.argv[1])
resolve = resolve_for(r.engine)
out = engines.play_batch(r, [resolve(n) for n in lineup], engines.game_seeds(*SEEDS))
main = [(d, s) for d, s in coldstart.roots(compile_plan, "MAIN")]
helper = [(d, s) for d, s in coldstart.roots(compile_plan, "HELPER")]
print(json.dumps(dict(
    digest=batch_digest(out),
    main_bodies={{d.py_func.__name__: len(d.signatures) for d, s in main}},
    main_planned=all(d.signatures == [s] for d, s in main),
    helper_compiled_here=[d.py_func.__name__ for d, s in helper if d.stats.cache_misses],
    helper_loaded=[d.py_func.__name__ for d, s in helper if d.stats.cache_hits.get(s)],
)))
"""


@pytest.mark.parametrize("ruleset", sorted(CASES))
def test_cold_compile_on_two_processes_plays_the_same_games(tmp_path, ruleset):
    """An empty kernel cache, the helper on: this process compiles each MAIN kernel once with the
    planned signature (a drifted signature would compile a second body for the engine's call),
    loads the helper's kernels from the cache instead of compiling them, and plays games
    identical to those of this test process (compiled or loaded without the plan's order)."""
    env = dict(os.environ, VOLVA_CACHE_DIR=str(tmp_path), VOLVA_COMPILE_JOBS="2")
    env.pop("NUMBA_CACHE_DIR", None)
    proc = subprocess.run([sys.executable, "-c", CHILD, ruleset], env=env, capture_output=True, text=True, timeout=900,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["main_planned"], got["main_bodies"]
    assert got["helper_compiled_here"] == []
    assert got["helper_loaded"], "no kernel of the helper's list came from the cache"
    plan, lineup = CASES[ruleset]
    r = engines.load_ruleset(ruleset)
    resolve = resolve_for(r.engine)
    assert got["digest"] == batch_digest(engines.play_batch(r, [resolve(n) for n in lineup], engines.game_seeds(*SEEDS)))


def test_warm_cache_starts_no_helper(monkeypatch):
    """Once the engine has played (its kernels in the cache), compile_cold starts no process."""
    r = engines.load_ruleset("blood-rage")
    engines.play_batch(r, [resolve_for(r.engine)("greedy")] * 2, engines.game_seeds(1, 0, 1))
    assert all(coldstart.cached(d, s) for d, s in coldstart.roots(compile_plan, "HELPER"))

    def no_process(*a, **k):
        raise AssertionError("a helper process was started on a warm cache")

    monkeypatch.setattr(coldstart.subprocess, "Popen", no_process)
    monkeypatch.setattr(coldstart, "_done", set())
    coldstart.compile_cold(compile_plan.__name__)


@pytest.mark.parametrize("value, jobs", [("1", 1), ("2", 2), ("4", 4), ("0", 2), ("two", 2), ("", 2)])
def test_compile_jobs_setting(monkeypatch, capsys, value, jobs):
    monkeypatch.setenv("VOLVA_COMPILE_JOBS", value)
    monkeypatch.setattr(coldstart, "_processors", lambda: 8)
    monkeypatch.setattr(coldstart, "_warned", set())
    assert coldstart.jobs() == jobs
    warned = "warning: VOLVA_COMPILE_JOBS" in capsys.readouterr().err
    assert warned == (value in ("0", "two")), "a value that is not a whole number >= 1 is named, once"
    monkeypatch.setattr(coldstart, "_processors", lambda: 1)  # pinned to one processor: no helper
    assert coldstart.jobs() == 1


def test_one_job_starts_no_helper(monkeypatch):
    """VOLVA_COMPILE_JOBS=1: no helper even if nothing is cached."""
    monkeypatch.setenv("VOLVA_COMPILE_JOBS", "1")
    monkeypatch.setattr(coldstart, "cached", lambda d, s: False)
    monkeypatch.setattr(coldstart.subprocess, "Popen", lambda *a, **k: pytest.fail("helper started"))
    monkeypatch.setattr(coldstart, "_done", set())
    coldstart.compile_cold(compile_plan.__name__)


@pytest.mark.parametrize("ruleset", sorted(CASES))
def test_plan_names_kernels_and_types(ruleset):
    """Every entry names a compiled kernel of the engine and only known argument types, with
    as many arguments as the kernel takes."""
    plan = CASES[ruleset][0]
    assert plan.TITLE == engines.get(ruleset).title
    types = plan.arg_types()
    for which in ("HELPER", "MAIN"):
        for module, name, args in getattr(plan, which):
            k = coldstart.kernel(plan, module, name)
            assert hasattr(k, "compile"), name
            assert set(args.split()) <= set(types), (name, args)
            assert len(args.split()) == k.py_func.__code__.co_argcount, name


def test_unwritable_cache_folder_compiles_into_a_temporary_one(tmp_path):
    """VOLVA_CACHE_DIR that cannot be written: a warning and a temporary folder for the process
    (removed at exit), never numba's fallback beside the sources, whose index misses an edited
    callee in another file (a helper session ran a stale kernel that way)."""
    code = "import volva.simulator as s, numba; print(s.CACHE_DIR); print(numba.config.CACHE_DIR)"
    env = dict(os.environ, VOLVA_CACHE_DIR="/proc/volva-nope")
    env.pop("NUMBA_CACHE_DIR", None)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "warning: kernel cache /proc/volva-nope/" in proc.stderr and "cannot be written" in proc.stderr
    cache, numba_cache = proc.stdout.split()
    assert cache == numba_cache and "volva-kernels-" in cache
    assert not os.path.exists(cache), "the temporary kernel folder outlived its process"


def test_signal_exit_does_not_wait_for_a_busy_thread(tmp_path):
    """A run stopped by a second signal exits at once with its code (the files are already
    consistent), though a worker thread is busy (a first batch compiling for a minute, found by a
    helper session), and kills the compile helper."""
    code = """
import subprocess, sys, threading, time
from volva import cli
from volva.simulator.core import coldstart
threading.Thread(target=time.sleep, args=(60,)).start()  # non-daemon: Python would wait for it
h = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
coldstart._helpers.add(h)
print(h.pid, flush=True)
cli._exit_now(130)
"""
    t = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=50)
    assert proc.returncode == 130, proc.stderr
    assert time.monotonic() - t < 30
    pid = int(proc.stdout.split()[0])
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the helper was killed and reaped


def test_a_person_at_a_terminal_is_told_of_the_compile(monkeypatch, capsys):
    """On a cold cache a terminal gets one notice (the first batch takes a minute); a pipe or a log
    file gets none (a test's one-line error stays one line)."""
    class Done:
        def wait(self):
            return 0

        def poll(self):
            return 0

    monkeypatch.setattr(coldstart, "cached", lambda d, s: False)
    monkeypatch.setattr(coldstart.subprocess, "Popen", lambda *a, **k: Done())
    monkeypatch.setattr(coldstart, "compile_list", lambda plan, which: None)
    monkeypatch.setenv("VOLVA_COMPILE_JOBS", "2")
    monkeypatch.setattr(coldstart, "_processors", lambda: 2)
    for tty in (False, True):
        monkeypatch.setattr(coldstart, "_done", set())
        monkeypatch.setattr(coldstart.sys.stderr, "isatty", lambda tty=tty: tty)
        coldstart.compile_cold(compile_plan.__name__)
        err = capsys.readouterr().err
        assert ("compiling the Blood Rage engine on 2 processes" in err) == tty, err
