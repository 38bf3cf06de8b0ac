"""Typed, validated configs (:mod:`uno_env.learn.configs`), shared by both training scripts."""

from __future__ import annotations

import dataclasses
import os
import sys
from dataclasses import dataclass, field

import pytest

from uno_env.agents import checkpoint as ckpt
from uno_env.game.rules import MAX_YAML_BYTES, Rules, show_value
from uno_env.learn import configs
from uno_env.tools.overrides import parse_overrides

from helpers import NOT_REGULAR, not_a_regular_file, run_bounded

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


@pytest.mark.parametrize("key", sorted(configs.REMOVED_KEYS))
def test_a_removed_option_is_refused_saying_where_its_study_is_written_up(tmp_path, key):
    """A file, ``--set`` and a split of ``--set`` that name a removed option each fail with the
    section of the research log that holds its study, and that section exists there."""
    section = configs.REMOVED_KEYS[key][1]
    said = f"config key {key!r} was removed: the option was measured and gave no gain " \
           f"(docs/4p-experiments.md, \"{section}\"); leave it out"
    with pytest.raises(ValueError) as exc:
        load(tmp_path, f"{key}: 1\n")
    assert str(exc.value) == f"{tmp_path / 'c.yaml'}: {said}"
    with pytest.raises(ValueError) as exc:
        load(tmp_path, "steps: 3\n", {key: 1})
    assert str(exc.value) == f"--set: {said}"
    with pytest.raises(ValueError) as exc:
        configs.split_overrides(Example, {key: "0.5", "steps": 2})
    assert str(exc.value) == f"--set: {said}"
    with open(os.path.join(ROOT, configs.RESEARCH_LOG), encoding="utf-8") as f:
        assert f"### {section}\n" in f.read()


def test_a_card_recording_a_removed_option_switched_off_is_the_run_as_trained_now():
    off = {key: value for key, (value, _) in configs.REMOVED_KEYS.items()}
    configs.check_removed_in_card({"critic": "state", **off}, "runs/x")  # 0.5.5-0.5.13 cards
    configs.check_removed_in_card({"critic": "obs"}, "runs/x")  # and those before
    with pytest.raises(ValueError, match=r"^runs/x was trained with hand_loss_coef: 1.0, an option since "
                                         r"removed \(docs/4p-experiments.md, \"An auxiliary"):
        configs.check_removed_in_card({**off, "hand_loss_coef": 1.0}, "runs/x")
    with pytest.raises(ValueError, match=r"oracle_fade: \[0.3, 0.7\], an option since removed"):
        configs.check_removed_in_card({**off, "oracle_fade": [0.3, 0.7]}, "runs/x")


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


# ---------------------------------------------------------------------- the file, read with bounds
SHARED_LOADER = ("import sys; from uno_env.learn import configs\n"
                 "configs.load_config(configs.TrainingConfig, configs.TRAINING_CHECKS, sys.argv[1])")


@pytest.mark.parametrize("kind", ["2 MB list", "FIFO", "character device"])
def test_a_config_too_large_or_not_a_regular_file_is_refused_at_once_in_bounded_memory(tmp_path, kind):
    """The reader both training scripts share: a 2 MB list costs nothing, a FIFO is not waited on."""
    path = tmp_path / "train.yaml"
    if kind in NOT_REGULAR:
        not_a_regular_file(path, kind)
        expected = f"is a {kind}, not a regular file"
    else:
        path.write_text("net_arch:\n" + "- 256\n" * 300_000)
        expected = f"has {path.stat().st_size} bytes (at most {MAX_YAML_BYTES})"
    child = run_bounded(SHARED_LOADER, args=(str(path),), memory_mb=500, timeout_s=60)
    assert not child.timed_out and child.returncode == 1
    assert child.last_line.endswith(f"config {str(path)!r} {expected}")


