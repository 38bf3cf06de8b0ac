"""Game logs replayed by the web server (:mod:`uno_env.tools.web.server`), frame by frame.

An uploaded log is read (:func:`uno_env.tools.gamelog_read.read_log`) and replayed exactly,
every record checked (:func:`uno_env.tools.gamelog_replay.replay`), once, when it arrives.
A frame (the deal, then one per action) is the open table after it, every hand shown, and
its public events as text.

**Stored compactly, frames built on request.** A replay keeps its actions (one byte each:
ids are below 256), the state of the deal and a copy of the engine state every
:data:`CHECKPOINT_EVERY` (1,000) actions; frame ``i`` is built when it is asked for, by
stepping the engine from the nearest copy at or before it (at most 1,000 steps, a few
milliseconds), or from the last frame built when the page steps forwards: a 5 MB log of
44,544 actions with ~1,870 cards in the hands holds 1.0 MB (``bench/web_memory.py``). Its
estimated size (``nbytes``, charged by the store: :class:`uno_env.tools.web.games.Store`) is
the env, the actions and the state copies.

**The agent panel.** A seat whose spec names a checkpoint the server may load (under its
``--checkpoint-root``) gets its policy loaded when the log arrives; a frame where that seat
is to decide carries ``thoughts`` (:mod:`uno_env.tools.web.thoughts`): its probabilities over
its legal actions from its own observation at that frame (never the open table the frame
shows), with ``chosen`` the action the log says it took and ``decision`` the frame's index.
Other frames, and logs without such a seat, carry ``thoughts: null``.
"""

from __future__ import annotations

import copy
import threading
import time
from typing import Any, Callable

from uno_env.game import actions as A
from uno_env.game.engine import PHASE_NAMES, State
from uno_env.game.rules import Rules
from uno_env.tools.gamelog_read import GameLog
from uno_env.tools.gamelog_replay import replay
from uno_env.tools.web import views
from uno_env.tools.web.games import AGENT_BYTES, ENV_BYTES, new_env, state_nbytes
from uno_env.tools.web.thoughts import agent_thoughts
from uno_env.tools.web.validate import ApiError, parse_rules, show

CHECKPOINT_EVERY = 1000  # actions between two kept copies of the engine state
MAX_REPLAY_ACTIONS = 200_000  # actions of a log the server replays


def _copy(s: State) -> State:
    """A state the engine may play on from ``s`` without touching it: its generator copied too
    (a reshuffle or a new round draws from it)."""
    return s.clone(rng=copy.deepcopy(s.rng))


