"""``State.clone``: the one copy of an engine state (search deals, rollouts, the soak's trial steps).

* Every field is copied or holds an immutable value: a list or array of the clone is a new
  object with the same items, and changing it leaves the original alone; any other value is
  immutable. A new mutable field that ``clone`` does not copy fails here, by name.
* A clone played to the end leaves the original as it was; the generator is shared unless
  another one is given.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from uno_env.game.engine import Engine, State
from uno_env.game.events import Event
from uno_env.game.rules import make_rules

IMMUTABLE = (bool, int, float, np.integer, np.floating, type(None), Event)


def mid_game(preset: str = "house", n: int = 4, steps: int = 80, seed: int = 3) -> tuple[Engine, State]:
    """A state some random legal steps into a game, events recorded, its legal actions cached."""
    engine = Engine(make_rules(preset), n, record_events=True)
    s = engine.new_state(np.random.default_rng(seed))
    pick = np.random.default_rng(seed + 1)
    for _ in range(steps):
        legal = engine.legal_actions(s)
        if not legal:
            break
        engine.step(s, legal[int(pick.integers(len(legal)))])
    engine.legal_actions(s)
    return engine, s


def values(s: State) -> dict:
    """Every field's value as plain data (arrays as lists), the generator as its state."""
    out = {}
    for f in dataclasses.fields(State):
        v = getattr(s, f.name)
        out[f.name] = (v.bit_generator.state if f.name == "rng" else v.tolist() if isinstance(v, np.ndarray)
                       else list(v) if isinstance(v, list) else v)
    return out


def test_a_clone_copies_every_mutable_field_and_shares_only_immutable_values():
    _, s = mid_game()
    assert s.events and s.legal_cache
    for f in dataclasses.fields(State):  # a field that may hold a list but is None now: give it one
        if getattr(s, f.name) is None and "list" in str(f.type):
            setattr(s, f.name, [0])
    t = s.clone()
    for f in dataclasses.fields(State):
        name, a, b = f.name, getattr(s, f.name), getattr(t, f.name)
        if name == "legal_cache":
            assert b is None, "a clone drops the legal-action cache (the clone is stepped on its own)"
        elif name == "rng":
            assert b is a
        elif isinstance(a, np.ndarray):
            assert b is not a and np.array_equal(a, b), f"State.clone does not copy State.{name}"
            before = a.copy()
            b.flat[0] += 1
            assert np.array_equal(a, before), f"changing the clone's State.{name} changed the original"
        elif isinstance(a, list):
            assert b is not a and b == a, f"State.clone does not copy State.{name}"
            assert all(isinstance(x, IMMUTABLE + (tuple,)) for x in a), f"State.{name} holds mutable items"
            b.append(None)
            assert None not in a, f"changing the clone's State.{name} changed the original"
        else:
            assert isinstance(a, IMMUTABLE), (f"State.{name} holds a {type(a).__name__}: copy it in "
                                              "State.clone (or make it immutable)")
            assert b == a


@pytest.mark.parametrize("preset,n", [("classic", 2), ("house", 4), ("tmnt", 3)])
def test_a_clone_played_to_the_end_leaves_the_original_as_it_was(preset, n):
    engine, s = mid_game(preset, n, steps=20)
    before = values(s)
    t = s.clone(rng=np.random.default_rng(9))
    pick = np.random.default_rng(0)
    while not t.game_over and t.steps < 5000:
        legal = engine.legal_actions(t)
        engine.step(t, legal[int(pick.integers(len(legal)))])
    assert t.steps > before["steps"]
    assert values(s) == before


def test_the_generator_is_shared_unless_another_is_given():
    _, s = mid_game(steps=5)
    assert s.clone().rng is s.rng
    g = np.random.default_rng(1)
    t = s.clone(rng=g)
    assert t.rng is g and s.rng is not g
