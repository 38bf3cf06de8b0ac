"""The action layout: one ``Discrete(NUM_ACTIONS)`` space for every ruleset and player count.

=========  =====  ==========================================================
ids        count  action
=========  =====  ==========================================================
0-51       52     ``play <card>``: a coloured card (id = card kind)
52-67      16     ``play <wild-kind> <colour>``: 52 + 4 * wild_index + colour,
                  wild_index 0 wild, 1 wild-draw4, 2 team-attack, 3 from-the-sewers
68         1      ``draw`` (draw a card; with a penalty pending: take it)
69         1      ``pass`` (keep the drawn card, don't jump in / catch / offer / take,
                  stop discarding villains)
70         1      ``challenge`` (a Wild Draw Four)
71         1      ``uno`` (call UNO, explicit mode)
72         1      ``catch`` (catch a player who did not call UNO)
73-76      4      ``color <colour>`` (colour choice outside a play: first card wild)
77-128     52     ``discard <card>`` (Team Attack villain discard; id = 77 + kind)
129        1      ``ask`` (giving cards: ask the others for a card)
130-185    56     ``offer <card>`` (id = 130 + kind)
186-194    9      ``take <k>``: take the offer of the player k seats to the asker's left
=========  =====  ==========================================================
"""

from __future__ import annotations

import numpy as np

from uno_env.game import cards

LAYOUT_VERSION = 0  # bump on any change to the layout below (checkpoints record it)
PLAY_COLORED = 0
PLAY_WILD = cards.NUM_COLORED  # 52
DRAW = PLAY_WILD + len(cards.WILD_KINDS) * cards.NUM_COLORS  # 68
PASS = DRAW + 1  # 69
CHALLENGE = PASS + 1  # 70
UNO = CHALLENGE + 1  # 71
CATCH = UNO + 1  # 72
COLOR = CATCH + 1  # 73
DISCARD = COLOR + cards.NUM_COLORS  # 77
ASK = DISCARD + cards.NUM_COLORED  # 129
OFFER = ASK + 1  # 130
TAKE = OFFER + cards.NUM_KINDS  # 186
MAX_TAKE = 9
NUM_ACTIONS = TAKE + MAX_TAKE  # 195
PLAY_END = DRAW  # play ids are PLAY_COLORED .. PLAY_END - 1 (``a < PLAY_END``: a play)

# The ids of each parameterised kind of action (``a in OFFER_IDS``; ``range`` membership is O(1)).
PLAY_IDS = range(PLAY_COLORED, PLAY_END)
WILD_PLAY_IDS = range(PLAY_WILD, PLAY_END)
COLOR_IDS = range(COLOR, DISCARD)
DISCARD_IDS = range(DISCARD, ASK)
OFFER_IDS = range(OFFER, TAKE)
TAKE_IDS = range(TAKE, NUM_ACTIONS)


# ---------------------------------------------------------------- plays
def play_action(kind: int, color: int = 0) -> int:
    """Action id that plays ``kind`` (with ``color`` chosen if it is a wild)."""
    if kind < cards.NUM_COLORED:
        return PLAY_COLORED + kind
    return PLAY_WILD + cards.NUM_COLORS * (kind - cards.NUM_COLORED) + color


def is_play(action: int) -> bool:
    """Whether ``action`` plays a card (a coloured card or a wild with its colour)."""
    return action < PLAY_END


def wild_index(action: int) -> int:
    """Index in ``cards.WILD_KINDS`` of the wild a play id plays (-1 for a coloured card)."""
    return (action - PLAY_WILD) // cards.NUM_COLORS if action >= PLAY_WILD else -1


def played_color(action: int) -> int:
    """Colour chosen by a play action id (-1 for a coloured card)."""
    return (action - PLAY_WILD) % cards.NUM_COLORS if action >= PLAY_WILD else -1


def played_kind(action: int) -> int:
    """Card kind played by a play action id."""
    if action < PLAY_WILD:
        return action
    return cards.NUM_COLORED + (action - PLAY_WILD) // cards.NUM_COLORS


PLAYED_KIND = tuple(played_kind(a) for a in PLAY_IDS)  # played_kind(a) as a table, for hot loops
PLAYED_COLOR = tuple(played_color(a) for a in PLAY_IDS)  # played_color(a) as a table, likewise


# ---------------------------------------------------------------- the other parameterised actions
def color_action(color: int) -> int:
    """``color <colour>``: the colour choice for a first-card wild."""
    return COLOR + color


def chosen_color(action: int) -> int:
    """Colour index of a ``color <colour>`` id."""
    return action - COLOR


def discard_action(kind: int) -> int:
    """``discard <card>``: a Team Attack villain discard."""
    return DISCARD + kind


def discarded_kind(action: int) -> int:
    """Card kind of a ``discard <card>`` id."""
    return action - DISCARD


def offer_action(kind: int) -> int:
    """``offer <card>`` (giving cards)."""
    return OFFER + kind


def offered_kind(action: int) -> int:
    """Card kind of an ``offer <card>`` id."""
    return action - OFFER


def take_action(offset: int) -> int:
    """``take <k>``: the offer of the player ``offset`` seats to the asker's left (1..9)."""
    return TAKE + offset - 1


def take_offset(action: int) -> int:
    """Seats to the asker's left (1..9) of the player whose offer a ``take <k>`` id takes."""
    return action - TAKE + 1


def action_names(colors: tuple[str, ...]) -> tuple[str, ...]:
    """Name of every action id for a deck's colour names."""
    names = [f"play {cards.card_name(k, colors)}" for k in range(cards.NUM_COLORED)]
    for w in cards.WILD_KINDS:
        names += [f"play {cards.WILD_NAMES[w]} {c}" for c in colors]
    names += ["draw", "pass", "challenge", "uno", "catch"]
    names += [f"color {c}" for c in colors]
    names += [f"discard {cards.card_name(k, colors)}" for k in range(cards.NUM_COLORED)]
    names += ["ask"]
    names += [f"offer {cards.card_name(k, colors)}" for k in range(cards.NUM_KINDS)]
    names += [f"take {k}" for k in range(1, MAX_TAKE + 1)]
    assert len(names) == NUM_ACTIONS
    return tuple(names)


_NO_ACTION = np.zeros(NUM_ACTIONS, np.int8)
_NO_ACTION.setflags(write=False)


def legal_mask(legal: "list[int]") -> np.ndarray:
    """A fresh int8 action mask with ones at the ``legal`` action ids."""
    mask = _NO_ACTION.copy()  # a copy is writable, and faster than np.zeros
    for a in legal:  # faster than fancy indexing for the few legal actions of a decision
        mask[a] = 1
    return mask
