"""Cross-site requests refused by the web server (:mod:`uno_env.tools.web.server`).

A page on another site must not drive the server through a
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

import ipaddress
from typing import Any, Collection, Sequence
from urllib.parse import urlsplit

from uno_env.tools.web.validate import ApiError, show

JSON_TYPES = ("application/json",)
LOG_TYPES = ("application/x-ndjson", "application/jsonl", "application/json")
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


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



def check_origin(hosts: Collection[str] | None, headers: Any) -> None:
    """Refuse a request from another site (``Origin``) or for another name (``Host`` not in
    ``hosts``; None: any name)."""
    host = headers.get("host", "")
    if hosts is not None and host_name(host) not in hosts:
        raise ApiError(403, f"the Host {show(host)} does not name this server "
                            f"({', '.join(sorted(hosts))}; see --allow-host)")
    origin = headers.get("origin")
    if origin is not None:
        parts = urlsplit(origin) if origin != "null" else None
        if parts is None or parts.scheme not in ("http", "https") or parts.netloc.lower() != host.lower():
            raise ApiError(403, f"a request from another site (Origin {show(origin)}) is refused: "
                                f"this server answers its own page only")


def check_type(method: str, headers: Any, body_types: Sequence[str]) -> None:
    """Refuse a POST whose ``Content-Type`` is not one of ``body_types``."""
    if method == "POST":
        kind = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if kind not in body_types:
            raise ApiError(415, f"a POST here must say Content-Type: {' or '.join(body_types)}, "
                                f"got {show(kind or None)}")
