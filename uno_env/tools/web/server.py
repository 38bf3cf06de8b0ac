"""``uno-serve``: play, watch and replay UNO in the browser.

    uno-serve                                   # http://127.0.0.1:8000
    uno-serve --port 8080 --log-dir runs/web    # and a JSON Lines log of every browser game
    python -m uno_env.tools.web  (or python -m uno_env.web)

A small ASGI app (Starlette, served by uvicorn; ``pip install "uno_env[web]"``) serving one
page of plain HTML, CSS and JavaScript shipped in the package (``static/``: no build step,
no CDN) and the JSON API below. The server keeps every game; the page of a game it plays
receives only what its human seat may know (:mod:`uno_env.tools.web.views`: the seat's
observation, public facts and public events), never another seat's hidden card and never
who is asked in a window.

JSON API (request and answer bodies are JSON objects; every error is a 4xx answer
``{"error": "<what is wrong>"}`` and leaves the game unchanged):

==========================================  ==============================================
``GET  /api/meta``                          presets, rule options, agent specs, checkpoints
``POST /api/games``                         a new game: ``{"rules", "options", "num_players",
                                            "opponents", "seat", "seed", "deck", "dealer"}``
                                            (all optional) -> ``{"id", "view"}`` (201); a
                                            watched game: ``{"mode": "watch", "agents": [...],
                                            "seat": "all" or k}`` (whose view)
``GET  /api/games/{id}``                    ``{"view"}`` (watch: ``?seat=all`` or a seat)
``POST /api/games/{id}/actions``            ``{"action": <name or id>}`` -> ``{"view"}``
``POST /api/games/{id}/step``               watch: ``{"seat": "all" or k, "steps": 1}`` ->
                                            ``{"view"}`` (up to the next visible move)
``GET  /api/games/{id}/log``                the JSON Lines log, once the game is over
``DELETE /api/games/{id}``                  drop the game
``POST /api/replays``                       body: a game log (JSON Lines) -> ``{"id",
                                            "count", "header", "frame"}`` (201)
``GET  /api/replays/{id}/frames/{i}``       ``{"index", "count", "frame"}``
==========================================  ==============================================

Decisions:

* ``rules`` is a preset name or an object of options (it may name a ``preset``); ``options``
  overrides single options. The server never reads a rules file named by a request.
  Defaults: ``classic``, ``opponents`` ``heuristic`` for every other seat (``num_players``
  seats, default 2), ``seat`` 0, a random ``seed`` (reported in the view).
* The deal and the game follow the seed exactly as ``env.reset(seed=seed)`` and the
  terminal game (:func:`uno_env.tools.gamelog.reset_env`); the agent of seat ``i`` is
  seeded ``seed + 1 + i``. ``deck`` (card names, top first; exactly the ruleset's deck) and
  ``dealer`` stack the deal (for lessons and tests).
* ``checkpoint:<dir>`` specs load only from under ``--checkpoint-root`` (default
  ``./checkpoints``), so that a request cannot make the server open any other file.
* The others' moves are played by the server up to the human's next decision and sent as
  events (each with the table after it); the page shows them one by one.
* A game or replay untouched for ``--idle-timeout`` seconds is dropped (its log ends
  ``aborted``); at most ``--max-games`` are kept (then 503).
* Request bodies are limited: ``--max-body`` bytes for the API, ``--max-log-bytes`` for an
  uploaded log (413).
* Every browser game is recorded (:class:`uno_env.tools.gamelog.GameRecorder`): in
  ``--log-dir`` as ``web-<date>-<id>.jsonl`` when given, else in memory; once the game is
  over its log is served (``/api/games/{id}/log``) so that the page can replay it, all
  hands open.

Version history: 1 (first release; view version :data:`~uno_env.tools.web.views.VIEW_VERSION`).
"""

from __future__ import annotations

