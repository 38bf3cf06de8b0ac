"""The card set: the packaged stand-in, a user's own card list replacing it, and every check of
a card-list file (bounded, regular files only, safe loader, errors naming the entry and key),
fuzzed with hypothesis."""

from __future__ import annotations

import os

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from fuzzing import FAST, SLOW, hostile_yaml
from uno_env.battle.game import make_engine
from uno_env.battle.game.cards import (BONUS, CHARACTER, DRAGON, MAX_CARDS, MAX_CARDS_FILE_BYTES, CardSet, load_cards,
                                       packaged_sets)
from uno_env.battle.envs import env

SMALL = {"name": "mine", "characters": [{"name": "A", "ingenuity": 1, "dexterity": 2, "strength": 3, "skill": 4},
                                        {"name": "B", "ingenuity": 4, "dexterity": 3, "strength": 2, "skill": 1,
                                         "copies": 3}],
         "dragons": [{"name": "Dragon", "ingenuity": 0, "dexterity": 0, "strength": 9, "skill": 0}],
         "bonuses": [{"name": "Pizza", "characteristic": "strength", "copies": 2}]}


def write(tmp_path, data, name="cards.yaml") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data), encoding="utf-8")
    return str(path)


def test_the_default_stand_in_set_has_characters_purple_dragons_and_bonuses():
    c = load_cards()
    assert c.name == "tmnt-standin" and packaged_sets() == ["tmnt-standin"]
    kinds = [t.kind for t in c.types for _ in range(t.copies)]
    assert (kinds.count(CHARACTER), kinds.count(DRAGON), kinds.count(BONUS)) == (24, 4, 16)
    assert {t.characteristic for t in c.types if t.kind == BONUS} == {0, 1, 2, 3}
    assert all(len(t.skills) == 4 and max(t.skills) <= 10 for t in c.types)
    assert load_cards(c.to_dict()) == CardSet(c.name, c.types)  # the file form round-trips


def test_a_users_card_list_replaces_the_stand_in(tmp_path):
    path = write(tmp_path, SMALL)
    e = env(game="dragon", num_players=2, cards=path)
    assert e.cards.name == "mine" and e.engine.card_names == ["A", "B", "Dragon", "Pizza"]
    assert len(e.engine.deck) == 1 + 3 + 1 + 2
    e.reset(seed=0)
    s = e.game_state
    assert sum(len(p) for p in s.piles) + len(s.aside) + len(s.common) == 7  # the first card is turned
    assert make_engine("battle", cards=SMALL).deck == [0, 1, 1, 1, 2]  # fighters only


def test_a_file_is_named_after_itself_unless_it_sets_a_name(tmp_path):
    data = {k: v for k, v in SMALL.items() if k != "name"}
    assert load_cards(write(tmp_path, data, "turtles.yml")).name == "turtles"


@pytest.mark.parametrize("data, message", [
    ({"cards": []}, "unknown key(s) ['cards']"),
    ({"characters": [{"name": "A", "ingenuity": 1, "dexterity": 1, "strength": 1}]}, "characters[0] ('A'): missing key(s) ['skill']"),
    ({"characters": [{"name": "A", "ingenuity": 1, "dexterity": 1, "strength": 1, "skill": 1, "power": 9}]},
     "characters[0] ('A'): unknown key(s) ['power']"),
    ({"characters": [{"name": "A", "ingenuity": 100, "dexterity": 1, "strength": 1, "skill": 1}]},
     "'ingenuity' must be an integer in 0..99, got 100"),
    ({"characters": [{"name": "A", "ingenuity": True, "dexterity": 1, "strength": 1, "skill": 1}]},
     "'ingenuity' must be an integer"),
    ({"characters": [{"name": "A", "ingenuity": 1, "dexterity": 1, "strength": 1, "skill": 1, "copies": 0}]},
     "'copies' must be an integer in 1..20"),
    ({"bonuses": [{"name": "X", "characteristic": "luck"}]}, "bonuses[0] ('X'): 'characteristic' must be one of"),
    ({"bonuses": [{"name": " X", "characteristic": "skill"}]}, "'name' must be 1..40 printable characters"),
    ({"bonuses": [{"name": "X\x1b[31m", "characteristic": "skill"}]}, "printable"),
    ({"bonuses": [{"name": "X", "characteristic": "skill"}, {"name": "X", "characteristic": "strength"}]},
     "the name 'X' is given twice"),
    ({"bonuses": "X"}, "'bonuses' must be a list of entries"),
    ({"bonuses": ["X"]}, "bonuses[0]: an entry must be a mapping"),
    ({"name": "x"}, "holds no cards"),
    ({"bonuses": [{"name": f"B{i}", "characteristic": "skill", "copies": 20} for i in range(21)]},
     f"more than the {MAX_CARDS} allowed"),
    ({"bonuses": [{"name": f"B{i}", "characteristic": "skill"} for i in range(101)]}, "more than 100 card entries"),
    ({1: 2}, "keys must be strings"),
])
def test_a_bad_card_list_is_refused_naming_the_entry_and_key(tmp_path, data, message):
    path = write(tmp_path, data)
    with pytest.raises(ValueError) as e:
        load_cards(path)
    assert message in str(e.value) and "cards.yaml" in str(e.value)


