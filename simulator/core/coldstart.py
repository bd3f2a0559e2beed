"""A cold compile on two cores.

numba compiles one kernel at a time (a process-wide lock), so an engine's first run on an empty
kernel cache used one core for a minute. Here a helper process compiles one branch of the
engine's call tree while this process compiles the others; when their callers compile here, the
helper's kernels load from the on-disk cache. numba links a cached kernel's LLVM bitcode into its
callers exactly as it links one compiled in-process, so the machine code and every game are the
same either way (tests/test_coldstart.py checks a game against the sequential compile).

An engine declares its plan as a module with
    ``HELPER``, ``MAIN``: lists of (module in the engine's package, kernel, argument type names),
    ``arg_types()``: dict of those names -> numba types, ``TITLE``: the engine's name,
and calls :func:`compile_cold` before its first kernel call. Nothing happens when every kernel
of the helper's list is already cached, or with ``VOLVA_COMPILE_JOBS=1``.
"""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import threading
import time

_done: set[str] = set()  #: plans this process has compiled (or found cached)
_lock = threading.Lock()
_helpers: set[subprocess.Popen] = set()  #: helper processes running
_warned: set[str] = set()


def jobs() -> int:
    """Processes for a cold compile: ``VOLVA_COMPILE_JOBS`` (default 2; 1 = compile in this process
    only; more is the same as 2, a plan has one helper), and 1 when this process may run on one
    processor only (``taskset``, a pinned benchmark)."""
    v = os.environ.get("VOLVA_COMPILE_JOBS", "").strip() or "2"
    n = int(v) if v.isdigit() and int(v) >= 1 else 2
    if str(n) != v.lstrip("0") and "VOLVA_COMPILE_JOBS" not in _warned:
        _warned.add("VOLVA_COMPILE_JOBS")
        sys.stderr.write(f"warning: VOLVA_COMPILE_JOBS={v!r}: allowed: a whole number >= 1; using 2\n")
    return min(n, _processors())


def _processors() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity on this platform
        return os.cpu_count() or 1


def kernel(plan, module: str, name: str):
    """The compiled body named ``module.name`` of the plan's engine package (behind a
    :func:`~simulator.core.canon.canonical` entry, the kernel it calls)."""
    pkg = plan.__name__.rpartition(".")[0]
    disp = getattr(importlib.import_module(f"{pkg}.{module}"), name)
    return getattr(disp, "kernel", disp)


def roots(plan, which: str) -> list[tuple[object, tuple]]:
    """(dispatcher, signature) of each kernel in the plan's list ``which`` ("HELPER" or "MAIN")."""
    types = plan.arg_types()
    return [(kernel(plan, m, k), tuple(types[t] for t in args.split())) for m, k, args in getattr(plan, which)]


def cached(disp, sig: tuple) -> bool:
    """Whether numba's on-disk cache holds ``disp`` compiled for ``sig`` (True when it cannot tell:
    the caller then just compiles in this process)."""
    try:
        cache = disp._cache
        key = cache._index_key(sig, disp.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:  # a numba whose cache internals differ: no helper, nothing lost
        return True


def compile_cold(plan_module: str) -> None:
    """Compile the plan's kernels on two processes if its helper's kernels are not cached yet.

    Once per process and plan; a second thread waits for the first's. A helper that fails is
    ignored: this process compiles what it left (and reports any real compile error then)."""
    with _lock:
        if plan_module not in _done:
            _done.add(plan_module)
            _compile_cold(plan_module)


def _compile_cold(plan_module: str) -> None:
    if jobs() < 2 or os.environ.get("NUMBA_DISABLE_JIT", "0") == "1":
        return
    plan = importlib.import_module(plan_module)
    if all(cached(d, s) for d, s in roots(plan, "HELPER")):
        return
    if sys.stderr.isatty():  # a person waiting: say why the first batch takes a while
        sys.stderr.write(f"compiling the {plan.TITLE} engine on 2 processes (once per kernel cache, "
                         f"about a minute)\n")
    env = dict(os.environ, VOLVA_COMPILE_JOBS="1")
    code = ("import json, sys; sys.path[:0] = json.loads(sys.argv[1]); import importlib; "
            "importlib.import_module(sys.argv[2])._helper(sys.argv[3], int(sys.argv[4]))")
    helper = subprocess.Popen([sys.executable, "-c", code, json.dumps(sys.path), __name__, plan_module,
                               str(os.getpid())], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    _helpers.add(helper)
    try:
        compile_list(plan_module, "MAIN")
        helper.wait()
    finally:
        stop_helpers()


def stop_helpers() -> None:
    """Kill the helper processes still compiling (this process failed, or is stopping now)."""
    for h in list(_helpers):
        if h.poll() is None:
            h.kill()
            h.wait()
        _helpers.discard(h)


def _helper(plan_module: str, parent: int) -> None:
    """The helper process: compile the plan's HELPER list; exit at once if the parent dies (a
    killed parent would not wait for it)."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()
    compile_list(plan_module, "HELPER")


def compile_list(plan_module: str, which: str) -> None:
    """Compile the kernels of the plan's list ``which``, each for its one signature, in order."""
    for disp, sig in roots(importlib.import_module(plan_module), which):
        disp.compile(sig)
