"""``uno-serve``: play, watch and replay UNO in the browser.

    uno-serve                                   # http://127.0.0.1:8000
    uno-serve --port 8080 --log-dir runs/web    # and a JSON Lines log of every browser game
    python -m uno_env.tools.web                 # the same

A small ASGI app (Starlette, served by uvicorn; ``pip install "uno_env[web]"``) serving one
page of plain HTML, CSS and JavaScript shipped in the package (``static/``: no build step,
no CDN) and the JSON API below. The server keeps every game; the page of a game it plays
receives only what its human seat may know (:mod:`uno_env.tools.web.views`: the seat's
observation, public facts and public events), never another seat's hidden card and never
who is asked in a window.

JSON API (request and answer bodies are JSON objects; every error is a 4xx answer
``{"error": "<what is wrong>"}`` and leaves the game unchanged):

==========================================  ==============================================
``GET  /api/meta``                          presets, rule options, agent specs, checkpoints,
                                            the server's limits
``POST /api/games``                         a new game: ``{"rules", "options", "num_players",
                                            "opponents", "seat", "seed", "deck", "dealer"}``
                                            (all optional) -> ``{"id", "token", "view",
                                            "progress"}`` (201); a watched game: ``{"mode":
                                            "watch", "agents": [...], "seat": "all" or k}``
``GET  /api/games/{id}``                    ``{"view"}`` (watch: ``?seat=all`` or a seat)
``POST /api/games/{id}/actions``            ``{"action": <name or id>}`` -> ``{"view",
                                            "progress"}``
``POST /api/games/{id}/step``               watch: ``{"seat": "all" or k, "steps": 1}`` ->
                                            ``{"view", "progress"}`` (up to the next visible
                                            move); a played game whose others are still to
                                            move (``progress.waiting``): ``{}``, plays on
``GET  /api/games/{id}/log``                the JSON Lines log, once the game is over
``DELETE /api/games/{id}``                  drop the game (header ``X-Uno-Token``: its token)
``POST /api/replays``                       body: a game log (JSON Lines) -> ``{"id",
                                            "token", "count", "header", "texts", "frame"}``
                                            (201)
``GET  /api/replays/{id}/frames/{i}``       ``{"index", "count", "frame"}``
``DELETE /api/replays/{id}``                drop the replay (header ``X-Uno-Token``)
==========================================  ==============================================

``progress`` (:class:`uno_env.tools.web.games.Budget`): ``decisions`` played by the
request, ``moves`` (visible moves of a watch step), ``stopped`` (null, ``"deadline"`` or
``"decisions"``: the request's budget ran out), ``budget`` and ``waiting``.

Decisions:

* ``rules`` is a preset name or an object of options (it may name a ``preset``); ``options``
  overrides single options. The server never reads a rules file named by a request.
  Defaults: ``classic``, ``opponents`` ``heuristic`` for every other seat (``num_players``
  seats, default 2), ``seat`` 0, a random ``seed`` (in the view of a watched game, and of a
  played one once it is over: the seed deals every hand and the DRAW pile, so a seated player
  does not see it during the game).
* The deal and the game follow the seed exactly as ``env.reset(seed=seed)`` and the
  terminal game (:func:`uno_env.tools.gamelog.reset_env`); the agent of seat ``i`` is
  seeded ``seed + 1 + i``. ``deck`` (card names, top first; exactly the ruleset's deck) and
  ``dealer`` stack the deal (for lessons and tests).
* ``checkpoint:<dir>`` specs load only from under ``--checkpoint-root`` (default
  ``./checkpoints``), so that a request cannot make the server open any other file.
* The others' moves are played by the server up to the human's next decision and sent as
  events, a table after each stretch that ends where every player sees it end (the human's
  decision, a regular turn with no penalty pending, the end:
  :meth:`uno_env.tools.web.games.Game.public_boundary`); the page shows them one by one.
* Every browser game is recorded: in ``--log-dir`` as ``web-<date>-<id>.jsonl`` when given,
  else written again from its deal and actions when asked for; once the game is over its log
  is served (``/api/games/{id}/log``, streamed) so that the page can replay it, all hands open.

**Limits** (one client must not exhaust the server; every number is an option of
:class:`Server` and most are ``uno-serve`` flags; ``GET /api/meta`` lists them):

=============================  ===============================================================
request bodies                 ``--max-body`` (64 KiB) for the API, ``--max-log-bytes`` (8 MiB)
                               for an uploaded log (413); the bounds of
                               :mod:`uno_env.tools.web.validate` on what a body holds
games and replays kept         ``--max-games`` (64) in all, ``--max-per-client`` (16) per
                               client address, ``--max-memory`` (256 MiB, estimated) in all;
                               idle ones dropped after ``--idle-timeout`` (1,800 s); when a
                               cap is reached an item idle for 60 s makes room (the client's
                               own, or the biggest holder's), else 429 / 503
                               (:class:`uno_env.tools.web.games.Store`)
one request's CPU              ``--request-seconds`` (2 s) or 2,000 decisions
                               (:class:`uno_env.tools.web.games.Budget`); a watch step asks
                               for at most 100 visible moves
requests at once               :data:`MAX_INFLIGHT_PER_CLIENT` (4) per client address (429);
                               :data:`MAX_UPLOADS` (2) logs read at once (503)
a replay                       200,000 actions; stored compactly
                               (:mod:`uno_env.tools.web.replays`)
=============================  ===============================================================

**Cross-site requests.** A page on another site must not drive the server through a
visitor's browser: a request whose ``Origin`` is not the server's own (``http://`` plus its
``Host``) is refused (403), and so is one whose ``Host`` does not name the server (DNS
rebinding: for a loopback address ``127.0.0.1``, ``localhost`` or ``::1``; for another
address that address, or the names given by ``--allow-host``; any name when listening on
every address); a POST must say ``Content-Type: application/json`` (a log:
``application/x-ndjson`` or ``application/json``), which a cross-site form cannot send
without the browser asking first (415 otherwise). ``uno-serve --host`` beyond loopback
prints a warning: anyone who reaches the port can play, watch and upload. A client is its
address as the connection shows it (uvicorn's proxy headers are not trusted: behind a
reverse proxy every client is the proxy).
"""

