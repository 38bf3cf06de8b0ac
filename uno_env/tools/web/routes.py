"""The web server's endpoints (:mod:`uno_env.tools.web.server`): the page, its files and the
JSON API.

JSON API below. The server keeps every game; the page of a game it plays
receives only what its human seat may know (:mod:`uno_env.tools.web.views`: the seat's
observation, public facts and public events), never another seat's hidden card and never
who is asked in a window.

JSON API (request and answer bodies are JSON objects; every error is a 4xx answer
``{"error": "<what is wrong>"}`` and leaves the game unchanged):

==========================================  ==============================================
``GET  /api/meta``                          presets, rule options, agent specs, checkpoints
                                            and what each card (of a checkpoint or a
                                            shipped agent) says it was trained for, or why
                                            it cannot be read (``checkpoint_cards``), the
                                            server's limits
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
request (in a played game the others' turns, which every player sees, not the window answers
in between: their number depends on hidden cards), ``moves`` (visible moves of a watch step),
``stopped`` (null, ``"deadline"`` or ``"decisions"``: the request's budget ran out),
``budget`` and ``waiting``. No field of a played game's answer depends on a card its seat
cannot see.
"""

from __future__ import annotations

import os
import re
import sys
import traceback
from typing import Any, Callable, Sequence

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from uno_env.tools.web import views
from uno_env.tools.web.games import Game
from uno_env.tools.web.limits import MAX_STEPS_PER_REQUEST, MAX_UPLOADS
from uno_env.tools.web.same_site import JSON_TYPES, LOG_TYPES, check_type
from uno_env.tools.web.service import Server
from uno_env.tools.web.validate import ApiError, check_int, parse_json, show

TOKEN_HEADER = "x-uno-token"
# the package's static/ folder, beside views.py
STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(views.__file__)), "static")
_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_INDEX_RE = re.compile(r"^[0-9]{1,9}$")


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


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


def make_routes(server: Server) -> list[Any]:
    """The routes of the app, whose endpoints share ``server``."""

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
                check_type(request.method, request.headers, body_types)
                server.inflight.enter(client)
            except ApiError as e:
                return error(e.status, e.message)
            try:
                return await fn(request)
            except ApiError as e:
                return error(e.status, e.message)
            finally:
                server.inflight.leave(client)
        return endpoint

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

    return [
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
