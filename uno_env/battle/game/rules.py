"""Rule options of the six battle-card games: one typed, validated, frozen config per game,
with named presets.

``make_rules(game, rules=None, **overrides)`` accepts a preset name, the path of a YAML
file, a mapping, or an existing rules object of that game, plus keyword overrides. An
unknown key or a bad value is a ``ValueError`` naming it. Every **Decision** of
docs/TMNT-BATTLE.md is the default of an option here (the field comments name it).

=========  ==============  ==========================================================
game       class           options (default first)
=========  ==============  ==========================================================
battle     BattleRules     view own|open, choice free|highest, chooser winner|rotate,
                           tie pot|return, remainder aside|deal, max_rounds 1000
dragon     DragonRules     race random|seat, false_cover burn|none, remainder
                           aside|deal, max_rounds 2000
attack     AttackRules     hand_size 5, beat same|any, tie total|nobody, at_top dead|match
names      NamesRules      guess right_discards|wrong_discards, restrictions true|false,
                           in_a_row own|last, remainder aside|deal, max_rounds 1500
bonus      BonusRules      bluff false|true, challenge_cost 1, no_repeat true|false,
                           answered out|leader, remainder aside|deal, max_rounds 200
elusive    ElusiveRules    deal 20, deal_to each|all, shout own|others, take
                           round|table, race random|seat, unshouted free|layer,
                           max_rounds 1000
=========  ==============  ==========================================================

**Presets** are package data, ``uno_env/battle/game/presets/<name>.yaml``: one file per
preset holding ``game:`` and the options that differ from the defaults (or from the
``preset:`` it names, of the same game). The preset named after a game is its default.
:data:`PRESETS` maps every name to ``(game, options)``.

**Bounds.** Rules files come from strangers, so every number has a range (:data:`LIMITS`)
and files are read by UNO's reader of rules files,
:func:`uno_env.game.rules.read_yaml_mapping` (regular files only, at most
:data:`MAX_RULES_FILE_BYTES`, ``yaml.safe_load``). A file that cannot be read, a
``game:`` that is not this game, a ``preset:`` of another game or unknown, a key that is
not a string: ``ValueError`` naming the file.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Mapping

from uno_env.game.rules import read_yaml_mapping, show_value

PRESET_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "presets")
MAX_RULES_FILE_BYTES = 16 * 1024
MAX_NAME_LENGTH = 200
MAX_ROUNDS = 100_000

# (lowest, highest) of every integer option, by option name (shared by the games)
LIMITS: dict[str, tuple[int, int]] = {
    "max_rounds": (1, MAX_ROUNDS),
    "hand_size": (1, 20),
    "challenge_cost": (0, 5),
    "deal": (1, 200),
}
# the accepted values of every choice option, default first
CHOICES: dict[str, tuple[str, ...]] = {
    "view": ("own", "open"),
    "choice": ("free", "highest"),
    "chooser": ("winner", "rotate"),
    "race": ("random", "seat"),
    "false_cover": ("burn", "none"),
    "beat": ("same", "any"),
    "guess": ("right_discards", "wrong_discards"),
    "shout": ("own", "others"),
    "take": ("round", "table"),
    "remainder": ("aside", "deal"),
    "answered": ("out", "leader"),
    "in_a_row": ("own", "last"),
    "deal_to": ("each", "all"),
    "unshouted": ("free", "layer"),
    "at_top": ("dead", "match"),
}
_TIE_CHOICES = {"battle": ("pot", "return"), "attack": ("total", "nobody")}


@dataclass(frozen=True)
class GameRules:
    """Options every game has: the ruleset's ``name`` (1..200 printable characters)."""

    game: ClassVar[str] = ""
    name: str = ""

    def __post_init__(self) -> None:
        _validate(self)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def replace(self, **overrides: Any) -> "GameRules":
        return make_rules(self.game, self, **overrides)


@dataclass(frozen=True)
class BattleRules(GameRules):
    game: ClassVar[str] = "battle"
    name: str = "battle"
    view: str = "own"  # Decision B1: each sees its own top card before the category is named ("open": all)
    choice: str = "free"  # Decision B2: the chooser names any category ("highest": its card's highest)
    chooser: str = "winner"  # Decision B3: the round's winner chooses next ("rotate": passes left)
    tie: str = "pot"  # Decision B4: tied cards wait for the next round's winner ("return": back under piles)
    remainder: str = "aside"  # Decision C2: cards that do not divide equally are set aside ("deal": dealt on)
    max_rounds: int = 1000  # Decision C4: then the most cards wins (1..100,000)


@dataclass(frozen=True)
class DragonRules(GameRules):
    game: ClassVar[str] = "dragon"
    name: str = "dragon"
    race: str = "random"  # Decision D3: of several who cover, the first is drawn at random ("seat": nearest left)
    false_cover: str = "burn"  # Decision D4: covering no dragon costs the top card, under the pile ("none")
    remainder: str = "aside"  # Decision C2
    max_rounds: int = 2000  # Decision C4: cards turned; then the most cards wins


