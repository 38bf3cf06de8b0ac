"""Game logs of the battle-card games: one game as JSON Lines, replayed exactly.

A log holds one JSON object per line:

``header`` (first line)
    ``format`` (``"uno_env-battle-gamelog"``), ``version`` (:data:`FORMAT_VERSION`), ``game``,
    ``rules`` (the rules dict), ``cards`` (the whole card set, as a card-list file holds it),
    ``num_players``, ``agents``, ``specs`` (agent spec per seat, ``"human"`` for a person),
    ``agent_seeds``, ``rng`` (the numpy bit generator's state before the deal), ``first_drawn``
    and ``shuffled`` (whether that RNG drew the first player / shuffled the deck, as
    ``Engine.new_state`` does when they are not given), ``first``, ``deck`` (card names, top
    first, as dealt), ``events`` (the public events of the deal) and ``meta`` (free-form).
``action`` (one per decision)
    ``step`` (1-based), ``seat``, ``agent``, ``spec``, ``phase``, ``action`` (id), ``name``
    and ``events``: the public events that followed (none while a window's answers are
    still hidden; its outcome when it closes).
``end`` (last line)
    ``status`` (``finished`` or ``aborted``), ``steps``, ``winners``, ``scores``,
    ``rewards`` and ``snapshot`` (the whole final state).

An event is ``{"kind": name, "seat": s, "card": name, "value": v}`` (fields a kind does not
use left out; ``value``'s meaning per kind: :mod:`uno_env.battle.game.events`).

**Logs are full-information** while they are written: the header holds the deck as dealt.

**Reading logs from strangers.** :func:`read_log` reads a regular file one line at a time
(:func:`uno_env._files.bounded_lines`: at most :data:`MAX_LINE_BYTES` a line,
:data:`MAX_LOG_BYTES` and :data:`MAX_LINES` in all) and checks every record before anything is replayed: a line that is
not UTF-8 or not strict JSON (``NaN`` refused, nesting too deep), a header with a bad
``game``, rules (their bounds: :mod:`uno_env.battle.game.rules`), card set (its bounds:
:mod:`uno_env.battle.game.cards`), ``num_players``, RNG state, first player or deck, an
action record with a missing or mistyped field: ``ValueError`` naming the line. Nothing in a
log is executed. :func:`replay` plays the logged actions on a fresh engine and checks every
actor, every action's legality, every event and the end (:class:`ReplayError`).
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass
from typing import IO, Any, Sequence

import numpy as np

from uno_env._files import bounded_lines
from uno_env.battle.game import GAMES, make_engine
from uno_env.battle.game.cards import cards_from_mapping
from uno_env.battle.game.events import EVENT_NAMES
from uno_env.battle.game.rules import make_rules
from uno_env.game.rules import show_value
from uno_env.tools.gamelog import ReplayError, generator_from_state

FORMAT = "uno_env-battle-gamelog"
FORMAT_VERSION = 1
MAX_LOG_BYTES = 16 * 1024 * 1024
MAX_LINES = 200_000
MAX_LINE_BYTES = 1 << 20  # a header holds the card set: a few KB

__all__ = ["GameWriter", "log_game", "read_log", "replay", "ReplayError", "BattleLog", "event_record"]


# ---------------------------------------------------------------------------- records
def event_record(event: Any, card_names: Sequence[str]) -> dict[str, Any]:
    kind, seat, card, value = event
    rec: dict[str, Any] = {"kind": EVENT_NAMES[kind]}
    if seat >= 0:
        rec["seat"] = int(seat)
    if card >= 0:
        rec["card"] = card_names[card]
    if value != -1:
        rec["value"] = int(value)
    return rec


def new_events(engine: Any, state: Any, start: int) -> list[dict[str, Any]]:
    return [event_record(e, engine.card_names) for e in state.events[start:]]


def header(engine: Any, state: Any, rng_state: dict, first_drawn: bool, shuffled: bool,
           specs: Sequence[str], agent_seeds: Sequence[int | None], meta: dict | None) -> dict[str, Any]:
    """The header record of a game just dealt (``state``) from an RNG in ``rng_state``."""
    n = engine.n
    return {"kind": "header", "format": FORMAT, "version": FORMAT_VERSION, "game": engine.game,
            "rules": engine.rules.to_dict(), "cards": engine.cards.to_dict(), "num_players": n,
            "agents": [f"player_{i}" for i in range(n)], "specs": list(specs),
            "agent_seeds": [None if x is None else int(x) for x in agent_seeds], "rng": rng_state,
            "first_drawn": bool(first_drawn), "shuffled": bool(shuffled), "first": int(state.first),
            "deck": [engine.card_names[c] for c in state.order], "events": new_events(engine, state, 0),
            "meta": dict(meta or {})}


class GameWriter:
    """Writes one game's log as it is played: ``start`` (after the deal), ``action`` (after
    each decision), ``end``; ``close`` writes an ``aborted`` end if none was written."""

    def __init__(self, out: "str | os.PathLike | IO[str]", engine: Any, specs: Sequence[str]):
        self._own = not hasattr(out, "write")
        self._fh = open(out, "w", encoding="utf-8") if self._own else out
        self.engine, self.specs = engine, list(specs)
        self._events = 0
        self._ended = False
        self.state = None

    def _write(self, rec: dict[str, Any]) -> None:
        self._fh.write(json.dumps(rec, separators=(",", ":"), allow_nan=False) + "\n")
        self._fh.flush()

    def start(self, state: Any, rng_state: dict, first_drawn: bool, shuffled: bool,
              agent_seeds: Sequence[int | None], meta: dict | None = None) -> None:
        self.state = state
        self._write(header(self.engine, state, rng_state, first_drawn, shuffled, self.specs, agent_seeds, meta))
        self._events = len(state.events)

    def action(self, seat: int, phase: int, action: int) -> None:
        """Record the decision just applied (``seat`` took ``action`` in ``phase``)."""
        e, s = self.engine, self.state
        self._write({"kind": "action", "step": int(s.steps), "seat": int(seat), "agent": f"player_{seat}",
                     "spec": self.specs[seat], "phase": e.PHASE_NAMES[phase], "action": int(action),
                     "name": e.action_names[action], "events": new_events(e, s, self._events)})
        self._events = len(s.events)
        if s.game_over:
            self.end()

    def end(self) -> None:
        if self._ended or self.state is None:
            return
        e, s = self.engine, self.state
        self._write({"kind": "end", "status": "finished" if s.game_over else "aborted", "steps": int(s.steps),
                     "winners": list(s.winners), "scores": [int(x) for x in e.scores(s)],
                     "rewards": list(e.returns(s)), "snapshot": e.snapshot(s)})
        self._ended = True

    def close(self) -> None:
        try:
            self.end()
        finally:
            if self._own:
                self._fh.close()

    def __enter__(self) -> "GameWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def log_game(out: "str | os.PathLike | IO[str]", engine_args: dict[str, Any], actions: Sequence[int],
             rng: np.random.Generator, first: int | None = None, specs: Sequence[str] | None = None,
             agent_seeds: Sequence[int | None] | None = None, meta: dict | None = None) -> None:
    """Log a game played elsewhere (the evaluation tool) from its deal and its action ids:
    ``rng`` is a fresh generator in the state the game was dealt from; ``engine_args`` the
    ``make_engine`` arguments (``game``, ``rules``, ``cards``, ``num_players``)."""
    engine = make_engine(**engine_args, record_events=True)
    n = engine.n
    rng_state = copy.deepcopy(rng.bit_generator.state)
    state = engine.new_state(rng, first=first)
    with GameWriter(out, engine, specs or ["?"] * n) as w:
        w.start(state, rng_state, first is None, True, agent_seeds or [None] * n, meta)
        for a in actions:
            seat, phase = state.actor, state.phase
            engine.step(state, int(a))
            w.action(seat, phase, int(a))


# ---------------------------------------------------------------------------- reading
@dataclass
class BattleLog:
    """A log read and checked by :func:`read_log`."""

    header: dict[str, Any]
    actions: list[dict[str, Any]]
    end: dict[str, Any] | None


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _int(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _read_lines(path: Any) -> list[bytes]:
    lines = []
    try:
        for no, line in bounded_lines(path, "game log", MAX_LINE_BYTES, MAX_LOG_BYTES):
            if no > MAX_LINES:
                raise ValueError(f"game log {os.fspath(path)!r} has more than {MAX_LINES} lines")
            lines.append(line)
    except OSError as e:
        raise ValueError(f"game log {os.fspath(path)!r} cannot be read: {e.strerror or e}") from None
    return lines


def _check_header(h: dict[str, Any]) -> None:
    if h.get("kind") != "header" or h.get("format") != FORMAT:
        raise ValueError(f"not a battle-card game log (format {FORMAT!r} expected)")
    if h.get("version") != FORMAT_VERSION:
        raise ValueError(f"unknown log version {show_value(h.get('version'))} (this reads {FORMAT_VERSION})")
    if h.get("game") not in GAMES:
        raise ValueError(f"unknown game {show_value(h.get('game'))}; games: {list(GAMES)}")
    if not _int(h.get("num_players"), 2, 8):
        raise ValueError(f"num_players must be an integer in 2..8, got {show_value(h.get('num_players'))}")
    n = h["num_players"]
    if not isinstance(h.get("rules"), dict):
        raise ValueError("rules must be a mapping")
    make_rules(h["game"], h["rules"])
    cards_from_mapping(h.get("cards"), "the log's card set")
    for key in ("first_drawn", "shuffled"):
        if not isinstance(h.get(key), bool):
            raise ValueError(f"{key} must be true or false")
    if not _int(h.get("first"), 0, n - 1):
        raise ValueError(f"first must be a seat in 0..{n - 1}")
    if not isinstance(h.get("rng"), dict):
        raise ValueError("rng must be a bit generator's state (a mapping)")
    generator_from_state(h["rng"])
    if not isinstance(h.get("deck"), list) or not all(isinstance(c, str) for c in h["deck"]):
        raise ValueError("deck must be a list of card names")
    for key in ("specs", "agent_seeds"):
        if not isinstance(h.get(key), list) or len(h[key]) != n:
            raise ValueError(f"{key} must be a list of one entry per seat")
    if not all(isinstance(x, str) and x.isprintable() and len(x) <= 200 for x in h["specs"]):
        raise ValueError("specs must be printable strings")


def _check_action(rec: dict[str, Any], n: int) -> None:
    for key in ("step", "seat", "action"):
        if not _int(rec.get(key), 0, 10 ** 9):
            raise ValueError(f"{key} must be a non-negative integer, got {show_value(rec.get(key))}")
    if rec["seat"] >= n:
        raise ValueError(f"seat {rec['seat']} is not in 0..{n - 1}")
    if not isinstance(rec.get("events", []), list):
        raise ValueError("events must be a list")


def read_log(path: Any) -> BattleLog:
    """Read and check a log (module docstring); ``ValueError`` naming the line of a problem."""
    records = []
    for i, line in enumerate(_read_lines(path), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line.decode("utf-8"), parse_constant=_reject_constant)
        except UnicodeDecodeError:
            raise ValueError(f"game log line {i} is not UTF-8") from None
        except (ValueError, RecursionError) as e:
            raise ValueError(f"game log line {i} is not JSON: {show_value(str(e))}") from None
        if not isinstance(rec, dict):
            raise ValueError(f"game log line {i} is not a JSON object")
        records.append((i, rec))
    if not records:
        raise ValueError("the game log is empty")
    line, h = records[0]
    try:
        _check_header(h)
    except ValueError as e:
        raise ValueError(f"game log line {line} (header): {e}") from None
    actions, end = [], None
    for line, rec in records[1:]:
        kind = rec.get("kind")
        try:
            if end is not None:
                raise ValueError("a record after the end")
            if kind == "action":
                _check_action(rec, h["num_players"])
                actions.append(rec)
            elif kind == "end":
                end = rec
            else:
                raise ValueError(f"unknown record kind {show_value(kind)}")
        except ValueError as e:
            raise ValueError(f"game log line {line}: {e}") from None
    return BattleLog(h, actions, end)


def replay(log: "BattleLog | str | os.PathLike") -> tuple[Any, Any]:
    """Replay a log on a fresh engine; ``(engine, final state)`` or :class:`ReplayError`
    naming the first step that differs."""
    if not isinstance(log, BattleLog):
        log = read_log(log)
    h = log.header
    engine = make_engine(h["game"], h["rules"], h["cards"], h["num_players"], record_events=True)
    names = {name: i for i, name in enumerate(engine.card_names)}
    try:
        deck = [names[c] for c in h["deck"]]
    except KeyError as e:
        raise ReplayError(f"the deck names a card {show_value(e.args[0])} that is not in the card set") from None
    rng = generator_from_state(h["rng"])
    try:
        state = engine.new_state(rng, deck=None if h["shuffled"] else deck,
                                 first=None if h["first_drawn"] else h["first"])
    except ValueError as e:
        raise ReplayError(f"the deal does not replay: {e}") from None
    if state.order != deck or state.first != h["first"]:
        raise ReplayError("the deal differs from the logged deck or first player")
    seen = len(state.events)
    if [event_record(e, engine.card_names) for e in state.events] != h.get("events", []):
        raise ReplayError("the events of the deal differ")
    for rec in log.actions:
        step = rec["step"]
        if state.game_over:
            raise ReplayError(f"step {step}: the game is already over")
        if rec["seat"] != state.actor:
            raise ReplayError(f"step {step}: player_{rec['seat']} acts, but player_{state.actor} decides")
        if rec["action"] not in engine.legal_actions(state):
            raise ReplayError(f"step {step}: action {engine.describe_action(rec['action'])} is illegal")
        engine.step(state, rec["action"])
        got = [event_record(e, engine.card_names) for e in state.events[seen:]]
        seen = len(state.events)
        if "events" in rec and got != rec["events"]:
            raise ReplayError(f"step {step}: the events differ: logged {show_value(rec['events'])}, "
                              f"replayed {show_value(got)}")
    if log.end is not None and log.end.get("status") == "finished":
        if not state.game_over or list(state.winners) != log.end.get("winners"):
            raise ReplayError("the end differs: " + (f"winners {state.winners}" if state.game_over else "not over"))
    return engine, state
