"""Rule options: one typed, validated, frozen config with named presets.

``make_rules`` accepts a preset name (``classic``, ``tmnt``, ``house``,
``classic-stacking-jumpin``), a path to a YAML file, a dict, or an existing :class:`Rules`,
plus keyword overrides on top. An unknown key or a bad value raises ``ValueError`` naming
it. A YAML file (or dict) may name a ``preset`` to start from; its other keys override that
preset.

The presets are package data: ``uno_env/game/presets/<name>.yaml``, one file per preset,
each holding only what differs from the defaults below (the official rules) or from the
preset it names. :data:`PRESETS` maps every name to its options (as read from its file).

Every **Decision** of ``RULES.md`` is the default of an option here (see the field
comments), so it can be changed.

**Bounds.** A ruleset may come from a stranger (a YAML file, a game log's header), so every
number and size has a range (:data:`LIMITS`, also in the field comments) and a value outside
it is a ``ValueError``, before any deck is built:

=====================  ================  =================================================
option                 range             note
=====================  ================  =================================================
``count_*``            0..100            copies of a card (per colour for coloured cards):
                                         a deck of at most 5,600 cards (house: 580)
``hand_size``          1..50
``uno_penalty``        0..100
``sewers_points``      0..1,000
``target_score``       1..1,000,000
``num_rounds``         1..10,000
``max_steps``          1..10,000,000     so an episode always ends
``name``               1..200            printable characters (shown in terminals, logs)
``villain_faces``      distinct faces    of ``cards.FACE_NAMES``
=====================  ================  =================================================

The deck must also deal every hand of two players plus a first card. Rules files are read
with ``yaml.safe_load`` (no code runs); a file that cannot be read, is not UTF-8, is not
valid YAML or holds no mapping, a key that is not a string, and a ``preset:`` that names an
unknown preset or the file itself are ``ValueError``s naming the file. So is what YAML would
read silently otherwise, with its line: a key given twice in one mapping (the parser keeps the
last), a YAML 1.1 octal (``010``: 8) or base-60 (``1:10``: 70) number. The same reader reads
the training configs and the battle card lists.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import reprlib
from dataclasses import dataclass, fields
from typing import Any, Mapping

from uno_env import _files
from uno_env.game import cards

PRESET_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "presets")

_CHOICES = {
    "colors": tuple(cards.COLOR_SETS),
    "uno_call": ("auto", "explicit"),
    "draw_rule": ("one", "until_playable"),
    "episode": ("round", "game", "rounds"),
    "scoring": ("standard", "alternative"),
    "stacked_challenge": ("whole", "last"),
}

MAX_COUNT = 100  # copies of one card kind (per colour for coloured cards)
MAX_NAME_LENGTH = 200
# (lowest, highest) value of every integer option: see the module docstring
LIMITS: dict[str, tuple[int, int]] = {
    **{name: (0, MAX_COUNT) for name in (
        "count_zero", "count_number", "count_draw2", "count_reverse", "count_skip", "count_wild",
        "count_wild_draw4", "count_team_attack", "count_sewers")},
    "hand_size": (1, 50),
    "uno_penalty": (0, 100),
    "sewers_points": (0, 1_000),
    "target_score": (1, 1_000_000),
    "num_rounds": (1, 10_000),
    "max_steps": (1, 10_000_000),
}


class _ShortRepr(reprlib.Repr):
    """``repr`` with bounded work and length (nested YAML aliases, 5000-digit integers)."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel, self.maxlist, self.maxtuple, self.maxdict, self.maxset = 3, 6, 6, 6, 6
        self.maxstring, self.maxother, self.maxlong = 60, 60, 40

    def repr_int(self, x: int, level: int) -> str:
        if abs(x) >= 10 ** 18:
            return f"<integer of {x.bit_length()} bits>"
        return super().repr_int(x, level)


_SHORT_REPR = _ShortRepr()


def show_value(value: Any) -> str:
    """A short ``repr`` for error messages: bounded in length and work, never raises."""
    try:
        return _SHORT_REPR.repr(value)
    except Exception:  # a hostile __repr__, an int subclass too long to print...
        return f"<unprintable {type(value).__name__}>"


