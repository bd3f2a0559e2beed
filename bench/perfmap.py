"""Where a game's time goes, kernel by kernel (not a test): compiles the engine into an empty
kernel cache, writes a perf map of every compiled kernel (/tmp/perf-PID.map, which `perf report`
reads to name JIT code), then plays ``--games`` games on one thread.

    perf record -F 999 -o /tmp/volva.perf python bench/perfmap.py [--ruleset blood-rage] [--games 30000]
    perf report -i /tmp/volva.perf --no-children --sort sym --percentage relative \\
        --dsos "$(perf report -i /tmp/volva.perf --sort dso 2>/dev/null | grep -o '\\[JIT\\] tid [0-9]*' | head -1)"

The map needs each kernel's linked LLVM module, which only a fresh compile has (a kernel loaded
from the cache has object code only), hence the empty cache. Kernels inlined by LLVM count in
their caller; NRT_incref/NRT_decref are the reference counts of arrays passed between kernels.
"""
from __future__ import annotations

import argparse
import atexit
import os
import shutil
import sys
import tempfile
import time


def write_perf_map() -> int:
    """/tmp/perf-PID.map: start, size and name of every compiled function of the loaded volva
    kernels (sizes up to the next function's start); returns how many."""
    from numba.core.registry import CPUDispatcher
    names: dict[int, str] = {}
    for mname, m in list(sys.modules.items()):
        if not mname.startswith("volva"):
            continue
        for v in list(vars(m).values()):
            if not isinstance(v, CPUDispatcher):
                continue
            for cres in v.overloads.values():
                lib = cres.library
                for f in lib._final_module.functions:
                    if not f.is_declaration:
                        addr = lib._codegen._engine.get_function_address(f.name)
                        if addr:
                            names[addr] = f.name
    starts = sorted(names)
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as fh:
        for i, a in enumerate(starts):
            size = min((starts[i + 1] - a) if i + 1 < len(starts) else 4096, 1 << 20)
            fh.write(f"{a:x} {size:x} {names[a]}\n")
    return len(starts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="blood-rage")
    ap.add_argument("--games", type=int, default=30_000)
    a = ap.parse_args()
    cache = tempfile.mkdtemp(prefix="volva-profile-")
    atexit.register(shutil.rmtree, cache, True)
    os.environ["VOLVA_CACHE_DIR"] = cache  # before volva loads
    import numba
    numba.set_num_threads(1)
    from volva.simulator import engines
    from volva.strategies.lineup import resolve_for
    r = engines.load_ruleset(a.ruleset)
    pols = [resolve_for(engines.get(r).name)("greedy")] * 4
    engines.play_batch(r, pols, engines.game_seeds(1, 0, 200))
    print(f"perf map: {write_perf_map()} functions", file=sys.stderr)
    t = time.perf_counter()
    engines.play_batch(r, pols, engines.game_seeds(1, 0, a.games))
    dt = time.perf_counter() - t
    print(f"{a.ruleset}: {a.games / dt:,.0f} games/s on 1 thread ({dt * 1e6 / a.games:.0f} us a game)")


if __name__ == "__main__":
    main()
