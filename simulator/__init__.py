"""Volva's game engine: data loading (ruleset), numba kernels, and the Python facade (api).

numba's on-disk cache does not notice when a kernel's callee in another file
changes, so the cache lives in a directory named after a hash of this
package's sources: editing any kernel starts a fresh cache, never a stale one.
Set VOLVA_CACHE_DIR to move it (default: ~/.cache/volva).
"""
import hashlib
import os
from pathlib import Path

import numba


def _source_hash() -> str:
    h = hashlib.sha256(numba.__version__.encode())
    root = Path(__file__).parent
    for f in sorted(root.rglob("*.py")):  # subpackages too (simulator/valhalla/)
        h.update(str(f.relative_to(root)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


CACHE_DIR = Path(os.environ.get("VOLVA_CACHE_DIR", Path.home() / ".cache" / "volva")) / _source_hash()
if "NUMBA_CACHE_DIR" not in os.environ:
    numba.config.CACHE_DIR = str(CACHE_DIR)
