"""The web server's limits (:mod:`uno_env.tools.web.server`): one client must not exhaust it.

Every number is an option of :class:`uno_env.tools.web.service.Server` and most are
``uno-serve`` flags; ``GET /api/meta`` lists them:

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
one request's CPU              ``--request-seconds`` (2 s) or 2,000 decisions (a played
                               game: the others' turns, public)
                               (:class:`uno_env.tools.web.games.Budget`); a watch step asks
                               for at most 100 visible moves
requests at once               :data:`MAX_INFLIGHT_PER_CLIENT` (4) per client address (429);
                               :data:`MAX_UPLOADS` (2) logs read at once (503)
a replay                       200,000 actions; stored compactly
                               (:mod:`uno_env.tools.web.replays`)
=============================  ===============================================================
"""

from __future__ import annotations

import threading
from collections import Counter

from uno_env.tools.web.games import (IDLE_TIMEOUT_S, MAX_DECISIONS_PER_REQUEST, MAX_GAMES,  # noqa: F401
                                     MAX_MEMORY, MAX_PER_CLIENT, MAX_WATCH_STEPS, REQUEST_SECONDS)
from uno_env.tools.web.validate import ApiError

MAX_BODY = 64 * 1024
MAX_LOG_BYTES = 8 * 2 ** 20  # an uploaded log (45,000 actions of 10 players and huge hands: 5 MB)
MAX_STEPS_PER_REQUEST = 100  # visible moves per watch step request
MAX_CARD_CHARS = 40  # characters of a card name in a stacked deck (the longest: 15)
MAX_INFLIGHT_PER_CLIENT = 4  # API requests of one client address running at once
MAX_UPLOADS = 2  # logs read and replayed at once (each holds its text and records meanwhile)


class Inflight:
    """The API requests running now, per client address (at most :data:`MAX_INFLIGHT_PER_CLIENT`)."""

    def __init__(self, limit: int = MAX_INFLIGHT_PER_CLIENT):
        self.limit = limit
        self.running: Counter[str] = Counter()
        self.lock = threading.Lock()

    def enter(self, client: str) -> None:
        with self.lock:
            if self.running[client] >= self.limit:
                raise ApiError(429, f"this client has {self.limit} requests running "
                                    "already: wait for one to finish")
            self.running[client] += 1

    def leave(self, client: str) -> None:
        with self.lock:
            self.running[client] -= 1
            if self.running[client] <= 0:
                del self.running[client]
