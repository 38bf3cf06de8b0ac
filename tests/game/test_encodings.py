"""One source for every encoding: the decoders of ``actions`` and the tables of ``cards``
agree with the action names and the card functions; the rule flags of the observation are
listed once (``observation.RULE_FLAGS``) and the view reads those names.
"""

from __future__ import annotations

import numpy as np
import pytest

import uno_env
from uno_env.agents.view import RuleFlags, decode
from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game import observation as O

from helpers import CLASSIC_COLORS

NAMES = A.action_names(CLASSIC_COLORS)
CARDS = C.card_names(CLASSIC_COLORS)


def test_action_id_ranges_partition_the_action_space():
    singles = [A.DRAW, A.PASS, A.CHALLENGE, A.UNO, A.CATCH, A.ASK]
    ranges = [A.PLAY_IDS, A.COLOR_IDS, A.DISCARD_IDS, A.OFFER_IDS, A.TAKE_IDS]
    ids = sorted(singles + [a for r in ranges for a in r])
    assert ids == list(range(A.NUM_ACTIONS))
    assert set(A.WILD_PLAY_IDS) < set(A.PLAY_IDS) and len(A.WILD_PLAY_IDS) == len(C.WILD_KINDS) * C.NUM_COLORS


def test_play_ids_decode_to_their_names():
    for a in range(A.NUM_ACTIONS):
        assert A.is_play(a) == NAMES[a].startswith("play ") == (a in A.PLAY_IDS)
    for a in A.PLAY_IDS:
        k, color = A.played_kind(a), A.played_color(a)
        assert A.PLAYED_KIND[a] == k and A.PLAYED_COLOR[a] == color
        if C.is_wild(k):
            assert NAMES[a] == f"play {CARDS[k]} {CLASSIC_COLORS[color]}"
            assert C.WILD_KINDS[A.wild_index(a)] == k
        else:
            assert NAMES[a] == f"play {CARDS[k]}" and color == -1 and A.wild_index(a) == -1
        assert A.play_action(k, max(color, 0)) == a


def test_parameterised_actions_decode_to_their_names_and_back():
    for c in range(C.NUM_COLORS):
        a = A.color_action(c)
        assert NAMES[a] == f"color {CLASSIC_COLORS[c]}" and A.chosen_color(a) == c
    for k in range(C.NUM_COLORED):
        a = A.discard_action(k)
        assert NAMES[a] == f"discard {CARDS[k]}" and A.discarded_kind(a) == k
    for k in range(C.NUM_KINDS):
        a = A.offer_action(k)
        assert NAMES[a] == f"offer {CARDS[k]}" and A.offered_kind(a) == k
    for offset in range(1, A.MAX_TAKE + 1):
        a = A.take_action(offset)
        assert NAMES[a] == f"take {offset}" and A.take_offset(a) == offset


def test_card_tables_agree_with_the_card_functions():
    for k in range(C.NUM_KINDS):
        assert C.COLOR_OF[k] == C.color_of(k) and C.FACE_OF[k] == C.face_of(k)
        if not C.is_wild(k):
            assert C.KIND_OF[C.color_of(k)][C.face_of(k)] == k
            assert CARDS[k].startswith(CLASSIC_COLORS[C.color_of(k)] + "-")
    for c, s in enumerate(C.COLOR_SLICES):
        assert [C.color_of(k) for k in range(C.NUM_KINDS)[s]] == [c] * C.NUM_FACES
    assert list(range(C.NUM_KINDS)[C.WILD_SLICE]) == list(C.WILD_KINDS)


def test_rule_flags_end_layout_0():
    """The order of the RULES block is part of the observation layout; it ends layout 0, the
    prefix of layout 1."""
    assert O.LAYOUT_VERSION == 1
    assert O.RULE_FLAG_NAMES == ("stacking", "jump_in", "seven_slap", "giving", "until_playable",
                                 "explicit_uno", "wd4_bluff", "challenge", "tmnt")
    assert O.NUM_RULE_FLAGS == len(O.RULE_FLAG_NAMES) + 1 and O.RULE_NUM_PLAYERS == O.V0_SIZE - 1


@pytest.mark.parametrize("rules,overrides", [("classic", {}), ("tmnt", {"uno_call": "explicit"}),
                                             ("house", {}), ("classic", {"draw_rule": "until_playable",
                                                                         "wd4_bluff": False})])
def test_the_view_reads_every_rule_flag_by_its_name(rules, overrides):
    env = uno_env.raw_env(rules=rules, num_players=4, **overrides)
    env.reset(seed=0)
    o = env.observe(env.agent_selection)
    v = decode(o["observation"], o["action_mask"])
    assert RuleFlags.__slots__ == O.RULE_FLAG_NAMES
    for name, flag in O.RULE_FLAGS:
        assert getattr(v.rules, name) == bool(flag(env.rules))
    assert o["observation"][O.RULE_NUM_PLAYERS] == pytest.approx(4 / O.MAX_PLAYERS) and v.num_players == 4
    assert np.array_equal(o["observation"][O.RULES:O.RULE_NUM_PLAYERS],
                          [float(flag(env.rules)) for _, flag in O.RULE_FLAGS])
