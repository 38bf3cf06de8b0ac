"""Reading a game log (:mod:`uno_env.tools.gamelog`): :func:`read_log` and its checks.

A log may come from a stranger: it is read one line at a time, a regular file only (a FIFO
or ``/dev/zero`` is refused without being read), at most :data:`MAX_LOG_BYTES` in all and
:data:`MAX_LOG_LINE_BYTES` a line (:mod:`uno_env._files`); every record's shape is checked
before anything is replayed and the first problem is a ``ValueError`` naming its line (the
list is in the format's docstring, "Logs from strangers"). Nothing in a log is ever executed. What the records say
(legal actions, the table, the events, the final state) is checked by
:func:`uno_env.tools.gamelog_replay.replay`.
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass, field
from typing import IO, Any, Iterable, Iterator

from uno_env import _files

from uno_env.game.rules import make_rules, show_value
from uno_env.tools.gamelog import (FORMAT, FORMAT_VERSION, MAX_SEED, READ_VERSIONS, SEED_BITS,
                                   generator_from_state)

_MAX_TEXT = 10_000  # characters of one string in a log (specs, names, cards, meta)
MAX_LOG_LINE_BYTES = 1 << 20  # one record: the longest real ones (a header's deck, the end snapshot) hold
#   ~60 KB with the largest deck the rules allow (5,600 cards, 10 players)
MAX_LOG_BYTES = 64 << 20  # a whole log (uno-replay --max-bytes): ~4,000 steps of that game make 3.8 MB


@dataclass
class GameLog:
    header: dict[str, Any]
    actions: list[dict[str, Any]] = field(default_factory=list)
    end: dict[str, Any] | None = None
    path: str | None = None


def _lines(source: "str | os.PathLike | IO | Iterable[str | bytes]", max_bytes: int,
           max_line_bytes: int) -> Iterator[tuple[int, "str | bytes"]]:
    """``(line number, line)`` of a log, one line at a time, within the caps (module doc)."""
    if isinstance(source, (str, os.PathLike)):  # bytes: a line that is not UTF-8 is named, not fatal
        yield from _files.bounded_lines(source, "game log", max_line_bytes, max_bytes)
        return
    if isinstance(source, io.IOBase) or hasattr(source, "read"):
        fh, end = source, source.read(0)  # type: ignore[union-attr]  # end: "" or b""
        source = iter(lambda: fh.readline(max_line_bytes + 2), end)  # type: ignore[union-attr]
    total = 0
    for no, line in enumerate(source, 1):
        if isinstance(line, (str, bytes)):
            total += len(line)
            if total > max_bytes:
                raise ValueError(f"<log>: more than {max_bytes} bytes")
            ends = "\r\n" if isinstance(line, str) else b"\r\n"
            if len(line) > max_line_bytes and len(line.rstrip(ends)) > max_line_bytes:  # type: ignore[arg-type]
                raise ValueError(f"<log>:{no}: a line longer than {max_line_bytes} bytes")
        yield no, line


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_text(value: Any) -> bool:
    """A string that prints as itself (no control characters: a log may come from a stranger
    and its strings are printed to a terminal)."""
    return isinstance(value, str) and len(value) <= _MAX_TEXT and value.isprintable()


def _check_strings(value: Any) -> str | None:
    """The first string in a JSON value that is not :func:`_is_text` (None if there is none)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if not _is_text(v):
                return v
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return None


def _check_header(rec: dict[str, Any]) -> str | None:
    """What is wrong with a header record (None: nothing); the rules are checked by the caller."""
    n = rec.get("num_players")
    if not _is_int(n) or not 2 <= n <= 10:
        return f"'num_players' must be an integer in 2..10, got {show_value(n)}"
    if not isinstance(rec.get("rules"), dict):
        return f"'rules' must be a mapping of rule options, got {show_value(rec.get('rules'))}"
    specs = rec.get("specs")
    if specs is not None and (not isinstance(specs, list) or len(specs) != n
                              or not all(isinstance(s, str) for s in specs)):
        return f"'specs' must be a list of {n} agent specs, got {show_value(specs)}"
    seed, rng = rec.get("seed"), rec.get("rng")
    if seed is not None and (not _is_int(seed) or not 0 <= seed <= MAX_SEED):
        return f"'seed' must be an integer in 0..2**{SEED_BITS}-1 or null, got {show_value(seed)}"
    if rng:
        if not isinstance(rng, dict) or not isinstance(rng.get("state"), dict) or not all(
                isinstance(rng.get(k), bool) for k in ("draw_dealer", "shuffle")):
            return f"'rng' must be null or {{state, draw_dealer, shuffle}}, got {show_value(rng)}"
    elif seed is None:
        return "the header has neither a 'seed' nor an 'rng' state to deal from"
    dealer = rec.get("dealer")
    if not _is_int(dealer) or not 0 <= dealer < n:
        return f"'dealer' must be a seat in 0..{n - 1}, got {show_value(dealer)}"
    deck = rec.get("deck")
    if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
        return f"'deck' must be a list of card strings, got {show_value(deck)}"
    return None


