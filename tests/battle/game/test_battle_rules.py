"""Rule options of the six games: presets, files, mappings, overrides; every bad value named,
rules files read with bounds; fuzzed with hypothesis."""

from __future__ import annotations

import dataclasses

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from fuzzing import FAST, SLOW, hostile_yaml
from uno_env.battle.game.rules import (CHOICES, GAMES, LIMITS, MAX_RULES_FILE_BYTES, PRESETS, RULES_CLASSES,
                                       make_rules, preset, presets_of)


@pytest.mark.parametrize("game", GAMES)
def test_the_default_preset_of_each_game_spells_out_the_defaults(game):
    assert make_rules(game) == RULES_CLASSES[game]() == preset(game)
    assert make_rules(game).name == game


def test_every_preset_belongs_to_one_game_and_loads():
    assert sorted(PRESETS) == ["attack", "battle", "battle-open", "battle-sheet", "bonus", "bonus-bluff", "dragon",
                               "elusive", "elusive-others", "names", "names-sheet"]
    for name, (game, _) in PRESETS.items():
        assert make_rules(game, name).name == name
    assert make_rules("battle", "battle-open").view == "open"
    sheet = make_rules("battle", "battle-sheet")  # the sheet read literally: open cards, the highest skill
    assert (sheet.view, sheet.choice) == ("open", "highest") and sheet.replace(name="battle") == make_rules(
        "battle", view="open", choice="highest")
    assert make_rules("names", "names-sheet").guess == "wrong_discards"
    assert make_rules("bonus", "bonus-bluff").bluff is True
    assert make_rules("elusive", "elusive-others").shout == "others"


def test_every_choice_option_accepts_exactly_its_documented_values():
    for game, cls in RULES_CLASSES.items():
        for f in dataclasses.fields(cls):
            if f.type == "str" and f.name != "name":
                default = getattr(cls(), f.name)
                allowed = CHOICES.get(f.name) or {"battle": ("pot", "return"), "attack": ("total", "nobody")}[game]
                assert default == allowed[0]  # the Decision is the first value
                for v in allowed:
                    assert getattr(make_rules(game, **{f.name: v}), f.name) == v
                with pytest.raises(ValueError, match=f"{game} rule '{f.name}' must be one of"):
                    make_rules(game, **{f.name: "nonsense"})


@pytest.mark.parametrize("game, key, value, message", [
    ("battle", "max_rounds", 0, "must be in 1..100000"),
    ("battle", "max_rounds", 10 ** 30, "must be in 1..100000"),
    ("attack", "hand_size", 21, "must be in 1..20"),
    ("bonus", "challenge_cost", -1, "must be in 0..5"),
    ("elusive", "deal", 201, "must be in 1..200"),
    ("names", "restrictions", "yes", "must be true or false"),
    ("bonus", "bluff", 1, "must be true or false"),
    ("battle", "max_rounds", 2.5, "must be an integer"),
    ("battle", "max_rounds", True, "must be an integer"),
    ("dragon", "name", "", "printable"),
    ("dragon", "name", "a\nb", "printable"),
    ("dragon", "colour", "red", "unknown dragon rule key(s) ['colour']"),
    ("attack", "view", "open", "unknown attack rule key(s) ['view']"),
])
def test_a_bad_option_is_named(game, key, value, message):
    with pytest.raises(ValueError) as e:
        make_rules(game, **{key: value})
    assert message in str(e.value)


def test_limits_cover_every_integer_option():
    ints = {f.name for cls in RULES_CLASSES.values() for f in dataclasses.fields(cls) if f.type == "int"}
    assert ints == set(LIMITS)