from __future__ import annotations

import argparse
import datetime
import ipaddress
import os
import re
import secrets
import sys
import threading
import traceback
from collections import Counter
from typing import Any, Callable, Sequence
from urllib.parse import urlsplit

from uno_env._files import check_directory
from uno_env.game import cards as C
from uno_env.game.rules import PRESETS, Rules
from uno_env.tools.gamelog_read import read_log
from uno_env.tools.web import views
# the modules of the server; their names stay importable from here
from uno_env.tools.web.games import (IDLE_TIMEOUT_S, MAX_DECISIONS_PER_REQUEST, MAX_GAMES,  # noqa: F401
                                     MAX_MEMORY, MAX_PER_CLIENT, MAX_WATCH_STEPS, REQUEST_SECONDS,
                                     Budget, Game, Store, new_env)
from uno_env.tools.web.replays import Replay
from uno_env.tools.web.validate import (HUMAN, MAX_DECK, ApiError, Specs, check_game_rules,  # noqa: F401
                                        check_int, parse_action, parse_json, parse_rules, show)

HOST, PORT = "127.0.0.1", 8000
MAX_BODY = 64 * 1024
MAX_LOG_BYTES = 8 * 2 ** 20  # an uploaded log (45,000 actions of 10 players and huge hands: 5 MB)
MAX_STEPS_PER_REQUEST = 100  # visible moves per watch step request
MAX_CARD_CHARS = 40  # characters of a card name in a stacked deck (the longest: 15)
MAX_INFLIGHT_PER_CLIENT = 4  # API requests of one client address running at once
MAX_UPLOADS = 2  # logs read and replayed at once (each holds its text and records meanwhile)
TOKEN_HEADER = "x-uno-token"
JSON_TYPES = ("application/json",)
LOG_TYPES = ("application/x-ndjson", "application/jsonl", "application/json")
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
# the package's static/ folder, beside views.py
STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(views.__file__)), "static")
_GAME_KEYS = {"mode", "rules", "options", "num_players", "opponents", "agents", "seat", "seed",
              "deck", "dealer"}
