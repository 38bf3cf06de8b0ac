"""Demonstrations on disk (:mod:`uno_env.learn.demo_store`): the same rows back, a collection
reused only when it is the one asked for, and every bad file refused by name."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from safetensors.numpy import save_file

from uno_env.learn.demo_store import (FORMAT, MAX_ABOUT_CHARS, DemonstrationsError, about_collection,
                                       demonstrations, load_demonstrations, save_demonstrations)
from uno_env.learn.imitation import collect_demonstrations
from uno_env.game.rules import make_rules

from helpers import not_a_regular_file, run_bounded

RULES = make_rules("classic", max_steps=400)
NAMES = ("observations", "masks", "actions", "returns", "states")


@pytest.fixture(scope="module")
def demos():
    return collect_demonstrations(RULES, 2, 200, seed=2, critic_state=True)


def same_rows(a, b) -> bool:
    return a.games == b.games and all(
        (getattr(a, n) is None and getattr(b, n) is None) or
        (getattr(a, n).dtype == getattr(b, n).dtype and np.array_equal(getattr(a, n), getattr(b, n)))
        for n in NAMES)


@pytest.mark.parametrize("with_states", [True, False])
def test_a_saved_collection_loads_back_row_for_row(tmp_path, demos, with_states):
    if not with_states:
        demos = collect_demonstrations(RULES, 2, 200, seed=2)
    about = about_collection(RULES, 2, 200, 2, "heuristic", with_states, 1)
    save_demonstrations(demos, tmp_path / "d.safetensors", about)
    loaded, stored = load_demonstrations(tmp_path / "d.safetensors")
    assert same_rows(loaded, demos) and stored == json.loads(json.dumps(about))
    assert [p.name for p in tmp_path.iterdir()] == ["d.safetensors"]  # no temporary file left


def test_the_cache_is_written_once_then_read_and_refused_for_another_collection(tmp_path):
    cache = tmp_path / "sub" / "demos.safetensors"
    first, loaded = demonstrations(RULES, 2, 150, seed=3, cache=cache)
    assert not loaded and cache.is_file()
    second, loaded = demonstrations(RULES, 2, 150, seed=3, cache=cache)
    assert loaded and same_rows(first, second)
    assert same_rows(first, collect_demonstrations(RULES, 2, 150, seed=3))  # exactly what it would collect
    before = cache.read_bytes()
    for change, named in [({"seed": 4}, "seed 3 (asked: 4)"), ({"teacher": "random"}, "teacher 'heuristic'"),
                          ({"critic_state": True}, "critic_state False"), ({"decisions": 151}, "decisions 150")]:
        kwargs = dict(seed=3, cache=cache) | change
        with pytest.raises(DemonstrationsError, match=named.replace("(", r"\(").replace(")", r"\)")):
            demonstrations(RULES, 2, kwargs.pop("decisions", 150), **kwargs)
    with pytest.raises(DemonstrationsError, match="rules"):
        demonstrations(make_rules("house", max_steps=400), 2, 150, seed=3, cache=cache)
    assert cache.read_bytes() == before  # a refused cache is left as it was


def write(path, arrays, **meta):
    metadata = {"format": FORMAT, "games": "3", "about": "{}"} | meta
    save_file(arrays, str(path), metadata={k: v for k, v in metadata.items() if v is not None})
    return path


def arrays_of(demos) -> dict:
    return {n: np.ascontiguousarray(getattr(demos, n)) for n in NAMES}


def test_a_missing_or_foreign_file_is_named(tmp_path):
    with pytest.raises(DemonstrationsError, match="not found"):
        load_demonstrations(tmp_path / "nope.safetensors")
    garbage = tmp_path / "garbage.safetensors"
    garbage.write_bytes(b"\xff" * 64)
    with pytest.raises(DemonstrationsError, match="not a valid safetensors file"):
        load_demonstrations(garbage)


def test_a_pickle_is_never_unpickled(tmp_path):
    class Boom:
        def __reduce__(self):
            return (exec, ("raise SystemExit('code ran')",))

    evil = tmp_path / "evil.safetensors"
    evil.write_bytes(pickle.dumps(Boom()))
    with pytest.raises(DemonstrationsError, match="not a valid safetensors file"):
        load_demonstrations(evil)


@pytest.mark.parametrize("meta,named", [
    ({"format": "other/9"}, "has format 'other/9'"),
    ({"format": None}, "has format None"),
    ({"about": "not json"}, "unreadable metadata"),
    ({"games": "many"}, "unreadable metadata"),
    ({"games": "0"}, "unreadable metadata"),
])
def test_bad_metadata_is_named(tmp_path, demos, meta, named):
    with pytest.raises(DemonstrationsError, match=named):
        load_demonstrations(write(tmp_path / "d.safetensors", arrays_of(demos), **meta))


@pytest.mark.parametrize("about,named", [
    ("[" * 30_000 + "]" * 30_000, r"has metadata 'about' nested too deeply$"),
    ('{"seed": ' + "9" * 5000 + "}", r"has metadata 'about': key 'seed' holds an integer of 5000 digits"),
    (json.dumps({"x": "y" * MAX_ABOUT_CHARS}), rf"has metadata 'about' of {MAX_ABOUT_CHARS + 9} characters "
                                               rf"\(at most {MAX_ABOUT_CHARS}\)"),
    ("[1, 2]", r"has metadata 'about' that is not a JSON object: \[1, 2\]"),
    ("9" * 5000, r"has metadata 'about' is an integer of 5000 digits"),
])
def test_deeply_nested_long_or_odd_metadata_is_named_not_a_recursion_error(tmp_path, demos, about, named):
    with pytest.raises(DemonstrationsError, match=rf"^demonstrations file '.*d\.safetensors' {named}"):
        load_demonstrations(write(tmp_path / "d.safetensors", arrays_of(demos), about=about))


def test_a_fifo_as_the_cache_is_refused_without_waiting(tmp_path):
    path = not_a_regular_file(tmp_path / "demos.safetensors", "FIFO")
    child = run_bounded("import sys; from uno_env.learn.demo_store import load_demonstrations as load\n"
                        "load(sys.argv[1])", args=(path,), timeout_s=60)
    assert not child.timed_out
    assert child.last_line.endswith(f"demonstrations file {path!r} is a FIFO, not a regular file")


def test_bad_tensors_are_named(tmp_path, demos):
    cases = []
    a = arrays_of(demos)
    del a["actions"]
    cases.append((a, r"holds tensors \['masks', 'observations', 'returns', 'states'\]"))
    a = arrays_of(demos) | {"extra": np.zeros(3, np.float32)}
    cases.append((a, "holds tensors"))
    a = arrays_of(demos) | {"observations": demos.observations[:, :10].copy()}
    cases.append((a, r"tensor observations is F32 \[\d+, 10\]"))
    a = arrays_of(demos) | {"returns": demos.returns.astype(np.float64)}
    cases.append((a, "tensor returns is F64"))
    a = arrays_of(demos) | {"returns": demos.returns[:-1].copy()}
    cases.append((a, "same rows"))
    a = arrays_of(demos) | {"actions": np.full_like(demos.actions, 10_000)}
    cases.append((a, "actions outside"))
    illegal = demos.actions.copy()
    illegal[0] = int(np.flatnonzero(~demos.masks[0])[0])
    cases.append((arrays_of(demos) | {"actions": illegal}, "an action its mask does not allow"))
    nan = demos.returns.copy()
    nan[5] = np.nan
    cases.append((arrays_of(demos) | {"returns": nan}, "tensor returns holds NaN"))
    for i, (arrays, named) in enumerate(cases):
        with pytest.raises(DemonstrationsError, match=named):
            load_demonstrations(write(tmp_path / f"d{i}.safetensors", arrays))
