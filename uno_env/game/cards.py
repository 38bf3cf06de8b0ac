"""Card kinds, names, points and decks.

A card is identified by its *kind*, an integer in ``range(NUM_KINDS)``; a hand is a
vector of counts per kind. Kinds are laid out as:

=========  =============================================  ======================
kind       card                                           string
=========  =============================================  ======================
0-51       coloured card ``colour * 13 + face``           ``red-5``, ``blue-skip``
52         Wild                                           ``wild``
53         Wild Draw Four                                 ``wild-draw4``
54         Team Attack (tmnt)                             ``team-attack``
55         FROM THE SEWERS (house)                        ``from-the-sewers``
=========  =============================================  ======================

Faces of a coloured card: 0-9 are the numbers, 10 Draw Two (``draw2``), 11 Reverse,
12 Skip. Colour names depend on the deck: ``classic`` and ``house`` use red, yellow,
green, blue; ``tmnt`` uses blue, orange, red, purple. Colour *indices* 0-3 are the same
for every deck, so the observation and action layouts never change.
"""

from __future__ import annotations

NUM_COLORS = 4
NUM_FACES = 13
NUM_COLORED = NUM_COLORS * NUM_FACES  # 52
NUM_KINDS = NUM_COLORED + 4  # 56

# Faces of coloured cards.
FACE_SEVEN = 7  # SEVEN slap (house)
FACE_DRAW2 = 10
FACE_REVERSE = 11
FACE_SKIP = 12
DRAW2_CARDS = 2  # cards a Draw Two makes the next player draw
DRAW4_CARDS = 4  # cards a Wild Draw Four makes the next player draw
FACE_NAMES = tuple(str(n) for n in range(10)) + ("draw2", "reverse", "skip")
NO_FACE = NUM_FACES  # "face" of a wild top card: matches nothing but its colour

# Wild kinds.
WILD = 52
WILD_DRAW4 = 53
TEAM_ATTACK = 54
SEWERS = 55
WILD_KINDS = (WILD, WILD_DRAW4, TEAM_ATTACK, SEWERS)
WILD_NAMES = {WILD: "wild", WILD_DRAW4: "wild-draw4", TEAM_ATTACK: "team-attack",
              SEWERS: "from-the-sewers"}

COLOR_SETS = {
    "classic": ("red", "yellow", "green", "blue"),
    "tmnt": ("blue", "orange", "red", "purple"),
}

ACTION_POINTS = 20
WILD_POINTS = 50


# Per kind: its colour index (-1 for wilds) and its face (``NO_FACE`` for wilds), as tables for
# hot loops (``COLOR_OF[k]`` is ``color_of(k)``, ``KIND_OF[c][f]`` is ``kind_of(c, f)``);
# ``COLOR_SLICES[c]`` selects colour ``c``'s kinds
# from a vector of counts per kind (``sum(hand[COLOR_SLICES[c]])``: cards of colour ``c``).
COLOR_OF = tuple(k // NUM_FACES if k < NUM_COLORED else -1 for k in range(NUM_KINDS))
FACE_OF = tuple(k % NUM_FACES if k < NUM_COLORED else NO_FACE for k in range(NUM_KINDS))
KIND_OF = tuple(tuple(c * NUM_FACES + f for f in range(NUM_FACES)) for c in range(NUM_COLORS))  # [colour][face]
COLOR_SLICES = tuple(slice(c * NUM_FACES, (c + 1) * NUM_FACES) for c in range(NUM_COLORS))
WILD_SLICE = slice(NUM_COLORED, NUM_KINDS)  # the wild kinds of a vector of counts per kind


def kind_of(color: int, face: int) -> int:
    """Kind of the coloured card ``color``/``face``."""
    return color * NUM_FACES + face


def color_of(kind: int) -> int:
    """Colour index of a coloured kind (-1 for wilds)."""
    return kind // NUM_FACES if kind < NUM_COLORED else -1


def face_of(kind: int) -> int:
    """Face of a coloured kind (``NO_FACE`` for wilds)."""
    return kind % NUM_FACES if kind < NUM_COLORED else NO_FACE


def is_wild(kind: int) -> bool:
    return kind >= NUM_COLORED


def card_points(kind: int, sewers_points: int = WILD_POINTS) -> int:
    """Official points of a card left in a hand at the end of a round."""
    if kind >= NUM_COLORED:
        return sewers_points if kind == SEWERS else WILD_POINTS
    face = kind % NUM_FACES
    return face if face < 10 else ACTION_POINTS


def card_name(kind: int, colors: tuple[str, ...]) -> str:
    """The card string of a kind, e.g. ``red-5`` or ``wild-draw4``."""
    if kind >= NUM_COLORED:
        return WILD_NAMES[kind]
    return f"{colors[kind // NUM_FACES]}-{FACE_NAMES[kind % NUM_FACES]}"


def card_names(colors: tuple[str, ...]) -> tuple[str, ...]:
    """Card string of every kind, indexed by kind."""
    return tuple(card_name(k, colors) for k in range(NUM_KINDS))


def parse_deck(deck: object, colors: tuple[str, ...]) -> list[int]:
    """Kinds of a deck given as card strings (top first); ``ValueError`` naming what is wrong."""
    if isinstance(deck, str) or not isinstance(deck, (list, tuple)) \
            or not all(isinstance(c, str) for c in deck):
        raise ValueError("a deck must be a list of card strings, top first")
    ids = {name: kind for kind, name in enumerate(card_names(colors))}
    unknown = sorted({c for c in deck if c not in ids})
    if unknown:
        raise ValueError(f"unknown cards {unknown[:5]} in the deck (colours of this deck: {', '.join(colors)})")
    return [ids[c] for c in deck]


def parse_card(name: str, colors: tuple[str, ...]) -> int:
    """Kind of a card string; ``ValueError`` naming the string if it is not a card."""
    try:
        return card_names(colors).index(name)
    except ValueError:
        raise ValueError(f"unknown card {name!r} (colours of this deck: {', '.join(colors)})") from None