_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_INDEX_RE = re.compile(r"^[0-9]{1,9}$")


def is_loopback(host: str) -> bool:
    """Whether listening on ``host`` keeps the server to this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str, extra: Sequence[str] = ()) -> list[str] | None:
    """The names a request's ``Host`` may give for a server listening on ``host`` (None: any,
    for a server on every address without ``--allow-host``)."""
    names = [h.lower() for h in extra]
    if is_loopback(host):
        return sorted(set(names) | set(LOOPBACK_NAMES))
    if host in ("0.0.0.0", "::", ""):
        return sorted(set(names) | set(LOOPBACK_NAMES)) if names else None
    return sorted(set(names) | set(LOOPBACK_NAMES) | {host.strip("[]").lower()})


def host_name(host_header: str) -> str:
    """The name in a ``Host`` header, without its port (``[::1]:8000`` -> ``::1``)."""
    h = host_header.strip().lower()
    if h.startswith("["):
        return h[1:h.find("]")] if "]" in h else h
    return h.rsplit(":", 1)[0] if h.count(":") == 1 else h


# ---------------------------------------------------------------------------- the app
class Server:
    """What the endpoints share: options, the store, agent specs."""

    def __init__(self, log_dir: str | None = None, idle_timeout: float = IDLE_TIMEOUT_S,
                 max_games: int = MAX_GAMES, checkpoint_roots: Sequence[str] = ("checkpoints",),
                 max_body: int = MAX_BODY, max_log_bytes: int = MAX_LOG_BYTES,
                 max_per_client: int = MAX_PER_CLIENT, max_memory: int = MAX_MEMORY,
                 request_seconds: float = REQUEST_SECONDS,
                 max_decisions: int = MAX_DECISIONS_PER_REQUEST,
                 hosts: Sequence[str] | None = None, clock: Callable[[], float] | None = None,
                 agents: Sequence[str] = ()):
        self.log_dir = log_dir
        self.store = Store(idle_timeout, max_games, max_per_client, max_memory)
        self.specs = Specs(checkpoint_roots, operator_specs=agents)
        self.max_body, self.max_log_bytes = max_body, max_log_bytes
        self.request_seconds, self.max_decisions = request_seconds, max_decisions
        self.hosts = None if hosts is None else {h.lower() for h in hosts}
        self.clock = clock  # of the request budget (tests); default time.monotonic
        self.inflight: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.uploads = threading.BoundedSemaphore(MAX_UPLOADS)

    def budget(self) -> Budget:
        if self.clock is None:
            return Budget(self.request_seconds, self.max_decisions)
        return Budget(self.request_seconds, self.max_decisions, self.clock)

    def create_game(self, body: dict[str, Any], owner: str = "") -> tuple[Game, dict[str, Any]]:
        """A new game kept for ``owner``, the agents played up to the human's first decision
        (within a request's budget), and its first view."""
        unknown = sorted(set(body) - _GAME_KEYS)
        if unknown:
            raise ApiError(400, f"unknown field(s) {show(unknown)}; known: {sorted(_GAME_KEYS)}")
        mode = body.get("mode", "play")
        if mode not in ("play", "watch"):
            raise ApiError(400, f"mode must be 'play' or 'watch', got {show(mode)}")
        rules = check_game_rules(parse_rules(body.get("rules"), body.get("options")))
        n = body.get("num_players")
        if n is not None:
            n = check_int(n, "num_players", 2, 10)
        if mode == "play":
            if "agents" in body:
                raise ApiError(400, "'agents' names every seat of a watched game; a game you play "
                                    "takes 'opponents'")
            opponents = body.get("opponents")
            if opponents is None:
                opponents = ["heuristic"] * ((n or 2) - 1)
            if not isinstance(opponents, list) or not 1 <= len(opponents) <= 9:
                raise ApiError(400, f"opponents must be a list of 1..9 agent specs, got {show(opponents)}")
            if n is not None and n != len(opponents) + 1:
                raise ApiError(400, f"num_players {n} needs {n - 1} opponents, got {len(opponents)}")
            n = len(opponents) + 1
            seat = check_int(body.get("seat", 0), "seat", 0, n - 1)
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
                raise ApiError(400, f"agents must be a list of 2..10 agent specs, got {show(agents)}")
            if n is not None and n != len(agents):
                raise ApiError(400, f"num_players {n} does not match {len(agents)} agents")
            n = len(agents)
            specs = [self.specs.check(a, f"agents[{i}]") for i, a in enumerate(agents)]
            human = None
            watch = body.get("seat", "all")
            perspective = None if watch == "all" else check_int(
                watch, "seat (of a watched game: 'all' or a seat)", 0, n - 1)
        seed = body.get("seed")
        seed = secrets.randbits(31) if seed is None else check_int(seed, "seed", 0, 2**63 - 1)
        deck, dealer = body.get("deck"), body.get("dealer")
        if dealer is not None:
            dealer = check_int(dealer, "dealer", 0, n - 1)
        if deck is not None and (not isinstance(deck, list)
                                 or not all(isinstance(c, str) and len(c) <= MAX_CARD_CHARS for c in deck)):
            raise ApiError(400, f"deck must be a list of card names (at most {MAX_CARD_CHARS} characters "
                                "each), top first")
        self.store.check_room(owner)
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
            game = Game(gid, mode, env, specs, agents_by_seat, human, seed, log, deck, dealer, perspective,
                        agent_bytes=sum(self.specs.nbytes(sp) for sp in specs))
        except OSError as e:
            raise ApiError(500, f"cannot write the game log {self.specs.relative(str(log))}: "
                                f"{e.strerror or type(e).__name__}") from None
        budget = self.budget()
        with game.lock:  # in the store from here, busy until its first view is built
            try:
                game.token = self.store.add(game, owner)
            except ApiError:
                game.close()
                if log is not None:
                    os.unlink(log)  # the log of a game never played, written by this call
                raise
            game.advance(budget)
            view = game.view()
        return game, {"view": view, "progress": budget.report(waiting=game.waiting())}

    def create_replay(self, text: str, owner: str = "") -> tuple[Replay, dict[str, Any]]:
        try:
            log = read_log(text.splitlines())
        except ValueError as e:
            raise ApiError(400, f"not a game log: {e}") from None
        self.store.check_room(owner)
        rep = Replay(self.store.new_id(), log)
        del log, text
        texts = rep.texts()
        with rep.lock:
            rep.token = self.store.add(rep, owner)
            first = rep.frame(0)["frame"]
        return rep, {"id": rep.id, "token": rep.token, "count": rep.count, "header": rep.header,
                     "texts": texts, "frame": first}

    def limits(self) -> dict[str, Any]:
        st = self.store
        return {"max_body": self.max_body, "max_log_bytes": self.max_log_bytes,
                "idle_timeout_s": st.idle_timeout, "max_games": st.max_games,
                "max_per_client": st.max_per_client, "max_memory": st.max_bytes,
                "evict_idle_s": st.evict_idle, "request_seconds": self.request_seconds,
                "max_decisions_per_request": self.max_decisions,
                "max_steps_per_request": MAX_STEPS_PER_REQUEST,
                "max_inflight_per_client": MAX_INFLIGHT_PER_CLIENT, "max_uploads": MAX_UPLOADS}

    def meta(self) -> dict[str, Any]:
        from dataclasses import fields

        from uno_env.agents import agent_specs, pretrained
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
            "agents": [a for a in agent_specs() if a not in ("checkpoint", "pretrained", "module")]
                      + [p.spec for p in pretrained()] + self.specs.operator_specs,
            "checkpoints": self.specs.checkpoints(),
            "view_version": views.VIEW_VERSION,
            "limits": self.limits(),
        }

    # -------------------------------------------------------------- requests
    def check_origin(self, headers: Any) -> None:
        """Refuse a request from another site (``Origin``) or for another name (``Host``)."""
        host = headers.get("host", "")
        if self.hosts is not None and host_name(host) not in self.hosts:
            raise ApiError(403, f"the Host {show(host)} does not name this server "
                                f"({', '.join(sorted(self.hosts))}; see --allow-host)")
        origin = headers.get("origin")
        if origin is not None:
            parts = urlsplit(origin) if origin != "null" else None
            if parts is None or parts.scheme not in ("http", "https") or parts.netloc.lower() != host.lower():
                raise ApiError(403, f"a request from another site (Origin {show(origin)}) is refused: "
                                    f"this server answers its own page only")

    @staticmethod
    def check_type(method: str, headers: Any, body_types: Sequence[str]) -> None:
        """Refuse a POST whose ``Content-Type`` is not one of ``body_types``."""
        if method == "POST":
            kind = headers.get("content-type", "").split(";", 1)[0].strip().lower()
            if kind not in body_types:
                raise ApiError(415, f"a POST here must say Content-Type: {' or '.join(body_types)}, "
                                    f"got {show(kind or None)}")

    def enter(self, client: str) -> None:
        with self.lock:
            if self.inflight[client] >= MAX_INFLIGHT_PER_CLIENT:
                raise ApiError(429, f"this client has {MAX_INFLIGHT_PER_CLIENT} requests running "
                                    "already: wait for one to finish")
            self.inflight[client] += 1

    def leave(self, client: str) -> None:
        with self.lock:
            self.inflight[client] -= 1
            if self.inflight[client] <= 0:
                del self.inflight[client]