@dataclass(frozen=True)
class AttackRules(GameRules):
    game: ClassVar[str] = "attack"
    name: str = "attack"
    hand_size: int = 5  # the sheet's five cards each and five for the invisible player (1..20)
    beat: str = "same"  # Decision A2: beat the invisible card's highest value in that skill ("any": with any skill)
    tie: str = "total"  # Decision A3: equal best beaters: more points in all four skills wins ("nobody")
    at_top: str = "dead"  # Decision A5: a card at the set's highest points cannot be beaten ("match": equal beats it)


@dataclass(frozen=True)
class NamesRules(GameRules):
    game: ClassVar[str] = "names"
    name: str = "names"
    guess: str = "right_discards"  # Decision N1: a right name puts the card in the middle ("wrong_discards": the sheet's words)
    restrictions: bool = True  # the sheet's two bans: your previous name, a name said by another this round
    in_a_row: str = "own"  # Decision N5: "not the same name in a row": your own previous name ("last": the name just said)
    remainder: str = "aside"  # Decision C2
    max_rounds: int = 1500  # Decision C4: then the fewest cards wins


@dataclass(frozen=True)
class BonusRules(GameRules):
    game: ClassVar[str] = "bonus"
    name: str = "bonus"
    bluff: bool = False  # Decision O1: the named characteristic is the card's (true: any may be named; challenges)
    challenge_cost: int = 1  # Decision O4: a lost challenge passes this many cards to the winner (0..5)
    no_repeat: bool = True  # Decision O3: not the characteristic you led last time (unless you hold only it)
    answered: str = "out"  # Decision O7: an answered lead's two cards leave the game ("leader": to the leader)
    remainder: str = "aside"  # Decision C2
    max_rounds: int = 200  # Decision C4: exchanges; then the fewest cards wins


@dataclass(frozen=True)
class ElusiveRules(GameRules):
    game: ClassVar[str] = "elusive"
    name: str = "elusive"
    deal: int = 20  # Decision E1: cards dealt to each (fewer if the deck is short), the rest aside (1..200)
    deal_to: str = "each"  # Decision E1: "distribute 20 of them": 20 to each ("all": 20 in all, shared equally)
    shout: str = "own"  # Decision E2: shout before your own card ("others": the sheet's variant)
    take: str = "round"  # Decision E3: a mistake takes this round's cards ("table": every card laid out)
    race: str = "random"  # Decision E4 (variant): of several shouters, who was first: random ("seat")
    unshouted: str = "free"  # Decision E7 (variant): a bonus card nobody shouts at goes unpunished ("layer": it takes)
    max_rounds: int = 1000  # Decision C4: then the fewest cards wins


RULES_CLASSES: dict[str, type[GameRules]] = {
    cls.game: cls for cls in (BattleRules, DragonRules, AttackRules, NamesRules, BonusRules, ElusiveRules)}
GAMES = tuple(RULES_CLASSES)


def _choices(r: GameRules, name: str) -> tuple[str, ...] | None:
    if name == "tie":
        return _TIE_CHOICES[r.game]
    return CHOICES.get(name)


def _validate(r: GameRules) -> None:
    for f in fields(r):
        value = getattr(r, f.name)
        if f.type == "bool" and not isinstance(value, bool):
            raise ValueError(f"{r.game} rule {f.name!r} must be true or false, got {show_value(value)}")
        if f.type == "int" and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"{r.game} rule {f.name!r} must be an integer, got {show_value(value)}")
        if f.type == "str" and not isinstance(value, str):
            raise ValueError(f"{r.game} rule {f.name!r} must be a string, got {show_value(value)}")
        allowed = _choices(r, f.name)
        if allowed is not None and value not in allowed:
            raise ValueError(f"{r.game} rule {f.name!r} must be one of {list(allowed)}, got {show_value(value)}")
        if f.name in LIMITS:
            low, high = LIMITS[f.name]
            if not low <= value <= high:
                raise ValueError(f"{r.game} rule {f.name!r} must be in {low}..{high}, got {show_value(value)}")
    if not 1 <= len(r.name) <= MAX_NAME_LENGTH or not r.name.isprintable():
        raise ValueError(f"{r.game} rule 'name' must be 1..{MAX_NAME_LENGTH} printable characters, "
                         f"got {show_value(r.name)}")


def _check_game(game: Any) -> type[GameRules]:
    if not isinstance(game, str) or game not in RULES_CLASSES:
        raise ValueError(f"unknown game {show_value(game)}; games: {list(GAMES)}")
    return RULES_CLASSES[game]


