"""Game logs: one game as JSON Lines, written while it is played and replayed exactly.

A log holds one JSON object per line:

``header`` (first line)
    ``format`` (``"uno_env-gamelog"``), ``version`` (:data:`FORMAT_VERSION`), ``rules`` (the
    full rules dict, :meth:`uno_env.game.rules.Rules.to_dict`), ``num_players``, ``agents``
    (``player_i`` names), ``specs`` (agent spec per seat, e.g. ``"heuristic"``, ``"human"``),
    ``agent_seeds``, ``seed``, ``rng`` (null, or for a game dealt from a given numpy
    generator: its bit-generator ``state`` before the deal and whether it drew the dealer /
    shuffled), ``dealer``, ``deck`` (card strings, top first, as dealt), ``events`` (the
    public events of the deal, below) and ``meta`` (free-form: tool, date...).
``action`` (one per decision)
    ``step`` (1-based), ``round`` (rounds finished before it), ``seat``, ``agent``, ``spec``,
    ``phase``, ``action`` (id) and ``name`` (``"play red-5"``); the public table before it
    (``top``, ``color``, ``pending``) and, with ``hands=True`` (the default), the actor's hand
    before it (``hand``); the public table after it (``after``: ``top``, ``color``,
    ``direction``, ``pending``, ``hand_sizes``, ``uno_called``, ``phase``, ``next``); when
    the decision ended a round, ``round_end`` (``winner``, ``round_points``, ``scores``); and
    ``events``: the public events that followed the decision (:mod:`uno_env.game.events`;
    none while a window's answers are still hidden, its outcome when it closes).
``end`` (last line)
    ``status`` (``finished``, ``truncated`` or ``aborted``), ``steps``, ``winner``, ``scores``,
    ``rewards`` (cumulative reward per agent) and ``snapshot`` (:meth:`raw_env.snapshot`, the
    whole final state).

**Exact replays.** :meth:`GameRecorder.reset` (and :func:`replay`) reset the env through
:func:`reset_env`: the seed's RNG picks the dealer and shuffles the deck exactly as
``env.reset(seed=seed)`` would, the env is reset with that deck and dealer
(``options={"deck": ..., "dealer": ...}``) and it keeps dealing and playing with that same RNG
(:func:`reset_with_rng`). So a recorded game is the game ``env.reset(seed=seed)`` would have
dealt and played, and the log's seed, deck and dealer reproduce it (later rounds and random
rule picks use the seed's RNG stream). The RNG state in the header is JSON with integers of up
to 128 bits (exact in Python; other JSON readers may need big-integer support).

**Events** are JSON objects with the kind's name, the seat (an integer) and card and colour
names, fields unused by a kind left out, e.g. ``{"kind": "played", "seat": 1, "card":
"red-5", "color": "red"}``. The engine's ``value`` is named by kind (:data:`EVENT_VALUE_FIELDS`):
``color`` (played, jumped_in, color_chosen), ``cards`` (drew, penalty, caught: how many;
reshuffled: the new DRAW pile), ``guilty`` (challenged, true or false), ``direction``
(reversed: ``"clockwise"`` / ``"counter-clockwise"``), ``giver`` (took: a seat), ``round``
(dealt, from 1) and ``points`` (round_over).

Replaying checks that every logged action is legal for the logged player and phase, the
actor's hand before it, the public table after it, the public events that followed it (and
those of the deal), and the final snapshot.

Version history: 1 (uno_env 0.1: no events); 2 (uno_env 0.2: ``events`` in the header and in
every action record). Both are read and replayed; a version-1 log is checked without events.

**Logs from strangers.** :func:`read_log` checks the shape of every record before anything
is replayed, and names the line of the first problem (``ValueError``): a line that is not
UTF-8 or not JSON (``NaN``, numbers too long to convert, nesting too deep), a header whose
``num_players`` is not an integer in 2..10 (``1e400`` is not), whose rules are out of their
bounds (:mod:`uno_env.game.rules`: no deck of 10^9 cards), whose seed, dealer, deck or RNG
state has the wrong type, an action record with a missing or mistyped field, and strings
with control characters (they are printed to terminals; ``meta`` is exempt, it is never
shown). A malformed RNG state is a ``ValueError`` too. Nothing in a log is ever executed.

**Writing a log** from any game loop (human, bots, evaluation)::

    from uno_env.tools.gamelog import GameRecorder
    env = uno_env.raw_env(rules="classic", num_players=2)
    with GameRecorder(env, "game.jsonl", specs=["heuristic", "random"]) as rec:
        rec.reset(seed=7)                 # instead of env.reset(seed=7)
        while not rec.done:
            agent = env.agent_selection
            obs = env.observe(agent)
            rec.step(bots[agent].act(obs["observation"], obs["action_mask"]))  # instead of env.step

or in one call: ``record_game(env, agents, "game.jsonl", seed=7)``. A game played elsewhere
(straight on the engine, like the evaluation tool does) is logged afterwards from its deal
and its action ids: ``log_game(path, rules, n, actions, rng=<fresh copy of the generator>,
dealer=...)``. Reading back:
``read_log(path)`` (a :class:`GameLog`), ``replay(log)`` (the env at the end, or
:class:`ReplayError`).
"""

