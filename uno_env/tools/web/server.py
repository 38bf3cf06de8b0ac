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
* A game or replay untouched for ``--idle-timeout`` seconds is dropped (its log ends
  ``aborted``); at most ``--max-games`` are kept (then 503).
* Request bodies are limited: ``--max-body`` bytes for the API, ``--max-log-bytes`` for an
  uploaded log (413).
* Every browser game is recorded (:class:`uno_env.tools.gamelog.GameRecorder`): in
  ``--log-dir`` as ``web-<date>-<id>.jsonl`` when given, else in memory; once the game is
  over its log is served (``/api/games/{id}/log``) so that the page can replay it, all
  hands open.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import secrets
import sys
from typing import Any, Callable, Sequence

from uno_env._files import check_directory
from uno_env.game import cards as C
from uno_env.game.rules import PRESETS, Rules
from uno_env.tools.gamelog_read import read_log
from uno_env.tools.web import views
# the modules of the server; their names stay importable from here
from uno_env.tools.web.games import (IDLE_TIMEOUT_S, MAX_GAMES, MAX_WATCH_STEPS, Game,  # noqa: F401
                                     Store, new_env)
from uno_env.tools.web.replays import Replay
from uno_env.tools.web.validate import (HUMAN, MAX_DECK, ApiError, Specs, check_int,  # noqa: F401
                                        parse_action, parse_rules)

HOST, PORT = "127.0.0.1", 8000
MAX_BODY = 64 * 1024
MAX_LOG_BYTES = 32 * 1024 * 1024
MAX_STEPS_PER_REQUEST = 100  # visible moves per watch step request
# the package's static/ folder, beside views.py
STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(views.__file__)), "static")
_GAME_KEYS = {"mode", "rules", "options", "num_players", "opponents", "agents", "seat", "seed",
              "deck", "dealer"}
_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


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
            n = check_int(n, "num_players", 2, 10)
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
                raise ApiError(400, f"agents must be a list of 2..10 agent specs, got {agents!r}")
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
        return check_int(seat, "seat", 0, len(game.specs) - 1)

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
        steps = check_int(body.get("steps", 1), "steps", 1, MAX_STEPS_PER_REQUEST)

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
    try:  # folders: a file there is a one-line error, before the server starts
        if args.log_dir is not None:
            check_directory(args.log_dir, "--log-dir", create=True)
        for root in args.checkpoint_root or []:  # the default ./checkpoints may be missing
            check_directory(root, "--checkpoint-root", must_exist=True)
    except ValueError as e:
        print(f"{ap.prog}: error: {e}", file=sys.stderr)
        return 2
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
