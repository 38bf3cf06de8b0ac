"""Hypothesis fuzzing of rule configs: mappings with random keys and values, keyword overrides
and YAML files of random text or bytes. ``make_rules`` either returns valid :class:`Rules` or
raises ``ValueError``; valid rules always give an env that deals and plays."""

from __future__ import annotations

import dataclasses
import os
import random
import tempfile

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

import uno_env
from uno_env.game import cards as C
from uno_env.game.rules import LIMITS, PRESETS, Rules, make_rules

from fuzzing import ANY_VALUE, FAST, SLOW, JSON, hostile_yaml

FIELDS = sorted(f.name for f in dataclasses.fields(Rules))
KEYS = st.one_of(st.sampled_from(FIELDS + ["preset"]), st.sampled_from(FIELDS), st.text(max_size=8),
                 st.integers(), st.none(), st.booleans())
SENSIBLE = st.one_of(
    st.integers(-2, 120), st.sampled_from([0, 1, 2, 7, 50, 100, 101, 10 ** 7, 10 ** 9]),
    st.booleans(), st.sampled_from(sorted(PRESETS) + ["classic", "tmnt", "auto", "explicit", "one",
                                                      "until_playable", "round", "game", "rounds",
                                                      "standard", "alternative"]),
    st.lists(st.sampled_from(list(C.FACE_NAMES) + ["x", "1"]), max_size=4),
    st.lists(st.integers(-1, 11), max_size=3),
)
VALUES = st.one_of(SENSIBLE, SENSIBLE, ANY_VALUE, JSON)
MAPPINGS = st.dictionaries(KEYS, VALUES, max_size=6)
# mostly valid deck and rule values, so that odd but valid rulesets get played
PLAYABLE = st.fixed_dictionaries({}, optional={
    **{name: st.integers(*LIMITS[name]) for name in LIMITS if name.startswith("count_")},
    "hand_size": st.integers(1, 12), "draw_rule": st.sampled_from(["one", "until_playable"]),
    "stacking": st.booleans(), "jump_in": st.booleans(), "seven_slap": st.booleans(),
    "giving": st.booleans(), "winner_starts": st.booleans(), "wd4_bluff": st.booleans(),
    "challenge": st.booleans(), "uno_call": st.sampled_from(["auto", "explicit"]),
    "episode": st.sampled_from(["round", "game", "rounds"]), "num_rounds": st.integers(1, 3),
    "target_score": st.integers(1, 300), "villain_faces": st.lists(st.sampled_from(C.FACE_NAMES),
                                                                   unique=True, max_size=3),
    "preset": st.sampled_from(sorted(PRESETS)), "uno_penalty": st.integers(0, 4),
})


def plays(rules: Rules, num_players: int, seed: int, steps: int = 150) -> None:
    """Valid rules deal and play ``steps`` random legal decisions (or are refused for the
    player count with ValueError)."""
    try:
        env = uno_env.env(rules=rules, num_players=num_players, max_steps=steps)
    except ValueError as e:
        assert "cannot deal" in str(e)
        return
    env.reset(seed=seed)
    pick = random.Random(seed)
    while env.agents:
        agent = env.agent_selection
        dead = env.terminations[agent] or env.truncations[agent]
        env.step(None if dead else pick.choice(env.legal_actions()))


def fuzz_mapping(data) -> None:
    mapping = data.draw(st.one_of(MAPPINGS, PLAYABLE), label="mapping")
    try:
        rules = make_rules(mapping)
    except ValueError:
        return
    assert isinstance(rules, Rules) and make_rules(rules.to_dict()) == rules
    plays(rules, data.draw(st.integers(2, 10), label="players"), data.draw(st.integers(0, 1000)))


@FAST
@given(st.data())
def test_fuzz_rules_mappings_give_rules_that_play_or_value_errors(data):
    fuzz_mapping(data)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_fuzz_rules_mappings_give_rules_that_play_or_value_errors_long(data):
    fuzz_mapping(data)


def fuzz_overrides(data) -> None:
    base = data.draw(st.sampled_from(sorted(PRESETS)))
    keys = st.one_of(st.sampled_from(FIELDS), st.text(max_size=8).filter(lambda k: k != "rules"))
    overrides = data.draw(st.dictionaries(keys, VALUES, max_size=4))  # rules=...: Python's TypeError
    try:
        make_rules(base, **overrides)
    except ValueError:
        pass


@FAST
@given(st.data())
def test_fuzz_keyword_overrides(data):
    fuzz_overrides(data)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_fuzz_keyword_overrides_long(data):
    fuzz_overrides(data)


HOSTILE = hostile_yaml(FIELDS + ["preset", "x"])


def fuzz_yaml_file(data) -> None:
    content = data.draw(st.one_of(
        st.binary(max_size=200),
        st.text(max_size=200).map(str.encode),
        st.dictionaries(KEYS, st.one_of(SENSIBLE, JSON), max_size=5).map(
            lambda d: yaml.safe_dump(d, allow_unicode=True).encode()),
        PLAYABLE.map(lambda d: yaml.safe_dump(d).encode()),
        st.tuples(PLAYABLE.map(lambda d: yaml.safe_dump(d) if d else ""), HOSTILE).map(
            lambda parts: (parts[0] + parts[1]).encode()),
    ), label="yaml")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "fuzz.yaml")
        with open(path, "wb") as fh:
            fh.write(content)
        try:
            rules = make_rules(path)
        except ValueError as e:
            assert "fuzz.yaml" in str(e)
            return
    assert isinstance(rules, Rules)


@FAST
@given(st.data())
def test_fuzz_rules_yaml_files(data):
    fuzz_yaml_file(data)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_fuzz_rules_yaml_files_long(data):
    fuzz_yaml_file(data)
