"""The codes the kernels and the Python side share (simulator/core/enums.py, the state headers,
the invariant codes, the opcode vocabularies) are unique, dense where the kernels index tables
by them, and agree with their name tuples and data files."""
from __future__ import annotations

import tomllib

import pytest

from volva.simulator.core import enums as E
from volva.simulator.core import record
from volva.simulator.core.loading import DATA_DIR


def codes(prefix: str, module=E, exclude=()) -> dict[str, int]:
    """Module constants named PREFIX* with int values (minus ``exclude``)."""
    return {k: v for k, v in vars(module).items()
            if k.startswith(prefix) and isinstance(v, int) and not isinstance(v, bool) and k not in exclude}


# (prefix, count constant or None, names tuple or None, constants that are not codes of the group)
GROUPS = [
    ("STAT_", "N_STATS", "STAT_NAMES", ()),
    ("REWARD_", None, "REWARD_NAMES", ()),
    ("CT_", None, "CARD_TYPE_NAMES", ()),
    ("GP_", "N_GOD_POWERS", "GOD_POWER_NAMES", ()),
    ("OP_", "N_OPCODES", None, ("OP_NONE",)),
    ("HOOK_", None, "HOOK_NAMES", ()),
    ("G_", "N_GLORY_SRC", "GLORY_SOURCE_NAMES", ()),
    ("M_", None, "MISSION_NAMES", ()),
    ("EV_", "N_EVENTS", None, ()),
    ("PH_", None, "PHASE_NAMES", ()),
    ("USE_", None, "USE_NAMES", ()),
    ("VCT_", None, "VH_CARD_TYPE_NAMES", ()),
    ("VOP_", "N_VOPS", None, ("VOP_NONE", "VOP_QUESTS")),
    ("VEV_", "N_VEVS", None, ()),
    ("VPH_", None, "VH_PHASE_NAMES", ()),
    ("VA_", None, "VH_ACTION_NAMES", ()),
    ("VGP_", None, "VH_GOD_NAMES", ()),
    ("VR_", None, "VH_REWARD_NAMES", ()),
    ("VOPT_", "N_VOPTS", None, ()),
]


@pytest.mark.parametrize("prefix,count,names,exclude", GROUPS, ids=[g[0] for g in GROUPS])
def test_codes_unique_dense_and_named(prefix, count, names, exclude):
    c = codes(prefix, exclude=exclude)
    assert c, prefix
    vals = sorted(c.values())
    assert len(set(vals)) == len(vals), f"{prefix}* codes repeat: {c}"
    assert vals == list(range(len(vals))), f"{prefix}* codes are not 0..n-1: {vals}"
    if count:
        assert getattr(E, count) == len(vals), f"{count} = {getattr(E, count)}, {len(vals)} codes"
    if names:
        assert len(getattr(E, names)) == len(vals), f"{names} has {len(getattr(E, names))} names for {len(vals)} codes"


def test_state_headers_share_indices():
    from volva.simulator.bloodrage import state as B
    from volva.simulator.valhalla import state as V
    head = codes("G_", record)
    assert sorted(head.values()) == list(range(record.N_HEADER))
    for eng in (B, V):
        for k, v in head.items():
            assert getattr(eng, k) == v, f"{eng.__name__}.{k}"
        own = {k: v for k, v in codes("G_", eng).items() if k not in head}
        assert sorted(own.values()) == list(range(record.N_HEADER, eng.N_GS)), eng.__name__


def test_invariant_codes_are_namespaced_per_engine():
    from volva.simulator.bloodrage import invariants as BI
    from volva.simulator.valhalla import invariants as VI
    b = codes("INV_", BI)
    v = codes("INV_", VI, exclude=("INV_FIRST", "INV_FIRST_VALHALLA"))
    assert len(set(b.values())) == len(b) and len(set(v.values())) == len(v)
    assert all(0 < x < record.INV_FIRST_VALHALLA for k, x in b.items() if k != "INV_OK")
    assert all(record.INV_FIRST_VALHALLA < x < 64 for k, x in v.items() if k != "INV_OK")
    assert set(BI.INV_NAMES) == set(b.values()) and set(VI.INV_NAMES) == set(v.values())


@pytest.mark.parametrize("folder,prefix,exclude", [("blood-rage", "OP_", ("OP_NONE",)),
                                                   ("valhalla", "VOP_", ("VOP_NONE", "VOP_QUESTS"))])
def test_opcode_files_match_the_kernels(folder, prefix, exclude):
    """Every opcode of the data file names a kernel code of the same name, and every kernel code has one."""
    with open(DATA_DIR / folder / "opcodes.toml", "rb") as fh:
        ops = tomllib.load(fh)
    c = codes(prefix, exclude=exclude)
    assert {f"{prefix}{name.upper()}": spec["code"] for name, spec in ops.items()} == c
