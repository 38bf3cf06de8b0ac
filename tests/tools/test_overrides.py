"""The one KEY=VALUE parser of every command line (--set in uno-evaluate, uno-play, train.py)."""

from __future__ import annotations

import pytest

from uno_env.game.rules import make_rules
from uno_env.tools.overrides import parse_override, parse_overrides


def test_values_are_read_as_yaml():
    got = parse_overrides(["stacking=true", "hand_size=5", "learning_rate=1e-4", "uno_call=explicit",
                           "target_score=null", "villain_faces=[1, 2]", "name='7'", " jump_in = yes "])
    assert got == {"stacking": True, "hand_size": 5, "learning_rate": 1e-4, "uno_call": "explicit",
                   "target_score": None, "villain_faces": [1, 2], "name": "7", "jump_in": True}
    assert type(got["hand_size"]) is int and type(got["learning_rate"]) is float
    assert parse_overrides(["a=2E3", "b=-1.5e+2", "c='1e-4'", "d=e5"]) == {"a": 2000.0, "b": -150.0,
                                                                           "c": "1e-4", "d": "e5"}


def test_empty_value_is_the_empty_string_and_later_items_win():
    assert parse_overrides(["name=", "max_steps=10", "max_steps=20"]) == {"name": "", "max_steps": 20}
    assert parse_overrides([]) == {} and parse_overrides(None) == {}


def test_a_command_lines_own_flags_win_over_the_items_and_unset_flags_change_nothing():
    items = ["total_steps=100", "n_envs=4"]
    assert parse_overrides(items, total_steps=512, time_limit_min=None) == {"total_steps": 512, "n_envs": 4}
    assert parse_overrides(items, total_steps=None) == {"total_steps": 100, "n_envs": 4}


def test_only_the_first_equals_sign_splits():
    assert parse_override("name=a=b") == ("name", "a=b")


@pytest.mark.parametrize("item,reason", [
    ("stacking", "no '='"),
    ("=true", "key must be an option name"),
    ("two words=1", "key must be an option name"),
    ("hand-size=3", "key must be an option name"),
    ("villain_faces=[1, 2", "not valid YAML"),
    ("name=: x: y", "not valid YAML"),
])
def test_a_malformed_item_is_an_error_naming_it(item, reason):
    with pytest.raises(ValueError) as info:
        parse_overrides(["hand_size=3", item])
    assert repr(item) in str(info.value) and reason in str(info.value)
    assert str(info.value).startswith("--set ")


def test_the_option_name_is_part_of_the_message():
    with pytest.raises(ValueError, match="^--rule expects KEY=VALUE"):
        parse_override("oops", option="--rule")


def test_parsed_values_build_rules():
    rules = make_rules("tmnt", **parse_overrides(["uno_call=explicit", "villain_faces=[1, 2]", "hand_size=5"]))
    assert rules.uno_call == "explicit" and rules.villain_faces == ("1", "2") and rules.hand_size == 5
