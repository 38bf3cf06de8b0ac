"""Game logs replayed by the web server (:mod:`uno_env.tools.web.server`), frame by frame.

An uploaded log is read (:func:`uno_env.tools.gamelog_read.read_log`) and replayed exactly
(:func:`uno_env.tools.gamelog_replay.replay`) once, when it arrives; every frame (the deal,
then one per action) holds the open table, every hand shown, and the public events as text.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from uno_env.tools.gamelog_read import GameLog
from uno_env.tools.gamelog_replay import replay
from uno_env.tools.web import views
from uno_env.tools.web.games import new_env
from uno_env.tools.web.validate import ApiError, parse_rules


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
