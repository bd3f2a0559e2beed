"""What both engines' scenario runners share: checking a scenario's [expect] table against its
result, and steps that must be refused (docs/scenarios.md, "Expectations", "Refusals")."""
from __future__ import annotations

import difflib

import numpy as np

from . import enums as E
from .loading import ScenarioError, ScenarioRefusal

#: operators of a check table (``glory = { ">=" = 10 }``, ``hand = { contains = "Tyr's Smite" }``)
OPS = ("len", "contains", "in", ">=", "<=", ">", "<", "!=")


def _is_check(v) -> bool:
    return isinstance(v, dict) and bool(v) and all(k in OPS for k in v)


def _flatten(d, prefix=""):
    """[expect] table -> [(dotted path, expected value)]; nested tables are walked to their leaves
    (a table of operators, :data:`OPS`, is a leaf: a check)."""
    out = []
    for k, v in d.items():
        path = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict) and v and not _is_check(v):
            out.extend(_flatten(v, path))
        else:
            out.append((path, v))
    return out


_MISSING = object()


def _lookup(result, path):
    """Value at dotted ``path`` of a run_scenario result ('clan.0.glory' -> result['clans'][0]['glory'])."""
    cur = result
    parts = path.split(".")
    if parts and parts[0] == "clan":
        parts[0] = "clans"
    for part in parts:
        if isinstance(cur, list):
            if not part.lstrip("-").isdigit() or not -len(cur) <= int(part) < len(cur):
                return _MISSING
            cur = cur[int(part)]
        elif isinstance(cur, dict):
            if part in cur:
                cur = cur[part]
                continue
            low = {str(k).lower(): k for k in cur}
            key = low.get(part.lower(), low.get(f"{part.lower()} fjord"))
            if key is None:
                return _MISSING
            cur = cur[key]
        else:
            return _MISSING
    return cur


def _same(expected, actual):
    if isinstance(expected, list) and isinstance(actual, list):
        try:
            return sorted(expected) == sorted(actual)  # figures, hands: order does not matter
        except TypeError:
            return expected == actual
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    return expected == actual


def _check(ops: dict, got) -> list[str]:
    """What fails of a check table against the actual value (empty: it holds)."""
    bad = []
    for op, w in ops.items():
        try:
            if op == "len":
                ok = len(got) == w
                got_s = f"length {len(got)}"
            elif op == "contains":
                items = w if isinstance(w, list) else [w]
                have = list(got) if isinstance(got, (list, dict)) else [got]
                low = [str(x).lower() for x in have]
                ok = all(str(x).lower() in low for x in items)
                got_s = repr(got)
            elif op == "in":
                ok = got in (w if isinstance(w, list) else [w])
                got_s = repr(got)
            else:
                ok = {">=": got >= w, "<=": got <= w, ">": got > w, "<": got < w, "!=": got != w}[op]
                got_s = repr(got)
        except TypeError:
            ok, got_s = False, f"{got!r} (cannot be compared)"
        if not ok:
            bad.append(f"{op} {w!r}, actual {got_s}")
    return bad


def check_expect(sc, result: dict) -> None:
    """Compare the scenario's [expect] table with ``result``; raise one ScenarioError listing every
    failing path (expected vs actual). See docs/scenarios.md, "Expectations"."""
    exp = sc.d.get("expect")
    if exp is None:
        return
    if not isinstance(exp, dict):
        sc.fail("expect", f"{exp!r}; expected a table of dotted paths = values")
    bad = []
    for path, want in _flatten(exp):
        if path == "log":
            lines = result.get("log", [])
            for w in sc.strlist(want, "expect.log"):
                if not any(w in line for line in lines):
                    bad.append(f"log: no line contains {w!r}")
            continue
        if path == "log_order":  # each string in a later line than the previous one
            lines, i = result.get("log", []), 0
            for w in sc.strlist(want, "expect.log_order"):
                j = next((j for j in range(i, len(lines)) if w in lines[j]), None)
                if j is None:
                    where = "no line" if not any(w in line for line in lines) else "no later line"
                    bad.append(f"log_order: {where} contains {w!r}"
                               + (f" (after {lines[i - 1].strip()!r})" if i else ""))
                    break
                i = j + 1
            continue
        got = _lookup(result, path)
        if got is _MISSING:
            if want == [] and ".figures." in f".{path}.":  # a location without figures
                continue
            bad.append(f"{path}: expected {want!r}, actual: (no such path)")
        elif _is_check(want):
            bad += [f"{path}: expected {b}" for b in _check(want, got)]
        elif not _same(want, got):
            bad.append(f"{path}: expected {want!r}, actual {got!r}")
    if bad:
        sc.fail("expect", f"{len(bad)} expectation(s) failed:\n  " + "\n  ".join(bad))