def create_app(**options: Any) -> Any:
    """The Starlette app (options: those of :class:`Server`)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.datastructures import Headers
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    server = Server(**options)

    def error(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status)

    def client_of(request: Request) -> str:
        return request.client.host if request.client is not None else "unknown"

    async def read_body(request: Request, limit: int) -> bytes:
        length = request.headers.get("content-length")
        if length is not None and not (length.isascii() and length.isdigit() and len(length) <= 15):
            raise ApiError(400, f"bad Content-Length {show(length)}")
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
        return parse_json(await read_body(request, server.max_body))

    def checked_id(value: str) -> str:
        if not _ID_RE.match(value):
            raise ApiError(404, f"unknown id {show(value)}")
        return value

    def api(fn: Callable, body_types: Sequence[str] | None = JSON_TYPES) -> Callable:
        async def endpoint(request: Request) -> Response:
            client = client_of(request)
            try:
                server.check_type(request.method, request.headers, body_types)
                server.enter(client)
            except ApiError as e:
                return error(e.status, e.message)
            try:
                return await fn(request)
            except ApiError as e:
                return error(e.status, e.message)
            finally:
                server.leave(client)
        return endpoint

    class SameSite:
        """Every HTTP request (page, files, API) first passes :meth:`Server.check_origin`."""

        def __init__(self, app: Any):
            self.app = app

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                try:
                    server.check_origin(Headers(scope=scope))
                except ApiError as e:
                    await error(e.status, e.message)(scope, receive, send)
                    return
            await self.app(scope, receive, send)

    def locked(item: Any, fn: Callable[[], Any]) -> Any:
        with item.lock:
            if item.closed:
                raise ApiError(404, f"this {item.kind} was dropped (idle, or to make room)")
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
        if isinstance(value, str) and not _INDEX_RE.match(value):
            raise ApiError(400, f"seat must be 'all' or a seat number, got {show(value)}")
        try:
            seat = int(value)
        except (TypeError, ValueError):
            raise ApiError(400, f"seat must be 'all' or a seat number, got {show(value)}") from None
        return check_int(seat, "seat", 0, len(game.specs) - 1)

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
        game, out = await run_in_threadpool(server.create_game, body, client_of(request))
        return JSONResponse({"id": game.id, "token": game.token, **out}, status_code=201)

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
                           + (f"; unknown field(s) {show(extra)}" if extra else ""))
        budget = server.budget()

        def run() -> dict[str, Any]:
            game.act(body["action"], budget)
            return {"view": game.view(), "progress": budget.report(waiting=game.waiting())}
        return JSONResponse(await run_in_threadpool(locked, game, run))

    @api
    async def post_step(request: Request) -> Response:
        body = await read_json(request)
        game = server.store.get(checked_id(request.path_params["gid"]), "game")
        budget = server.budget()
        if game.mode == "play":
            if body:
                raise ApiError(400, f"a played game's step takes an empty body, got {show(sorted(body))}")

            def play_on() -> dict[str, Any]:
                if not game.waiting():
                    raise ApiError(409, "this game has a human seat and it is its decision (or the game "
                                        "is over): POST /api/games/{id}/actions plays it")
                game.advance(budget)
                return {"view": game.view(), "progress": budget.report(waiting=game.waiting())}
            return JSONResponse(await run_in_threadpool(locked, game, play_on))
        extra = sorted(set(body) - {"seat", "steps"})
        if extra:
            raise ApiError(400, f"unknown field(s) {show(extra)}; a step takes 'seat' and 'steps'")
        if body.get("seat", "all") is None:
            raise ApiError(400, "seat must be 'all' or a seat number, got None")
        seat = perspective_of(game, body.get("seat", "all"))
        steps = check_int(body.get("steps", 1), "steps", 1, MAX_STEPS_PER_REQUEST)

        def run() -> dict[str, Any]:
            game.watch_step(seat, steps, budget)
            return {"view": game.view(), "progress": budget.report(waiting=False)}
        return JSONResponse(await run_in_threadpool(locked, game, run))

    @api
    async def get_log(request: Request) -> Response:
        game = server.store.get(checked_id(request.path_params["gid"]), "game")
        chunks = await run_in_threadpool(locked, game, game.log_chunks)
        return StreamingResponse(chunks, media_type="application/x-ndjson")

    async def delete(request: Request, key: str, kind: str) -> Response:
        gid = checked_id(request.path_params[key])
        await run_in_threadpool(server.store.remove, gid, kind, request.headers.get(TOKEN_HEADER))
        return JSONResponse({"deleted": gid})

    @api
    async def delete_game(request: Request) -> Response:
        return await delete(request, "gid", "game")

    @api
    async def delete_replay(request: Request) -> Response:
        return await delete(request, "rid", "replay")

    async def create_replay(request: Request) -> Response:
        if not server.uploads.acquire(blocking=False):
            raise ApiError(503, f"{MAX_UPLOADS} logs are being read already: try again in a moment")
        try:
            raw = await read_body(request, server.max_log_bytes)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ApiError(400, "a game log must be UTF-8 text (JSON Lines)") from None
            del raw
            _, out = await run_in_threadpool(server.create_replay, text, client_of(request))
        finally:
            server.uploads.release()
        return JSONResponse(out, status_code=201)

    @api
    async def get_frame(request: Request) -> Response:
        rep = server.store.get(checked_id(request.path_params["rid"]), "replay")
        index = request.path_params["index"]
        if not _INDEX_RE.match(index):
            raise ApiError(400, f"frame index must be an integer in 0..{rep.count - 1}, got {show(index)}")
        return JSONResponse(await run_in_threadpool(locked, rep, lambda: rep.frame(int(index))))

    async def http_error(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 500)
        detail = getattr(exc, "detail", None) or "error"
        if status == 404:
            detail = f"no such page or endpoint: {request.method} {show(request.url.path)}"
        elif status == 405:
            detail = f"method {request.method} is not allowed on {show(request.url.path)}"
        return error(status, detail)

    async def server_error(request: Request, exc: Exception) -> Response:
        traceback.print_exception(exc, file=sys.stderr)
        return error(500, f"internal error ({type(exc).__name__}); the server's log has the details")

    routes = [
        Route("/", index),
        Route("/api/meta", meta),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games/{gid}", get_game, methods=["GET"]),
        Route("/api/games/{gid}", delete_game, methods=["DELETE"]),
        Route("/api/games/{gid}/actions", post_action, methods=["POST"]),
        Route("/api/games/{gid}/step", post_step, methods=["POST"]),
        Route("/api/games/{gid}/log", get_log),
        Route("/api/replays", api(create_replay, LOG_TYPES), methods=["POST"]),
        Route("/api/replays/{rid}", delete_replay, methods=["DELETE"]),
        Route("/api/replays/{rid}/frames/{index}", get_frame),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(SameSite)],
                    exception_handlers={HTTPException: http_error, 500: server_error})
    app.state.server = server
    return app


# ---------------------------------------------------------------------------- CLI
def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="uno-serve", description="Play, watch and replay UNO in the browser.",
        epilog="Then open http://127.0.0.1:8000 (the address is printed).")
    ap.add_argument("--host", default=HOST, help=f"address to listen on (default {HOST}: this "
                                                 "machine only; another one warns)")
    ap.add_argument("--port", type=int, default=PORT, help=f"port (default {PORT})")
    ap.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                    help="a name the server is reached by beyond its address (repeatable): "
                         "requests naming another Host are refused")
    ap.add_argument("--log-dir", default=None, metavar="DIR",
                    help="write a JSON Lines game log of every browser game to DIR")
    ap.add_argument("--idle-timeout", type=float, default=IDLE_TIMEOUT_S, metavar="SECONDS",
                    help=f"drop games idle this long (default {IDLE_TIMEOUT_S:g})")
    ap.add_argument("--max-games", type=int, default=MAX_GAMES,
                    help=f"games and replays kept at once (default {MAX_GAMES})")
    ap.add_argument("--max-per-client", type=int, default=MAX_PER_CLIENT,
                    help=f"games and replays kept at once per client address (default {MAX_PER_CLIENT})")
    ap.add_argument("--max-memory", type=int, default=MAX_MEMORY // 2 ** 20, metavar="MIB",
                    help=f"memory (estimated) the games and replays may hold (default "
                         f"{MAX_MEMORY // 2 ** 20} MiB)")
    ap.add_argument("--request-seconds", type=float, default=REQUEST_SECONDS, metavar="SECONDS",
                    help=f"time one request may spend playing agents' decisions (default "
                         f"{REQUEST_SECONDS:g})")
    ap.add_argument("--checkpoint-root", action="append", default=None, metavar="DIR",
                    help="directory that checkpoint:<dir> specs may load from (repeatable; "
                         "default ./checkpoints)")
    ap.add_argument("--agent", action="append", default=[], metavar="SPEC",
                    help="an agent the page offers beyond the bots and checkpoints (repeatable), "
                         "e.g. module:my_bots.uno:MyBot, the server's own code: a client cannot name "
                         "a module: spec itself")
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
    positive = ("idle_timeout", "max_games", "max_per_client", "max_memory", "request_seconds",
                "max_body", "max_log_bytes")
    if any(not getattr(args, k) > 0 for k in positive):
        ap.error(", ".join("--" + k.replace("_", "-") for k in positive) + " must be positive")
    try:  # folders: a file there is a one-line error, before the server starts
        if args.log_dir is not None:
            check_directory(args.log_dir, "--log-dir", create=True)
        for root in args.checkpoint_root or []:  # the default ./checkpoints may be missing
            check_directory(root, "--checkpoint-root", must_exist=True)
        from uno_env.agents import parse_spec

        for spec in args.agent:
            parse_spec(spec)  # an unknown kind: a one-line error now
    except ValueError as e:
        print(f"{ap.prog}: error: {e}", file=sys.stderr)
        return 2
    try:
        import uvicorn
        app = create_app(log_dir=args.log_dir, idle_timeout=args.idle_timeout,
                         max_games=args.max_games, max_per_client=args.max_per_client,
                         max_memory=args.max_memory * 2 ** 20, request_seconds=args.request_seconds,
                         checkpoint_roots=args.checkpoint_root or ["checkpoints"],
                         max_body=args.max_body, max_log_bytes=args.max_log_bytes,
                         hosts=allowed_hosts(args.host, args.allow_host), agents=args.agent)
    except ImportError as e:
        ap.error(f"the web server needs the web extra: pip install \"uno_env[web]\" ({e})")
    if not is_loopback(args.host):
        print(f"uno-serve: warning: --host {args.host} listens beyond this machine: anyone who reaches "
              f"port {args.port} can play, watch and upload logs here (limits: {args.max_games} games "
              f"and replays, {args.max_per_client} per client, {args.max_memory} MiB); the page has no "
              "login and no TLS", file=sys.stderr, flush=True)
    print(f"uno-serve: open http://{args.host}:{args.port} (Ctrl-C stops)", flush=True)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning", proxy_headers=False)
    except KeyboardInterrupt:
        pass
    finally:
        app.state.server.store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
