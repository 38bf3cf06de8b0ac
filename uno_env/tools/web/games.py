"""The games the web server keeps (:mod:`uno_env.tools.web.server`) and their store.

A :class:`Game` is one recorded game (:class:`uno_env.tools.gamelog.GameRecorder`): a human
seat played through the API (``play``: the agents' moves are played up to the human's next
decision) or agents only (``watch``: stepped up to the next move its viewer sees). What a
page is sent is built by :mod:`uno_env.tools.web.views`. The :class:`Store` keeps games and
replays (:mod:`uno_env.tools.web.replays`) by id and drops those idle too long.

**What one request may spend** (:class:`Budget`). A request that plays agents' decisions (a
new game, an action, a watch step) stops after :data:`REQUEST_SECONDS` (2 s, wall clock) or
:data:`MAX_DECISIONS_PER_REQUEST` (2,000) decisions, whichever comes first, having played at
least one; its answer says how far it got (``progress``: decisions played, visible moves,
why it stopped, and for a played game whether the others are still to move: ``waiting``,
then ``POST /api/games/{id}/step`` plays on). A played game stops only at a public boundary
(below), so where it stops tells nothing hidden; and there its ``decisions`` are the others'
turns begun (the boundaries passed), which every player sees, not the decisions in between,
whose number depends on hidden cards (the windows a held card opens): the whole answer, not
only the view, is the same whatever the cards the human cannot see. One decision costs at most what the
costliest accepted agent spends (:mod:`uno_env.tools.web.validate`: search is capped).

**What the store may hold.** Every game and replay is charged an estimate of the memory it
holds (``nbytes``: a game is charged its worst case up front, its state plus
:data:`DECISION_BYTES` per decision it may take and :data:`AGENT_BYTES` per bot; a replay
what it keeps, :mod:`uno_env.tools.web.replays`), and the store keeps at most
:data:`MAX_MEMORY` (256 MiB) of them, :data:`MAX_GAMES` (64) in all and
:data:`MAX_PER_CLIENT` (16) per client address. A game kept in memory (no ``--log-dir``)
holds no log: it is written again from the deal and the actions when it is asked for
(:meth:`Game.log_chunks`, streamed). When a cap is reached, an idle item (untouched for
:data:`EVICT_IDLE_S`, 60 s, and in no request) makes room: the client's own least recently
used one when the client is at its own cap, else the least recently used one of the client
that holds the most. With nothing idle to drop the request is refused (429 for the
client's cap, 503 for the server's). Each item has an owner token, returned once when it
is created, and only that token deletes it (``DELETE``).

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

import datetime
import secrets
import threading
import time
from collections import Counter, OrderedDict
from typing import Any, Callable, Iterator

from uno_env.game.engine import PHASE_NAMES, TURN, Engine, State
from uno_env.game.rules import Rules
from uno_env.tools.gamelog import GameRecorder, reset_env
from uno_env.tools.web import views
from uno_env.tools.web.thoughts import agent_thoughts
from uno_env.tools.web.validate import MAX_GAME_STEPS, ApiError, parse_action

IDLE_TIMEOUT_S = 1800.0
MAX_GAMES = 64  # games and replays kept at once
MAX_PER_CLIENT = 16  # games and replays kept at once for one client address
MAX_MEMORY = 256 * 2 ** 20  # bytes (estimated) that the games and replays may hold together
EVICT_IDLE_S = 60.0  # an item untouched this long may be dropped to make room for another
MAX_WATCH_STEPS = 1000  # decisions looked through for one visible move of a watched game
REQUEST_SECONDS = 2.0  # wall-clock time one request may spend playing decisions
MAX_DECISIONS_PER_REQUEST = 2000  # decisions one request may play
# memory estimates (bytes; tracemalloc on CPython 3.11: a raw env 73-93 KB, a 10-player state
# 6-29 KB, a bot 4-32 KB, the env's history of one decision 64 B)
ENV_BYTES = 128 * 1024  # a raw env and its engine, without the state
DECISION_BYTES = 72  # what one decision adds to a game (the env's history)
AGENT_BYTES = 256 * 1024  # a bot, with what it learns during a game
LOG_CHUNK = 64 * 1024  # characters of a streamed log per chunk


def mib(nbytes: int) -> str:
    return f"{nbytes / 2 ** 20:.1f} MiB"


def state_nbytes(s: State) -> int:
    """An estimate (from above) of the memory one engine state holds."""
    arrays = s.hands.nbytes + s.played.nbytes + s.known.nbytes + s.history.nbytes
    lists = len(s.draw_pile) + len(s.discard) + 8 * s.n + len(s.events or ()) * 8
    return arrays + 8 * lists + 8 * 1024


class Budget:
    """What one request may spend playing decisions: a deadline and a number of decisions.
    At least one decision is always played (every request makes progress)."""

    def __init__(self, seconds: float = REQUEST_SECONDS, decisions: int = MAX_DECISIONS_PER_REQUEST,
                 clock: Callable[[], float] = time.monotonic):
        self.seconds, self.decisions, self.clock = seconds, decisions, clock
        self.deadline = clock() + seconds
        self.used = 0
        self.moves = 0  # visible moves (watch steps) completed
        self.stopped: str | None = None  # "deadline" or "decisions" once the budget ran out

    def exhausted(self) -> bool:
        if self.used and self.used >= self.decisions:
            self.stopped = "decisions"
        elif self.used and self.clock() >= self.deadline:
            self.stopped = "deadline"
        return self.stopped is not None

    def report(self, **extra: Any) -> dict[str, Any]:
        return {"decisions": self.used, "moves": self.moves, "stopped": self.stopped,
                "budget": {"seconds": self.seconds, "decisions": self.decisions}, **extra}


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
                 perspective: int | None = None, agent_bytes: int = 0):
        """A dealt game (the agents play nothing yet: :meth:`advance`). ``log``: the path of its
        log file, or None to keep no log (it is written again on request: :meth:`log_chunks`)."""
        self.id, self.mode, self.env, self.u = gid, mode, env, env.unwrapped
        self.specs, self.agents, self.human, self.seed = specs, agents, human, seed
        self.deck, self.dealer = deck, dealer
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        self.owner, self.token, self.closed = "", "", False
        self.pending: list[dict[str, Any]] = []  # play: events not sent yet
        # watch: the latest thoughts of each agent seat with a policy (thoughts.py), by seat
        self.thoughts: dict[int, dict[str, Any]] = {}
        self.decisions = 0
        self.log_path = log
        self.agent_seeds = [None if i == human else seed + 1 + i for i in range(len(specs))]
        self.meta = {"created": datetime.datetime.now().isoformat(timespec="seconds"),
                     "tool": "uno-serve", "game": gid, "mode": mode}
        self.recorder: GameRecorder | None = None
        if log is not None:
            self.recorder = GameRecorder(env, log, specs=specs, agent_seeds=self.agent_seeds, meta=self.meta)
            self.recorder.reset(seed=seed, dealer=dealer, deck=deck)
        else:
            reset_env(env, seed, dealer, deck)
        for agent in agents.values():
            agent.reset(None)
        n = len(specs)
        self.players = views.seat_names(n, specs, human)
        # whose events and table: the human's; in a watched game one seat's, or None: every hand
        self.perspective: int | None = human if mode == "play" else perspective
        # charged up front: its worst case (every decision it may take, every bot)
        steps = min(self.u.rules.max_steps, MAX_GAME_STEPS)
        self.nbytes = (ENV_BYTES + 2 * state_nbytes(self.u.game_state) + DECISION_BYTES * steps
                       + AGENT_BYTES * len(agents) + agent_bytes)
        self._drain(self.perspective)  # the deal

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
            # the cards a last penalty gave were received before the round (and the game) ended
            ends = [i for i, e in enumerate(out) if e["kind"] in ("round_over", "game_over")]
            out.insert(ends[0] if ends and self.over() else len(out), got)
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
        if self.recorder is not None:
            self.recorder.step(action)
        else:
            self.env.step(action)
        got = None
        if seat is not None and self.mode == "play":
            got = views.own_cards_event(u, seat, before, Counter(u.engine.hand_cards(u.game_state, seat)))
        hidden = f"{self.players[actor]}: {u.action_names[action]} ({views.PHASE_TEXT[PHASE_NAMES[phase]]})"
        return self._drain(seat, hidden, got)

    def _bot_action(self) -> int:
        u = self.u
        seat = u.game_state.actor
        obs = u.observe(u.possible_agents[seat])
        agent = self.agents[seat]
        action = int(agent.act(obs["observation"], obs["action_mask"]))
        if self.mode == "watch":  # never in a played game: they would tell the human of hidden hands
            self.decisions += 1
            t = agent_thoughts(agent, obs["observation"], obs["action_mask"], u.action_names)
            if t is not None:
                self.thoughts[seat] = {"seat": seat, "spec": self.specs[seat],
                                       "short": views.short_spec(self.specs[seat]),
                                       "decision": self.decisions, "chosen": u.action_names[action], **t}
        return action

    def waiting(self) -> bool:
        """A played game whose agents are still to move before the human's next decision."""
        return self.mode == "play" and not self.over() and self.u.game_state.actor != self.human

    def advance(self, budget: Budget) -> None:
        """Play the agents' decisions up to the human's next one (or the end), within
        ``budget``: it is checked, and charged, only at a public boundary, where the page may be
        sent a view. So ``budget.used`` counts the others' turns, every player sees them, never
        the decisions in between (a window opens only for a player holding the card: counting
        it told the human what was held); one turn costs a bounded number of decisions."""
        while self.waiting():
            if self.public_boundary():
                if budget.exhausted():
                    return
                budget.used += 1
            self._decide(self._bot_action())

    def act(self, value: Any, budget: Budget) -> None:
        """The human's action (name or id); ``ApiError`` (game unchanged) if it is not legal."""
        if self.mode != "play":
            raise ApiError(409, "nobody plays in a watched game: POST /api/games/{id}/step moves it")
        u = self.u
        action = parse_action(u, value)
        if self.over():
            raise ApiError(409, "the game is over: start a new one")
        if self.waiting():
            raise ApiError(409, "the others are still to move: POST /api/games/{id}/step plays on")
        legal = u.legal_actions()
        if action not in legal:
            raise ApiError(409, f"{u.action_names[action]!r} is not legal now (phase "
                                f"{PHASE_NAMES[u.game_state.phase]!r}); legal: "
                                f"{[u.action_names[a] for a in legal]}")
        self._decide(action)
        self.advance(budget)

    def watch_step(self, perspective: int | None, steps: int, budget: Budget) -> list[dict[str, Any]]:
        """Up to ``steps`` decisions, each up to one that the perspective sees, within ``budget``."""
        if self.mode != "watch":
            raise ApiError(409, "this game has a human seat: POST /api/games/{id}/actions plays it")
        self.perspective = perspective
        out: list[dict[str, Any]] = []
        for _ in range(steps):
            count = 0
            while not self.over() and count < MAX_WATCH_STEPS:
                if budget.exhausted():
                    return out
                count += 1
                budget.used += 1
                got = self._decide(self._bot_action())
                if got:
                    out += got
                    break
            budget.moves += 1
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
            # the latest thoughts this viewer may see: any seat's with every hand open, else its own
            seen = [t for q, t in self.thoughts.items() if seat is None or q == seat]
            view["thoughts"] = max(seen, key=lambda t: t["decision"]) if seen else None
        view["id"] = self.id
        if self.mode != "play" or self.over():  # the seed deals every hand and the DRAW pile
            view["seed"] = str(self.seed)  # 128 bits: digits, which JavaScript keeps exactly
        view["specs"] = list(self.specs)
        return view

    def log_chunks(self) -> Iterator[str]:
        """The game's JSON Lines log, in chunks: its file, or written again from the deal and
        the actions (the same records, the same header). Only once the game is over."""
        if not self.over():
            raise ApiError(409, "the log is served once the game is over (it shows every hand)")
        if self.log_path is not None:
            return _file_chunks(self.log_path)
        return self._written_again([a for _, a in self.u.history])

    def _written_again(self, actions: list[int]) -> Iterator[str]:
        env = new_env(self.u.rules, len(self.specs))
        sink = _Chunks()
        rec = GameRecorder(env, sink, specs=self.specs, agent_seeds=self.agent_seeds, meta=self.meta)
        rec.reset(seed=self.seed, dealer=self.dealer, deck=self.deck)
        for a in actions:
            if sink.size >= LOG_CHUNK:
                yield sink.take()
            rec.step(a)
        rec.finish()
        yield sink.take()

    def close(self) -> None:
        self.closed = True
        if self.recorder is not None:
            self.recorder.finish()


