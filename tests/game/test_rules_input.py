"""Rule options from strangers: every bad value, key or file is a ``ValueError`` naming it;
every number and size is bounded (``uno_env.game.rules.LIMITS``)."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest

import uno_env
from uno_env.game import rules as R
from uno_env.game.engine import Engine
from uno_env.game.rules import LIMITS, Rules, make_rules

from helpers import NOT_REGULAR, not_a_regular_file, run_bounded


# ---------------------------------------------------------------------- villain_faces
@pytest.mark.parametrize("value", [5, 5.0, True, None, {"1": 1}, [1.5], [True], [10], [["1"]], ["11"],
                                   ["1", "1"], [1, "1"], "eleven"])
def test_villain_faces_must_be_distinct_face_names(value):
    with pytest.raises(ValueError, match="villain_faces"):
        make_rules("tmnt", villain_faces=value)
    with pytest.raises(ValueError, match="villain_faces"):
        make_rules({"preset": "tmnt", "villain_faces": value})


def test_villain_faces_accept_a_name_a_list_of_names_or_yaml_numbers():
    assert make_rules("tmnt", villain_faces="7").villain_faces == ("7",)
    assert make_rules("tmnt", villain_faces=[1, 2]).villain_faces == ("1", "2")
    assert make_rules("tmnt", villain_faces=("skip", "0")).villain_faces == ("skip", "0")
    with pytest.raises(ValueError, match="villain_faces"):
        Rules(villain_faces=5)  # the dataclass itself checks too


# ---------------------------------------------------------------------- keys
@pytest.mark.parametrize("mapping", [{1: 2}, {None: 1, "stacking": True}, {("a",): 1}, {True: 1}])
def test_rules_mapping_keys_must_be_strings(mapping):
    with pytest.raises(ValueError, match="rule keys must be strings"):
        make_rules(mapping)


def test_rules_yaml_keys_must_be_strings_naming_the_file(tmp_path):
    path = tmp_path / "numbers.yaml"
    path.write_text("1: 2\nstacking: true\n")
    with pytest.raises(ValueError, match=r"rule keys must be strings.*numbers\.yaml"):
        make_rules(str(path))


# ---------------------------------------------------------------------- files
@pytest.mark.parametrize("content,message", [
    (b"stacking: [true\n", "is not valid YAML"),
    (b"stacking: \xff\xfe true\n", "is not UTF-8 text"),
    (b"- stacking\n- jump_in\n", "must hold a mapping"),
    (b"[" * 5000, "not valid YAML|nested too deeply"),
    (b"!!python/object/apply:os.system ['echo hacked']\n", "is not valid YAML"),
])
def test_malformed_or_non_utf8_yaml_names_the_file(tmp_path, content, message):
    path = tmp_path / "mine.yaml"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=rf"rules file '.*mine\.yaml'.*({message})"):
        make_rules(str(path))


def test_missing_yaml_names_the_file(tmp_path):
    with pytest.raises(ValueError, match=r"rules file '.*nothing\.yaml' cannot be read"):
        make_rules(str(tmp_path / "nothing.yaml"))


@pytest.mark.parametrize("base", ["mine", "mine.yaml", "./mine.yaml"])
def test_yaml_whose_preset_names_itself_is_an_error(tmp_path, base):
    path = tmp_path / "mine.yaml"
    path.write_text(f"preset: {base}\nstacking: true\n")
    with pytest.raises(ValueError, match=r"names itself as its preset"):
        make_rules(str(path))


@pytest.mark.parametrize("base", ["nonesuch", 3, "[classic]", "null"])
def test_yaml_naming_an_unknown_preset_is_an_error(tmp_path, base):
    path = tmp_path / "mine.yaml"
    path.write_text(f"preset: {base}\n")
    if base == "null":  # preset: null is no preset name
        with pytest.raises(ValueError, match="unknown preset None"):
            make_rules(str(path))
        return
    with pytest.raises(ValueError, match="unknown preset"):
        make_rules(str(path))


def test_preset_files_that_name_each_other_in_a_cycle_or_an_unknown_base_are_errors(tmp_path):
    (tmp_path / "a.yaml").write_text("preset: b\n")
    (tmp_path / "b.yaml").write_text("preset: a\n")
    with pytest.raises(ValueError, match="names itself through a -> b -> a"):
        R._load_presets(str(tmp_path))
    (tmp_path / "b.yaml").write_text("preset: zzz\n")
    with pytest.raises(ValueError, match=r"b\.yaml' names an unknown preset 'zzz'"):
        R._load_presets(str(tmp_path))
    (tmp_path / "b.yaml").write_text("stacking: true\n")
    assert R._load_presets(str(tmp_path))["a"] == {"stacking": True, "name": "a"}


# ---------------------------------------------------------------------- bounds
def test_every_integer_option_has_bounds():
    ints = {f.name for f in dataclasses.fields(Rules) if f.type == "int"}
    assert ints == set(LIMITS)
    for name, (low, high) in LIMITS.items():
        assert low <= getattr(Rules(), name) <= high, name


@pytest.mark.parametrize("name", sorted(LIMITS))
def test_values_beyond_the_bounds_are_value_errors_naming_the_option(name):
    low, high = LIMITS[name]
    for value in (high + 1, 10 ** 9, 10 ** 5000, low - 1):
        with pytest.raises(ValueError, match=rf"rule '{name}' must be in {low}\.\.{high}"):
            make_rules("house", **{name: value})


def test_count_wild_of_a_billion_is_refused_before_any_deck_is_built(tmp_path):
    with pytest.raises(ValueError, match=r"'count_wild' must be in 0\.\.100, got 1000000000"):
        uno_env.raw_env(count_wild=10 ** 9)
    path = tmp_path / "big.yaml"
    path.write_text("count_wild: 1000000000\n")
    with pytest.raises(ValueError, match="count_wild"):
        make_rules(str(path))


def test_the_largest_allowed_deck_plays():
    big = make_rules("house", **{name: LIMITS[name][1] for name in LIMITS if name.startswith("count_")},
                     hand_size=50, max_steps=300)
    assert big.deck_size() == 56 * 100
    env = uno_env.raw_env(rules=big, num_players=10)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while not (env.game_state.game_over or any(env.truncations.values())):
        env.step(int(rng.choice(env.legal_actions())))
    assert Engine(big, 10).deck_counts == big.deck_counts()


@pytest.mark.parametrize("name", ["", "x" * 201, "red\x1b[31m", "two\nlines"])
def test_rule_name_must_be_short_and_printable(name):
    with pytest.raises(ValueError, match="rule 'name' must be 1..200 printable characters"):
        make_rules("classic", name=name)


def test_error_messages_stay_short_for_huge_or_nested_values():
    nested: list = []
    for _ in range(30):
        nested = [nested, nested]  # 2**30 leaves if printed in full
    for value in (nested, "x" * 10 ** 6, 10 ** 5000):
        with pytest.raises(ValueError) as err:
            make_rules("classic", stacking=value)
        assert len(str(err.value)) < 300


# ---------------------------------------------------------------------- bounded reading
def test_a_2mb_yaml_list_is_refused_before_it_is_parsed_in_bounded_memory(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text("hand_size:\n" + "- 1\n" * 524_288)  # 2 MB: 25 s and 335 MB in the pure-Python loader
    child = run_bounded("import sys; from uno_env.game.rules import make_rules; make_rules(sys.argv[1])",
                        args=(str(path),), memory_mb=400, timeout_s=60)
    assert child.returncode == 1
    assert child.last_line.endswith(f"rules file {str(path)!r} has {path.stat().st_size} bytes "
                                    f"(at most {R.MAX_YAML_BYTES})")


def test_a_yaml_at_the_size_cap_is_parsed_by_the_c_loader(tmp_path):
    path = tmp_path / "long.yaml"
    path.write_text("hand_size:\n" + "- 1\n" * ((R.MAX_YAML_BYTES - 11) // 4))
    with pytest.raises(ValueError, match=r"rule 'hand_size' must be an integer, got \[1, 1, 1"):
        make_rules(str(path))
    yaml = pytest.importorskip("yaml")
    if hasattr(yaml, "CSafeLoader"):
        assert issubclass(R._yaml_loader(), yaml.CSafeLoader)


@pytest.mark.parametrize("kind", NOT_REGULAR)
def test_a_rules_yaml_that_is_not_a_regular_file_is_refused_without_waiting(tmp_path, kind):
    path = not_a_regular_file(tmp_path / "mine.yaml", kind)
    child = run_bounded("import sys; from uno_env.game.rules import make_rules; make_rules(sys.argv[1])",
                        args=(path,), timeout_s=60)
    assert not child.timed_out
    assert child.last_line.endswith(f"rules file {path!r} is a {kind}, not a regular file")


@pytest.mark.parametrize("text,key", [
    ("hand_size: {}\n", "hand_size"),
    ("villain_faces: [1, {}]\n", r"villain_faces\[1\]"),
    ("preset: tmnt\n? {}\n: 1\n", "<a key>"),  # a long key must be explicit in YAML
])
def test_a_5000_digit_integer_in_rules_yaml_names_the_file_and_the_key(tmp_path, text, key):
    path = tmp_path / "mine.yaml"
    path.write_text(text.format("9" * 5000))
    with pytest.raises(ValueError, match=rf"^rules file '.*mine\.yaml': key '{key}' holds an integer of "
                                         r"5000 digits, too long to read$"):
        make_rules(str(path))


# ---------------------------------------------------------------------- what YAML hides
def test_a_key_given_twice_in_a_rules_file_is_refused_with_the_file_and_line(tmp_path):
    # a YAML parser keeps the last of two equal keys: 'stacking: true' would silently lose
    path = tmp_path / "twice.yaml"
    path.write_text("preset: classic\nstacking: true\njump_in: true\nstacking: false\n")
    with pytest.raises(ValueError, match=r"rules file '.*twice\.yaml': line 4: key 'stacking' is given "
                                         r"twice \(first on line 2\)"):
        make_rules(str(path))


def test_a_key_given_twice_in_a_card_list_is_refused_with_the_file_and_line(tmp_path):
    from uno_env.battle.game.cards import load_cards_file

    one = "  - {name: A, ingenuity: 7, dexterity: 1, strength: 1, skill: 1}\n"
    lists = {"characters": "characters:\n" + one + "dragons:\n" + one + "characters:\n" + one,
             "ingenuity": "characters:\n  - {name: A, ingenuity: 7, ingenuity: 99, dexterity: 1, strength: 1, "
                          "skill: 1}\n"}
    for key, text in lists.items():
        path = tmp_path / f"{key}.yaml"
        path.write_text(text)
        with pytest.raises(ValueError, match=rf"card list '.*{key}\.yaml': line \d: key '{key}' is given twice"):
            load_cards_file(str(path))


def test_a_key_given_twice_in_a_training_config_is_refused(tmp_path):
    from uno_env.learn.configs import read_mapping

    path = tmp_path / "run.yaml"
    path.write_text("rules: classic\nlr: 0.001\nlr: 0.1\n")
    with pytest.raises(ValueError, match=r"config '.*run\.yaml': line 3: key 'lr' is given twice \(first on line 2\)"):
        read_mapping(str(path))


@pytest.mark.parametrize("text,reads", [("010", "8"), ("-010", "-8"), ("00", "0"), ("1:10", "70"),
                                        ("1:10.5", "70.5")])
def test_yaml_11_octal_and_base_60_numbers_are_refused(tmp_path, text, reads):
    # YAML 1.1 (PyYAML) reads 010 as 8 and 1:10 as 70: what a person reads is not what plays
    path = tmp_path / "n.yaml"
    path.write_text(f"preset: classic\nhand_size: {text}\n")
    with pytest.raises(ValueError, match=rf"rules file '.*n\.yaml': line 2: {text} is an? (octal|base-60) number "
                                         rf"in YAML 1\.1 \(it reads {reads}\): write {reads}"):
        make_rules(str(path))


def test_yaml_numbers_a_person_reads_as_written_still_load(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text("preset: classic\nhand_size: 10\nuno_penalty: 0\nmax_steps: 0x100\nname: '010'\n")
    r = make_rules(str(path))
    assert (r.hand_size, r.uno_penalty, r.max_steps, r.name) == (10, 0, 256, "010")