@dataclass(frozen=True)
class Rules:
    """All rule options. Defaults are the official Mattel rules (preset ``classic``)."""

    name: str = "classic"  # 1..200 printable characters
    # --- deck (RULES.md 1) ---
    colors: str = "classic"  # colour names: "classic" (red, yellow, green, blue) or "tmnt"
    count_zero: int = 1  # copies of each 0 per colour (every count_*: 0..100, see LIMITS)
    count_number: int = 2  # copies of each 1-9 per colour
    count_draw2: int = 2  # per colour
    count_reverse: int = 2  # per colour
    count_skip: int = 2  # per colour
    count_wild: int = 4
    count_wild_draw4: int = 4
    count_team_attack: int = 0  # tmnt: 4
    count_sewers: int = 0  # house: 20 (Decision: the sheet gives no count)
    # --- setup and turn (RULES.md 2, 3) ---
    hand_size: int = 7  # 1..50
    winner_starts: bool = False  # house: the previous round's winner starts the next round
    draw_rule: str = "one"  # "one" (official) or "until_playable" (house)
    wd4_bluff: bool = True  # an illegal Wild Draw Four may be played (and challenged)
    challenge: bool = True  # the victim of a Wild Draw Four may challenge it
    stacked_challenge: str = "whole"  # Decision (RULES.md 5, stacking): a challenge of the last Draw
    #   Four of a stack judges the "whole" count (guilty: its player draws it all; innocent: the
    #   challenger draws the count + 2) or only the "last" card (guilty: its player draws 4 and the
    #   challenger still takes the rest of the stack; innocent: as "whole")
    two_player_reverse_skips: bool = True  # Decision: Reverse with 2 players acts as a Skip
    # --- action cards (RULES.md 4) ---
    villain_faces: tuple[str, ...] = ("1", "2", "3")  # Decision: villain number faces (tmnt); distinct
    sewers_points: int = 50  # Decision: points of a FROM THE SEWERS card (0..1,000)
    # --- house rules (RULES.md 6) ---
    stacking: bool = False
    jump_in: bool = False
    jump_in_random_pick: bool = True  # Decision: several jumpers -> one at random (else first in seat order)
    seven_slap: bool = False
    seven_slap_random: bool = True  # Decision: slowest player = random other player (else next player)
    giving: bool = False
    # --- UNO call (RULES.md 7) ---
    uno_call: str = "auto"  # "auto" or "explicit"
    uno_penalty: int = 2  # cards for a missed UNO call (0..100)
    # --- end and scoring (RULES.md 8) ---
    episode: str = "round"  # "round", "game" (to target_score) or "rounds" (num_rounds)
    num_rounds: int = 1  # rounds per episode when episode == "rounds" (1..10,000)
    target_score: int = 500  # 1..1,000,000
    scoring: str = "standard"  # "standard" or "alternative" (lowest tally wins)
    max_steps: int = 10_000  # decision steps per episode before truncation (1..10,000,000)

    def __post_init__(self) -> None:
        _validate(self)

    # ------------------------------------------------------------------ derived facts
    @property
    def color_names(self) -> tuple[str, ...]:
        return cards.COLOR_SETS[self.colors]

    def deck_counts(self) -> list[int]:
        """Copies of each card kind in the full deck, indexed by kind."""
        counts = [0] * cards.NUM_KINDS
        per_face = [self.count_zero] + [self.count_number] * 9 + [
            self.count_draw2, self.count_reverse, self.count_skip]
        for color in range(cards.NUM_COLORS):
            for face in range(cards.NUM_FACES):
                counts[cards.kind_of(color, face)] = per_face[face]
        counts[cards.WILD] = self.count_wild
        counts[cards.WILD_DRAW4] = self.count_wild_draw4
        counts[cards.TEAM_ATTACK] = self.count_team_attack
        counts[cards.SEWERS] = self.count_sewers
        return counts

    def deck_size(self) -> int:
        return sum(self.deck_counts())

    def villain_kinds(self) -> tuple[int, ...]:
        """Kinds that a Team Attack lets a player discard."""
        faces = [cards.FACE_NAMES.index(f) for f in self.villain_faces]
        return tuple(sorted(cards.kind_of(c, f) for c in range(cards.NUM_COLORS) for f in faces))

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["villain_faces"] = list(self.villain_faces)
        return d

    def replace(self, **overrides: Any) -> "Rules":
        return make_rules(self, **overrides)