class _Chunks:
    """A text sink (``write``/``flush``) handing out what was written, chunk by chunk."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0

    def write(self, text: str) -> int:
        self.parts.append(text)
        self.size += len(text)
        return len(text)

    def flush(self) -> None:
        pass

    def take(self) -> str:
        out, self.parts, self.size = "".join(self.parts), [], 0
        return out


def _file_chunks(path: str) -> Iterator[str]:
    with open(path, encoding="utf-8") as fh:
        while True:
            chunk = fh.read(LOG_CHUNK)
            if not chunk:
                return
            yield chunk


class Store:
    """The games and replays of the server, by id, least recently used first; idle ones are
    dropped, and caps are kept by dropping idle ones (module doc)."""

    def __init__(self, idle_timeout: float = IDLE_TIMEOUT_S, max_games: int = MAX_GAMES,
                 max_per_client: int = MAX_PER_CLIENT, max_bytes: int = MAX_MEMORY,
                 evict_idle: float = EVICT_IDLE_S, clock: Callable[[], float] = time.monotonic):
        self.idle_timeout, self.max_games, self.clock = idle_timeout, max_games, clock
        self.max_per_client, self.max_bytes, self.evict_idle = max_per_client, max_bytes, evict_idle
        self.items: OrderedDict[str, Any] = OrderedDict()
        self.lock = threading.Lock()

    def new_id(self) -> str:
        return secrets.token_urlsafe(9)

    def nbytes(self) -> int:
        """The memory (estimated) that the items hold."""
        with self.lock:
            return sum(x.nbytes for x in self.items.values())

    @staticmethod
    def _close(items: list[Any]) -> None:
        for g in items:
            with g.lock:
                g.close()

    def sweep(self) -> None:
        now = self.clock()
        with self.lock:
            old = [k for k, g in self.items.items() if now - g.touched > self.idle_timeout]
            dropped = [self.items.pop(k) for k in old]
        self._close(dropped)

    def _idle(self, candidates: list[Any], now: float) -> Any:
        """The first of ``candidates`` that may be dropped: idle long enough, in no request."""
        for x in candidates:
            if now - x.touched >= self.evict_idle and not x.lock.locked():
                return x
        return None

    def _victim(self, live: list[Any], owner: str, now: float) -> tuple[Any, int]:
        """What to drop of ``live`` (least recently used first) to make room for an item of
        ``owner``, and the status if nothing can be (429: the client's own cap; 503: the server's)."""
        own = [x for x in live if x.owner == owner]
        if len(own) >= self.max_per_client:
            return self._idle(own, now), 429
        held = Counter(x.owner for x in live)
        by_holder = sorted(live, key=lambda x: -held[x.owner])  # stable: least recently used first
        return self._idle(by_holder, now), 503

    def _needs_room(self, live: list[Any], owner: str, nbytes: int) -> bool:
        own = sum(1 for x in live if x.owner == owner)
        return (own >= self.max_per_client or len(live) >= self.max_games
                or sum(x.nbytes for x in live) + nbytes > self.max_bytes)

    def _room(self, owner: str, nbytes: int) -> list[Any]:
        """The items to drop (under the lock) so that one of ``owner`` holding ``nbytes`` fits;
        ``ApiError`` (nothing dropped) if they cannot be found."""
        live, gone, now = list(self.items.values()), [], self.clock()
        while self._needs_room(live, owner, nbytes):
            victim, status = self._victim(live, owner, now)
            if victim is None:
                raise self._full(status)
            live.remove(victim)
            gone.append(victim)
        return gone

    def _full(self, status: int) -> ApiError:
        if status == 429:
            return ApiError(429, f"this client keeps {self.max_per_client} games and replays already, "
                                 f"all in use in the last {self.evict_idle:g} s: DELETE one (with its "
                                 "token) or wait")
        return ApiError(503, f"this server is full ({self.max_games} games and replays, "
                             f"{mib(self.max_bytes)}), all in use in the last {self.evict_idle:g} s; "
                             "try again later")

    def check_room(self, owner: str) -> None:
        """``ApiError`` early (before an item is built) if ``owner`` could not add one now."""
        self.sweep()
        with self.lock:
            self._room(owner, 0)

    def add(self, item: Any, owner: str = "") -> str:
        """Keep ``item`` for ``owner`` (dropping idle items to make room, module doc); returns
        its owner token. ``ApiError`` (item not kept, nothing dropped) if there is no room."""
        if item.nbytes > self.max_bytes:
            raise ApiError(413, f"this {item.kind} would hold ~{mib(item.nbytes)}, more than the "
                                f"server keeps in all ({mib(self.max_bytes)})")
        self.sweep()
        with self.lock:
            dropped = self._room(owner, item.nbytes)
            for x in dropped:
                del self.items[x.id]
            item.owner, item.token, item.touched = owner, secrets.token_urlsafe(16), self.clock()
            self.items[item.id] = item
        self._close(dropped)
        return item.token

    def get(self, gid: str, kind: str) -> Any:
        self.sweep()
        with self.lock:
            item = self.items.get(gid)
            if item is not None and item.kind == kind:
                self.items.move_to_end(gid)
                item.touched = self.clock()
        if item is None or item.kind != kind:
            raise ApiError(404, f"unknown {kind} {gid!r} (idle ones are dropped after "
                                f"{self.idle_timeout:g} s)")
        return item

    def remove(self, gid: str, kind: str, token: str | None) -> None:
        """Drop ``gid`` if ``token`` is its owner token (``ApiError`` 403 if not)."""
        item = self.get(gid, kind)
        if not token or not secrets.compare_digest(str(token), item.token):
            raise ApiError(403, f"only the client that created this {kind} deletes it: send the token "
                                "it was given (header X-Uno-Token)")
        with self.lock:
            if self.items.get(gid) is item:
                del self.items[gid]
        self._close([item])

    def close(self) -> None:
        with self.lock:
            items, self.items = list(self.items.values()), OrderedDict()
        self._close(items)