from __future__ import annotations

import copy
import datetime
import io
import json
import os
import secrets
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Iterable, Sequence

import numpy as np
from gymnasium.utils import seeding

from uno_env.envs import checks
from uno_env.game import actions as A
from uno_env.game import events as E
from uno_env.game.engine import PHASE_NAMES
from uno_env.game.rules import make_rules, show_value

FORMAT = "uno_env-gamelog"
FORMAT_VERSION = 2  # written; see the version history in the module docstring
READ_VERSIONS = (1, 2)  # read and replayed
_MAX_TEXT = 10_000  # characters of one string in a log (specs, names, cards, meta)


class ReplayError(ValueError):
    """A log that does not replay: an illegal action, a wrong actor, a state mismatch."""


# ---------------------------------------------------------------------------- reset
def generator_from_state(state: dict) -> np.random.Generator:
    """A fresh numpy Generator in the bit-generator ``state`` (``rng.bit_generator.state``)."""
    name = state.get("bit_generator") if isinstance(state, dict) else None
    bit_gen_cls = getattr(np.random, str(name), None)
    if bit_gen_cls is None or not isinstance(bit_gen_cls, type) or \
            not issubclass(bit_gen_cls, np.random.BitGenerator):
        raise ValueError(f"unknown bit generator {name!r} in the RNG state")
    try:  # numpy's setter raises TypeError, KeyError, ValueError... on a malformed state
        bit_gen = bit_gen_cls()
        bit_gen.state = state
    except Exception as e:
        raise ValueError(f"malformed {name} RNG state: {show_value(e)}") from None
    return np.random.Generator(bit_gen)


def reset_with_rng(env: Any, rng: np.random.Generator, dealer: int | None = None,
                   deck: Sequence[str] | None = None, draw_dealer: bool | None = None,
                   shuffle: bool | None = None, options: dict | None = None) -> tuple[int, list[str]]:
    """Reset ``env`` (raw or wrapped) to deal with ``rng`` exactly as
    ``engine.new_state(rng, deck, dealer)`` does, but with the deck and dealer made explicit
    (``options={"deck": ..., "dealer": ...}``) so that they can be logged; the env keeps
    ``rng`` as its RNG. Returns ``(dealer, deck)`` (card strings, top first).

    ``draw_dealer`` / ``shuffle`` say whether ``rng`` draws a dealer and shuffles the deck
    first (default: when ``dealer`` / ``deck`` is not given, as the engine does); a given
    dealer or deck then replaces the drawn one.
    """
    u = env.unwrapped
    if draw_dealer is None:
        draw_dealer = dealer is None
    if shuffle is None:
        shuffle = deck is None
    if dealer is None and not draw_dealer or deck is None and not shuffle:
        raise ValueError("without a dealer (deck) the RNG must draw (shuffle) it")
    drawn = u.engine.draw_dealer(rng) if draw_dealer else None
    order = u.engine.shuffled_deck(rng) if shuffle else list(u.engine.deck)
    dealer = int(drawn if dealer is None else dealer)
    deck = [u.card_names[k] for k in order] if deck is None else list(deck)
    opts = dict(options or {})
    opts.update(deck=deck, dealer=dealer)
    u.np_random = rng  # the deal (a first Wild Draw Four, a first SEVEN slap) and the game use it
    env.reset(seed=None, options=opts)
    return dealer, deck


