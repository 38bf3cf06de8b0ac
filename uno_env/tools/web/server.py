"""``uno-serve``: play, watch and replay UNO in the browser.

    uno-serve                                   # http://127.0.0.1:8000
    uno-serve --port 8080 --log-dir runs/web    # and a JSON Lines log of every browser game
    python -m uno_env.tools.web                 # the same

A small ASGI app (Starlette, served by uvicorn; ``pip install "uno_env[web]"``) serving one
page of plain HTML, CSS and JavaScript shipped in the package (``static/``: no build step,
no CDN) and the JSON API of :mod:`uno_env.tools.web.routes`. The server keeps every game;
the page of a game it plays receives only what its human seat may know (:mod:`uno_env.tools.web.views`:
the seat's observation, public facts and public events), never another seat's hidden card
and never who is asked in a window.

The server's modules, each named for what it holds:

=====================================  ==========================================================
:mod:`~uno_env.tools.web.routes`       the endpoints and the JSON API (the spec of each answer)
:mod:`~uno_env.tools.web.service`      what the endpoints share (:class:`Server`): a new game's
                                       decisions (rules, seats, seed, deal), a new replay
:mod:`~uno_env.tools.web.limits`       what one client may take: bodies, games kept, CPU per
                                       request, requests at once
:mod:`~uno_env.tools.web.same_site`    the cross-site checks (``Origin``, ``Host``,
                                       ``Content-Type``)
:mod:`~uno_env.tools.web.app`          the ASGI app (:func:`create_app`)
:mod:`~uno_env.tools.web.cli`          ``uno-serve``'s command line (:func:`main`)
=====================================  ==========================================================

Their names stay importable from here.
"""

from __future__ import annotations

import sys

from uno_env.tools.web.app import create_app  # noqa: F401
from uno_env.tools.web.cli import HOST, PORT, build_parser, main  # noqa: F401
from uno_env.tools.web.games import Budget, Game, Store, new_env  # noqa: F401
from uno_env.tools.web.limits import (IDLE_TIMEOUT_S, MAX_BODY, MAX_CARD_CHARS,  # noqa: F401
                                      MAX_DECISIONS_PER_REQUEST, MAX_GAMES, MAX_INFLIGHT_PER_CLIENT,
                                      MAX_LOG_BYTES, MAX_MEMORY, MAX_PER_CLIENT, MAX_STEPS_PER_REQUEST,
                                      MAX_UPLOADS, MAX_WATCH_STEPS, REQUEST_SECONDS, Inflight)
from uno_env.tools.web.replays import Replay  # noqa: F401
from uno_env.tools.web.same_site import (JSON_TYPES, LOG_TYPES, LOOPBACK_NAMES, allowed_hosts,  # noqa: F401
                                         check_origin, check_type, host_name, is_loopback)
from uno_env.tools.web.service import Server  # noqa: F401
from uno_env.tools.web.validate import (HUMAN, MAX_DECK, ApiError, Specs, check_game_rules,  # noqa: F401
                                        check_int, parse_action, parse_json, parse_rules, show)

if __name__ == "__main__":
    sys.exit(main())
