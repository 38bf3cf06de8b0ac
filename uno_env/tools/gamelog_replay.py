"""Replaying a game log (:mod:`uno_env.tools.gamelog`) exactly: :func:`replay`.

The env is reset to the logged deal (:func:`reset_from_log`: the seed, or the RNG state,
with the logged dealer and deck) and every logged action is applied and checked
(:func:`replay_step`): legal for the logged player and phase, the actor's hand before it,
the public table after it, the public events that followed it (and those of the deal), and
at the end the final snapshot. Any difference is a :class:`ReplayError` naming the step.
"""

from __future__ import annotations

import os
from typing import Any, Callable

from uno_env.game import actions as A
from uno_env.game.engine import PHASE_NAMES
from uno_env.tools.gamelog import (ReplayError, end_status, event_records, generator_from_state,
                                   public_table, reset_env, reset_with_rng)
from uno_env.tools.gamelog_read import GameLog, read_log


def env_from_log(log: GameLog, render_mode: str | None = None) -> Any:
    """A fresh raw env with the log's rules and player count (not reset)."""
    from uno_env.envs.aec_env import raw_env

    h = log.header
    return raw_env(rules=dict(h["rules"]), num_players=int(h["num_players"]), render_mode=render_mode)


def reset_from_log(env: Any, log: GameLog) -> None:
    """Reset ``env`` to the logged deal (seed, or RNG state; dealer and deck)."""
    h = log.header
    if h.get("rng"):
        r = h["rng"]
        reset_with_rng(env, generator_from_state(r["state"]), int(h["dealer"]), list(h["deck"]),
                       draw_dealer=bool(r["draw_dealer"]), shuffle=bool(r["shuffle"]))
    else:
        reset_env(env, int(h["seed"]), int(h["dealer"]), list(h["deck"]))


def _diff(a: Any, b: Any, path: str = "") -> list[str]:
    """Human-readable differences between two JSON-like values."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                out.append(f"{path}{k}: {'missing in replay' if k not in a else 'not in log'}")
            else:
                out += _diff(a[k], b[k], f"{path}{k}.")
        return out
    if isinstance(a, list) and isinstance(b, list) and a != b and len(str(a)) + len(str(b)) > 160:
        where = path.rstrip(".")
        if len(a) != len(b):
            return [f"{where}: replay has {len(a)} entries, log {len(b)}"]
        i = next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)
        return [f"{where}[{i}]: replay {a[i]!r} != log {b[i]!r}"]
    if a != b:
        return [f"{path.rstrip('.')}: replay {a!r} != log {b!r}"]
    return []


RETIRED_EVENTS = ("kept",)  # logged by uno_env before 0.5.13 (keeping a drawn card), no longer recorded


def _event_diff(replayed: list[dict[str, Any]], logged: Any) -> str | None:
    """The first difference between replayed and logged event records (None: equal); a logged
    event of a kind no longer recorded (``RETIRED_EVENTS``) is not compared."""
    if replayed == logged:
        return None
    if not isinstance(logged, list):
        return f"the log's events are not a list: {logged!r}"[:200]
    logged = [e for e in logged if not (isinstance(e, dict) and e.get("kind") in RETIRED_EVENTS)]
    if replayed == logged:
        return None
    for i, (a, b) in enumerate(zip(replayed, logged), 1):
        if a != b:
            return f"event {i}: replay {a} != log {b}"
    return f"the replay has {len(replayed)} events, the log {len(logged)}"


def replay_step(env: Any, record: dict[str, Any]) -> None:
    """Apply one logged action to ``env``, checking actor, phase, legality, the public table
    after it and, if the record has them, the public events that followed it (the env's
    engine must record events: :func:`replay` turns it on). ``ReplayError`` on any difference."""
    u = env.unwrapped
    s = u.game_state
    step = record.get("step")
    action = int(record["action"])
    if u.game_state.game_over or any(u.truncations.values()):
        raise ReplayError(f"step {step}: the game is already over in the replay")
    if u.agent_selection != record["agent"]:
        raise ReplayError(f"step {step}: logged actor {record['agent']} but {u.agent_selection} "
                          f"decides in the replay")
    if PHASE_NAMES[s.phase] != record["phase"]:
        raise ReplayError(f"step {step}: logged phase {record['phase']!r} but the replay is in "
                          f"phase {PHASE_NAMES[s.phase]!r}")
    if not 0 <= action < A.NUM_ACTIONS or record.get("name", u.action_names[action]) != u.action_names[action]:
        raise ReplayError(f"step {step}: action id {action} is not the logged action {record.get('name')!r}")
    legal = u.legal_actions()
    if action not in legal:
        raise ReplayError(f"step {step}: action {action} ({record.get('name')}) is not legal for "
                          f"{record['agent']} in phase {record['phase']!r}; legal: "
                          f"{[u.action_names[a] for a in legal]}")
    if "hand" in record:
        hand = [u.card_names[k] for k in u.engine.hand_cards(s, s.actor)]
        if hand != record["hand"]:
            raise ReplayError(f"step {step}: {record['agent']}'s hand is {hand} in the replay, "
                              f"{record['hand']} in the log")
    seen = len(s.events) if s.events is not None else 0
    env.step(action)
    if "after" in record:
        diff = _diff(public_table(u), record["after"])
        if diff:
            raise ReplayError(f"step {step}: the table after {record.get('name')} differs: " + "; ".join(diff))
    if "events" in record:
        if u.game_state.events is None:
            raise ReplayError(f"step {step}: the log has events but the replay's engine does not record them")
        diff = _event_diff(event_records(u, seen), record["events"])
        if diff:
            raise ReplayError(f"step {step}: the events after {record.get('name')} differ: {diff}")


def replay(log: "GameLog | str | os.PathLike", env: Any = None,
           on_step: Callable[[Any, dict[str, Any]], Any] | None = None,
           on_reset: Callable[[Any], Any] | None = None, verify_end: bool = True) -> Any:
    """Replay a game log exactly; returns the raw env in the final state.

    Every action is checked (:func:`replay_step`) and, with ``verify_end``, the final
    snapshot must equal the logged one; a version-2 log's events (the deal's and every
    action's) must equal the replayed ones. The env records events (``state.events``) from
    the deal on, whatever the log's version. ``on_reset(env)`` is called after the reset,
    ``on_step(env, record)`` after every action. ``ReplayError`` on any mismatch.
    """
    if not isinstance(log, GameLog):
        log = read_log(log)
    if env is None:
        env = env_from_log(log)
    u = env.unwrapped
    u.engine.record_events = True
    reset_from_log(env, log)
    with_events = log.header.get("version", 1) >= 2
    if with_events:
        diff = _event_diff(event_records(u), log.header.get("events"))
        if diff:
            raise ReplayError(f"the events of the deal differ: {diff}")
    if on_reset is not None:
        on_reset(env)
    for record in log.actions:
        if with_events and "events" not in record:
            raise ReplayError(f"step {record.get('step')}: a version-2 action record without 'events'")
        replay_step(env, record)
        if on_step is not None:
            on_step(env, record)
    if verify_end and log.end is not None:
        diff = _diff(u.snapshot(), log.end["snapshot"])
        if diff:
            raise ReplayError("the final state differs from the logged one: " + "; ".join(diff[:20]))
        if log.end.get("status") in ("finished", "truncated") and end_status(u) != log.end["status"]:
            raise ReplayError(f"the log ends {log.end['status']!r} but the replay is "
                              f"{end_status(u) or 'still running'}")
    return env