def _check_header_values(rec: dict[str, Any]) -> str | None:
    """What is wrong with a well-typed header's rules or RNG state (None: nothing)."""
    try:
        make_rules(rec["rules"])
    except ValueError as e:
        return f"'rules': {e}"
    if rec.get("rng"):
        try:
            generator_from_state(rec["rng"]["state"])
        except ValueError as e:
            return f"'rng': {e}"
    return None


_ACTION_FIELDS = {"step": _is_int, "round": _is_int, "seat": _is_int, "action": _is_int,
                  "agent": _is_text, "phase": _is_text, "name": _is_text}


def _check_action(rec: dict[str, Any]) -> str | None:
    for key, ok in _ACTION_FIELDS.items():
        if not ok(rec.get(key)):
            return f"action record field {key!r} is missing or malformed: {show_value(rec.get(key))}"
    if "hand" in rec and (not isinstance(rec["hand"], list) or not all(isinstance(c, str) for c in rec["hand"])):
        return f"'hand' must be a list of card strings, got {show_value(rec['hand'])}"
    for key in ("after", "round_end"):
        if key in rec and not isinstance(rec[key], dict):
            return f"{key!r} must be a mapping, got {show_value(rec[key])}"
    return None


def _check_end(rec: dict[str, Any]) -> str | None:
    if not isinstance(rec.get("snapshot"), dict) or not isinstance(rec.get("status"), str):
        return "the end record needs a 'status' string and a 'snapshot' mapping"
    return None


def read_log(source: "str | os.PathLike | IO | Iterable[str | bytes]", max_bytes: int = MAX_LOG_BYTES,
             max_line_bytes: int = MAX_LOG_LINE_BYTES) -> GameLog:
    """Parse a game log (path, text or binary file object, or lines), read one line at a time.
    ``ValueError`` naming the file (and the line) if it is not a valid log: not a regular file
    (a FIFO, ``/dev/zero``), more than ``max_bytes`` or a line longer than ``max_line_bytes``,
    not UTF-8, not JSON, a record of the wrong shape (a field of the wrong type, strings with
    control characters), rules out of their bounds (:mod:`uno_env.game.rules`). What the
    records say is checked by :func:`replay`."""
    path = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
    where = path or "<log>"
    log: GameLog | None = None
    for no, line in _lines(source, max_bytes, max_line_bytes):
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as e:
                raise ValueError(f"{where}:{no}: not UTF-8 text (byte {e.start + 1})") from None
        if not isinstance(line, str):
            raise ValueError(f"{where}:{no}: a log line must be text, got {type(line).__name__}")
        if not line.strip():
            continue
        try:
            rec = json.loads(line, parse_constant=_reject_constant)
        except json.JSONDecodeError as e:
            raise ValueError(f"{where}:{no}: not JSON ({e.msg})") from None
        except (ValueError, RecursionError) as e:  # NaN, a 5000-digit number, deep nesting
            raise ValueError(f"{where}:{no}: not JSON ({show_value(str(e))})") from None
        if not isinstance(rec, dict):
            raise ValueError(f"{where}:{no}: a record must be a JSON object, got {type(rec).__name__}")
        bad = _check_strings([v for k, v in rec.items() if k != "meta"])  # meta is never shown
        if bad is not None:
            raise ValueError(f"{where}:{no}: a string holds control characters or is too long: "
                             f"{show_value(bad)}")
        kind = rec.get("type")
        if log is None:
            if kind != "header" or rec.get("format") != FORMAT:
                raise ValueError(f"{where}:{no}: the first record must be a {FORMAT} header")
            if isinstance(rec.get("version"), bool) or rec.get("version") not in READ_VERSIONS:
                raise ValueError(f"{where}:{no}: log format version {show_value(rec.get('version'))} is "
                                 f"not supported (this is version {FORMAT_VERSION})")
            problem = _check_header(rec) or _check_header_values(rec)
            if problem is not None:
                raise ValueError(f"{where}:{no}: bad header: {problem}")
            log = GameLog(header=rec, path=path)
        elif log.end is not None:
            raise ValueError(f"{where}:{no}: record after the end record")
        elif kind == "action":
            problem = _check_action(rec)
            if problem is not None:
                raise ValueError(f"{where}:{no}: {problem}")
            log.actions.append(rec)
        elif kind == "end":
            problem = _check_end(rec)
            if problem is not None:
                raise ValueError(f"{where}:{no}: {problem}")
            log.end = rec
        else:
            raise ValueError(f"{where}:{no}: unknown record type {show_value(kind)}")
    if log is None:
        raise ValueError(f"{where}: empty game log")
    return log