def refused_text(queued: dict, at: int) -> str:
    """The scripted value a step's engine refused first, in words: ``at`` is the state's
    G_SCRIPT_BAD_AT (core.script.script_refused_nb: 1 + clan * MAX_SCRIPT + index, 0 none) and
    ``queued`` each clan's queue as [(value, the value as written)]."""
    if at <= 0:
        return "(the value is not known)"
    p, i = divmod(at - 1, E.MAX_SCRIPT)
    vals = queued.get(p, [])
    written = repr(vals[i][1]) if i < len(vals) else "?"
    return f"clan {p}'s {written} (value {i + 1} of its queue)"


def play_step(sc, k: int, st: dict, play) -> None:
    """Play step ``k`` of scenario ``sc`` with ``play(st)``. A step with ``expect_error = "text"``
    must be refused with a ScenarioError whose message contains the text (case-insensitive); the
    refusal is recorded in ``sc.refusals`` and the position is restored as it was before the step,
    so one file can check several refusals in one position. Raises ScenarioError when the step is
    refused for another reason, or is played."""
    from .loading import ScenarioRefusal
    if not isinstance(st, dict) or "expect_error" not in st:
        play(st)
        return
    F = f"step {k}.expect_error"
    want = st["expect_error"]
    if not isinstance(want, str) or not want.strip():
        sc.fail(F, f"{want!r}; expected the text the refusal must contain")
    st = {key: v for key, v in st.items() if key != "expect_error"}
    S = sc.S
    snap = {n: np.array(S[n], copy=True) for n in S.dtype.names}
    try:
        play(st)
    except ScenarioRefusal as exc:  # a malformed step is an error, never an expected refusal
        msg = str(exc)
        if want.strip().lower() not in msg.lower():
            sc.fail(F, f"expected a refusal containing {want!r}; the step was refused with: {msg}")
        for n, v in snap.items():
            S[n] = v
        sc.refusals.append({"step": k, "error": msg})
        return
    sc.fail(F, f"expected a refusal containing {want!r}, but the step was legal and was played")


def clan_tables(sc, players: int, allowed: str) -> list:
    """The [[clan]] tables of scenario ``sc`` (its parsed file ``sc.d``; errors by ``sc.fail``),
    one per player; ``allowed`` says how many in the error."""
    clans = sc.d.get("clan", [])
    if not isinstance(clans, list) or not all(isinstance(c, dict) for c in clans):
        sc.fail("clan", f"{clans!r}; expected [[clan]] tables, {allowed}")
    if len(clans) != players:
        sc.fail("clan", f"{len(clans)} [[clan]] tables; allowed: {allowed}")
    return clans


class ScenarioFile:
    """What a scenario runner of any engine does with its file: ``path``, the parsed table ``d``,
    the rule set ``r``, the log lines and refused steps so far, and the checks that name a field."""

    def __init__(self, path, d: dict, rs):
        self.path, self.d, self.r = path, d, rs
        self.log_lines: list[str] = []
        self.refusals: list[dict] = []  #: steps refused as their expect_error asked
        self.resolve = None  #: strategy name -> (kind, params), set by the caller

    def fail(self, field, msg, kind=ScenarioError):
        raise kind(f"{self.path}: field '{field}': {msg}")

    def refuse(self, field, msg):
        """A well-formed step the rules do not allow (ScenarioRefusal: an expect_error may expect it)."""
        self.fail(field, msg, ScenarioRefusal)

    def strlist(self, v, field):
        if isinstance(v, str):
            return [v]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            self.fail(field, f"{v!r}; expected a string or a list of strings")
        return v

    def keys(self, field, d, allowed):
        """Refuse a non-table, or unknown keys (naming the closest allowed one)."""
        if not isinstance(d, dict):
            self.fail(field, f"{d!r}; expected a table")
        for k in d:
            if k not in allowed:
                close = difflib.get_close_matches(str(k), allowed, n=1)
                self.fail(f"{field + '.' if field else ''}{k}", "unknown field" + (
                    f" (did you mean '{close[0]}'?)" if close else f"; allowed: {list(allowed)}"))

    def int_in(self, field, v, lo, hi) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            self.fail(field, f"{'missing' if v is None else repr(v)}; allowed: an integer {lo}..{hi}")
        return v


def load_with_options(path, data, resolve, load_rules, make):
    """Set up a scenario: ``data`` (the parsed file, or None to read ``path``), its ``options``
    table given to ``load_rules(options or None)`` -> rule set, ``make(path, data, rs)`` -> the
    runner (a :class:`ScenarioFile`), its ``resolve`` set and its position built. Raises
    ScenarioError naming ``options`` when the rules refuse them."""
    from pathlib import Path

    from .loading import RulesError, read_toml
    path = Path(path)
    d = read_toml(path, ScenarioError) if data is None else data
    opts = d.get("options", {}) if isinstance(d, dict) else {}
    if not isinstance(opts, dict):
        raise ScenarioError(f"{path}: field 'options': {opts!r}; expected a table of rule options")
    try:
        rs = load_rules(opts or None)
    except RulesError as exc:
        raise ScenarioError(f"{path}: field 'options': {exc}") from None
    sc = make(path, d, rs)
    sc.resolve = resolve
    sc.build()
    return sc
