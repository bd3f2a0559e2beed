"""Volva's game engine: data loading (ruleset), numba kernels, and the Python facade (api).

numba's on-disk cache does not notice when a kernel's callee in another file
changes, so the cache lives in a directory named after a hash of this
package's sources: editing any kernel starts a fresh cache, never a stale one.
Set VOLVA_CACHE_DIR to move it (default: ~/.cache/volva).
"""
import atexit
import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numba


def _source_hash() -> str:
    h = hashlib.sha256(numba.__version__.encode())
    root = Path(__file__).parent
    for f in sorted(root.rglob("*.py")):  # subpackages too (simulator/valhalla/)
        h.update(str(f.relative_to(root)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _usable(d: Path) -> bool:
    """Whether kernels can be cached in ``d`` (created if missing, a file written and removed)."""
    try:
        d.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=d):
            return True
    except OSError:
        return False


CACHE_DIR = Path(os.environ.get("VOLVA_CACHE_DIR", Path.home() / ".cache" / "volva")) / _source_hash()
if "NUMBA_CACHE_DIR" not in os.environ:
    if not _usable(CACHE_DIR):
        # numba would fall back to __pycache__ beside the sources, whose index does not notice an
        # edited callee in another file: a stale kernel. A fresh folder per process never is.
        sys.stderr.write(f"warning: kernel cache {CACHE_DIR} cannot be written (set VOLVA_CACHE_DIR to a "
                         f"writable folder); compiling into a temporary folder for this process\n")
        _tmp = tempfile.mkdtemp(prefix="volva-kernels-")
        atexit.register(shutil.rmtree, _tmp, True)
        os.environ["VOLVA_CACHE_DIR"] = _tmp  # the compile helper (simulator.core.coldstart) shares it
        CACHE_DIR = Path(_tmp) / CACHE_DIR.name
    numba.config.CACHE_DIR = str(CACHE_DIR)