def reset_env(env: Any, seed: int, dealer: int | None = None, deck: Sequence[str] | None = None,
              options: dict | None = None) -> tuple[int, list[str]]:
    """Reset ``env`` (raw or wrapped) reproducibly from ``seed`` with an explicit deck and
    dealer; returns ``(dealer, deck)``.

    The seed's RNG always draws a dealer and shuffles the deck (a given ``dealer`` / ``deck``
    replaces the drawn one), exactly as ``env.reset(seed=seed)`` does: without ``dealer`` and
    ``deck`` it is the same deal and the same RNG stream, so the same game.
    """
    rng, _ = seeding.np_random(int(seed))
    out = reset_with_rng(env, rng, dealer, deck, draw_dealer=True, shuffle=True, options=options)
    env.unwrapped.np_random_seed = int(seed)
    return out


# ---------------------------------------------------------------------------- records
EVENT_VALUE_FIELDS = {  # kind -> the name of the engine's ``value`` in an event record
    E.DEALT: "round", E.PLAYED: "color", E.JUMPED_IN: "color", E.DREW: "cards", E.PENALTY: "cards",
    E.CAUGHT: "cards", E.CHALLENGED: "guilty", E.COLOR_CHOSEN: "color", E.REVERSED: "direction",
    E.TOOK: "giver", E.RESHUFFLED: "cards", E.ROUND_OVER: "points",
}


def event_record(event: E.Event, card_names: Sequence[str], colors: Sequence[str]) -> dict[str, Any]:
    """One public event as a log's JSON object (see the module docstring)."""
    kind, seat, card, value = event
    rec: dict[str, Any] = {"kind": E.EVENT_NAMES[kind]}
    if seat >= 0:
        rec["seat"] = int(seat)
    if card >= 0:
        rec["card"] = card_names[card]
    field_name = EVENT_VALUE_FIELDS.get(kind)
    if field_name == "color":
        rec["color"] = colors[value] if value >= 0 else None
    elif field_name == "guilty":
        rec["guilty"] = bool(value)
    elif field_name == "direction":
        rec["direction"] = "clockwise" if value > 0 else "counter-clockwise"
    elif field_name is not None:
        rec[field_name] = int(value)
    return rec


def event_records(env: Any, start: int = 0) -> list[dict[str, Any]]:
    """The public events of a raw (or wrapped) env's game from index ``start``, as records
    (empty if its engine does not record events)."""
    u = env.unwrapped
    events = u.game_state.events or []
    return [event_record(ev, u.card_names, u.colors) for ev in events[start:]]


def public_table(env: Any) -> dict[str, Any]:
    """The public table of a raw env as a JSON-able dict."""
    u = env.unwrapped
    s, agents = u.game_state, u.possible_agents
    return {
        "top": u.card_names[s.discard[-1]],
        "color": u.colors[s.color] if s.color >= 0 else None,
        "direction": "clockwise" if s.direction > 0 else "counter-clockwise",
        "pending": int(s.pending),
        "hand_sizes": [int(x) for x in s.hand_size],
        "uno_called": [bool(x) for x in s.uno_called],
        "phase": PHASE_NAMES[s.phase],
        "next": agents[s.actor] if s.actor >= 0 else None,
    }


def _end_status(u: Any) -> str | None:
    if u.game_state.game_over:
        return "finished"
    if any(u.truncations.values()):
        return "truncated"
    return None