def _load_presets(directory: str = PRESET_DIR) -> dict[str, tuple[str, dict[str, Any]]]:
    raw = {os.path.splitext(f)[0]: read_yaml_mapping(os.path.join(directory, f), "preset file",
                                                     MAX_RULES_FILE_BYTES)
           for f in sorted(os.listdir(directory)) if f.endswith(".yaml")}
    out: dict[str, tuple[str, dict[str, Any]]] = {}

    def flatten(name: str, seen: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
        if name in out:
            return out[name]
        if name in seen:
            raise ValueError(f"preset {name!r} names itself through {' -> '.join(seen + (name,))}")
        data = dict(raw[name])
        game = data.pop("game", None)
        _check_game(game)
        base = data.pop("preset", None)
        values: dict[str, Any] = {}
        if base is not None:
            if not isinstance(base, str) or base not in raw:
                raise ValueError(f"preset {name!r} names an unknown preset {show_value(base)}")
            base_game, values = flatten(base, seen + (name,))
            if base_game != game:
                raise ValueError(f"preset {name!r} ({game}) names a preset of {base_game}")
            values = dict(values)
        values.update(data)
        values["name"] = name
        out[name] = (game, values)
        return out[name]

    for name in raw:
        flatten(name, ())
    return out


PRESETS: dict[str, tuple[str, dict[str, Any]]] = _load_presets()


def presets_of(game: str) -> list[str]:
    """The preset names of ``game``."""
    return sorted(name for name, (g, _) in PRESETS.items() if g == game)


def _from_mapping(cls: type[GameRules], base: GameRules, mapping: Mapping[Any, Any], source: str) -> GameRules:
    bad = [k for k in mapping if not isinstance(k, str)]
    if bad:
        raise ValueError(f"rule keys must be strings, got {show_value(bad)} in {source}")
    names = {f.name for f in fields(cls)}
    unknown = sorted(k for k in mapping if k not in names)
    if unknown:
        raise ValueError(f"unknown {cls.game} rule key(s) {show_value(unknown)} in {source}; "
                         f"known keys: {sorted(names)}")
    values = base.to_dict()
    values.update(mapping)
    try:
        return cls(**values)
    except ValueError as e:
        raise ValueError(f"{e} (in {source})") from None


def preset(name: str, game: str | None = None) -> GameRules:
    """A named preset (a file of ``uno_env/battle/game/presets``); of ``game`` if given."""
    if not isinstance(name, str) or name not in PRESETS or (game is not None and PRESETS[name][0] != game):
        known = presets_of(game) if game in RULES_CLASSES else sorted(PRESETS)
        raise ValueError(f"unknown {game or 'battle-card'} preset {show_value(name)}; presets: {known} "
                         f"(or the path of a YAML file)")
    g, values = PRESETS[name]
    return RULES_CLASSES[g](**values)


def _base_of(cls: type[GameRules], mapping: dict[str, Any], source: str) -> GameRules:
    """The start of a file or mapping: its ``preset:`` (of this game) or the game's default;
    a ``game:`` key must name this game."""
    game = mapping.pop("game", cls.game)
    if game != cls.game:
        raise ValueError(f"{source} is for the game {show_value(game)}, not {cls.game!r}")
    base = mapping.pop("preset", cls.game)
    if not isinstance(base, str) or base not in PRESETS or PRESETS[base][0] != cls.game:
        raise ValueError(f"{source} names an unknown {cls.game} preset {show_value(base)}; "
                         f"presets: {presets_of(cls.game)}")
    return preset(base)


def load_yaml(game: str, path: Any) -> GameRules:
    """Rules of ``game`` from a YAML file (``preset:`` picks the base, ``game:`` must match);
    named after the file unless it sets ``name``."""
    cls = _check_game(game)
    source = f"rules file {os.fspath(path)!r}"
    data = read_yaml_mapping(path, "rules file", MAX_RULES_FILE_BYTES)
    stem = os.path.splitext(os.path.basename(os.fspath(path)))[0][:MAX_NAME_LENGTH]
    base = _base_of(cls, data, source)
    data.setdefault("name", stem or cls.game)
    return _from_mapping(cls, base, data, source)


def make_rules(game: str, rules: Any = None, **overrides: Any) -> GameRules:
    """Validated rules of ``game`` from a preset name, a YAML path, a mapping or a rules object
    (``None``: the game's default preset), plus keyword overrides."""
    cls = _check_game(game)
    if rules is None:
        base = preset(game)
    elif isinstance(rules, GameRules):
        if not isinstance(rules, cls):
            raise ValueError(f"rules of {rules.game!r} given for the game {game!r}")
        base = rules
    elif isinstance(rules, os.PathLike) or (isinstance(rules, str) and rules.endswith((".yaml", ".yml"))):
        base = load_yaml(game, rules)
    elif isinstance(rules, str):
        base = preset(rules, game)
    elif isinstance(rules, Mapping):
        mapping = dict(rules)
        base = _from_mapping(cls, _base_of(cls, mapping, "rules dict"), mapping, "rules dict")
    else:
        raise ValueError(f"{game} rules must be a preset name, YAML path, mapping or rules object, "
                         f"got {show_value(rules)} ({type(rules).__name__})")
    return _from_mapping(cls, base, overrides, "keyword overrides") if overrides else base