def _validate(r: Rules) -> None:
    for f in fields(r):
        value = getattr(r, f.name)
        expected = f.type
        if expected == "bool" and not isinstance(value, bool):
            raise ValueError(f"rule {f.name!r} must be true or false, got {show_value(value)}")
        if expected == "int" and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"rule {f.name!r} must be an integer, got {show_value(value)}")
        if expected == "str" and not isinstance(value, str):
            raise ValueError(f"rule {f.name!r} must be a string, got {show_value(value)}")
        if f.name in _CHOICES and value not in _CHOICES[f.name]:
            raise ValueError(f"rule {f.name!r} must be one of {list(_CHOICES[f.name])}, got {show_value(value)}")
        if f.name in LIMITS:
            low, high = LIMITS[f.name]
            if not low <= value <= high:
                raise ValueError(f"rule {f.name!r} must be in {low}..{high}, got {show_value(value)}")
    if not 1 <= len(r.name) <= MAX_NAME_LENGTH or not r.name.isprintable():
        raise ValueError(f"rule 'name' must be 1..{MAX_NAME_LENGTH} printable characters, "
                         f"got {show_value(r.name)}")
    faces = r.villain_faces
    if not isinstance(faces, tuple) or not all(isinstance(f, str) for f in faces):
        raise ValueError(f"rule 'villain_faces' must be a list of face names, got {show_value(faces)}")
    bad = [f for f in faces if f not in cards.FACE_NAMES]
    if bad:
        raise ValueError(f"rule 'villain_faces' has unknown faces {show_value(bad)}; "
                         f"faces are {list(cards.FACE_NAMES)}")
    if len(set(faces)) != len(faces):
        raise ValueError(f"rule 'villain_faces' names a face twice: {list(faces)}")
    if r.deck_size() < 2 * r.hand_size + 2:
        raise ValueError(f"deck of {r.deck_size()} cards is too small for hand_size {r.hand_size}")


MAX_YAML_BYTES = 256 * 1024  # a rules file or training config (the shipped ones: under 3 KB)


