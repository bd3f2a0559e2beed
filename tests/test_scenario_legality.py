"""Issue 15: a scenario step is refused by the engine's own legality check (``can_act_nb``,
``legal_actions_nb``); the scenario runner's reasons only explain a refusal. Over random
positions and every action a scenario file can name, the runner finds a reason exactly when the
engine does not list the action (DIGEST §1.5 Action), and every action the engine lists can be
named by a scenario step."""
from __future__ import annotations

import random

import pytest

from volva.simulator.bloodrage.scenario import load_scenario
from volva.simulator.core import enums as E
from volva.simulator.core.loading import ScenarioError
from volva.strategies.lineup import resolve_for

N_POSITIONS = 1000
UPGRADE = {"leader", "warrior", "ship", "monster", "clan"}


def _base():
    return load_scenario("legality.toml", {"players": 2, "age": 1, "clan": [{}, {}]}, resolve_for("blood-rage"))


def _cards(sc, age):
    """(name@age, type) of every card of an age."""
    r, T = sc.r, sc.T
    return sorted({(f"{r.card_names[c]}@{age}", E.CARD_TYPE_NAMES[int(T.card_type[c])].lower())
                   for c in range(r.n_cards) if int(T.card_age[c]) == age})


def _position(rng, sc0):
    """A random scenario table: players, destroyed and pillaged provinces, each clan's stats, Rage,
    hand, upgrades and figures (kept within villages and Horns)."""
    r, T = sc0.r, sc0.T
    P, age = rng.randint(2, 5), rng.randint(1, 3)
    outer = list(r.province_names[:E.N_OUTER])
    destroyed = rng.sample(outer, rng.randint(0, 2))
    standing = [n for n in r.province_names if n not in destroyed]
    pillaged = rng.sample(standing, rng.randint(0, 3))
    room = {n: (99 if T.prov_villages[i] < 0 else int(T.prov_villages[i]))
            for i, n in enumerate(r.province_names) if n in standing}
    fjords = [f"{n} fjord" for n in r.fjord_names]
    cards = _cards(sc0, age)
    ups = [(n, t) for n, t in cards if t in UPGRADE]
    clans = []
    for _ in range(P):
        stats = {s: rng.randint(1, 6) for s in E.STAT_NAMES}
        hand = [n for n, _ in rng.sample(cards, rng.randint(0, 5))]
        upgrades, seen = [], {}
        for n, t in rng.sample(ups, rng.randint(0, 3)):
            cap = {"monster": 2, "clan": 3}.get(t, 1)
            if seen.get(t, 0) < cap:
                upgrades.append(n)
                seen[t] = seen.get(t, 0) + 1
        monsters = [n.split("@")[0] for n in upgrades if dict(ups)[n] == "monster"]
        figs: dict[str, list[str]] = {}
        kinds = ["leader", "ship"] + ["warrior"] * rng.randint(0, 6) + monsters
        horns = 99  # the builder checks Horns; a rejected position is drawn again
        for k in kinds:
            where = rng.choice(["reserve", "reserve", "Valhalla", "board", "board", "board"])
            if where == "board" and horns > 0:
                if k == "ship" or (k in monsters and "serpent" in k.lower()):
                    where = rng.choice(fjords)
                else:
                    opts = [n for n in room if room[n] > 0 and (n != "Yggdrasil" or rng.random() < 0.3)]
                    if not opts:
                        continue
                    where = rng.choice(opts)
                    room[where] -= 1
            elif where == "board":
                continue
            if where != "reserve":
                figs.setdefault(where, []).append(k)
        clans.append({"stats": stats, "rage": rng.choice([0, 1, 1, 2, 3, 5, 8]), "hand": hand,
                      "upgrades": upgrades, "figures": figs})
    return {"players": P, "age": age, "destroyed": destroyed, "pillaged": pillaged, "clan": clans}


def _candidates(sc, p):
    """Every action step a scenario file can name for clan p (names, not engine codes)."""
    r, S = sc.r, sc.S
    provs = list(r.province_names)
    locs = provs + [f"{n} fjord" for n in r.fjord_names]
    mons = [r.card_names[int(c)] for c in S.upg[p, E.SLOT_MONSTER0:E.SLOT_MONSTER0 + E.N_MONSTER_SLOTS] if c >= 0]
    for fig in ["leader", "warrior", "ship"] + mons:
        for at in ("", "@Valhalla"):
            for to in locs:
                yield {"action": "invade", "figure": fig + at, "to": to}
    for src in locs:
        for dst in provs:
            yield {"action": "march", "from": src, "to": dst}
    age = int(sc.age)
    for c in sorted({int(x) for x in S.hand[p, :S.hand_n[p]]}):
        name = f"{r.card_names[c]}@{int(sc.T.card_age[c]) or age}"
        yield {"action": "quest", "card": name}
        yield {"action": "upgrade", "card": name}
        for slot in E.SLOT_NAMES:
            yield {"action": "upgrade", "card": name, "slot": slot}
    for pr in provs:
        yield {"action": "pillage", "province": pr}
        yield {"action": "challenge", "province": pr}
    yield {"action": "sacrifice"}
    yield {"action": "pass"}


def _source(st):
    return E.LOC_VALHALLA if st["figure"].endswith("@Valhalla") else E.LOC_RESERVE


