"""The games the web server keeps (:mod:`uno_env.tools.web.server`) and their store.

A :class:`Game` is one recorded game (:class:`uno_env.tools.gamelog.GameRecorder`): a human
seat played through the API (``play``: the agents' moves are played up to the human's next
decision) or agents only (``watch``: stepped up to the next move its viewer sees). What a
page is sent is built by :mod:`uno_env.tools.web.views`. The :class:`Store` keeps games and
replays (:mod:`uno_env.tools.web.replays`) by id and drops those idle too long.

**Where a played game draws a table** (:meth:`Game.public_boundary`). The page replays the
others' moves one table at a time, so where a table is drawn must not depend on hidden cards.
Which decisions happen does: a jump-in window opens only if someone else holds the card
played, a penalty's victim decides only if it can stack, a Team Attack player only if it holds
villains. So the events of a played game carry a table only at points every player sees: the
human's decision, the end, and the start of a regular turn with no penalty pending; the events
in between come as one stretch under the table that ends it (0.5.13; before, every decision's
events carried the table after it). A watched game (agents only) still shows every decision.
"""

from __future__ import annotations

import io
import secrets
import threading
import time
from collections import Counter
from typing import Any, Callable

from uno_env.game.engine import PHASE_NAMES, TURN, Engine
from uno_env.game.rules import Rules
from uno_env.tools.gamelog import GameRecorder
from uno_env.tools.web import views
from uno_env.tools.web.validate import ApiError, parse_action

IDLE_TIMEOUT_S = 1800.0
MAX_GAMES = 64
MAX_WATCH_STEPS = 1000  # decisions looked through for one visible move of a watched game


def new_env(rules: Rules, n: int) -> Any:
    """A raw env whose engine records public events."""
    from uno_env.envs.aec_env import raw_env

    try:
        env = raw_env(rules=rules, num_players=n)
    except ValueError as e:
        raise ApiError(400, str(e)) from None
    env.engine = Engine(env.rules, n, record_events=True)
    return env


