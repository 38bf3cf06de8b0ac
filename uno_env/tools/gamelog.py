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

**Exact replays.** :meth:`GameRecorder.reset` (and :func:`~uno_env.tools.gamelog_replay.replay`) reset the env through
:func:`reset_env`: the seed's RNG picks the dealer and shuffles the deck exactly as
``env.reset(seed=seed)`` would, the env is reset with that deck and dealer
(``options={"deck": ..., "dealer": ...}``) and it keeps dealing and playing with that same RNG
(:func:`reset_with_rng`). So a recorded game is the game ``env.reset(seed=seed)`` would have
dealt and played, and the log's seed, deck and dealer reproduce it (later rounds and random
rule picks use the seed's RNG stream). A seed is an integer in ``0..2**128-1`` (the tools draw
128 random bits: :func:`fresh_seed`); it and the RNG state in the header are JSON integers of up
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
those of the deal), and the final snapshot. A log of version 1 (no events) is read and
replayed too, checked without events.

**Logs from strangers.** :func:`~uno_env.tools.gamelog_read.read_log` checks the shape of every record before anything
is replayed, and names the line of the first problem (``ValueError``): a line that is not
UTF-8 or not JSON (``NaN``, numbers too long to convert, nesting too deep), a header whose
``num_players`` is not an integer in 2..10 (``1e400`` is not), whose rules are out of their
bounds (:mod:`uno_env.game.rules`: no deck of 10^9 cards), whose seed is not an integer in
``0..2**128-1``, whose dealer, deck or RNG state has the wrong type, an action record with a missing or mistyped field, and strings
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
dealer=...)``. Reading back: ``uno_env.tools.gamelog_read.read_log(path)`` (a ``GameLog``),
``uno_env.tools.gamelog_replay.replay(log)`` (the env at the end, or :class:`ReplayError`).

**Modules.** This one holds the format: its constants, deals (:func:`reset_env`,
:func:`reset_with_rng`), the records (:func:`event_record`, :func:`public_table`) and the
writers (:class:`GameRecorder`, :func:`record_game`, :func:`log_game`);
:mod:`uno_env.tools.gamelog_read` reads and checks a log (:class:`GameLog`, :func:`read_log`);
:mod:`uno_env.tools.gamelog_replay` replays it (:func:`replay`, :func:`replay_step`,
:func:`reset_from_log`, :func:`env_from_log`).
"""

from __future__ import annotations

import copy
import datetime
import json
import os
import secrets
from typing import IO, Any, Iterable, Sequence

import numpy as np
from gymnasium.utils import seeding

from uno_env.envs import checks
from uno_env.game import actions as A
from uno_env.game import events as E
from uno_env.game.engine import PHASE_NAMES
from uno_env.game.rules import show_value

SEED_BITS = 128  # a game seed the tools draw: 2**128 seeds, so a first view cannot single one out
MAX_SEED = 2 ** SEED_BITS - 1  # the seeds a log holds (written and read)


def fresh_seed() -> int:
    """A new game seed of :data:`SEED_BITS` bits from the operating system. A 31-bit seed is
    found from the first view of a game by trying every one offline (then every hand and the
    DRAW pile are known); 2**128 are not."""
    return secrets.randbits(SEED_BITS)


FORMAT = "uno_env-gamelog"
FORMAT_VERSION = 2  # written; see the version history in the module docstring
READ_VERSIONS = (1, 2)  # read and replayed


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


def end_status(u: Any) -> str | None:
    """How a raw env's game ended: ``finished``, ``truncated`` or None (still running)."""
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

        Default: from ``seed`` (:func:`reset_env`; at most :data:`MAX_SEED`; a random one of
        :data:`SEED_BITS` bits is drawn if it is None, :func:`fresh_seed`), the
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
                seed = fresh_seed()
            elif not 0 <= int(seed) <= MAX_SEED:
                raise ValueError(f"a logged game's seed must be in 0..2**{SEED_BITS}-1, got {show_value(seed)}")
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
        self.done = end_status(u) is not None

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
        if end_status(u) is not None:
            self.done = True
            self.finish()
        return record

    def finish(self, status: str | None = None) -> None:
        """Write the end record (once) and close the file if the recorder opened it.
        ``status`` defaults to ``finished``/``truncated``, or ``aborted`` mid-game."""
        if self.header is not None and not self.ended:
            u = self.u
            s = u.game_state
            status = status or end_status(u) or "aborted"
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
