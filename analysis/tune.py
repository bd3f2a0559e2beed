"""`volva tune`: search a strategy's knobs (strategies/space.py) for the largest win share against
a league of strategies, on common random numbers, then check the winner on fresh seeds.

Evaluation. A candidate plays, against each league member o, every seat rotation of the lineup
[candidate, o, o, ...] on ``blocks`` seeds (game g: rotation g mod P on seed index g div P, as
``volva run``), so every candidate meets the same deals (common random numbers) and each
comparison is paired. Its score against o is P x its win share (1.0 = par; ties share a win).
The fitness is a soft minimum over the league, -T log(mean(exp(-s_o / T))) with T = 0.2, so a
candidate cannot win by farming the weakest member: the opponents it does worst against count most.

Search: Optuna's TPE sampler (seeded; it takes the mixed float, integer, yes/no and stat-order
knobs as they are, where CMA-ES would need them relaxed to floats), started from greedy's values
and from each league member's file. Trials are kept in ``OUT/tune.journal``: ``resume`` continues.

Polish. The search's best is then refined by one-step moves (strategies.space.Knob.neighbours:
each knob one step either way) on a second set of seeds: while some move improves the mean win
share significantly (below), the largest improvement is taken (at most ``polish_rounds`` times).

Checks, on a third set of seeds (fresh: derived from the tuning seed, used for no choice): the
winner's win share against each league member with 95% intervals (seed blocks as the unit), and
the one-step-deviation check: every one-step move, paired with the winner on the same seeds; a
move "improves" when its difference in mean win share is above zero at the 5% level, one-sided,
after Holm's correction over the moves (statsmodels), so a local optimum is not failed by the
chance of one test in forty.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from volva.simulator import engines
from volva.simulator.core.batch import game_plan, rotated
from volva.strategies.space import SearchSpace, get_in, set_in

TEMPERATURE = 0.2  #: of the soft minimum over the league (in units of P x win share)


def win_share(rank: np.ndarray) -> np.ndarray:
    """int8[G, P] ranks (1 = winner, ties share) -> float64[G, P] win share (1/k for k tied winners)."""
    first = rank == 1
    return first / np.maximum(first.sum(1, keepdims=True), 1)


def soft_min(scores: np.ndarray, t: float = TEMPERATURE) -> float:
    """-t log(mean(exp(-s/t))): the mean when scores agree, close to the minimum when one is low."""
    s = np.asarray(scores, float)
    m = s.min()
    return float(m - t * math.log(np.mean(np.exp(-(s - m) / t))))


@dataclass
class League:
    """The opponents: names and (kind, params) policies."""
    names: list[str]
    pols: list


@dataclass
class Evaluator:
    """Plays a candidate against the league on fixed seeds (see the module doc)."""
    rs: object
    league: League
    players: int
    blocks: int  #: seed blocks per opponent (each block: one game per seat rotation)
    games: int = 0  #: games played so far

    def shares(self, pol, seed: int) -> np.ndarray:
        """float64[n_opponents, blocks]: the candidate's mean win share over the P rotations of
        each seed block, against each league member."""
        P, B = self.players, self.blocks
        out = np.zeros((len(self.league.pols), B))
        plan = [(j, r, ids, seeds, [pol] + [opp] * (P - 1)) for j, opp in enumerate(self.league.pols)
                for r, ids, seeds in game_plan(seed, np.arange(B * P), P, True, P)]
        # one batch per (opponent, rotation), all shared out over the threads at once: a batch of
        # a few dozen games alone is too small to split over two
        outs = engines.play_batches(self.rs, [(rotated(lineup, r), seeds, ids, P) for _, r, ids, seeds, lineup in plan])
        for (j, r, ids, seeds, _), b in zip(plan, outs):
            out[j, ids // P] += win_share(b.rank)[:, r] / P  # the candidate sits in seat r
            self.games += len(seeds)
        return out


def fitness(shares: np.ndarray, players: int) -> float:
    """The soft minimum over opponents of P x mean win share."""
    return soft_min(players * shares.mean(1))


def block_interval(x: np.ndarray, z: float = 1.96) -> tuple[float, float, float]:
    """Mean of per-block values and its 95% normal interval (blocks are independent seeds)."""
    x = np.asarray(x, float)
    m = float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else float("nan")
    return m, m - z * se, m + z * se


@dataclass
class TuneResult:
    doc: dict  #: the best strategy document, provenance included
    trials: list[dict] = field(default_factory=list)  #: per trial: number, fitness, knob values
    fresh: list[dict] = field(default_factory=list)  #: per opponent: share and interval on fresh seeds
    deviations: list[dict] = field(default_factory=list)  #: the one-step-deviation check
    importances: dict = field(default_factory=dict)  #: knob -> |Spearman rho| with fitness over trials
    polish: list[dict] = field(default_factory=list)  #: the one-step moves the polish took


def _encode(knob, value):
    return ",".join(value) if knob.kind == "choice" else value


def _suggest(trial, knob):
    if knob.kind == "float":
        return trial.suggest_float(knob.key, knob.low, knob.high)
    if knob.kind == "int":
        return trial.suggest_int(knob.key, int(knob.low), int(knob.high))
    if knob.kind == "bool":
        return trial.suggest_categorical(knob.key, [False, True])
    return trial.suggest_categorical(knob.key, [",".join(c) for c in knob.choices]).split(",")


def start_points(space: SearchSpace, docs: list[dict]) -> list[dict]:
    """Knob values of ``space.start`` and of each document (keys it lacks: the start's), in the
    encoding Optuna stores (stat orders as 'a,b,c'); values outside a knob's range are clipped."""
    out = []
    for d in [space.start, *docs]:
        vals = {}
        for k in space.knobs:
            v = get_in(d, k.key, get_in(space.start, k.key))
            if k.kind in ("float", "int"):
                v = min(max(float(v), k.low), k.high)
                v = int(round(v)) if k.kind == "int" else v
            elif k.kind == "choice" and list(v) not in [list(c) for c in k.choices]:
                v = get_in(space.start, k.key)
            vals[k.key] = _encode(k, list(v) if k.kind == "choice" else v)
        if vals not in out:
            out.append(vals)
    return out


def document(space: SearchSpace, params: dict) -> dict:
    """The start document with the knob values of an Optuna ``params`` dict."""
    doc = space.start
    for k in space.knobs:
        v = params[k.key]
        doc = set_in(doc, k.key, v.split(",") if k.kind == "choice" else v)
    return doc


def _journal_backend(path: Path):
    """Optuna's journal file, synced to disk once per finished trial where Optuna syncs every line:
    a trial writes a line per knob (21 in Blood Rage), and those syncs were a tenth of a trial's
    time on one thread, all of it serial. Lines are still written and flushed one by one under
    Optuna's lock, so a killed process loses nothing it wrote; a power cut can lose the trial in
    flight, which ``--resume`` plays again."""
    import os

    from optuna.storages.journal import JournalFileBackend
    try:
        from optuna.storages.journal._file import get_lock_file
        from optuna.storages.journal._storage import JournalOperation
    except ImportError:  # another Optuna: its own appends, a sync per line
        return JournalFileBackend(str(path))
    ends = {int(JournalOperation.SET_TRIAL_STATE_VALUES), int(JournalOperation.CREATE_STUDY)}

    class Journal(JournalFileBackend):
        def append_logs(self, logs: list[dict]) -> None:
            text = "".join(json.dumps(log, separators=(",", ":")) + "\n" for log in logs).encode("utf-8")
            with get_lock_file(self._lock), open(path, "ab") as f:
                f.write(text)
                f.flush()
                if any(log.get("op_code") in ends for log in logs):
                    os.fsync(f.fileno())
    j = Journal(str(path))
    return j if hasattr(j, "_lock") else JournalFileBackend(str(path))


def _sampler(seed: int, k: int, trials: int):
    """The TPE sampler of the search's k-th trial: seeded by (seed, k), so a trial's candidate is a
    function of the seed and the trials finished before it, and a resumed search (a fresh process,
    the interrupted trial played again) proposes what an uninterrupted one would."""
    import optuna
    k_seed = int(np.random.SeedSequence([seed, k]).generate_state(1)[0])
    return optuna.samplers.TPESampler(seed=k_seed, n_startup_trials=min(20, trials))


def study_settings(rs, league: League, players: int, blocks: int, seed: int) -> dict:
    """What a resumed search must keep (its trials were played with them)."""
    return {"ruleset": rs.name, "players": players, "league": list(league.names), "seed_blocks": blocks,
            "seed": seed}


def _check_journal(journal: Path) -> None:
    """Raise ValueError naming the first line of the journal that is not a JSON object (Optuna's
    own error names neither the file nor the line); a last line cut short is what a killed run
    leaves."""
    import json
    try:
        data = journal.read_bytes()
    except OSError as exc:
        raise ValueError(f"--resume: {journal}: {exc.strerror or exc}") from None
    lines = data.split(b"\n")
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            ok = isinstance(json.loads(line), dict)
        except ValueError:  # JSONDecodeError and UnicodeDecodeError
            ok = False
        if not ok:
            cut = i == len(lines) and not data.endswith(b"\n")
            raise ValueError(f"--resume: {journal}: line {i} is not an Optuna journal record"
                             + (" (cut short, as a killed run leaves it: delete that line to resume from the "
                                "trials before it)" if cut else " (an edited or damaged file)")
                             + "; or tune again with --force")


def check_resume(out: Path, name: str, settings: dict) -> None:
    """Raise ValueError if the tuning study in ``out`` was played with other ``settings``."""
    import optuna
    from optuna.storages import JournalStorage
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    journal = out / "tune.journal"
    _check_journal(journal)
    try:
        study = optuna.load_study(study_name=name, storage=JournalStorage(_journal_backend(journal)))
    except KeyError:
        raise ValueError(f"--resume: {journal}: no study named {name!r} in it (--name as when it began)") from None
    old = study.user_attrs.get("settings", {})
    for k, v in settings.items():
        if old.get(k) != v:
            raise ValueError(f"--resume: {journal}: '{k}' was {old.get(k)!r}, now {v!r}; "
                             "resume with the same settings")


def tune(rs, space: SearchSpace, league: League, out: Path, *, players: int = 4, trials: int = 150,
         blocks: int = 60, fresh_blocks: int = 500, seed: int = 1, name: str = "tuned", start_docs=(),
         resume: bool = False, progress=None, check_deviations: bool = True, polish_rounds: int = 8,
         polish_blocks: int = 150, say=None) -> TuneResult:
    """Run a tuning study into ``out`` (see the module doc); returns the best document with its
    checks. ``progress(done, total, best)`` is called after each trial (and first with a resumed
    study's trials), ``say(text)`` at each stage. Raises ValueError for a
    league of fewer than one strategy or a journal from another study (without ``resume``:
    ``out`` must not hold one). A KeyboardInterrupt leaves the finished trials in the journal;
    the trial it cut short counts for nothing and ``resume`` plays it again, so an interrupted
    and resumed search ends as an uninterrupted one."""
    import optuna
    from optuna.storages import JournalStorage
    from optuna.trial import TrialState
    if not league.pols:
        raise ValueError("--league: at least one strategy to tune against")
    optuna.logging.set_verbosity(optuna.logging.ERROR)  # a trial cut short by Ctrl-C is not news
    out.mkdir(parents=True, exist_ok=True)
    journal = out / "tune.journal"
    if journal.exists() and not resume:
        raise ValueError(f"{journal}: a tuning study is there already; pass --resume to continue it or --force")
    settings = study_settings(rs, league, players, blocks, seed)
    if resume:
        check_resume(out, name, settings)
    storage = JournalStorage(_journal_backend(journal))
    study = optuna.create_study(study_name=name, storage=storage, direction="maximize", load_if_exists=True,
                                sampler=_sampler(seed, 0, trials))
    ev = Evaluator(rs, league, players, blocks)
    card_names = list(rs.card_names)
    if len(study.trials) == 0:
        study.set_user_attr("settings", settings)
    starts = start_points(space, list(start_docs))
    # compile outside the timing: one game of the start document
    Evaluator(rs, League(league.names[:1], league.pols[:1]), players, 1).shares(
        space.compile(space.start, card_names), seed)

    def objective(trial):
        doc = document(space, {k.key: _encode(k, _suggest(trial, k)) for k in space.knobs})
        return fitness(ev.shares(space.compile(doc, card_names), seed), players)

    def complete():
        return [t for t in study.trials if t.state == TrialState.COMPLETE]
    t0 = time.perf_counter()
    done = len(complete())
    if done and progress is not None:  # a resumed study: the trials its journal holds
        progress(done, trials, study.best_value)
    while done < trials:
        study.sampler = _sampler(seed, done, trials)
        if done < len(starts) and not any(t.state == TrialState.WAITING for t in study.trials):
            study.enqueue_trial(starts[done])  # the start points first, one by one (a cut-short one again)
        study.optimize(objective, n_trials=1)
        done = len(complete())
        if progress is not None:
            progress(done, trials, study.best_value)
    finished = complete()
    # the whole search, this call's trials and any resumed ones: each trial plays the same number of games
    tune_games = len(finished) * blocks * players * len(league.pols)
    wall = sum((t.duration.total_seconds() for t in finished if t.duration is not None), 0.0) or \
        time.perf_counter() - t0
    best = document(space, study.best_params)
    say = say or (lambda text: None)
    say(f"search done: best fitness {study.best_value:.3f}; polishing by one-step moves")
    res = _polish_and_check(rs, space, league, best, players=players, seed=seed, fresh_blocks=fresh_blocks,
                            polish_rounds=polish_rounds, polish_blocks=polish_blocks,
                            check_deviations=check_deviations, say=say)
    res.trials = [{"trial": i, "fitness": t.value, **t.params} for i, t in enumerate(finished)]
    res.importances = importances(space, res.trials)
    res.doc = dict(res.doc, name=name, plan=_plan(rs, league))
    fresh = res.doc.pop("provenance")
    res.doc["provenance"] = _provenance(rs, space, league, players, trials, blocks, seed, study.best_value,
                                        tune_games, wall) | fresh
    return res


def refine(rs, space: SearchSpace, league: League, doc: dict, *, players: int = 4, fresh_blocks: int = 500,
           seed: int = 1, name: str = "tuned", polish_rounds: int = 8, polish_blocks: int = 300,
           check_deviations: bool = True, say=None) -> TuneResult:
    """Polish and check an existing strategy document (no search): the one-step moves on the
    polish seeds of ``seed``, then the fresh-seed and one-step-deviation checks on its fresh seeds.
    The document's own provenance, if any, is kept under ``provenance.refined_from``."""
    say = say or (lambda text: None)
    doc = {k: v for k, v in doc.items() if k not in ("name", "plan")}
    before = doc.pop("provenance", None)
    doc = complete(space, doc, list(rs.card_names))
    Evaluator(rs, League(league.names[:1], league.pols[:1]), players, 1).shares(
        space.compile(doc, list(rs.card_names)), seed)  # compile outside the polish
    say("polishing by one-step moves")
    res = _polish_and_check(rs, space, league, doc, players=players, seed=seed, fresh_blocks=fresh_blocks,
                            polish_rounds=polish_rounds, polish_blocks=polish_blocks,
                            check_deviations=check_deviations, say=say)
    checks = res.doc.pop("provenance")
    res.doc = dict(res.doc, name=name, plan=_plan(rs, league))
    res.doc["provenance"] = {"ruleset": rs.name, "engine": space.engine, "players": players,
                             "league": list(league.names), "seed": seed, "refined": True,
                             **_versions(), **checks}
    if before:
        res.doc["provenance"]["refined_from"] = before
    return res


def complete(space: SearchSpace, doc: dict, card_names) -> dict:
    """``doc`` with every knob it leaves out written in (the value its compiled parameters hold,
    where the format maps back; else the start document's), so one-step moves have a value to move
    from. Raises ValueError naming the knobs to write when filling them would change the strategy."""
    full = doc
    held = space.decompile(space.compile(doc, card_names)[1]) if space.decompile else space.start
    for k in space.knobs:
        if get_in(full, k.key) is None:
            full = set_in(full, k.key, get_in(held, k.key))
    if full is doc:
        return doc
    (k0, p0), (k1, p1) = space.compile(doc, card_names), space.compile(full, card_names)
    if k0 != k1 or not np.array_equal(p0, p1):
        missing = [k.key for k in space.knobs if get_in(doc, k.key) is None]
        raise ValueError(f"--refine: the file leaves out {', '.join(missing)} and its base is not greedy; "
                         "write those keys in it, or start it from base = \"greedy\"")
    return full


def _polish_and_check(rs, space, league, best, *, players, seed, fresh_blocks, polish_rounds, polish_blocks,
                      check_deviations, say) -> TuneResult:
    """The polish (its own seeds) and the checks on fresh seeds, both derived from ``seed``; the
    result's doc carries the check's part of the provenance."""
    card_names = list(rs.card_names)
    polish_ev = Evaluator(rs, league, players, polish_blocks)
    polish_seed = (seed * 0x85EBCA77 + 0x2545F491) % 2**63  # a second seed set, for the polish's choices
    best, moves = polish(space, best, polish_ev, polish_seed, card_names, polish_rounds) if polish_rounds \
        else (best, [])
    res = TuneResult(dict(best))
    res.polish = moves
    fresh_seed = (seed * 0x9E3779B1 + 0x7F4A7C15) % 2**63  # fresh seeds, derived from the tuning seed
    say(f"polish took {len(moves)} move(s); checking on fresh seeds")
    fresh_ev = Evaluator(rs, league, players, fresh_blocks)
    base = fresh_ev.shares(space.compile(best, card_names), fresh_seed)
    for j, n in enumerate(league.names):
        m, lo, hi = block_interval(players * base[j])
        res.fresh.append({"opponent": n, "score": m, "ci_low": max(lo, 0.0), "ci_high": min(hi, float(players)),
                          "win_share": m / players})
    if check_deviations:
        res.deviations = deviations(space, best, base, fresh_ev, fresh_seed, card_names)
    res.doc["provenance"] = _check_provenance(res, players, fresh_seed, fresh_blocks, fresh_ev.games, base) | {
        "polish": [f"{m['knob']}={m['value']} (+{m['delta']:.4f})" for m in moves],
        "polish_seed_blocks": polish_blocks, "polish_games": polish_ev.games}
    return res


def deviations(space, best: dict, base: np.ndarray, ev: Evaluator, seed: int, card_names) -> list[dict]:
    """One step of each knob either way, paired with the best document on the same seeds: the
    difference in mean win share (over opponents, per seed block), its 95% interval, the
    one-sided p-value and Holm's adjustment over the moves; ``improves`` when that is below 5%."""
    from scipy.stats import norm

    from volva.analysis.intervals import holm
    rows = []
    for k in space.knobs:
        for v in k.neighbours(get_in(best, k.key)):
            d = ev.shares(space.compile(set_in(best, k.key, v), card_names), seed)
            diff = (d - base).mean(0)
            m, lo, hi = block_interval(diff)
            se = (hi - m) / 1.96
            p = float(norm.sf(m / se)) if se > 0 else (0.0 if m > 0 else 1.0)
            rows.append({"knob": k.key, "value": ",".join(v) if isinstance(v, list) else v, "new": v, "delta": m,
                         "ci_low": lo, "ci_high": hi, "p": p})
    if rows:
        for r, ph in zip(rows, holm([r["p"] for r in rows])):
            r["p_holm"] = float(ph)
            r["improves"] = bool(ph <= 0.05 and r["delta"] > 0)  # Holm rejects at 5%
    return rows


def polish(space, doc: dict, ev: Evaluator, seed: int, card_names, rounds: int) -> tuple[dict, list[dict]]:
    """Take the largest significant one-step improvement (:func:`deviations`) until none is left
    or ``rounds`` are done; returns the document and the moves taken."""
    taken = []
    base = ev.shares(space.compile(doc, card_names), seed)
    for _ in range(rounds):
        up = [r for r in deviations(space, doc, base, ev, seed, card_names) if r["improves"]]
        if not up:
            break
        best = max(up, key=lambda r: r["delta"])
        doc = set_in(doc, best["knob"], best["new"])
        taken.append({k: best[k] for k in ("knob", "value", "delta", "ci_low", "ci_high", "p_holm")})
        base = ev.shares(space.compile(doc, card_names), seed)
    return doc, taken


def importances(space: SearchSpace, trials: list[dict]) -> dict:
    """knob -> |Spearman rho| of its value with the fitness over the trials (stat orders: by index)."""
    from scipy.stats import spearmanr
    if len(trials) < 5:
        return {}
    f = np.array([t["fitness"] for t in trials])
    out = {}
    for k in space.knobs:
        raw = [t.get(k.key) for t in trials]
        if k.kind == "choice":
            codes = [",".join(c) for c in k.choices]
            raw = [codes.index(x) if x in codes else -1 for x in raw]
        x = np.array(raw, float)
        rho = spearmanr(x, f).statistic if np.ptp(x) > 0 and np.ptp(f) > 0 else 0.0
        out[k.key] = float(abs(rho)) if np.isfinite(rho) else 0.0
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    import numba
    import optuna
    try:
        volva = version("volva")
    except PackageNotFoundError:
        volva = "source"
    return {"versions": {"volva": volva, "numpy": np.__version__, "numba": numba.__version__,
                         "optuna": optuna.__version__}}


def _plan(rs, league) -> str:
    """The file's one-line description: the league, and the modules turned on (rule options 'true'
    whose name a --module maps to)."""
    from volva.simulator.engines import MODULES
    on = [m for m, o in MODULES.items() if rs.options.get(o) in (True, "true")]
    return f"tuned by volva tune against {', '.join(league.names)}" + (f", with {', '.join(on)}" if on else "")


def _provenance(rs, space, league, players, trials, blocks, seed, best_fitness, tune_games, wall) -> dict:
    return {
        "ruleset": rs.name, "engine": space.engine, "players": players, "league": list(league.names),
        "rule_options": dict(rs.options),  # the rules it was tuned under (a module on, an option changed)
        "trials": trials, "seed_blocks_per_opponent": blocks, "seed": seed,
        "games_per_trial": blocks * players * len(league.pols), "tuning_games": tune_games,
        "tuning_seconds": round(wall, 1), "games_per_second": round(tune_games / wall) if wall > 0 else 0,
        "fitness": round(float(best_fitness), 4), "fitness_rule": f"soft minimum over the league, T = {TEMPERATURE}",
        "sampler": f"optuna TPESampler(seed={seed})", **_versions(),
    }


def _check_provenance(res, players, fresh_seed, fresh_blocks, check_games, base) -> dict:
    dev = res.deviations
    return {
        "deviation_test": "one-sided 5%, Holm-corrected over the moves, seed blocks as the unit",
        "fresh_seed": fresh_seed, "fresh_seed_blocks": fresh_blocks, "fresh_games": check_games,
        "fresh_win_share": {r["opponent"]: [round(r["win_share"], 4), round(r["ci_low"] / players, 4),
                                            round(r["ci_high"] / players, 4)] for r in res.fresh},
        "fresh_mean_win_share": round(float(base.mean()), 4),
        "deviations_checked": len(dev), "deviations_improving": [f"{d['knob']}={d['value']}" for d in dev
                                                                 if d["improves"]],
        "one_step_deviation_check": "pass" if dev and not any(d["improves"] for d in dev) else
        ("not run" if not dev else "fail"),
    }


def write_outputs(res: TuneResult, out: Path, name: str) -> list[Path]:
    """The strategy file (OUT/NAME.toml), trials.csv, deviations.csv, importances.csv, tune.json."""
    import pandas as pd
    import tomli_w
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{name}.toml", out / "trials.csv", out / "deviations.csv", out / "importances.csv",
             out / "tune.json"]
    doc = json.loads(json.dumps(res.doc, default=float))  # numpy scalars -> plain numbers
    paths[0].write_text(f"# {name}: written by volva tune (provenance below); a strategy file like any other\n"
                        + tomli_w.dumps(_rounded(doc)))
    pd.DataFrame(res.trials).to_csv(paths[1], index=False)
    pd.DataFrame(res.deviations).drop(columns=["new"], errors="ignore").to_csv(paths[2], index=False)
    pd.DataFrame({"knob": list(res.importances), "abs_spearman": list(res.importances.values())}).to_csv(
        paths[3], index=False)
    paths[4].write_text(json.dumps({"provenance": doc.get("provenance"), "fresh": res.fresh}, indent=1,
                                   default=float) + "\n")
    return paths


def _rounded(x):
    if isinstance(x, float):
        return round(x, 4)
    if isinstance(x, dict):
        return {k: _rounded(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_rounded(v) for v in x]
    return x
