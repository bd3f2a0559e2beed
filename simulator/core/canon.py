"""One compiled body per kernel, whatever integer types its callers pass.

numba compiles a kernel once per tuple of argument types, and its type inference compiles a
callee for every intermediate type a caller's variable passes through: a seat read from
``S.gs`` (int32) that later becomes ``(q + 1) % P`` (int64) compiles the callee twice, and the
constants ``0``, ``-1`` and ``True`` are types of their own (Literal[int](0), ...). The engine's
first run compiled its 161 kernels as 501 bodies, half the cold compile.

``canonical`` puts a thin entry in front of a kernel: inlined into every caller before type
inference, it casts the named arguments to int64 (or bool) and calls the one cached body.
The casts change no value: every such argument is a small integer (a seat, card, code or count).
"""
from __future__ import annotations

import inspect

import numpy as np
from numba import njit


def canonical(*ints: str, bools: tuple[str, ...] = ()):
    """Decorator over an ``@njit`` kernel: callers see an ``inline='always'`` entry of the same
    name and signature that passes each argument named in ``ints`` as int64 and in ``bools`` as
    bool. Raises ValueError for a name the kernel does not take."""

    def wrap(kernel):
        if not hasattr(kernel, "py_func"):  # NUMBA_DISABLE_JIT=1: plain Python, no types to unify
            return kernel
        params = list(inspect.signature(kernel.py_func).parameters)
        unknown = sorted((set(ints) | set(bools)) - set(params))
        if unknown:
            raise ValueError(f"{kernel.py_func.__qualname__}: no argument {unknown} (has {params})")
        args = ", ".join(f"_i64({a})" if a in ints else f"_bool({a})" if a in bools else a for a in params)
        src = f"def {kernel.__name__}({', '.join(params)}):\n    return _kernel({args})\n"
        scope = {"_kernel": kernel, "_i64": np.int64, "_bool": bool}
        exec(compile(src, f"<canonical {kernel.py_func.__module__}.{kernel.__name__}>", "exec"), scope)
        entry = scope[kernel.__name__]
        entry.__doc__, entry.__module__, entry.__wrapped__ = kernel.__doc__, kernel.py_func.__module__, kernel.py_func
        disp = njit(inline="always")(entry)
        disp.kernel = kernel  # the compiled body (simulator.core.coldstart compiles it by name)
        return disp

    return wrap