import argparse
import datetime
import io
import json
import os
import re
import secrets
import sys
import threading
import time
from collections import Counter
from typing import Any, Callable, Sequence

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.engine import PHASE_NAMES, Engine
from uno_env.game.rules import PRESETS, Rules, make_rules
from uno_env.tools.gamelog import GameLog, GameRecorder, read_log, replay
from uno_env.tools.web import views

HOST, PORT = "127.0.0.1", 8000
IDLE_TIMEOUT_S = 1800.0
MAX_GAMES = 64
MAX_BODY = 64 * 1024
MAX_LOG_BYTES = 32 * 1024 * 1024
MAX_DECK = 2000  # cards: a request must not make the server build a huge deck (house: 580)
MAX_WATCH_STEPS = 1000  # decisions looked through for one visible move of a watched game
MAX_STEPS_PER_REQUEST = 100  # visible moves per watch step request
HUMAN = "human"
# beside views.py (not __file__: ``python -m uno_env.web`` runs this code without one)
STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(views.__file__)), "static")
_GAME_KEYS = {"mode", "rules", "options", "num_players", "opponents", "agents", "seat", "seed",
              "deck", "dealer"}
_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class ApiError(Exception):
    """A request the server refuses: HTTP ``status`` and a message naming the problem."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


# ---------------------------------------------------------------------------- requests
def _int(value: Any, what: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ApiError(400, f"{what} must be an integer in {lo}..{hi}, got {value!r}")
    return value


def parse_rules(rules: Any, options: Any) -> Rules:
    """Rules of a request: a preset name or an object of options, plus ``options``."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise ApiError(400, f"options must be an object of rule options, got {options!r}")
    if rules is None:
        rules = "classic"
    if isinstance(rules, str) and rules not in PRESETS:
        raise ApiError(400, f"unknown rules preset {rules!r}; presets: {sorted(PRESETS)} "
                            f"(or an object of rule options)")
    if not isinstance(rules, (str, dict)):
        raise ApiError(400, f"rules must be a preset name or an object of options, got {rules!r}")
    try:
        r = make_rules(rules, **options)
    except (ValueError, TypeError) as e:
        raise ApiError(400, f"bad rules: {e}") from None
    if r.deck_size() > MAX_DECK:
        raise ApiError(400, f"a deck of {r.deck_size()} cards is more than this server plays "
                            f"({MAX_DECK})")
    return r


class Specs:
    """Checks and builds agents from spec strings; ``checkpoint:`` paths only under roots."""

    def __init__(self, checkpoint_roots: Sequence[str]):
        self.roots = [os.path.realpath(r) for r in checkpoint_roots]

    def check(self, spec: Any, what: str) -> str:
        from uno_env.agents import agent_specs

        if not isinstance(spec, str) or not spec.strip():
            raise ApiError(400, f"{what} must be an agent spec string ({', '.join(agent_specs())}, "
                                f"checkpoint:<dir>), got {spec!r}")
        spec = spec.strip()
        prefix = spec.split(":", 1)[0]
        if prefix == HUMAN:
            raise ApiError(400, f"{what}: 'human' is the seat of the page, not an opponent")
        if prefix not in agent_specs():
            raise ApiError(400, f"{what}: unknown agent spec {spec!r}; known: {agent_specs()} "
                                f"(checkpoint:<dir> for a trained agent)")
        if prefix == "checkpoint":
            path = spec.split(":", 1)[1].removesuffix("#sample")
            real = os.path.realpath(path)
            if not any(real == r or real.startswith(r + os.sep) for r in self.roots):
                raise ApiError(400, f"{what}: checkpoint {path!r} is not under a checkpoint root of "
                                    f"this server ({', '.join(self.roots) or 'none'}; see --checkpoint-root)")
        return spec

    def make(self, spec: str, rules: Rules, n: int, seed: int, what: str) -> Any:
        from uno_env.agents import make_agent

        try:
            return make_agent(spec, rules, n, seed=seed)
        except (ValueError, OSError, KeyError) as e:
            raise ApiError(400, f"{what}: {e}") from None
        except ImportError as e:
            raise ApiError(400, f"{what}: this server cannot load {spec!r} ({e}); "
                                f"install the train extra") from None

    def checkpoints(self) -> list[str]:
        """Specs of the checkpoints (directories with a card.json) under the roots."""
        out = []
        cwd = os.path.realpath(os.getcwd())
        for root in self.roots:
            if not os.path.isdir(root):
                continue
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                if dirpath[len(root):].count(os.sep) >= 3:
                    dirnames[:] = []
                if "card.json" in filenames:  # a checkpoint: the card and the weights it names
                    rel = os.path.relpath(dirpath, cwd)
                    out.append("checkpoint:" + (dirpath if rel.startswith("..") else rel))
        return sorted(out)