def test_a_rules_file_names_a_preset_of_its_game_and_overrides_it(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("game: battle\npreset: battle-open\ntie: return\n")
    r = make_rules("battle", str(path))
    assert (r.name, r.view, r.tie) == ("mine", "open", "return")
    assert make_rules("battle", str(path), chooser="rotate").chooser == "rotate"
    assert make_rules("battle", {"preset": "battle-open", "max_rounds": 7}).max_rounds == 7


@pytest.mark.parametrize("content, message", [
    ("game: dragon\n", "is for the game 'dragon', not 'battle'"),
    ("preset: elusive-others\n", "unknown battle preset 'elusive-others'"),
    ("preset: 5\n", "unknown battle preset 5"),
    ("view: [1, 2]\n", "must be a string"),
    ("- 1\n", "must hold a mapping"),
    ("view: [\n", "is not valid YAML"),
    ("!!python/object/apply:os.system ['true']\n", "is not valid YAML"),
    ("1: open\n", "keys must be strings"),
])
def test_a_bad_rules_file_is_refused_naming_the_file(tmp_path, content, message):
    path = tmp_path / "bad.yaml"
    path.write_text(content)
    with pytest.raises(ValueError) as e:
        make_rules("battle", str(path))
    assert message in str(e.value) and "bad.yaml" in str(e.value)


def test_a_rules_file_must_be_a_small_regular_file(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("#" * (MAX_RULES_FILE_BYTES + 1))
    with pytest.raises(ValueError, match=r"bytes \(at most"):
        make_rules("dragon", str(big))
    (tmp_path / "dir.yaml").mkdir()
    with pytest.raises(ValueError, match="not a regular file"):
        make_rules("dragon", str(tmp_path / "dir.yaml"))


def test_unknown_games_and_presets_are_named():
    with pytest.raises(ValueError, match=r"unknown game 'poker'; games: \['battle'"):
        make_rules("poker")
    with pytest.raises(ValueError, match=r"unknown dragon preset 'battle'; presets: \['dragon'\]"):
        make_rules("dragon", "battle")
    with pytest.raises(ValueError, match="rules of 'battle' given for the game 'dragon'"):
        make_rules("dragon", make_rules("battle"))
    assert presets_of("bonus") == ["bonus", "bonus-bluff"]


def test_rules_are_frozen_and_replace_validates():
    r = make_rules("elusive")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.deal = 3
    assert r.replace(deal=3).deal == 3
    with pytest.raises(ValueError):
        r.replace(deal=0)


# ---------------------------------------------------------------------------- fuzzing
RULE_KEYS = sorted({f.name for cls in RULES_CLASSES.values() for f in dataclasses.fields(cls)} | {"game", "preset"})
RULES_FILE = st.dictionaries(st.sampled_from(RULE_KEYS + ["bogus"]),
                             st.one_of(st.integers(-3, 300), st.booleans(), st.none(), st.text(max_size=8),
                                       st.sampled_from(sorted({v for vs in CHOICES.values() for v in vs}
                                                              | set(GAMES) | set(PRESETS))),
                                       st.lists(st.integers(), max_size=2)), max_size=6)


def _fuzz_rules(tmp_path_factory, game, data):
    path = tmp_path_factory.mktemp("rules") / "r.yaml"
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data), encoding="utf-8")
    try:
        r = make_rules(game, str(path))
    except ValueError:
        return
    assert isinstance(r, RULES_CLASSES[game]) and make_rules(game, r.to_dict()) == r


HOSTILE = hostile_yaml(["game", "preset", "view", "max_rounds", "deal"])


@FAST
@given(st.sampled_from(GAMES), st.one_of(RULES_FILE, HOSTILE))
def test_fuzzed_rules_files_load_or_raise_value_error(tmp_path_factory, game, data):
    _fuzz_rules(tmp_path_factory, game, data)


@pytest.mark.slow
@SLOW
@given(st.sampled_from(GAMES), st.one_of(RULES_FILE, HOSTILE))
def test_fuzzed_rules_files_load_or_raise_value_error_slow(tmp_path_factory, game, data):
    _fuzz_rules(tmp_path_factory, game, data)