def test_a_5000_digit_integer_in_a_config_names_the_file_and_the_key(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(f"phases: [{{until: {'9' * 5000}, opponents: {{random: 1}}}}]\n")
    with pytest.raises(ValueError, match=r"^config '.*c\.yaml': key 'phases\[0\]\.until' holds an integer "
                                         r"of 5000 digits, too long to read$"):
        configs.load_config(configs.TrainingConfig, configs.TRAINING_CHECKS, str(path))
    with pytest.raises(ValueError, match=r"--set 'seed=9999.*': the value is an integer of 5000 digits"):
        parse_overrides([f"seed={'9' * 5000}"])



@pytest.mark.parametrize("key", ["clip_range", "learning_rate", "gamma"])
def test_an_integer_beyond_a_floats_range_for_a_real_key_is_a_value_error_naming_the_key(tmp_path, key):
    """YAML reads ``0xfff...`` (256 hex digits: 1,024 bits) as an int no float can hold; the
    check says it is not a number instead of raising OverflowError (found by the fuzz test)."""
    path = tmp_path / "c.yaml"
    path.write_text(f"{key}: 0x{'f' * 256}\n")
    with pytest.raises(ValueError, match=rf"c\.yaml: config key '{key}' must be a number .*, got <integer of 1024 bits>$"):
        configs.load_config(configs.TrainingConfig, configs.TRAINING_CHECKS, str(path))

# ---------------------------------------------------------------------- what a checkpoint and the machine hold
@pytest.mark.parametrize("net_arch", [[ckpt.MAX_WIDTH + 1], [64] * (ckpt.MAX_HIDDEN_LAYERS + 1), [], [0]])
def test_layers_a_checkpoint_cannot_hold_are_refused_naming_net_arch(net_arch):
    assert configs.TRAINING_CHECKS["net_arch"].problem("net_arch", net_arch) == (
        f"config key 'net_arch' must be a list of 1..{ckpt.MAX_HIDDEN_LAYERS} layer sizes, each in "
        f"1..{ckpt.MAX_WIDTH} (what a checkpoint holds), got {show_value(net_arch)}")
    assert configs.TRAINING_CHECKS["net_arch"].problem("net_arch", [ckpt.MAX_WIDTH] * ckpt.MAX_HIDDEN_LAYERS) is None


def test_config_lines_print_one_key_a_line_in_order_with_yaml_values():
    from uno_env.learn.configs import config_lines
    lines = config_lines({"rules": "classic", "phases": [{"until": 1.0, "opponents": {"random": 1.0}}],
                          "learning_rate_final": None})
    assert lines[0] == "config:"
    assert [line.split()[0] for line in lines[1:]] == ["rules", "phases", "learning_rate_final"]
    assert lines[2].split(None, 1)[1] == "[{until: 1.0, opponents: {random: 1.0}}]"
    assert lines[3].endswith("null")
    assert max(len(line) for line in config_lines({"k": "x" * 500}, width=40)) < 60


def test_next_steps_name_the_run_and_repeat_the_rule_overrides():
    from uno_env.learn.configs import next_steps_lines
    text = "\n".join(next_steps_lines("checkpoints/r", "classic", 3, {"uno_call": "explicit"}))
    assert "uno-evaluate --agents checkpoint:checkpoints/r heuristic heuristic --rules classic " \
           "--set uno_call=explicit" in text
    assert "uno-play --rules classic --set uno_call=explicit --opponents heuristic checkpoint:checkpoints/r" in text
    assert "uno-serve" in text


def test_next_steps_run_in_a_new_shell_where_the_venv_is_not_activated(tmp_path, monkeypatch):
    """scripts/main.sh runs .venv/bin/python without activating .venv: a bare ``uno-evaluate`` is
    "command not found" in the user's next shell, so the lines name .venv/bin/uno-evaluate."""
    from uno_env.learn import configs
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name in configs.CONSOLE_SCRIPTS:
        (bin_dir / name).write_text("#!/bin/sh\n")
        (bin_dir / name).chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sysconfig.get_path", lambda key: str(bin_dir))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    text = "\n".join(configs.next_steps_lines("checkpoints/r", "classic", 2))
    assert ".venv/bin/uno-evaluate --agents checkpoint:checkpoints/r heuristic" in text
    assert ".venv/bin/uno-play --rules classic" in text and ".venv/bin/uno-serve" in text
    assert "source .venv/bin/activate" in text
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")  # activated: the names as they are
    lines = configs.next_steps_lines("checkpoints/r", "classic", 2)
    assert [line.split()[0] for line in lines[2:]] == ["uno-evaluate", "uno-play", "uno-serve"]


def test_a_console_script_that_is_not_installed_is_named_as_python_m():
    from uno_env.learn.configs import console_command
    assert console_command("uno-play", scripts_dir="/nonexistent").endswith(" -m uno_env.tools.play")


def test_next_steps_name_the_web_extra_only_where_it_is_missing(monkeypatch):
    import importlib.util

    from uno_env.learn.configs import next_steps_lines
    real = importlib.util.find_spec
    assert '".[web]"' not in "\n".join(next_steps_lines("checkpoints/r", "classic", 2))  # dev installs it
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "uvicorn" else real(name, *a))
    assert 'pip install -e ".[web]"' in "\n".join(next_steps_lines("checkpoints/r", "classic", 2))


def test_the_training_rate_says_it_is_the_ppo_loops_beside_a_wall_time_with_imitation():
    """The main job's "(1272 steps/s)" sat beside a wall time that includes the imitation: 150,000
    steps / 577 s is 260 steps/s, not 1272; each figure now says what it counts."""
    from uno_env.learn.configs import eval_progress_line, trained_line
    line = trained_line(150000, 577.4, 1272.2)
    assert "577 s of wall time (imitation and evaluations included)" in line and "PPO ran at 1272 steps/s" in line
    line = eval_progress_line(100000, 420.0, 1290.0, "vs random 0.700")
    assert "7.0 min of wall time in all" in line and "PPO at 1290 steps/s" in line and line.endswith("vs random 0.700")


def test_a_progress_bar_in_a_log_file_leaves_every_other_line_whole():
    """tqdm redraws in place with carriage returns; in a log file the evaluation line written
    with bar.write landed on the bar's line. Through progress_file each redraw is a line."""
    import io

    from tqdm import tqdm

    from uno_env.tools.progress import progress_file
    log = io.StringIO()  # a file: not a terminal
    bar = tqdm(total=100, file=progress_file(log), mininterval=0, miniters=1, ascii=True)
    bar.update(40)
    bar.write("step 40: vs random 0.700", file=log)
    bar.update(60)
    bar.close()
    text = log.getvalue()
    assert "\r" not in text
    lines = text.split("\n")
    assert "step 40: vs random 0.700" in lines  # a line of its own
    assert all(line.startswith("step 40") or "%" in line for line in lines if line)
    terminal = io.StringIO()
    terminal.isatty = lambda: True
    assert progress_file(terminal) is terminal