def parse_action(u: Any, value: Any) -> int:
    """An action id from a name (``"play red-5"``) or an id; ``ApiError`` 400 if neither."""
    if isinstance(value, bool) or value is None:
        raise ApiError(400, f"action must be an action name or id, got {value!r}")
    if isinstance(value, int):
        if not 0 <= value < A.NUM_ACTIONS:
            raise ApiError(400, f"action id must be in 0..{A.NUM_ACTIONS - 1}, got {value}")
        return value
    if isinstance(value, str):
        name = re.sub(r"\s+", " ", value.strip().lower()).replace("colour ", "color ")
        if name.isdigit():
            return parse_action(u, int(name))
        try:
            return u.action_id(name)
        except ValueError:
            raise ApiError(400, f"unknown action {value!r} (e.g. 'play red-5', 'draw', "
                                f"'color blue', or an id 0..{A.NUM_ACTIONS - 1})") from None
    raise ApiError(400, f"action must be an action name or id, got {value!r}")


# ---------------------------------------------------------------------------- games
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
        the last one carrying the table after them; appended to ``pending``."""
        s = self.u.game_state
        raw = list(s.events)
        s.events.clear()
        out = views.event_dicts(self.u, raw, self.players)
        if got is not None:
            out.append(got)
        if not out and hidden is not None and seat is None:
            out.append({"kind": "decision", "seat": None, "card": None, "color": None,
                        "value": -1, "text": hidden})
        if out:
            if seat is None:
                out[-1]["table"] = views.open_table(self.u)
            else:
                out[-1]["table"] = views.seat_table(self.u, seat)
                out[-1]["hand"] = [self.u.card_names[k] for k in self.u.engine.hand_cards(s, seat)]
        self.pending += out
        return out

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


class Replay:
    """A game log replayed on the server: one frame per action, every hand open."""

    kind = "replay"

    def __init__(self, rid: str, log: GameLog):
        self.id = rid
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        h = log.header
        if not isinstance(h.get("rules"), dict):
            raise ApiError(400, "not a game log: the header has no rules object")
        rules = parse_rules(h["rules"], None)
        n = h.get("num_players")
        if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 10:
            raise ApiError(400, f"not a game log: num_players {n!r}")
        if len(log.actions) > 200_000:
            raise ApiError(400, "the log has more than 200,000 actions")
        specs = h.get("specs")
        if not isinstance(specs, list) or len(specs) != n:
            specs = ["?"] * n
        self.specs = [str(x) for x in specs]
        env = new_env(rules, n)
        self.players = views.seat_names(n, self.specs)
        self.frames: list[dict[str, Any]] = []
        self.header = {"rules": rules.name, "options": rules.to_dict(),
                       "colors": list(rules.color_names), "num_players": n, "specs": self.specs,
                       "seed": h.get("seed"), "actions": len(log.actions),
                       "status": (log.end or {}).get("status", "unfinished"),
                       "meta": h.get("meta") if isinstance(h.get("meta"), dict) else {}}

        def frame(e: Any, text: list[str], record: dict | None) -> None:
            u = e.unwrapped
            s = u.game_state
            events = views.event_dicts(u, list(s.events), self.players)
            s.events.clear()
            self.frames.append({
                "step": len(self.frames), "text": [ev["text"] for ev in events] or text,
                "action": None if record is None else record.get("name"),
                "seat": None if record is None else record.get("seat"),
                "table": views.open_table(u), "result": views.result(u, s)})

        def on_reset(e: Any) -> None:
            frame(e, ["the deal"], None)

        def on_step(e: Any, record: dict) -> None:
            seat = record.get("seat")
            who = self.players[seat] if isinstance(seat, int) and 0 <= seat < n else "?"
            frame(e, [f"{who}: {record.get('name')} ({views.PHASE_TEXT.get(record.get('phase'), record.get('phase'))})"],
                  record)

        try:
            replay(log, env=env, on_step=on_step, on_reset=on_reset)
        except (ValueError, KeyError, TypeError, IndexError) as e:
            raise ApiError(400, f"the log does not replay: {e}") from None
        self.header["players_text"] = self.players

    def frame(self, i: int) -> dict[str, Any]:
        if not 0 <= i < len(self.frames):
            raise ApiError(404, f"frame {i} is not in 0..{len(self.frames) - 1}")
        return {"id": self.id, "index": i, "count": len(self.frames), "frame": self.frames[i]}

    def close(self) -> None:
        pass


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


# ---------------------------------------------------------------------------- the app
class Server:
    """What the endpoints share: options, the store, agent specs."""

    def __init__(self, log_dir: str | None = None, idle_timeout: float = IDLE_TIMEOUT_S,
                 max_games: int = MAX_GAMES, checkpoint_roots: Sequence[str] = ("checkpoints",),
                 max_body: int = MAX_BODY, max_log_bytes: int = MAX_LOG_BYTES):
        self.log_dir = log_dir
        self.store = Store(idle_timeout, max_games)
        self.specs = Specs(checkpoint_roots)
        self.max_body, self.max_log_bytes = max_body, max_log_bytes

    def create_game(self, body: dict[str, Any]) -> Game:
        unknown = sorted(set(body) - _GAME_KEYS)
        if unknown:
            raise ApiError(400, f"unknown field(s) {unknown}; known: {sorted(_GAME_KEYS)}")
        mode = body.get("mode", "play")
        if mode not in ("play", "watch"):
            raise ApiError(400, f"mode must be 'play' or 'watch', got {mode!r}")
        rules = parse_rules(body.get("rules"), body.get("options"))
        n = body.get("num_players")
        if n is not None:
            n = _int(n, "num_players", 2, 10)
        if mode == "play":
            if "agents" in body:
                raise ApiError(400, "'agents' names every seat of a watched game; a game you play "
                                    "takes 'opponents'")
            opponents = body.get("opponents")
            if opponents is None:
                opponents = ["heuristic"] * ((n or 2) - 1)
            if not isinstance(opponents, list) or not 1 <= len(opponents) <= 9:
                raise ApiError(400, f"opponents must be a list of 1..9 agent specs, got {opponents!r}")
            if n is not None and n != len(opponents) + 1:
                raise ApiError(400, f"num_players {n} needs {n - 1} opponents, got {len(opponents)}")
            n = len(opponents) + 1
            seat = _int(body.get("seat", 0), "seat", 0, n - 1)
            others = iter(opponents)
            specs = [HUMAN if i == seat else self.specs.check(next(others), f"opponents[{i - (i > seat)}]")
                     for i in range(n)]
            human: int | None = seat
            perspective = seat
        else:
            if "opponents" in body:
                raise ApiError(400, "a watched game takes 'agents' (one spec per seat), not 'opponents'")
            agents = body.get("agents", ["heuristic"] * (n or 2))
            if not isinstance(agents, list) or not 2 <= len(agents) <= 10:
                raise ApiError(400, f"agents must be a list of 2..10 agent specs, got {agents!r}")
            if n is not None and n != len(agents):
                raise ApiError(400, f"num_players {n} does not match {len(agents)} agents")
            n = len(agents)
            specs = [self.specs.check(a, f"agents[{i}]") for i, a in enumerate(agents)]
            human = None
            watch = body.get("seat", "all")
            perspective = None if watch == "all" else _int(watch, "seat (of a watched game: 'all' or a seat)", 0, n - 1)
        seed = body.get("seed")
        seed = secrets.randbits(31) if seed is None else _int(seed, "seed", 0, 2**63 - 1)
        deck, dealer = body.get("deck"), body.get("dealer")
        if dealer is not None:
            dealer = _int(dealer, "dealer", 0, n - 1)
        if deck is not None and (not isinstance(deck, list) or not all(isinstance(c, str) for c in deck)):
            raise ApiError(400, "deck must be a list of card names, top first")
        self.store.reserve()
        env = new_env(rules, n)
        if deck is not None:
            try:
                env.engine.check_deck(C.parse_deck(deck, env.colors))
            except ValueError as e:
                raise ApiError(400, f"bad deal: {e}") from None
        agents_by_seat = {i: self.specs.make(sp, rules, n, seed + 1 + i, f"seat {i} ({sp})")
                          for i, sp in enumerate(specs) if i != human}
        gid = self.store.new_id()
        log = None
        if self.log_dir is not None:
            stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
            log = os.path.join(self.log_dir, f"web-{stamp}-{gid}.jsonl")
        try:
            game = Game(gid, mode, env, specs, agents_by_seat, human, seed, log, deck, dealer, perspective)
        except OSError as e:
            raise ApiError(500, f"cannot write the game log {log!r}: {e}") from None
        self.store.add(game)
        return game

    def create_replay(self, text: str) -> Replay:
        try:
            log = read_log(text.splitlines())
        except ValueError as e:
            raise ApiError(400, f"not a game log: {e}") from None
        self.store.reserve()
        rep = Replay(self.store.new_id(), log)
        self.store.add(rep)
        return rep

    def meta(self) -> dict[str, Any]:
        from dataclasses import fields

        from uno_env.agents import agent_specs
        from uno_env.game import rules as R

        options = []
        defaults = Rules()
        for f in fields(Rules):
            if f.name == "name":
                continue
            o = {"name": f.name, "type": f.type, "default": getattr(defaults, f.name)}
            if f.name in R._CHOICES:
                o["choices"] = list(R._CHOICES[f.name])
            if isinstance(o["default"], tuple):
                o["default"] = list(o["default"])
            options.append(o)
        return {
            "presets": {k: {kk: list(vv) if isinstance(vv, tuple) else vv for kk, vv in v.items()}
                        for k, v in PRESETS.items()},
            "options": options,
            "agents": [a for a in agent_specs() if a != "checkpoint"],
            "checkpoints": self.specs.checkpoints(),
            "view_version": views.VIEW_VERSION,
            "limits": {"max_body": self.max_body, "max_log_bytes": self.max_log_bytes,
                       "idle_timeout_s": self.store.idle_timeout, "max_games": self.store.max_games},
        }


def create_app(**options: Any) -> Any:
    """The Starlette app (options: those of :class:`Server`)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    server = Server(**options)

    def error(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status)

    async def read_body(request: Request, limit: int) -> bytes:
        length = request.headers.get("content-length")
        if length is not None and not length.isdigit():
            raise ApiError(400, f"bad Content-Length {length[:40]!r}")
        if length is not None and int(length) > limit:
            raise ApiError(413, f"request body too large: at most {limit} bytes")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise ApiError(413, f"request body too large: at most {limit} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    async def read_json(request: Request) -> dict[str, Any]:
        raw = await read_body(request, server.max_body)
        if not raw.strip():
            return {}
        try:
            body = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise ApiError(400, f"the body is not JSON: {e}") from None
        if not isinstance(body, dict):
            raise ApiError(400, f"the body must be a JSON object, got {type(body).__name__}")
        return body

    def checked_id(value: str) -> str:
        if not _ID_RE.match(value):
            raise ApiError(404, f"unknown id {value[:70]!r}")
        return value

    def api(fn: Callable) -> Callable:
        async def endpoint(request: Request) -> Response:
            try:
                return await fn(request)
            except ApiError as e:
                return error(e.status, e.message)
        return endpoint

    def locked(item: Any, fn: Callable[[], Any]) -> Any:
        with item.lock:
            return fn()

    def perspective_of(game: Game, value: Any) -> "int | None | str":
        if value is None:
            return "default"
        if game.mode == "play":
            if str(value) != str(game.human):
                raise ApiError(403, f"the page of this game sees seat {game.human} only")
            return game.human
        if value == "all":
            return None
        try:
            seat = int(value)
        except (TypeError, ValueError):
            raise ApiError(400, f"seat must be 'all' or a seat number, got {value!r}") from None
        return _int(seat, "seat", 0, len(game.specs) - 1)

    @api
    async def index(request: Request) -> Response:
        return FileResponse(os.path.join(STATIC_DIR, "index.html"), headers={
            "Content-Security-Policy": "default-src 'self'; img-src 'self' data:",
            "Cache-Control": "no-cache"})

    @api
    async def meta(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(server.meta))

    @api
    async def create_game(request: Request) -> Response:
        body = await read_json(request)
        game = await run_in_threadpool(server.create_game, body)
        view = await run_in_threadpool(locked, game, game.view)
        return JSONResponse({"id": game.id, "view": view}, status_code=201)

    @api
    async def get_game(request: Request) -> Response:
        game = server.store.get(checked_id(request.path_params["gid"]), "game")
        seat = perspective_of(game, request.query_params.get("seat"))
        return JSONResponse({"view": await run_in_threadpool(locked, game, lambda: game.view(seat))})

    @api
    async def post_action(request: Request) -> Response:
        body = await read_json(request)
        game = server.store.get(checked_id(request.path_params["gid"]), "game")
        extra = sorted(set(body) - {"action"})
        if "action" not in body or extra:
            raise ApiError(400, "the body must be {\"action\": <action name or id>}"
                           + (f"; unknown field(s) {extra}" if extra else ""))

        def run() -> dict[str, Any]:
            game.act(body["action"])
            return game.view()
        return JSONResponse({"view": await run_in_threadpool(locked, game, run)})

    @api
    async def post_step(request: Request) -> Response:
        body = await read_json(request)
        game = server.store.get(checked_id(request.path_params["gid"]), "game")
        extra = sorted(set(body) - {"seat", "steps"})
        if extra:
            raise ApiError(400, f"unknown field(s) {extra}; a step takes 'seat' and 'steps'")
        if game.mode != "watch":
            raise ApiError(409, "this game has a human seat: POST /api/games/{id}/actions plays it")
        seat = perspective_of(game, body.get("seat", "all"))
        steps = _int(body.get("steps", 1), "steps", 1, MAX_STEPS_PER_REQUEST)

        def run() -> dict[str, Any]:
            game.watch_step(seat, steps)
            return game.view()
        return JSONResponse({"view": await run_in_threadpool(locked, game, run)})

    @api
    async def get_log(request: Request) -> Response:
        game = server.store.get(checked_id(request.path_params["gid"]), "game")
        text = await run_in_threadpool(locked, game, game.log_text)
        return PlainTextResponse(text, media_type="application/x-ndjson")

    @api
    async def delete_game(request: Request) -> Response:
        server.store.remove(checked_id(request.path_params["gid"]), "game")
        return JSONResponse({"deleted": request.path_params["gid"]})

    @api
    async def create_replay(request: Request) -> Response:
        raw = await read_body(request, server.max_log_bytes)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ApiError(400, "a game log must be UTF-8 text (JSON Lines)") from None
        rep = await run_in_threadpool(server.create_replay, text)
        return JSONResponse({"id": rep.id, "count": len(rep.frames), "header": rep.header,
                             "texts": [f["text"] for f in rep.frames], "frame": rep.frames[0]},
                            status_code=201)

    @api
    async def get_frame(request: Request) -> Response:
        rep = server.store.get(checked_id(request.path_params["rid"]), "replay")
        try:
            i = int(request.path_params["index"])
        except ValueError:
            raise ApiError(400, f"frame index must be an integer, got {request.path_params['index']!r}") from None
        return JSONResponse(rep.frame(i))

    async def http_error(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 500)
        detail = getattr(exc, "detail", None) or "error"
        if status == 404:
            detail = f"no such page or endpoint: {request.method} {request.url.path}"
        elif status == 405:
            detail = f"method {request.method} is not allowed on {request.url.path}"
        return error(status, detail)

    async def server_error(request: Request, exc: Exception) -> Response:
        return error(500, f"internal error: {type(exc).__name__}: {exc}")

    routes = [
        Route("/", index),
        Route("/api/meta", meta),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games/{gid}", get_game, methods=["GET"]),
        Route("/api/games/{gid}", delete_game, methods=["DELETE"]),
        Route("/api/games/{gid}/actions", post_action, methods=["POST"]),
        Route("/api/games/{gid}/step", post_step, methods=["POST"]),
        Route("/api/games/{gid}/log", get_log),
        Route("/api/replays", create_replay, methods=["POST"]),
        Route("/api/replays/{rid}/frames/{index}", get_frame),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error, 500: server_error})
    app.state.server = server
    return app