class Game:
    """One game kept by the server: a human seat (``play``) or agents only (``watch``)."""

    kind = "game"

    def __init__(self, gid: str, mode: str, env: Any, specs: list[str], agents: dict[int, Any],
                 human: int | None, seed: int, log: "str | None",
                 deck: list[str] | None = None, dealer: int | None = None,
                 perspective: int | None = None):
        self.id, self.mode, self.env, self.u = gid, mode, env, env.unwrapped
        self.specs, self.agents, self.human, self.seed = specs, agents, human, seed
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        self.pending: list[dict[str, Any]] = []  # play: events not sent yet
        self.log_path = log
        self._buffer = io.StringIO() if log is None else None
        meta = {"tool": "uno-serve", "game": gid, "mode": mode}
        self.recorder = GameRecorder(env, log if log is not None else self._buffer, specs=specs,
                                     agent_seeds=[None if i == human else seed + 1 + i
                                                  for i in range(len(specs))], meta=meta)
        self.recorder.reset(seed=seed, dealer=dealer, deck=deck)
        for agent in agents.values():
            agent.reset(None)
        n = len(specs)
        self.players = views.seat_names(n, specs, human)
        # whose events and table: the human's; in a watched game one seat's, or None: every hand
        self.perspective: int | None = human if mode == "play" else perspective
        self._drain(self.perspective)  # the deal
        if mode == "play":
            self.advance()

    # -------------------------------------------------------------- stepping
    def over(self) -> bool:
        s = self.u.game_state
        return bool(s.game_over or self.u.engine.truncated(s))

    def _drain(self, seat: int | None, hidden: str | None = None,
               got: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """The public events since the last call (plus ``got``, the seat's own new cards,
        and for a spectator of every hand ``hidden``, a decision without public events),
        appended to ``pending``. The last one carries the table after them; in a played game
        only at a :meth:`public_boundary`, and then the last event not sent yet carries it."""
        s = self.u.game_state
        raw = list(s.events)
        s.events.clear()
        out = views.event_dicts(self.u, raw, self.players)
        if got is not None:
            out.append(got)
        if not out and hidden is not None and seat is None:
            out.append({"kind": "decision", "seat": None, "card": None, "color": None,
                        "value": -1, "text": hidden})
        self.pending += out
        if self.mode == "play":  # the table only at a public boundary, after the last event since the last one
            last = self.pending[-1] if self.pending else None
            if last is None or "table" in last or not self.public_boundary():
                return out
        elif not out:
            return out
        else:
            last = out[-1]
        if seat is None:
            last["table"] = views.open_table(self.u)
        else:
            last["table"] = views.seat_table(self.u, seat)
            last["hand"] = [self.u.card_names[k] for k in self.u.engine.hand_cards(s, seat)]
        return out

    def public_boundary(self) -> bool:
        """A point of a played game every player sees: the human decides, the game is over, or a
        regular turn begins with no penalty pending (see the module doc)."""
        s = self.u.game_state
        return self.over() or s.actor == self.human or (s.phase == TURN and s.pending == 0)

    def _decide(self, action: int) -> list[dict[str, Any]]:
        """Step one decision (the actor's ``action``) and collect what the perspective sees."""
        u = self.u
        s = u.game_state
        actor, phase = s.actor, s.phase
        seat = self.perspective
        before = Counter(u.engine.hand_cards(s, seat)) if seat is not None else None
        self.recorder.step(action)
        got = None
        if seat is not None and self.mode == "play":
            got = views.own_cards_event(u, seat, before, Counter(u.engine.hand_cards(u.game_state, seat)))
        hidden = f"{self.players[actor]}: {u.action_names[action]} ({views.PHASE_TEXT[PHASE_NAMES[phase]]})"
        return self._drain(seat, hidden, got)

    def _bot_action(self) -> int:
        u = self.u
        seat = u.game_state.actor
        obs = u.observe(u.possible_agents[seat])
        return int(self.agents[seat].act(obs["observation"], obs["action_mask"]))

    def advance(self) -> None:
        """Play the agents' decisions up to the human's next one (or the end)."""
        while not self.over() and self.u.game_state.actor != self.human:
            self._decide(self._bot_action())

    def act(self, value: Any) -> None:
        """The human's action (name or id); ``ApiError`` (game unchanged) if it is not legal."""
        if self.mode != "play":
            raise ApiError(409, "nobody plays in a watched game: POST /api/games/{id}/step moves it")
        u = self.u
        action = parse_action(u, value)
        if self.over():
            raise ApiError(409, "the game is over: start a new one")
        legal = u.legal_actions()
        if action not in legal:
            raise ApiError(409, f"{u.action_names[action]!r} is not legal now (phase "
                                f"{PHASE_NAMES[u.game_state.phase]!r}); legal: "
                                f"{[u.action_names[a] for a in legal]}")
        self._decide(action)
        self.advance()

    def watch_step(self, perspective: int | None, steps: int) -> list[dict[str, Any]]:
        """Up to ``steps`` decisions, each up to one that the perspective sees."""
        if self.mode != "watch":
            raise ApiError(409, "this game has a human seat: POST /api/games/{id}/actions plays it")
        self.perspective = perspective
        out: list[dict[str, Any]] = []
        for _ in range(steps):
            count = 0
            while not self.over() and count < MAX_WATCH_STEPS:
                count += 1
                got = self._decide(self._bot_action())
                if got:
                    out += got
                    break
            if self.over():
                break
        return out

    # -------------------------------------------------------------- views
    def view(self, perspective: "int | None | str" = "default") -> dict[str, Any]:
        if self.mode == "play":
            events, self.pending = self.pending, []
            view = views.seat_view(self.u, self.human, self.specs, events=events)
        else:
            seat = self.perspective if perspective == "default" else perspective
            events, self.pending = self.pending, []
            if seat != self.perspective:  # they were made for another viewer
                events = []
            if seat is None:
                view = views.open_view(self.u, self.specs, events=events)
            else:
                view = views.seat_view(self.u, seat, self.specs, events=events, mode="watch")
            view["watching"] = "all" if seat is None else seat
        view["id"] = self.id
        if self.mode != "play" or self.over():  # the seed deals every hand and the DRAW pile
            view["seed"] = self.seed
        view["specs"] = list(self.specs)
        return view

    def log_text(self) -> str:
        if not self.over():
            raise ApiError(409, "the log is served once the game is over (it shows every hand)")
        if self._buffer is not None:
            return self._buffer.getvalue()
        with open(self.log_path, encoding="utf-8") as fh:
            return fh.read()

    def close(self) -> None:
        self.recorder.finish()


class Store:
    """The games and replays of the server, by id; idle ones are dropped."""

    def __init__(self, idle_timeout: float = IDLE_TIMEOUT_S, max_games: int = MAX_GAMES,
                 clock: Callable[[], float] = time.monotonic):
        self.idle_timeout, self.max_games, self.clock = idle_timeout, max_games, clock
        self.items: dict[str, Any] = {}
        self.lock = threading.Lock()

    def new_id(self) -> str:
        return secrets.token_urlsafe(9)

    def sweep(self) -> None:
        now = self.clock()
        with self.lock:
            old = [k for k, g in self.items.items() if now - g.touched > self.idle_timeout]
            dropped = [self.items.pop(k) for k in old]
        for g in dropped:
            with g.lock:
                g.close()

    def reserve(self) -> None:
        self.sweep()
        with self.lock:
            if len(self.items) >= self.max_games:
                raise ApiError(503, f"this server keeps at most {self.max_games} games and replays; "
                                    "try again when one is dropped")

    def add(self, item: Any) -> None:
        item.touched = self.clock()
        with self.lock:
            self.items[item.id] = item

    def get(self, gid: str, kind: str) -> Any:
        self.sweep()
        with self.lock:
            item = self.items.get(gid)
        if item is None or item.kind != kind:
            raise ApiError(404, f"unknown {kind} {gid!r} (idle ones are dropped after "
                                f"{self.idle_timeout:g} s)")
        item.touched = self.clock()
        return item

    def remove(self, gid: str, kind: str) -> None:
        item = self.get(gid, kind)
        with self.lock:
            self.items.pop(gid, None)
        with item.lock:
            item.close()

    def close(self) -> None:
        with self.lock:
            items, self.items = list(self.items.values()), {}
        for g in items:
            g.close()