class GameRecorder:
    """Wraps the stepping of a raw (or wrapped) UNO env and writes a JSON Lines game log.

    ``out`` is a path (opened, and closed by :meth:`finish`) or a text file object (left
    open). ``specs`` names the agent of every seat (``"heuristic"``, ``"human"``...);
    ``agent_seeds`` their seeds; ``hands`` puts the actor's hand in every action record;
    ``meta`` is stored in the header. The env's engine is set to record public events
    (``state.events``), which the log holds. Use :meth:`reset` and :meth:`step` instead of the env's;
    the end record is written when the game ends (or is truncated), or by :meth:`finish`
    (status ``aborted`` if it had not ended).
    """

    def __init__(self, env: Any, out: "str | os.PathLike | IO[str]", specs: Sequence[str] | None = None,
                 agent_seeds: Sequence[int | None] | None = None, hands: bool = True,
                 meta: dict | None = None):
        self.env = env
        self.u = env.unwrapped
        n = self.u.engine.n
        self.specs = list(specs) if specs is not None else ["unknown"] * n
        if len(self.specs) != n:
            raise ValueError(f"specs has {len(self.specs)} entries for {n} players")
        self.agent_seeds = list(agent_seeds) if agent_seeds is not None else [None] * n
        self.hands = hands
        self.meta = dict(meta or {})
        if isinstance(out, (str, os.PathLike)):
            parent = os.path.dirname(os.fspath(out))
            if parent:
                os.makedirs(parent, exist_ok=True)
            self.fh: IO[str] = open(out, "w", encoding="utf-8")
            self._own = True
        else:
            self.fh, self._own = out, False
        self.path = os.fspath(out) if isinstance(out, (str, os.PathLike)) else None
        self.header: dict[str, Any] | None = None
        self.done = False
        self.ended = False
        self.end_record: dict[str, Any] | None = None

    # -------------------------------------------------------------- context manager
    def __enter__(self) -> "GameRecorder":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.finish()

    def _write(self, record: dict) -> None:
        self.fh.write(json.dumps(record, separators=(",", ":")) + "\n")
        self.fh.flush()

    # -------------------------------------------------------------- recording
    def reset(self, seed: int | None = None, dealer: int | None = None,
              deck: Sequence[str] | None = None, options: dict | None = None,
              rng: np.random.Generator | None = None) -> None:
        """Reset the env and write the header.

        Default: from ``seed`` (:func:`reset_env`; a random seed is drawn if it is None), the
        game ``env.reset(seed=seed)`` would give. With ``rng`` (a numpy Generator, not
        consumed: its state is copied), the game ``engine.new_state(rng, deck, dealer)``
        would give (:func:`reset_with_rng`); the log then holds the generator's state.
        """
        if self.header is not None:
            raise RuntimeError("a GameRecorder records one game; make a new one per game")
        self.u.engine.record_events = True  # the log holds the public events
        rng_info = None
        if rng is not None:
            state = copy.deepcopy(rng.bit_generator.state)
            rng_info = {"state": state, "draw_dealer": dealer is None, "shuffle": deck is None}
            dealer, deck = reset_with_rng(self.env, generator_from_state(state), dealer, deck,
                                          options=options)
        else:
            if seed is None:
                seed = secrets.randbits(31)
            dealer, deck = reset_env(self.env, int(seed), dealer, deck, options)
        u = self.u
        self.header = {
            "type": "header", "format": FORMAT, "version": FORMAT_VERSION,
            "rules": u.rules.to_dict(), "num_players": u.engine.n,
            "agents": list(u.possible_agents), "specs": self.specs,
            "agent_seeds": self.agent_seeds, "seed": None if seed is None else int(seed),
            "rng": rng_info, "dealer": dealer, "deck": deck, "events": event_records(u),
            "meta": {"created": datetime.datetime.now().isoformat(timespec="seconds"), **self.meta},
        }
        self._write(self.header)
        self.done = _end_status(u) is not None

    def step(self, action: int) -> dict[str, Any]:
        """Step the env with ``action`` (``ValueError`` if illegal: nothing is written) and
        write its record, then the end record if the game is over; returns the record."""
        if self.header is None:
            raise RuntimeError("call GameRecorder.reset before step")
        if self.done:
            raise RuntimeError("the game is over")
        u = self.u
        s = u.game_state
        action = checks.action_id(action, u.agent_selection)
        seat = s.actor
        before = public_table(u)
        record: dict[str, Any] = {
            "type": "action", "step": int(s.steps) + 1, "round": int(s.round), "seat": seat,
            "agent": u.possible_agents[seat], "spec": self.specs[seat], "phase": before["phase"],
            "action": action,
            "name": u.action_names[action] if 0 <= action < A.NUM_ACTIONS else str(action),
            "top": before["top"], "color": before["color"], "pending": before["pending"],
        }
        if self.hands:
            record["hand"] = [u.card_names[k] for k in u.engine.hand_cards(s, seat)]
        rounds, seen = s.round, len(s.events)
        self.env.step(action)
        s = u.game_state
        record["after"] = public_table(u)
        if s.round != rounds:
            record["round_end"] = {
                "winner": u.possible_agents[s.round_winner],
                "round_points": [int(x) for x in s.round_points],
                "scores": [int(x) for x in s.scores],
            }
        record["events"] = event_records(u, seen)
        self._write(record)
        if _end_status(u) is not None:
            self.done = True
            self.finish()
        return record

    def finish(self, status: str | None = None) -> None:
        """Write the end record (once) and close the file if the recorder opened it.
        ``status`` defaults to ``finished``/``truncated``, or ``aborted`` mid-game."""
        if self.header is not None and not self.ended:
            u = self.u
            s = u.game_state
            status = status or _end_status(u) or "aborted"
            self.end_record = {
                "type": "end", "status": status, "steps": int(s.steps),
                "winner": u.possible_agents[s.winner] if s.winner >= 0 else None,
                "scores": [int(x) for x in s.scores],
                "rewards": {a: float(u._cumulative_rewards.get(a, 0.0)) for a in u.possible_agents}
                if s.game_over else {a: 0.0 for a in u.possible_agents},
                "snapshot": u.snapshot(),
            }
            self._write(self.end_record)
            self.ended = True
        if self._own and not self.fh.closed:
            self.fh.close()


