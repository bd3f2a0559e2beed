"""Study benchmark (not a test): peak RSS and throughput of `volva study` with bounded memory.

    python bench/study.py [--games 2000000] [--batch-size 10000] [--keep-rows]

Runs the main job's experiment (4 archetypes, seat rotation) as a child process, without the
report, then the report on its stats as a second child, and prints:
- games/s of the study (games, reduction to sufficient statistics, stats saved as `volva study` saves them);
- peak RSS of the study process and of the report process (ru_maxrss of each child);
- size of the run directory on disk;
- a correctness check first: the stats hold exactly --games games and 4 x games clan-rows.
Peak RSS must not grow with --games (issue 5: under 2 GB at 2,000,000 games).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VOLVA = [sys.executable, "-c", "import sys; from volva.cli import app; sys.argv[0] = 'volva'; app()"]


def _child(args: list[str], cwd: Path) -> tuple[float, float]:
    """Run VOLVA args; returns (wall seconds, peak RSS MiB of that child alone, from wait4)."""
    t = time.perf_counter()
    p = subprocess.Popen(VOLVA + args, cwd=cwd, stdout=subprocess.DEVNULL,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        raise SystemExit(f"volva {' '.join(args)}: exit {p.returncode}")
    return time.perf_counter() - t, usage.ru_maxrss / 1024  # KiB on Linux


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2_000_000)
    ap.add_argument("--batch-size", type=int, default=10_000)
    ap.add_argument("--keep-rows", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "study"
        _child(["study", "--games", "2000", "--out", str(Path(tmp) / "warm"), "--no-report"], ROOT)  # compile
        args = ["study", "--games", str(a.games), "--batch-size", str(a.batch_size), "--out", str(out),
                "--no-report"] + (["--keep-rows"] if a.keep_rows else [])
        wall, rss = _child(args, ROOT)
        sys.path.insert(0, str(ROOT))
        from volva.analysis.suffstats import Stats
        st = Stats.load(out)
        assert st.games == a.games and int(st["clans"]["n"].sum()) == 4 * a.games, "stats incomplete"
        meta = json.loads((out / "run.json").read_text())
        assert meta["status"] == "complete"
        rwall, rrss = _child(["report", str(out), "--out", str(out / "report")], ROOT)
        size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 2**20
    print(f"games: {a.games:,}  batch size: {a.batch_size:,}  keep rows: {a.keep_rows}")
    print(f"study: {wall:,.1f} s, {a.games / wall:,.0f} games/s, peak RSS {rss:,.0f} MiB")
    print(f"report: {rwall:,.1f} s, peak RSS {rrss:,.0f} MiB")
    print(f"run directory: {size:,.1f} MiB on disk")


if __name__ == "__main__":
    main()
