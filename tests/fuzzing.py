"""Shared hypothesis strategies and settings for the ``test_fuzz_*`` modules.

Every fuzz test comes twice: a default-run variant (``FAST``: few examples, derandomized, so
the default suite stays fast and deterministic) and a ``@pytest.mark.slow`` variant (``SLOW``:
many random examples). The property is always the same: the call either works or raises
``ValueError`` (never another exception), and the object stays usable afterwards.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from uno_env.game import actions as A
from uno_env.game import cards as C

FAST = settings(max_examples=30, derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SLOW = settings(max_examples=1500, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

NAMES = A.action_names(C.COLOR_SETS["classic"]) + C.card_names(C.COLOR_SETS["classic"])

# a value of any type a caller might pass by mistake
ANY_VALUE = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-3, A.NUM_ACTIONS + 3),
    st.integers(min_value=10 ** 18), st.floats(), st.floats(0, A.NUM_ACTIONS),
    st.text(max_size=12), st.sampled_from(NAMES), st.binary(max_size=6), st.complex_numbers(),
    st.integers(-3, A.NUM_ACTIONS + 3).map(np.int64), st.integers(0, 255).map(np.uint8),
    st.integers(-128, 127).map(np.int8), st.floats(width=32).map(np.float32),
    st.booleans().map(np.bool_), st.integers(-3, A.NUM_ACTIONS + 3).map(np.array),
    st.floats(0, 10).map(np.array), st.lists(st.integers(0, A.NUM_ACTIONS), max_size=3),
    st.lists(st.integers(0, A.NUM_ACTIONS), min_size=1, max_size=3).map(np.array),
    st.tuples(st.integers(0, 9)), st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
    st.just(object()), st.just(Ellipsis),
)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(-2, 12)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=10) | st.sampled_from(NAMES),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)

# YAML a stranger could write to hurt the reader: integers too long for int() (decimal, with
# signs and underscores; hexadecimal ones are read, sexagesimal ones refused), aliases sharing lists,
# nesting beyond the parser's depth, tags that would run code, explicit keys of any kind
YAML_HOSTILE_SCALARS = st.one_of(
    st.integers(4301, 6000).map(lambda n: "9" * n), st.integers(4301, 6000).map(lambda n: "-" + "1_" * n),
    st.integers(1, 3000).map(lambda n: "0x" + "f" * n), st.integers(1, 50).map(lambda n: ":".join(["59"] * n)),
    st.sampled_from(["1e400", "-.inf", ".nan", "!!python/object/apply:os.system ['true']", "!!binary aGk=",
                     "2001-12-14", "~", "!!set {a, b}", "!!omap [a: 1]", "*undefined"]))


def _alias_bomb(key: str, levels: int) -> str:
    lines = ["a: &l0 [1]"] + [f"l{i}: &l{i} [*l{i - 1}, *l{i - 1}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + f"\n{key}: *l{levels}\n"


def hostile_yaml(keys: list[str]) -> st.SearchStrategy[str]:
    """YAML text (a line or a few) meant to hurt the reader, under one of ``keys``."""
    return st.one_of(
        st.tuples(st.sampled_from(keys), YAML_HOSTILE_SCALARS).map(lambda kv: f"{kv[0]}: {kv[1]}\n"),
        YAML_HOSTILE_SCALARS.map(lambda v: f"? {v}\n: 1\n"),
        st.tuples(st.sampled_from(keys), st.integers(1, 40)).map(lambda kn: _alias_bomb(*kn)),
        st.tuples(st.sampled_from(keys), st.integers(500, 3000)).map(
            lambda kn: f"{kn[0]}: " + "[" * kn[1] + "]" * kn[1] + "\n"),
        st.integers(500, 3000).map(lambda n: "".join("  " * i + f"k{i}:\n" for i in range(n))),
    )


def replace_one_field(data, record, values=JSON) -> None:
    """Walk down ``record`` (a JSON object) to a random field, drawn from ``data``, and replace
    its value with one drawn from ``values``."""
    node = record
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            return
        key = data.draw(st.sampled_from(keys))
        child = node[key]
        if isinstance(child, (dict, list)) and child and data.draw(st.booleans()):
            node = child
            continue
        node[key] = data.draw(values, label="new value")
        return