def record_game(env: Any, agents: Sequence[Any], out: "str | os.PathLike | IO[str]",
                seed: int | None = None, specs: Sequence[str] | None = None,
                agent_seeds: Sequence[int | None] | None = None, meta: dict | None = None,
                dealer: int | None = None, deck: Sequence[str] | None = None,
                hands: bool = True) -> dict[str, Any]:
    """Play one whole game of ``env`` with ``agents`` (one per seat, objects with
    ``act(observation, action_mask)``) and write its log to ``out``. Returns the end record
    (``status``, ``winner``, ``scores``, ``rewards``, ``steps``, ``snapshot``).

    ``specs`` default to the agents' ``name``. The agents are not reset here: call
    ``agent.reset(seed)`` before if they need it.
    """
    u = env.unwrapped
    if len(agents) != u.engine.n:
        raise ValueError(f"{len(agents)} agents for {u.engine.n} players")
    if specs is None:
        specs = [getattr(a, "spec", None) or getattr(a, "name", type(a).__name__) for a in agents]
    rec = GameRecorder(env, out, specs=specs, agent_seeds=agent_seeds, meta=meta, hands=hands)
    try:
        rec.reset(seed=seed, dealer=dealer, deck=deck)
        while not rec.done:
            seat = u.agent_seat[u.agent_selection]
            obs = u.observe(u.agent_selection)
            rec.step(int(agents[seat].act(obs["observation"], obs["action_mask"])))
    finally:
        rec.finish()
    return rec.end_record


def log_game(out: "str | os.PathLike | IO[str]", rules: Any, num_players: int,
             actions: Iterable[int], *, seed: int | None = None,
             rng: np.random.Generator | None = None, dealer: int | None = None,
             deck: Sequence[str] | None = None, specs: Sequence[str] | None = None,
             agent_seeds: Sequence[int | None] | None = None, meta: dict | None = None,
             hands: bool = True) -> dict[str, Any]:
    """Write the log of a game played elsewhere, from its deal and its actions.

    For a game played straight on the engine (as the evaluation tool does)::

        rng = np.random.default_rng([seed, deal])
        state = engine.new_state(rng, dealer=n - 1)   # ... play, keeping the action ids ...
        log_game(path, rules, n, actions, rng=np.random.default_rng([seed, deal]),
                 dealer=n - 1, specs=specs)

    ``rng`` must be in the state it had *before* the deal (a fresh generator with the same
    seed); ``seed`` instead means ``env.reset(seed=seed)``. The actions are re-played on a
    raw env (``ValueError`` if one is illegal: then the log ends ``aborted``). Returns the
    end record.
    """
    from uno_env.envs.aec_env import raw_env

    env = raw_env(rules=rules, num_players=num_players)
    rec = GameRecorder(env, out, specs=specs, agent_seeds=agent_seeds, meta=meta, hands=hands)
    try:
        rec.reset(seed=seed, dealer=dealer, deck=deck, rng=rng)
        for action in actions:
            if rec.done:
                raise ValueError("more actions than the game has decisions")
            rec.step(int(action))
    finally:
        rec.finish()
    return rec.end_record


