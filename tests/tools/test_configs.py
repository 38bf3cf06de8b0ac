"""Typed, validated configs (:mod:`uno_env.tools.configs`), shared by both training scripts."""

from __future__ import annotations

import dataclasses
import os
import sys
from dataclasses import dataclass, field

import pytest

from uno_env.game.rules import Rules
from uno_env.tools import configs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass
class Example:
    steps: int = 10
    rate: float | None = None
    kind: str = "a"
    phases: list = field(default_factory=lambda: [{"until": 1.0, "opponents": {"random": 1.0}}])


CHECKS = {"steps": configs.integer(1), "rate": configs.real(0, low_open=True, optional=True),
          "kind": configs.choice("a", "b"), "phases": configs.phases()}


def load(tmp_path, text, overrides=None):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return configs.load_config(Example, CHECKS, str(path), overrides)


def test_values_are_checked_exactly_and_named_with_their_source(tmp_path):
    assert load(tmp_path, "steps: 3\nrate: null\n") == Example(steps=3)
    for text, message in [("steps: true\n", "config key 'steps' must be an integer >= 1, got True"),
                          ("steps: 1.0\n", "config key 'steps' must be an integer >= 1, got 1.0"),
                          ("rate: .nan\n", "config key 'rate' must be a number > 0 or null"),
                          ("kind: c\n", "config key 'kind' must be a or b, got 'c'"),
                          ("stepz: 3\n", "unknown config keys ['stepz']")]:
        with pytest.raises(ValueError) as exc:
            load(tmp_path, text)
        assert str(exc.value).startswith(str(tmp_path / "c.yaml") + ": ") and message in str(exc.value)
    with pytest.raises(ValueError, match=r"^--set: config key 'steps'"):
        load(tmp_path, "steps: 3\n", {"steps": 0})


@pytest.mark.parametrize("phases,message", [
    ([], "config key 'phases' must be a non-empty list"),
    ("random", "config key 'phases' must be a non-empty list"),
    ([{"until": 0, "opponents": {"random": 1}}], "phases[0].until must be"),
    ([{"until": 1, "opponents": {"random": 1}}, {"opponents": {"random": 0}}], "phases[1].opponents must map"),
    ([{"until": 1, "opponent": {"random": 1}}], "phases[0] must be {until"),
])
def test_phases_errors_name_the_entry(phases, message):
    problem = configs.phases().problem("phases", phases)
    assert problem is not None and message in problem


def test_no_config_key_of_either_script_is_also_a_rule_option():
    """``--set`` routes a key to the config or to the rules: never ambiguous."""
    sys.path.insert(0, os.path.join(ROOT, "training"))
    import train
    import train_rllib

    rule_keys = {f.name for f in dataclasses.fields(Rules)}
    for cls in (train.Config, train_rllib.Config):
        assert not {f.name for f in dataclasses.fields(cls)} & rule_keys
        config_sets, rule_sets = configs.split_overrides(cls, {"seed": 1, "stacking": True})
        assert config_sets == {"seed": 1} and rule_sets == {"stacking": True}
    with pytest.raises(ValueError, match="neither"):
        configs.split_overrides(train.Config, {"nonsense": 1})


def test_both_scripts_check_every_key_of_their_config():
    sys.path.insert(0, os.path.join(ROOT, "training"))
    import train
    import train_rllib

    for module in (train, train_rllib):
        assert set(module._CONFIG_CHECKS) == {f.name for f in dataclasses.fields(module.Config)}
        defaults = module.Config()
        for key, check in module._CONFIG_CHECKS.items():
            assert check.problem(key, getattr(defaults, key)) is None, (module.__name__, key)
