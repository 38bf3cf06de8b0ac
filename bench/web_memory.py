"""What a game log upload costs the web server (``uno-serve``): memory held, peak, CPU.

    python bench/web_memory.py                      # a 5 MB log: held and peak MB, CPU s
    python bench/web_memory.py --bytes 8000000 --json

The log is the costliest legal one per byte this script knows: 10 players, a classic deck
of 1,872 cards (``count_number=50, count_zero=10``), 50-card hands, and players who draw
whenever they may, so that the hands hold nearly every card (~1,870 open cards in every
frame); version-1 records (no events, no hands, no tables: ~110 bytes an action), so that a
5 MB log holds ~45,000 actions. It is played straight on the engine (``--seed``) and written
by :func:`uno_env.tools.gamelog.log_game`.

The upload goes through the real app (Starlette's TestClient, ``POST /api/replays``);
``tracemalloc`` measures what the server still holds after it (``held``: the replay, the
estimate it is charged is ``nbytes``) and the most it held meanwhile (``peak``: the text,
the parsed records, the replay check); CPU is this process's CPU time for a second upload
without tracemalloc (the test client waits while the app works). Then frames are fetched: one after another from the start
(``frame_seq_ms``, the page stepping) and at random (``frame_random_ms``, the slider).

Measured (CPython 3.11, a loaded 2-core machine; docs/RELIABILITY.md, "Web server"): the
5 MB log (4.93 MB, 44,544 actions) held 822 MB (peak RSS 942 MB, 12.8 s of CPU) when every
frame was kept built, before the compact replays; it now holds 1.0 MB (charged 1.7 MB; peak
RSS 122 MB, 0.8 s of CPU), a frame costs 1.9 ms stepping forwards and 3.8 ms at random.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import random
import resource
import sys
import time
import tracemalloc

import numpy as np

from uno_env.game import actions as A
from uno_env.game.engine import Engine
from uno_env.game.rules import make_rules
from uno_env.tools.gamelog import log_game

HEAVY = dict(count_number=50, count_zero=10, hand_size=50, episode="rounds", num_rounds=10_000)
PLAYERS = 10
MIN_BYTES = 100_000  # the header alone (the deck's 1,872 cards) is ~25 KB


def heavy_log(max_bytes: int = 5_000_000, seed: int = 0, players: int = PLAYERS) -> str:
    """A legal version-1 game log of at most ``max_bytes`` (module doc): every player draws
    whenever it may (and keeps what it drew), else plays at random."""
    per_action = 110  # bytes of a version-1 action record here (about)
    rules = make_rules("classic", max_steps=max(1, max_bytes // per_action), **HEAVY)
    engine = Engine(rules, players)
    s = engine.new_state(np.random.default_rng(seed), dealer=0)
    rng = np.random.default_rng(seed + 1)
    actions = []
    while not s.game_over and not engine.truncated(s):
        legal = engine.legal_actions(s)
        a = A.DRAW if A.DRAW in legal else A.PASS if A.PASS in legal else legal[int(rng.integers(len(legal)))]
        engine.step(s, a)
        actions.append(a)
    text = version1_log(rules, players, seed, actions)
    while len(text.encode()) > max_bytes:  # the estimate was off: fewer actions (still legal)
        if not actions:
            raise ValueError(f"even a log without actions is more than {max_bytes} bytes")
        actions = actions[: len(actions) * 49 // 50]
        text = version1_log(rules, players, seed, actions)
    return text


def version1_log(rules, players: int, seed: int, actions: list[int]) -> str:
    """The log of ``actions`` dealt from ``default_rng(seed)`` in version 1's fewest fields."""
    buf = io.StringIO()
    log_game(buf, rules, players, actions, rng=np.random.default_rng(seed), dealer=0, hands=False)
    out = []
    for line in buf.getvalue().splitlines():
        r = json.loads(line)
        if r["type"] == "header":
            r["version"] = 1
            r.pop("events", None)
        elif r["type"] == "action":
            r = {k: r[k] for k in ("type", "step", "round", "seat", "agent", "phase", "action", "name")}
        out.append(json.dumps(r, separators=(",", ":")))
    return "\n".join(out) + "\n"


def vm_peak_mb() -> float:
    """This process's peak virtual memory (VmPeak; 0 where /proc is missing)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmPeak:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def measure(text: str, frames: int = 200, seed: int = 0, max_log_bytes: int | None = None) -> dict:
    """Upload ``text`` to a fresh app and measure (module doc)."""
    from starlette.testclient import TestClient

    from uno_env.tools.web.server import create_app

    options = {} if max_log_bytes is None else {"max_log_bytes": max_log_bytes}
    c = TestClient(create_app(**options))
    ndjson = {"Content-Type": "application/x-ndjson"}
    warm = c.post("/api/replays", content=heavy_log(MIN_BYTES, seed).encode(), headers=ndjson)  # imports, caches
    assert warm.status_code == 201, warm.text
    body = text.encode()
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    r = c.post("/api/replays", content=body, headers=ndjson)
    if r.status_code != 201:
        raise SystemExit(f"the upload was refused: {r.status_code} {r.text[:300]}")
    answer = len(r.content)
    rid, count = r.json()["id"], r.json()["count"]
    del r  # the answer (the texts of every frame) is the client's, not the server's
    gc.collect()
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rep = c.app.state.server.store.items[rid]
    cpu = time.process_time()  # again, without tracemalloc's cost
    assert c.post("/api/replays", content=body, headers=ndjson).status_code == 201
    cpu = time.process_time() - cpu
    last = c.get(f"/api/replays/{rid}/frames/{count - 1}").json()["frame"]
    cards = sum(len(h) for h in last["table"]["hands"])
    t = time.process_time()
    for i in range(min(frames, count)):
        assert c.get(f"/api/replays/{rep.id}/frames/{i}").status_code == 200
    seq = (time.process_time() - t) / min(frames, count)
    rng = random.Random(seed)
    t = time.process_time()
    for _ in range(frames):
        assert c.get(f"/api/replays/{rep.id}/frames/{rng.randrange(count)}").status_code == 200
    rand = (time.process_time() - t) / frames
    return {"log_bytes": len(body), "actions": count - 1, "open_cards_last_frame": cards,
            "held_mb": round((held - base) / 1e6, 2), "peak_mb": round((peak - base) / 1e6, 1),
            "nbytes_mb": round(rep.nbytes / 1e6, 2), "checkpoints": len(rep.checkpoints),
            "upload_cpu_s": round(cpu, 2), "answer_bytes": answer,
            "frame_seq_ms": round(seq * 1e3, 2), "frame_random_ms": round(rand * 1e3, 2),
            "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3, 1),
            "vm_peak_mb": round(vm_peak_mb(), 1)}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bytes", type=int, default=5_000_000, help="size of the log (default 5 MB)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--frames", type=int, default=200, help="frames fetched each way (default 200)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    if args.bytes < MIN_BYTES:
        ap.error(f"--bytes must be at least {MIN_BYTES}")
    t = time.process_time()
    text = heavy_log(args.bytes, args.seed)
    made = time.process_time() - t
    out = measure(text, args.frames, args.seed, max_log_bytes=max(args.bytes, 8 * 2 ** 20))
    out["make_log_cpu_s"] = round(made, 2)
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:20s} {v}")
    return out


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    main()