# ---------------------------------------------------------------------------- reading
@dataclass
class GameLog:
    header: dict[str, Any]
    actions: list[dict[str, Any]] = field(default_factory=list)
    end: dict[str, Any] | None = None
    path: str | None = None


def _lines(source: "str | os.PathLike | IO | Iterable[str | bytes]") -> list[str | bytes]:
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as fh:  # bytes: a line that is not UTF-8 is named, not fatal
            return fh.read().splitlines()
    if isinstance(source, io.IOBase) or hasattr(source, "read"):
        return source.read().splitlines()  # type: ignore[union-attr]
    return list(source)


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
    if seed is not None and (not _is_int(seed) or seed < 0):
        return f"'seed' must be an integer >= 0 or null, got {show_value(seed)}"
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


def read_log(source: "str | os.PathLike | IO | Iterable[str | bytes]") -> GameLog:
    """Parse a game log (path, text or binary file object, or lines). ``ValueError`` naming the
    line if it is not a valid log: not UTF-8, not JSON, a record of the wrong shape (a field of
    the wrong type, strings with control characters), rules out of their bounds
    (:mod:`uno_env.game.rules`). What the records say is checked by :func:`replay`."""
    path = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
    where = path or "<log>"
    log: GameLog | None = None
    for no, line in enumerate(_lines(source), 1):
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


# ---------------------------------------------------------------------------- replaying
def env_from_log(log: GameLog, render_mode: str | None = None) -> Any:
    """A fresh raw env with the log's rules and player count (not reset)."""
    from uno_env.envs.aec_env import raw_env

    h = log.header
    return raw_env(rules=dict(h["rules"]), num_players=int(h["num_players"]), render_mode=render_mode)


def reset_from_log(env: Any, log: GameLog) -> None:
    """Reset ``env`` to the logged deal (seed, or RNG state; dealer and deck)."""
    h = log.header
    if h.get("rng"):
        r = h["rng"]
        reset_with_rng(env, generator_from_state(r["state"]), int(h["dealer"]), list(h["deck"]),
                       draw_dealer=bool(r["draw_dealer"]), shuffle=bool(r["shuffle"]))
    else:
        reset_env(env, int(h["seed"]), int(h["dealer"]), list(h["deck"]))