# ---------------------------------------------------------------------------- CLI
def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="uno-serve", description="Play, watch and replay UNO in the browser.",
        epilog="Then open http://127.0.0.1:8000 (the address is printed).")
    ap.add_argument("--host", default=HOST, help=f"address to listen on (default {HOST}: this "
                                                 "machine only)")
    ap.add_argument("--port", type=int, default=PORT, help=f"port (default {PORT})")
    ap.add_argument("--log-dir", default=None, metavar="DIR",
                    help="write a JSON Lines game log of every browser game to DIR")
    ap.add_argument("--idle-timeout", type=float, default=IDLE_TIMEOUT_S, metavar="SECONDS",
                    help=f"drop games idle this long (default {IDLE_TIMEOUT_S:g})")
    ap.add_argument("--max-games", type=int, default=MAX_GAMES,
                    help=f"games and replays kept at once (default {MAX_GAMES})")
    ap.add_argument("--checkpoint-root", action="append", default=None, metavar="DIR",
                    help="directory that checkpoint:<dir> specs may load from (repeatable; "
                         "default ./checkpoints)")
    ap.add_argument("--max-body", type=int, default=MAX_BODY, metavar="BYTES",
                    help=f"largest API request body (default {MAX_BODY})")
    ap.add_argument("--max-log-bytes", type=int, default=MAX_LOG_BYTES, metavar="BYTES",
                    help=f"largest game log to replay (default {MAX_LOG_BYTES})")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if not 0 <= args.port <= 65535:
        ap.error(f"--port must be in 0..65535, got {args.port}")
    if args.idle_timeout <= 0 or args.max_games < 1 or args.max_body < 1 or args.max_log_bytes < 1:
        ap.error("--idle-timeout, --max-games, --max-body and --max-log-bytes must be positive")
    if args.log_dir is not None:
        try:
            os.makedirs(args.log_dir, exist_ok=True)
        except OSError as e:
            ap.error(f"cannot create the log directory {args.log_dir!r}: {e.strerror or e}")
    try:
        import uvicorn
        app = create_app(log_dir=args.log_dir, idle_timeout=args.idle_timeout,
                         max_games=args.max_games,
                         checkpoint_roots=args.checkpoint_root or ["checkpoints"],
                         max_body=args.max_body, max_log_bytes=args.max_log_bytes)
    except ImportError as e:
        ap.error(f"the web server needs the web extra: pip install \"uno_env[web]\" ({e})")
    print(f"uno-serve: open http://{args.host}:{args.port} (Ctrl-C stops)", flush=True)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    except KeyboardInterrupt:
        pass
    finally:
        app.state.server.store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
