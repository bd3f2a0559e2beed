"""The layout holds (issue 11): no import cycles, imports only downward through the layers
core <- engines <- (rainbow, registry) <- strategies <- analysis <- reports <- cli, reports never
load a rule set, and no numba kernel takes more than 8 parameters.

The graph is read from the source with ``ast`` (function-local imports included), so a lazy
import that runs back up is caught as well as a module-level one.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("simulator", "strategies", "analysis", "reports")


def _modules() -> dict[str, Path]:
    mods = {"cli": ROOT / "cli.py"}
    for pkg in PACKAGES:
        for f in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(f.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join(parts)] = f
    return mods


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Project modules imported anywhere in ``path`` (relative imports resolved)."""
    is_pkg = path.name == "__init__.py"
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name.removeprefix("volva.") for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = (node.module or "").removeprefix("volva.")  # the installed namespace (pyproject.toml)
            if mod == "volva":  # from volva import simulator
                mod = ""
            subs = [f"{mod}.{a.name}".lstrip(".") for a in node.names if f"{mod}.{a.name}".lstrip(".") in MODULES]
            # 'from pkg import submodule' depends on the submodule, not on pkg/__init__'s re-exports
            targets = subs if len(subs) == len(node.names) else [mod] + subs
        else:
            continue
        for t in targets:
            if t in MODULES and t != name:
                out.add(t)
    return out


GRAPH = {m: _imports(m, p) for m, p in MODULES.items()}


def layer(mod: str) -> int:
    """0 core, 1 an engine, 2 the registry and modes over engines, 3 strategies, 4 analysis,
    5 reports, 6 cli. simulator/__init__ (numba's cache directory) counts as core."""
    if mod in ("simulator", "simulator.core") or mod.startswith("simulator.core."):
        return 0
    if mod in ("simulator.engines", "simulator.rainbow"):
        return 2
    if mod.startswith("simulator."):
        return 1
    return {"strategies": 3, "analysis": 4, "reports": 5, "cli": 6}[mod.split(".")[0]]


def _engine(mod: str) -> str | None:
    parts = mod.split(".")
    return parts[1] if layer(mod) == 1 else None


def test_graph_is_read():
    assert "simulator.core.batch" in GRAPH["simulator.bloodrage.api"]
    assert "simulator.engines" in GRAPH["analysis.runner"]


def test_no_import_cycles():
    seen, stack, cycles = {}, [], []

    def visit(m):
        seen[m] = 1
        stack.append(m)
        for n in sorted(GRAPH[m]):
            if seen.get(n) == 1:
                cycles.append(stack[stack.index(n):] + [n])
            elif n not in seen:
                visit(n)
        stack.pop()
        seen[m] = 2

    for m in sorted(GRAPH):
        if m not in seen:
            visit(m)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_imports_run_down_the_layers():
    bad = [f"{m} -> {n}" for m, deps in GRAPH.items() for n in deps
           if layer(n) > layer(m) or (layer(m) == layer(n) == 1 and _engine(m) != _engine(n))]
    assert not bad, "imports against the layers: " + ", ".join(sorted(bad))


def test_reports_never_load_a_rule_set():
    bad = [f"{m} -> {n}" for m, deps in GRAPH.items() if m.startswith("reports") for n in deps
           if n.startswith("simulator.") and layer(n) > 0]
    assert not bad, ", ".join(sorted(bad))


def _kernels():
    for mod, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and any(
                    (isinstance(d, ast.Call) and getattr(d.func, "id", getattr(d.func, "attr", "")) == "njit")
                    or getattr(d, "id", "") == "njit" for d in node.decorator_list):
                a = node.args
                yield f"{mod}.{node.name}", len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)


KERNELS = dict(_kernels())


def test_kernels_are_found():
    assert len(KERNELS) > 150 and "simulator.bloodrage.playout.play_chunk_nb" in KERNELS


@pytest.mark.parametrize("limit", [8])
def test_no_kernel_takes_more_than_8_parameters(limit):
    over = {k: n for k, n in KERNELS.items() if n > limit}
    assert not over, f"kernels over {limit} parameters: {over}"