@functools.lru_cache(maxsize=None)
def _yaml_loader() -> type:
    """PyYAML's safe loader (its C ``CSafeLoader`` where present: ~5x faster, a third of the
    memory), which keeps an integer too long for ``int()`` as a :class:`_files.TooLongInteger`."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    safe = yaml.constructor.SafeConstructor

    def construct_int(loader: Any, node: Any) -> Any:
        try:
            value = safe.construct_yaml_int(loader, node)
        except ValueError:  # more digits than sys.get_int_max_str_digits()
            return _files.TooLongInteger(sum(c.isdigit() for c in str(node.value)))
        if _YAML11_OCTAL.fullmatch(str(node.value)) or ":" in str(node.value):
            raise _yaml11_number(node, value)
        return value

    def construct_float(loader: Any, node: Any) -> Any:
        value = safe.construct_yaml_float(loader, node)
        if ":" in str(node.value):
            raise _yaml11_number(node, value)
        return value

    def construct_mapping(loader: Any, node: Any, deep: bool = False) -> Any:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # "<<: *base": keys after it override the merged ones on purpose
            key = loader.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                if key in seen:
                    raise YamlRefused(f"line {line}: key {show_value(key)} is given twice (first on line "
                                      f"{seen[key]}): a YAML reader keeps the last one only")
                seen[key] = line
            except TypeError:  # an unhashable key: the constructor below names it
                continue
        return safe.construct_mapping(loader, node, deep=deep)

    loader = type("BoundedSafeLoader", (base,), {"construct_mapping": construct_mapping})
    loader.add_constructor("tag:yaml.org,2002:int", construct_int)
    loader.add_constructor("tag:yaml.org,2002:float", construct_float)
    return loader


class YamlRefused(ValueError):
    """YAML that parses but does not say what it seems to: a key given twice, a YAML 1.1 octal
    or base-60 number (:func:`parse_yaml` names the source)."""


_YAML11_OCTAL = re.compile(r"[-+]?0[0-7_]+")  # what YAML 1.1 reads as octal: "010" is 8


def _yaml11_number(node: Any, value: Any) -> YamlRefused:
    """A YAML 1.1 octal (``010``: 8) or base-60 (``1:10``: 70) number, refused: whoever reads
    the file sees another number (or a time) than the parser."""
    text, shown = show_value(str(node.value))[1:-1], show_value(value)  # bounded: 5,000 octal digits too
    kind = "a base-60" if ":" in text else "an octal"
    return YamlRefused(f"line {node.start_mark.line + 1}: {text} is {kind} number in YAML 1.1 (it reads "
                       f"{shown}): write {shown}, or quote it ('{text}') for the text")


def parse_yaml(text: str, source: str) -> Any:
    """The document in YAML ``text`` (safe loader: never runs code); ``ValueError`` naming
    ``source`` if it is not YAML, nests too deeply, holds an integer too long to read (its
    key named), a key given twice in a mapping or a YAML 1.1 octal or base-60 number (their
    line named: :class:`YamlRefused`). The one YAML parser of the package: files (:func:`read_yaml_mapping`) and
    ``--set`` values (:mod:`uno_env.tools.overrides`)."""
    import yaml

    try:
        data = yaml.load(text, Loader=_yaml_loader())
    except YamlRefused as e:
        raise ValueError(f"{source}: {e}") from None
    except yaml.YAMLError as e:
        raise ValueError(f"{source} is not valid YAML: {str(e).splitlines()[0]}") from None
    except RecursionError:
        raise ValueError(f"{source} is nested too deeply") from None
    problem = _files.too_long_integer_problem(data)
    if problem is not None:
        raise ValueError(source + problem)
    return data


def read_yaml_mapping(path: str, kind: str = "rules file", max_bytes: int = MAX_YAML_BYTES) -> dict[str, Any]:
    """The mapping in a YAML file (an empty file: ``{}``), read with :func:`parse_yaml`;
    ``ValueError`` naming the ``kind`` of file and its path if it is not a regular file (a
    FIFO, a device, a directory) of at most ``max_bytes``, cannot be read, is not UTF-8 or not
    YAML, nests too deeply, holds an integer too long to read, or is not a mapping. The one
    reader of rules files, and of the training configs (:mod:`uno_env.learn.configs`)."""
    try:
        text = _files.read_bounded_text(path, max_bytes, kind)
    except OSError as e:
        raise ValueError(f"{kind} {path!r} cannot be read: {e.strerror or e}") from None
    data = parse_yaml(text, f"{kind} {path!r}")
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise ValueError(f"{kind} {path!r} must hold a mapping of keys to values, got {type(data).__name__}")
    return dict(data)


def _load_presets(directory: str = PRESET_DIR) -> dict[str, dict[str, Any]]:
    """Every ``<directory>/<name>.yaml``, flattened: ``{name: {option: value}}`` (``name``
    included). ``ValueError`` naming the file if one names an unknown preset or itself."""
    raw = {os.path.splitext(f)[0]: read_yaml_mapping(os.path.join(directory, f))
           for f in sorted(os.listdir(directory)) if f.endswith(".yaml")}
    out: dict[str, dict[str, Any]] = {}

    def flatten(name: str, seen: tuple[str, ...]) -> dict[str, Any]:
        if name in out:
            return out[name]
        if name in seen:
            raise ValueError(f"preset {name!r} names itself through {' -> '.join(seen + (name,))}")
        data = dict(raw[name])
        base = data.pop("preset", None)
        if base is not None and (not isinstance(base, str) or base not in raw):
            raise ValueError(f"preset file {os.path.join(directory, name + '.yaml')!r} names an "
                             f"unknown preset {show_value(base)}; presets: {sorted(raw)}")
        values = dict(flatten(base, seen + (name,))) if base is not None else {}
        values.update(data)
        values["name"] = name
        out[name] = values
        return values

    for name in raw:
        flatten(name, ())
    return out


PRESETS: dict[str, dict[str, Any]] = _load_presets()


def _field_names() -> set[str]:
    return {f.name for f in fields(Rules)}


def _coerce(key: str, value: Any, source: str) -> Any:
    if key == "villain_faces":
        if isinstance(value, str):
            value = [value]
        # faces may be written as YAML numbers (villain_faces: [1, 2, 3])
        if not isinstance(value, (list, tuple)) or not all(
                isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 9)
                for v in value):
            raise ValueError(f"rule 'villain_faces' must be a list of face names "
                             f"(e.g. [\"1\", \"2\", \"3\"]), got {show_value(value)} (in {source})")
        return tuple(str(v) for v in value)
    return value


def _check_keys(mapping: Mapping[Any, Any], source: str) -> None:
    bad = [k for k in mapping if not isinstance(k, str)]
    if bad:
        raise ValueError(f"rule keys must be strings, got {show_value(bad)} in {source}")


def _from_mapping(base: Rules, mapping: Mapping[str, Any], source: str) -> Rules:
    _check_keys(mapping, source)
    names = _field_names()
    unknown = sorted(k for k in mapping if k not in names)
    if unknown:
        raise ValueError(f"unknown rule key(s) {show_value(unknown)} in {source}; known keys: {sorted(names)}")
    values = base.to_dict()
    values.update({k: _coerce(k, v, source) for k, v in mapping.items()})
    values["villain_faces"] = tuple(values["villain_faces"])
    try:
        return Rules(**values)
    except ValueError as e:
        raise ValueError(f"{e} (in {source})") from None


def load_yaml(path: str) -> Rules:
    """Rules from a YAML file; ``preset: <name>`` in it selects the base preset. The rules are
    named after the file (``mine.yaml``: ``mine``) unless it sets ``name``."""
    data = read_yaml_mapping(path)
    _check_keys(data, f"rules file {path!r}")
    stem = os.path.splitext(os.path.basename(path))[0]
    data.setdefault("name", stem)
    base_name = data.pop("preset", "classic")
    if isinstance(base_name, str) and base_name not in PRESETS and (
            base_name == stem or os.path.splitext(os.path.basename(base_name))[0] == stem):
        raise ValueError(f"rules file {path!r} names itself as its preset ({base_name!r}); "
                         f"a preset is one of {sorted(PRESETS)}")
    base = _base_preset(base_name, f"rules file {path!r}")
    return _from_mapping(base, data, f"rules file {path!r}")


def _base_preset(name: Any, source: str) -> Rules:
    if not isinstance(name, str) or name not in PRESETS:
        raise ValueError(f"{source} names an unknown preset {show_value(name)}; presets: {sorted(PRESETS)}")
    return Rules(**_coerced(PRESETS[name]))


def _coerced(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _coerce(k, v, "a preset") for k, v in values.items()}


def preset(name: str) -> Rules:
    """A named preset (a file of ``uno_env/game/presets``): ``classic``, ``tmnt``, ``house``..."""
    if isinstance(name, str) and name in PRESETS:
        return Rules(**_coerced(PRESETS[name]))
    raise ValueError(f"unknown rules preset {show_value(name)}; presets: {sorted(PRESETS)} "
                     f"(or the path of a YAML file)")


def make_rules(rules: "str | Mapping[str, Any] | Rules | None" = "classic", **overrides: Any) -> Rules:
    """Build validated :class:`Rules` from a preset name, YAML path, dict or Rules, plus overrides."""
    if rules is None:
        base = preset("classic")
    elif isinstance(rules, Rules):
        base = rules
    elif isinstance(rules, str):
        base = load_yaml(rules) if rules.endswith((".yaml", ".yml")) else preset(rules)
    elif isinstance(rules, Mapping):
        mapping = dict(rules)
        _check_keys(mapping, "rules dict")
        start = _base_preset(mapping.pop("preset", "classic"), "rules dict")
        base = _from_mapping(start, mapping, "rules dict")
    else:
        raise ValueError(f"rules must be a preset name, YAML path, dict or Rules, got {show_value(rules)} "
                         f"({type(rules).__name__})")
    return _from_mapping(base, overrides, "keyword overrides") if overrides else base