@pytest.mark.parametrize("content, message", [
    ("characters: [", "is not valid YAML"),
    ("- 1\n- 2\n", "must hold a mapping"),
    ("", "holds no cards"),
    ("!!python/object/apply:os.system ['echo hi']", "is not valid YAML"),
    ("a: &a [*a]\n", "unknown key"),
])
def test_a_card_list_is_read_safely(tmp_path, content, message):
    with pytest.raises(ValueError, match=message):
        load_cards(write(tmp_path, content))


def test_an_alias_bomb_is_refused_by_the_entry_count(tmp_path):
    bomb = "a: &a {name: A, ingenuity: 1, dexterity: 1, strength: 1, skill: 1}\n" \
           "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n" \
           "characters: [" + ", ".join(["*a"] * 101) + "]\n"
    with pytest.raises(ValueError, match="unknown key|more than"):
        load_cards(write(tmp_path, bomb))


def test_a_card_list_must_be_a_small_regular_utf8_file(tmp_path):
    with pytest.raises(ValueError, match="not a regular file"):
        os.mkdir(tmp_path / "d.yaml")
        load_cards(str(tmp_path / "d.yaml"))
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo.yaml")
        with pytest.raises(ValueError, match="not a regular file"):
            load_cards(str(tmp_path / "fifo.yaml"))
    big = tmp_path / "big.yaml"
    big.write_text("#" * (MAX_CARDS_FILE_BYTES + 1))
    with pytest.raises(ValueError, match=rf"has {MAX_CARDS_FILE_BYTES + 1} bytes \(at most {MAX_CARDS_FILE_BYTES}\)"):
        load_cards(str(big))
    (tmp_path / "bin.yaml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ValueError, match="not UTF-8"):
        load_cards(str(tmp_path / "bin.yaml"))
    with pytest.raises(ValueError, match="cannot be read"):
        load_cards(str(tmp_path / "missing.yaml"))


def test_an_unknown_packaged_set_names_the_sets():
    with pytest.raises(ValueError, match=r"unknown card set 'nope'; packaged sets: \['tmnt-standin'\]"):
        load_cards("nope")
    with pytest.raises(ValueError, match="unknown card set 7"):
        load_cards(7)


@pytest.mark.parametrize("game, cards, message", [
    ("dragon", {"characters": SMALL["characters"]}, "has no Purple Dragon card"),
    ("attack", SMALL, "need 15 characters and Purple Dragons"),
    ("names", {"characters": [dict(SMALL["characters"][0], copies=3)]}, "need at least 3 character names"),
    ("bonus", {"characters": SMALL["characters"]}, "need at least 2 bonus cards"),
    ("battle", {"bonuses": SMALL["bonuses"]}, "cannot deal 2 players"),
])
def test_each_game_checks_that_the_card_set_can_play_it(game, cards, message):
    with pytest.raises(ValueError, match=message):
        make_engine(game, cards=cards, num_players=2)


# ---------------------------------------------------------------------------- fuzzing
ENTRY = st.dictionaries(st.sampled_from(["name", "ingenuity", "dexterity", "strength", "skill", "copies",
                                         "characteristic", "extra"]),
                        st.one_of(st.integers(-5, 120), st.text(max_size=6), st.booleans(), st.none(),
                                  st.sampled_from(["skill", "strength", "Leo"])), max_size=7)
CARD_LIST = st.dictionaries(st.sampled_from(["name", "characters", "dragons", "bonuses", "other"]),
                            st.one_of(st.lists(ENTRY, max_size=4), st.text(max_size=5), st.integers(), st.none()),
                            max_size=4)


def _fuzz_card_file(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("cards") / "fuzz.yaml"
    if isinstance(data, bytes):
        path.write_bytes(data)
    elif isinstance(data, str):  # hostile YAML text
        path.write_text(data, encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(data), encoding="utf-8")
    try:
        cards = load_cards(str(path))
    except ValueError:
        return
    assert isinstance(cards, CardSet) and cards.types
    for game in ("battle", "dragon", "attack", "names", "bonus", "elusive"):
        try:
            make_engine(game, cards=cards, num_players=2)
        except ValueError:
            pass


HOSTILE = hostile_yaml(["name", "characters", "dragons", "bonuses"])


@FAST
@given(st.one_of(CARD_LIST, st.binary(max_size=64), HOSTILE))
def test_fuzzed_card_list_files_load_or_raise_value_error(tmp_path_factory, data):
    _fuzz_card_file(tmp_path_factory, data)


@pytest.mark.slow
@SLOW
@given(st.one_of(CARD_LIST, st.binary(max_size=200), HOSTILE))
def test_fuzzed_card_list_files_load_or_raise_value_error_slow(tmp_path_factory, data):
    _fuzz_card_file(tmp_path_factory, data)