def _diff(a: Any, b: Any, path: str = "") -> list[str]:
    """Human-readable differences between two JSON-like values."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                out.append(f"{path}{k}: {'missing in replay' if k not in a else 'not in log'}")
            else:
                out += _diff(a[k], b[k], f"{path}{k}.")
        return out
    if isinstance(a, list) and isinstance(b, list) and a != b and len(str(a)) + len(str(b)) > 160:
        where = path.rstrip(".")
        if len(a) != len(b):
            return [f"{where}: replay has {len(a)} entries, log {len(b)}"]
        i = next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)
        return [f"{where}[{i}]: replay {a[i]!r} != log {b[i]!r}"]
    if a != b:
        return [f"{path.rstrip('.')}: replay {a!r} != log {b!r}"]
    return []


def _event_diff(replayed: list[dict[str, Any]], logged: Any) -> str | None:
    """The first difference between replayed and logged event records (None: equal)."""
    if replayed == logged:
        return None
    if not isinstance(logged, list):
        return f"the log's events are not a list: {logged!r}"[:200]
    for i, (a, b) in enumerate(zip(replayed, logged), 1):
        if a != b:
            return f"event {i}: replay {a} != log {b}"
    return f"the replay has {len(replayed)} events, the log {len(logged)}"


def replay_step(env: Any, record: dict[str, Any]) -> None:
    """Apply one logged action to ``env``, checking actor, phase, legality, the public table
    after it and, if the record has them, the public events that followed it (the env's
    engine must record events: :func:`replay` turns it on). ``ReplayError`` on any difference."""
    u = env.unwrapped
    s = u.game_state
    step = record.get("step")
    action = int(record["action"])
    if u.game_state.game_over or any(u.truncations.values()):
        raise ReplayError(f"step {step}: the game is already over in the replay")
    if u.agent_selection != record["agent"]:
        raise ReplayError(f"step {step}: logged actor {record['agent']} but {u.agent_selection} "
                          f"decides in the replay")
    if PHASE_NAMES[s.phase] != record["phase"]:
        raise ReplayError(f"step {step}: logged phase {record['phase']!r} but the replay is in "
                          f"phase {PHASE_NAMES[s.phase]!r}")
    if not 0 <= action < A.NUM_ACTIONS or record.get("name", u.action_names[action]) != u.action_names[action]:
        raise ReplayError(f"step {step}: action id {action} is not the logged action {record.get('name')!r}")
    legal = u.legal_actions()
    if action not in legal:
        raise ReplayError(f"step {step}: action {action} ({record.get('name')}) is not legal for "
                          f"{record['agent']} in phase {record['phase']!r}; legal: "
                          f"{[u.action_names[a] for a in legal]}")
    if "hand" in record:
        hand = [u.card_names[k] for k in u.engine.hand_cards(s, s.actor)]
        if hand != record["hand"]:
            raise ReplayError(f"step {step}: {record['agent']}'s hand is {hand} in the replay, "
                              f"{record['hand']} in the log")
    seen = len(s.events) if s.events is not None else 0
    env.step(action)
    if "after" in record:
        diff = _diff(public_table(u), record["after"])
        if diff:
            raise ReplayError(f"step {step}: the table after {record.get('name')} differs: " + "; ".join(diff))
    if "events" in record:
        if u.game_state.events is None:
            raise ReplayError(f"step {step}: the log has events but the replay's engine does not record them")
        diff = _event_diff(event_records(u, seen), record["events"])
        if diff:
            raise ReplayError(f"step {step}: the events after {record.get('name')} differ: {diff}")


def replay(log: "GameLog | str | os.PathLike", env: Any = None,
           on_step: Callable[[Any, dict[str, Any]], Any] | None = None,
           on_reset: Callable[[Any], Any] | None = None, verify_end: bool = True) -> Any:
    """Replay a game log exactly; returns the raw env in the final state.

    Every action is checked (:func:`replay_step`) and, with ``verify_end``, the final
    snapshot must equal the logged one; a version-2 log's events (the deal's and every
    action's) must equal the replayed ones. The env records events (``state.events``) from
    the deal on, whatever the log's version. ``on_reset(env)`` is called after the reset,
    ``on_step(env, record)`` after every action. ``ReplayError`` on any mismatch.
    """
    if not isinstance(log, GameLog):
        log = read_log(log)
    if env is None:
        env = env_from_log(log)
    u = env.unwrapped
    u.engine.record_events = True
    reset_from_log(env, log)
    with_events = log.header.get("version", 1) >= 2
    if with_events:
        diff = _event_diff(event_records(u), log.header.get("events"))
        if diff:
            raise ReplayError(f"the events of the deal differ: {diff}")
    if on_reset is not None:
        on_reset(env)
    for record in log.actions:
        if with_events and "events" not in record:
            raise ReplayError(f"step {record.get('step')}: a version-2 action record without 'events'")
        replay_step(env, record)
        if on_step is not None:
            on_step(env, record)
    if verify_end and log.end is not None:
        diff = _diff(u.snapshot(), log.end["snapshot"])
        if diff:
            raise ReplayError("the final state differs from the logged one: " + "; ".join(diff[:20]))
        if log.end.get("status") in ("finished", "truncated") and _end_status(u) != log.end["status"]:
            raise ReplayError(f"the log ends {log.end['status']!r} but the replay is "
                              f"{_end_status(u) or 'still running'}")
    return env
