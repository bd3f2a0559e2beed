"""A/B timing of two commits (not a test): each ref is checked out in its own git worktree with
its own venv and numba cache, then the same command runs alternately in each (A B A B ...), and
the medians and the pair-by-pair ratio B/A are printed. Machines here are shared and noisy, so a
speed claim is the median ratio of one such run, never two absolute figures from different runs.

    python bench/ab.py OLD_REF NEW_REF [-n 7] [--warmup 1] [--workdir /tmp/volva-ab] -- COMMAND ...

COMMAND runs with the worktree as working directory and its venv first on PATH, so `volva ...`
and `python bench/engine.py ...` run that ref's code, e.g.

    python bench/ab.py 18db90b HEAD -n 9 -- volva run --no-keep-rows --games 20000 --out /tmp/ab-run --force

Each ref is built once (pip install -e, then one warm-up run that also fills its numba cache);
`--rebuild` starts from fresh worktrees. The figure is each run's wall time (the whole process,
start-up included: give the command enough games that start-up does not dominate, or time two
game counts and take the difference). Exits with an error line when a command fails.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _git(*args, cwd=ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def build(ref: str, workdir: Path, rebuild: bool) -> Path:
    """A worktree of ``ref`` with a venv (volva installed editable); -> its directory."""
    sha = _git("rev-parse", "--verify", f"{ref}^{{commit}}")
    d = workdir / sha[:12]
    if rebuild and d.exists():
        _git("worktree", "remove", "--force", str(d))
    if not d.exists():
        _git("worktree", "add", "--detach", str(d), sha)
    if not (d / ".venv" / "bin" / "volva").exists():
        subprocess.run([sys.executable, "-m", "venv", str(d / ".venv")], check=True)
        subprocess.run([str(d / ".venv" / "bin" / "pip"), "install", "-q", "-e", str(d)], check=True)
    return d


def env_for(d: Path) -> dict:
    env = dict(os.environ, PATH=f"{d / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
               VIRTUAL_ENV=str(d / ".venv"), VOLVA_CACHE_DIR=str(d / ".numba-cache"))
    env.pop("PYTHONPATH", None)
    return env


def run_once(cmd: list[str], d: Path) -> float:
    """Wall seconds of one run of ``cmd`` in worktree ``d``."""
    t = time.perf_counter()
    res = subprocess.run(cmd, cwd=d, env=env_for(d), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t
    if res.returncode != 0:
        raise SystemExit(f"error: {' '.join(cmd)} failed in {d} (exit {res.returncode}): {res.stderr.strip()[-300:]}")
    return wall


def main() -> int:
    argv = sys.argv[1:]
    if "--" not in argv:
        print(__doc__)
        return 2
    k = argv.index("--")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("-n", type=int, default=7, help="counted runs of each ref (default 7)")
    ap.add_argument("--warmup", type=int, default=1, help="uncounted runs of each ref first (default 1)")
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/volva-ab"))
    ap.add_argument("--rebuild", action="store_true")
    a = ap.parse_args(argv[:k])
    cmd = argv[k + 1:]
    if not cmd or a.n < 1:
        ap.error("give a COMMAND after -- and -n >= 1")
    a.workdir.mkdir(parents=True, exist_ok=True)
    dirs = {"A": build(a.old, a.workdir, a.rebuild), "B": build(a.new, a.workdir, a.rebuild)}
    for _ in range(a.warmup):
        for d in dirs.values():
            run_once(cmd, d)
    walls: dict[str, list[float]] = {"A": [], "B": []}
    for i in range(a.n):  # A B A B ...: drift of the machine's speed hits both alike
        for label in ("A", "B"):
            w = run_once(cmd, dirs[label])
            walls[label].append(w)
        print(f"pair {i + 1}: A {walls['A'][-1]:.2f} s, B {walls['B'][-1]:.2f} s, B/A {walls['B'][-1] / walls['A'][-1]:.3f}",
              flush=True)
    ratios = [b / x for x, b in zip(walls["A"], walls["B"])]
    print(f"A = {a.old} ({dirs['A'].name}), B = {a.new} ({dirs['B'].name}); command: {' '.join(cmd)}")
    for label in ("A", "B"):
        v = walls[label]
        print(f"{label}: wall s median {statistics.median(v):.2f} (min {min(v):.2f}, max {max(v):.2f}), n={len(v)}")
    print(f"B/A wall ratio, pair by pair: median {statistics.median(ratios):.3f} "
          f"(min {min(ratios):.3f}, max {max(ratios):.3f}); below 1: B is faster")
    return 0


if __name__ == "__main__":
    shutil.which("git") or sys.exit("error: git not found")
    raise SystemExit(main())