def test_runner_reasons_agree_with_the_engine_over_random_positions():
    from volva.simulator.bloodrage.actions import can_act_nb
    rng = random.Random(15)
    sc0 = _base()
    positions = checked = 0
    while positions < N_POSITIONS:
        try:
            sc = load_scenario("legality.toml", _position(rng, sc0), resolve_for("blood-rage"))
        except ScenarioError:
            continue  # over Horns, or a figure where it cannot stand: draw again
        positions += 1
        for p in range(sc.P):
            if not can_act_nb(sc.S, p):
                continue
            legal = sc.legal_actions(p)
            named, disagree = set(), []
            for st in _candidates(sc, p):
                t, a, b, why, _ = sc.action_args("step", st, p, st["action"])
                if t == E.A_INVADE and int(sc.S.loc[p, a]) != _source(st):
                    continue  # the step names a figure where it is not: an engine code for another move
                checked += 1
                if (why is None) != ((t, a, b) in legal):
                    disagree.append((st, why, (t, a, b) in legal))
                if why is None:
                    named.add((t, a, b))
            assert not disagree, f"position {positions}, clan {p}: {disagree[:3]}"
            assert named == legal, f"position {positions}, clan {p}: engine-only {sorted(legal - named)[:5]}"
    assert positions == N_POSITIONS and checked > 100 * N_POSITIONS


@pytest.mark.parametrize("rage, passed, needle", [(0, False, "has 0 Rage"), (3, True, "passed this Action phase")])
def test_a_clan_that_cannot_act_is_refused_by_the_engine_check(tmp_path, rage, passed, needle):
    p = tmp_path / "s.toml"
    p.write_text(f'players = 2\nage = 1\n[[clan]]\nrage = {rage}\npassed = {str(passed).lower()}\n'
                 f'[[clan]]\n[[step]]\nclan = 0\naction = "pass"\n')
    from volva.strategies.lineup import run_scenario
    with pytest.raises(ScenarioError, match=needle):
        run_scenario(p)


# --- Blood Rage: Valhalla: the action kernels decide, illegal() explains ----------------------

def _vh_position(rng, names, regions, cards):
    P = rng.randint(3, 5)
    common = [r for r in regions if r != "Valhalla"]
    clans = []
    for _ in range(P):
        figs: dict[str, list[str]] = {}
        for kind, n in (("elite", 2), ("warrior", 6)):
            for _ in range(rng.randint(0, n)):
                figs.setdefault(rng.choice(regions), []).append(kind)
        clans.append({"rage": rng.choice([0, 1, 1, 2, 3, 6]), "figures": figs,
                      "hand": rng.sample(cards, rng.randint(0, 4))})
    return {"ruleset": "valhalla", "players": P, "age": rng.randint(1, 3),
            "tokens": rng.sample(common, rng.randint(0, 2)), "clan": clans}


def test_valhalla_runner_reasons_agree_with_the_kernels():
    """Over 300 random Blood Rage: Valhalla positions, every contest, summon, march, upgrade and quest
    a file can name: the runner's illegal() finds no reason exactly when the action's kernel plays it
    (the kernel alone decides a step; illegal() words the refusal)."""
    import numpy as np

    from volva.simulator.valhalla import engine as V
    from volva.simulator.valhalla.scenario import load_scenario as load_vh
    rng = random.Random(16)
    resolve = resolve_for("valhalla")
    probe = load_vh("v.toml", {"ruleset": "valhalla", "players": 3, "clan": [{}, {}, {}]}, resolve)
    regions, cards = list(probe.r.region_names), list(probe.r.card_names)
    positions = checked = played = 0
    while positions < 300:
        try:
            sc = load_vh("v.toml", _vh_position(rng, None, regions, cards), resolve)
        except ScenarioError:
            continue
        positions += 1
        kind, par = resolve("greedy")
        kinds, params = np.full(sc.P, kind, np.int8), np.tile(par, (sc.P, 1))
        S = sc.S
        for p in range(sc.P):
            if not V.can_act_nb(S, p):
                continue
            here = {(int(S.loc[p, f]), "elite" if f < E.VH_FIG_WARRIOR0 else "warrior")
                    for f in range(E.VH_FIG_MONSTER0) if S.loc[p, f] >= 0}
            steps = [{"action": "contest", "region": r} for r in regions]
            steps += [{"action": "summon", "region": r, "figure": k} for r in regions for k in ("elite", "warrior")
                      if any(S.loc[p, f] == E.VH_LOC_RESERVE and (f < E.VH_FIG_WARRIOR0) == (k == "elite")
                             for f in range(E.VH_FIG_MONSTER0))]
            steps += [{"action": "march", "region": regions[loc], "moves": [[k, d]]} for loc, k in here for d in regions]
            steps += [{"action": a, "card": c} for c in rng.sample(cards, 6) + [cards[int(x)] for x in S.hand[p, :S.hand_n[p]]]
                      for a in ("upgrade", "quest")]
            for st in steps:
                why = sc.illegal(p, st["action"], st)
                snap = {n: np.array(S[n], copy=True) for n in S.dtype.names}
                ok = sc.play_action("step", st, p, st["action"], kinds, params)
                for n, v in snap.items():
                    S[n] = v
                checked += 1
                played += ok
                assert (why == "") == ok, f"position {positions}, clan {p}, {st}: illegal() says {why!r}, kernel {ok}"
    assert checked > 10000 and 0 < played < checked
