"""The battle cards: card types, a card set, and the one loader of card-list files.

A **card set** (:class:`CardSet`) is a tuple of card *types*; a deck holds ``copies`` of each.
Cards of one type are identical, so piles and hands hold type ids (``0..len(types)-1``, in
the order of the file: characters, then Purple Dragons, then bonuses).

==============  =====================================================================
kind            fields
==============  =====================================================================
``character``   ``name``, the four skills ``ingenuity``, ``dexterity``, ``strength``,
                ``skill`` (the card's points in each), ``copies``
``dragon``      a Purple Dragon card: a character of the Purple Dragons gang, with the
                same fields (it fights like any character; Catch the dragon is about it)
``bonus``       ``name``, ``characteristic`` (one of the four skills), ``copies``; no points
==============  =====================================================================

The default set, ``tmnt-standin`` (package data: ``uno_env/battle/game/decks/``), is **this
project's stand-in**: the source sheet lists no cards (docs/TMNT-BATTLE.md, "The card set").
:func:`load_cards` takes a packaged set's name, the path of a YAML file (``.yaml``/``.yml``),
a mapping of the same keys, or a :class:`CardSet`.

**Card-list files** are read by the package's one YAML reader,
:func:`uno_env.game.rules.read_yaml_mapping` over :mod:`uno_env._files` (regular files only,
looked at before they are opened and opened without blocking, at most
:data:`MAX_CARDS_FILE_BYTES`, UTF-8, ``yaml.safe_load``, integers too long to read named), and
checked key by key; every problem is a ``ValueError`` naming the file, the entry and the key:

=====================  ==================================================================
key                    accepted
=====================  ==================================================================
(top level)            ``name`` (optional), ``characters``, ``dragons``, ``bonuses``
                       (lists, each optional; unknown keys are errors)
``name``               1..40 printable characters, unique over the whole set
skills                 integers 0..99 (all four required for characters and dragons)
``characteristic``     ``ingenuity``, ``dexterity``, ``strength`` or ``skill``
``copies``             integer 1..20 (default 1)
sizes                  at most :data:`MAX_TYPES` entries and :data:`MAX_CARDS` cards in
                       all, at least one card; what each game needs is checked by the
                       game (e.g. Catch the dragon needs a Purple Dragon)
=====================  ==================================================================
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Any, Mapping

from uno_env.game.rules import read_yaml_mapping, show_value

SKILLS = ("ingenuity", "dexterity", "strength", "skill")
NUM_SKILLS = len(SKILLS)
CHARACTER, DRAGON, BONUS = range(3)
KIND_NAMES = ("character", "dragon", "bonus")
SECTIONS = ("characters", "dragons", "bonuses")  # file keys, by kind
FIGHTERS = (CHARACTER, DRAGON)  # the kinds with points

DECK_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "decks")
DEFAULT_CARDS = "tmnt-standin"
MAX_CARDS_FILE_BYTES = 64 * 1024
MAX_TYPES = 100
MAX_CARDS = 400
MAX_COPIES = 20
MAX_POINTS = 99
MAX_NAME_LENGTH = 40


@dataclass(frozen=True)
class CardType:
    """One kind of card: a character, a Purple Dragon or a bonus (module table)."""

    name: str
    kind: int  # CHARACTER, DRAGON or BONUS
    skills: tuple[int, ...] = (0, 0, 0, 0)  # points per SKILLS entry (bonus: zeros)
    characteristic: int = -1  # bonus: index into SKILLS; else -1
    copies: int = 1

    @property
    def is_bonus(self) -> bool:
        return self.kind == BONUS

    @property
    def fights(self) -> bool:
        """A character or a Purple Dragon: a card with points."""
        return self.kind != BONUS

    def to_dict(self) -> dict[str, Any]:
        if self.kind == BONUS:
            return {"name": self.name, "characteristic": SKILLS[self.characteristic], "copies": self.copies}
        return {"name": self.name, **dict(zip(SKILLS, self.skills)), "copies": self.copies}


@dataclass(frozen=True)
class CardSet:
    """The card types of a deck (module docstring); ids index ``types``."""

    name: str
    types: tuple[CardType, ...]

    def __post_init__(self) -> None:
        if not self.types:
            raise ValueError(f"card set {self.name!r} holds no cards")

    @property
    def size(self) -> int:
        return len(self.types)

    def ids(self, *kinds: int) -> list[int]:
        """Type ids of the given kinds (all kinds when none given), ascending."""
        return [i for i, t in enumerate(self.types) if not kinds or t.kind in kinds]

    def deck(self, *kinds: int) -> list[int]:
        """The cards of the given kinds (all when none given): each type id ``copies`` times."""
        return [i for i in self.ids(*kinds) for _ in range(self.types[i].copies)]

    def card_names(self) -> list[str]:
        return [t.name for t in self.types]

    def to_dict(self) -> dict[str, Any]:
        """The set in the file's form (``load_cards`` of it is an equal set)."""
        out: dict[str, Any] = {"name": self.name}
        for kind, section in enumerate(SECTIONS):
            out[section] = [t.to_dict() for t in self.types if t.kind == kind]
        return out


def card_text(cards: CardSet, card: int) -> str:
    """A card with its points: ``Leonardo (ingenuity 7, dexterity 8, strength 7, skill 10)``,
    ``Pizza Power (bonus: strength)``."""
    t = cards.types[card]
    if t.is_bonus:
        return f"{t.name} (bonus: {SKILLS[t.characteristic]})"
    return f"{t.name} (" + ", ".join(f"{k} {v}" for k, v in zip(SKILLS, t.skills)) + ")"


def _where(source: str, section: str, index: int, entry: Any) -> str:
    name = entry.get("name") if isinstance(entry, dict) else None
    label = f" ({show_value(name)})" if isinstance(name, str) else ""
    return f"{source}: {section}[{index}]{label}"


