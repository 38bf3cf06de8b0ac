"""The web server's ASGI app (:mod:`uno_env.tools.web.server`): the routes of
:mod:`uno_env.tools.web.routes` behind the same-site checks of :mod:`uno_env.tools.web.same_site`."""

from __future__ import annotations

from typing import Any


def create_app(**options: Any) -> Any:
    """The Starlette app (options: those of :class:`uno_env.tools.web.service.Server`)."""
    from starlette.applications import Starlette
    from starlette.datastructures import Headers
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware

    from uno_env.tools.web.routes import error, http_error, make_routes, server_error
    from uno_env.tools.web.same_site import check_origin
    from uno_env.tools.web.service import Server
    from uno_env.tools.web.validate import ApiError

    server = Server(**options)

    class SameSite:
        """Every HTTP request (page, files, API) first passes :func:`uno_env.tools.web.same_site.check_origin`."""

        def __init__(self, app: Any):
            self.app = app

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                try:
                    check_origin(server.hosts, Headers(scope=scope))
                except ApiError as e:
                    await error(e.status, e.message)(scope, receive, send)
                    return
            await self.app(scope, receive, send)

    app = Starlette(routes=make_routes(server), middleware=[Middleware(SameSite)],
                    exception_handlers={HTTPException: http_error, 500: server_error})
    app.state.server = server
    return app