class Replay:
    """A game log replayed on the server: one frame per action, every hand open."""

    kind = "replay"

    def __init__(self, rid: str, log: GameLog,
                 policies: Callable[[Rules, int, list[str]], dict[int, Any]] | None = None):
        """``policies(rules, n, specs)``: the agents of the seats whose thoughts the frames show,
        by seat (the module doc); None: none."""
        self.id = rid
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        self.owner, self.token, self.closed = "", "", False
        h = log.header
        if not isinstance(h.get("rules"), dict):
            raise ApiError(400, "not a game log: the header has no rules object")
        rules = parse_rules(h["rules"], None)
        n = h.get("num_players")
        if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 10:
            raise ApiError(400, f"not a game log: num_players {show(n)}")
        if len(log.actions) > MAX_REPLAY_ACTIONS:
            raise ApiError(400, f"the log has more than {MAX_REPLAY_ACTIONS:,} actions")
        specs = h.get("specs")
        if not isinstance(specs, list) or len(specs) != n:
            specs = ["?"] * n
        self.specs = [str(x) for x in specs]
        self.players = views.seat_names(n, self.specs)
        self.policies = policies(rules, n, self.specs) if policies is not None else {}
        self.header = {"rules": rules.name, "options": rules.to_dict(),
                       "colors": list(rules.color_names), "num_players": n, "specs": self.specs,
                       "short": [views.short_spec(x) for x in self.specs],
                       "seed": h.get("seed"), "actions": len(log.actions),
                       "status": (log.end or {}).get("status", "unfinished"),
                       "meta": h.get("meta") if isinstance(h.get("meta"), dict) else {},
                       "players_text": self.players}
        actions = bytearray()
        self.checkpoints: list[State] = []  # the state after 0, K, 2K... actions (events cleared)
        self.deal_events: list[Any] = []

        def keep(s: State) -> None:
            copied = _copy(s)
            copied.events = []
            self.checkpoints.append(copied)

        def on_reset(e: Any) -> None:
            s = e.unwrapped.game_state
            self.deal_events = list(s.events)
            s.events.clear()
            keep(s)

        def on_step(e: Any, record: dict) -> None:
            s = e.unwrapped.game_state
            actions.append(int(record["action"]))
            s.events.clear()  # checked by replay_step already: nothing piles up
            if len(actions) % CHECKPOINT_EVERY == 0:
                keep(s)

        try:
            replay(log, env=new_env(rules, n), on_step=on_step, on_reset=on_reset)
        except (ValueError, KeyError, TypeError, IndexError) as e:
            raise ApiError(400, f"the log does not replay: {e}") from None
        self.actions = bytes(actions)
        self.u = new_env(rules, n).unwrapped  # names, colours and the engine; its state is unused
        self._last: tuple[int, State] | None = None  # the last frame built: (index, its state)
        self.nbytes = (ENV_BYTES + len(self.actions)
                       + (len(self.checkpoints) + 1) * max(state_nbytes(c) for c in self.checkpoints)
                       + AGENT_BYTES * len(self.policies))

    @property
    def count(self) -> int:
        """Frames: the deal and one per action."""
        return len(self.actions) + 1

    # -------------------------------------------------------------- frames
    def _state(self, i: int) -> tuple[State, int | None, int | None, int | None]:
        """The state after ``i`` actions with the events of the last one (or of the deal), and
        that action, its seat and phase: from the last frame built, if it is at most
        ``CHECKPOINT_EVERY`` actions before, else from the nearest copy before it."""
        last = self._last
        if last is not None and last[0] == i:
            return last[1:]
        if i == 0:
            s = _copy(self.checkpoints[0])
            s.events = list(self.deal_events)
            self._last = (0, s, None, None, None)
            return self._last[1:]
        if last is not None and last[0] < i <= last[0] + CHECKPOINT_EVERY:
            j, s = last[0], last[1]
        else:
            c = (i - 1) // CHECKPOINT_EVERY
            j, s = c * CHECKPOINT_EVERY, _copy(self.checkpoints[c])
        self._last = None  # ``s`` changes from here on
        engine = self.u.engine
        while j < i:
            a = self.actions[j]
            seat, phase = s.actor, s.phase
            s.events.clear()
            engine.step(s, a)
            j += 1
        self._last = (i, s, a, seat, phase)
        return self._last[1:]

    def _text(self, s: State, action: int | None, seat: int | None, phase: int | None) -> list[str]:
        """A frame's text: its public events, or what was decided (a hidden window answer)."""
        texts = [ev["text"] for ev in views.event_dicts(self.u, s.events, self.players)]
        if texts:
            return texts
        if action is None:
            return ["the deal"]
        return [f"{self.players[seat]}: {self.u.action_names[action]} "
                f"({views.PHASE_TEXT[PHASE_NAMES[phase]]})"]

    def frame(self, i: int) -> dict[str, Any]:
        if not 0 <= i < self.count:
            raise ApiError(404, f"frame {show(i)} is not in 0..{self.count - 1}")
        s, action, seat, phase = self._state(i)
        u = self.u
        frame = {"step": i, "text": self._text(s, action, seat, phase),
                 "action": None if action is None else u.action_names[action], "seat": seat,
                 "table": views.open_table(u, s), "result": views.result(u, s),
                 "thoughts": self._thoughts(s, i)}
        return {"id": self.id, "index": i, "count": self.count, "frame": frame}

    def _thoughts(self, s: State, i: int) -> dict[str, Any] | None:
        """The thoughts of the seat to decide at frame ``i`` from its own observation, if its
        policy is loaded (the module doc)."""
        seat = s.actor
        agent = self.policies.get(seat)
        if agent is None or s.game_over:
            return None
        u = self.u
        t = agent_thoughts(agent, u.encoder.encode(s, seat), A.legal_mask(u.engine.legal_actions(s)),
                           u.action_names)
        if t is None:
            return None
        chosen = u.action_names[self.actions[i]] if i < len(self.actions) else None
        return {"seat": seat, "spec": self.specs[seat], "short": views.short_spec(self.specs[seat]),
                "decision": i, "chosen": chosen, **t}

    def texts(self) -> list[list[str]]:
        """Every frame's text (what the page lists), in one pass from the deal."""
        s = _copy(self.checkpoints[0])
        s.events = list(self.deal_events)
        out = [self._text(s, None, None, None)]
        engine = self.u.engine
        for a in self.actions:
            seat, phase = s.actor, s.phase
            s.events.clear()
            engine.step(s, a)
            out.append(self._text(s, a, seat, phase))
        return out

    def close(self) -> None:
        self.closed = True
        self.checkpoints, self._last = [], None