def _integer(value: Any, low: int, high: int, where: str, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{where}: {key!r} must be an integer in {low}..{high}, got {show_value(value)}")
    return value


def _name(value: Any, where: str) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= MAX_NAME_LENGTH or not value.isprintable() \
            or value != value.strip():
        raise ValueError(f"{where}: 'name' must be 1..{MAX_NAME_LENGTH} printable characters without "
                         f"leading or trailing spaces, got {show_value(value)}")
    return value


def _card_type(kind: int, entry: Any, where: str) -> CardType:
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: an entry must be a mapping of keys to values, got {show_value(entry)}")
    keys = ("name", "characteristic", "copies") if kind == BONUS else ("name",) + SKILLS + ("copies",)
    bad = [k for k in entry if not isinstance(k, str)]
    if bad:
        raise ValueError(f"{where}: keys must be strings, got {show_value(bad)}")
    unknown = sorted(k for k in entry if k not in keys)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {show_value(unknown)}; keys of a {KIND_NAMES[kind]}: "
                         f"{list(keys)}")
    missing = [k for k in keys if k != "copies" and k not in entry]
    if missing:
        raise ValueError(f"{where}: missing key(s) {missing}")
    name = _name(entry["name"], where)
    copies = _integer(entry.get("copies", 1), 1, MAX_COPIES, where, "copies")
    if kind == BONUS:
        c = entry["characteristic"]
        if not isinstance(c, str) or c not in SKILLS:
            raise ValueError(f"{where}: 'characteristic' must be one of {list(SKILLS)}, got {show_value(c)}")
        return CardType(name, kind, (0,) * NUM_SKILLS, SKILLS.index(c), copies)
    skills = tuple(_integer(entry[k], 0, MAX_POINTS, where, k) for k in SKILLS)
    return CardType(name, kind, skills, -1, copies)


def cards_from_mapping(data: Mapping[str, Any], source: str = "card list", default_name: str = "cards") -> CardSet:
    """A :class:`CardSet` from the file's mapping; ``ValueError`` naming ``source``, the entry
    and the key of the first problem."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{source} must be a mapping with keys {['name', *SECTIONS]}, got {show_value(data)}")
    bad = [k for k in data if not isinstance(k, str)]
    if bad:
        raise ValueError(f"{source}: keys must be strings, got {show_value(bad)}")
    unknown = sorted(k for k in data if k not in ("name",) + SECTIONS)
    if unknown:
        raise ValueError(f"{source}: unknown key(s) {show_value(unknown)}; keys: {['name', *SECTIONS]}")
    name = data.get("name", default_name)
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME_LENGTH or not name.isprintable():
        raise ValueError(f"{source}: 'name' must be 1..{MAX_NAME_LENGTH} printable characters, got "
                         f"{show_value(name)}")
    types: list[CardType] = []
    for kind, section in enumerate(SECTIONS):
        entries = data.get(section, [])
        if entries is None:
            entries = []
        if not isinstance(entries, list):
            raise ValueError(f"{source}: {section!r} must be a list of entries, got {show_value(entries)}")
        if len(types) + len(entries) > MAX_TYPES:
            raise ValueError(f"{source}: more than {MAX_TYPES} card entries")
        types.extend(_card_type(kind, e, _where(source, section, i, e)) for i, e in enumerate(entries))
    if not types:
        raise ValueError(f"{source} holds no cards: give at least one of {list(SECTIONS)}")
    seen: set[str] = set()
    for t in types:
        if t.name in seen:
            raise ValueError(f"{source}: the name {t.name!r} is given twice (names are unique; use 'copies')")
        seen.add(t.name)
    total = sum(t.copies for t in types)
    if total > MAX_CARDS:
        raise ValueError(f"{source}: {total} cards in all, more than the {MAX_CARDS} allowed")
    return CardSet(name, tuple(types))


def packaged_sets() -> list[str]:
    """Names of the card sets shipped in ``uno_env/battle/game/decks``."""
    return sorted(os.path.splitext(f)[0] for f in os.listdir(DECK_DIR) if f.endswith(".yaml"))


def load_cards_file(path: Any) -> CardSet:
    """A card set from a YAML file (module docstring: bounds and checks); named after the file
    unless it sets ``name``."""
    data = read_yaml_mapping(path, "card list", MAX_CARDS_FILE_BYTES)
    stem = os.path.splitext(os.path.basename(os.fspath(path)))[0][:MAX_NAME_LENGTH] or "cards"
    return cards_from_mapping(data, f"card list {os.fspath(path)!r}", stem)


@functools.lru_cache(maxsize=None)
def _packaged(name: str) -> CardSet:
    """A packaged set, read once (sets are immutable)."""
    return load_cards_file(os.path.join(DECK_DIR, name + ".yaml"))


def load_cards(cards: "str | os.PathLike | Mapping[str, Any] | CardSet | None" = None) -> CardSet:
    """A card set from a packaged set's name (default ``tmnt-standin``), a YAML path, a mapping
    or a :class:`CardSet`."""
    if cards is None:
        cards = DEFAULT_CARDS
    if isinstance(cards, CardSet):
        return cards
    if isinstance(cards, Mapping):
        return cards_from_mapping(cards, "card list (mapping)")
    if isinstance(cards, os.PathLike) or (isinstance(cards, str) and cards.endswith((".yaml", ".yml"))):
        return load_cards_file(cards)
    if isinstance(cards, str) and cards in packaged_sets():
        return _packaged(cards)
    raise ValueError(f"unknown card set {show_value(cards)}; packaged sets: {packaged_sets()} "
                     f"(or the path of a YAML card list)")
