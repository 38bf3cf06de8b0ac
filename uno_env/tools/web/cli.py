"""``uno-serve``'s command line (:mod:`uno_env.tools.web.server`): options, checks, uvicorn."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from uno_env._files import check_directory
from uno_env.tools.web.app import create_app
from uno_env.tools.web.limits import (IDLE_TIMEOUT_S, MAX_BODY, MAX_GAMES, MAX_LOG_BYTES, MAX_MEMORY,
                                      MAX_PER_CLIENT, REQUEST_SECONDS)
from uno_env.tools.web.same_site import allowed_hosts, is_loopback

HOST, PORT = "127.0.0.1", 8000


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
                         "a module: spec itself; each is built at start-up (classic, 2 players; a "
                         "checkpoint: its card), one that does not build stops the server")
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
    except ValueError as e:
        print(f"{ap.prog}: error: {e}", file=sys.stderr)
        return 2
    try:
        import uvicorn
    except ImportError as e:
        ap.error(f"the web server needs the web extra: pip install \"uno_env[web]\" ({e})")
    try:  # every --agent is built now (Specs): one that does not is a one-line error
        app = create_app(log_dir=args.log_dir, idle_timeout=args.idle_timeout,
                         max_games=args.max_games, max_per_client=args.max_per_client,
                         max_memory=args.max_memory * 2 ** 20, request_seconds=args.request_seconds,
                         checkpoint_roots=args.checkpoint_root or ["checkpoints"],
                         max_body=args.max_body, max_log_bytes=args.max_log_bytes,
                         hosts=allowed_hosts(args.host, args.allow_host), agents=args.agent)
    except ImportError as e:
        ap.error(f"the web server needs the web extra: pip install \"uno_env[web]\" ({e})")
    except ValueError as e:
        print(f"{ap.prog}: error: {e}", file=sys.stderr)
        return 2
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
