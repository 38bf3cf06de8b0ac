"""Requests of the web server (:mod:`uno_env.tools.web.server`): parsing and validation.

Every refusal is an :class:`ApiError` (an HTTP status and a message naming the problem),
which the app answers as ``{"error": "<message>"}`` with the game left unchanged. Rules come
from a preset name or an object of options (never from a file a request names), agent specs
are checked against the registry and ``checkpoint:<dir>`` only loads from under the
server's checkpoint roots; actions are names (``"play red-5"``) or ids.
"""

from __future__ import annotations

import os
import re
from typing import Any, Sequence

from uno_env.game import actions as A
from uno_env.game.rules import PRESETS, Rules, make_rules

MAX_DECK = 2000  # cards: a request must not make the server build a huge deck (house: 580)
HUMAN = "human"


class ApiError(Exception):
    """A request the server refuses: HTTP ``status`` and a message naming the problem."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def check_int(value: Any, what: str, lo: int, hi: int) -> int:
    """``value`` if it is an integer in ``lo..hi`` (not a bool); ``ApiError`` 400 naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ApiError(400, f"{what} must be an integer in {lo}..{hi}, got {value!r}")
    return value


def parse_rules(rules: Any, options: Any) -> Rules:
    """Rules of a request: a preset name or an object of options, plus ``options``."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise ApiError(400, f"options must be an object of rule options, got {options!r}")
    if rules is None:
        rules = "classic"
    if isinstance(rules, str) and rules not in PRESETS:
        raise ApiError(400, f"unknown rules preset {rules!r}; presets: {sorted(PRESETS)} "
                            f"(or an object of rule options)")
    if not isinstance(rules, (str, dict)):
        raise ApiError(400, f"rules must be a preset name or an object of options, got {rules!r}")
    try:
        r = make_rules(rules, **options)
    except (ValueError, TypeError) as e:
        raise ApiError(400, f"bad rules: {e}") from None
    if r.deck_size() > MAX_DECK:
        raise ApiError(400, f"a deck of {r.deck_size()} cards is more than this server plays "
                            f"({MAX_DECK})")
    return r


class Specs:
    """Checks and builds agents from spec strings; ``checkpoint:`` paths only under roots."""

    def __init__(self, checkpoint_roots: Sequence[str]):
        self.roots = [os.path.realpath(r) for r in checkpoint_roots]

    def check(self, spec: Any, what: str) -> str:
        from uno_env.agents import agent_specs

        if not isinstance(spec, str) or not spec.strip():
            raise ApiError(400, f"{what} must be an agent spec string ({', '.join(agent_specs())}, "
                                f"checkpoint:<dir>), got {spec!r}")
        spec = spec.strip()
        prefix = spec.split(":", 1)[0]
        if prefix == HUMAN:
            raise ApiError(400, f"{what}: 'human' is the seat of the page, not an opponent")
        if prefix not in agent_specs():
            raise ApiError(400, f"{what}: unknown agent spec {spec!r}; known: {agent_specs()} "
                                f"(checkpoint:<dir> for a trained agent)")
        if prefix == "checkpoint":
            path = spec.split(":", 1)[1].removesuffix("#sample")
            real = os.path.realpath(path)
            if not any(real == r or real.startswith(r + os.sep) for r in self.roots):
                raise ApiError(400, f"{what}: checkpoint {path!r} is not under a checkpoint root of "
                                    f"this server ({', '.join(self.roots) or 'none'}; see --checkpoint-root)")
        return spec

    def make(self, spec: str, rules: Rules, n: int, seed: int, what: str) -> Any:
        from uno_env.agents import make_agent

        try:
            return make_agent(spec, rules, n, seed=seed)
        except (ValueError, OSError, KeyError) as e:
            raise ApiError(400, f"{what}: {e}") from None
        except ImportError as e:
            raise ApiError(400, f"{what}: this server cannot load {spec!r} ({e}); "
                                f"install the train extra") from None

    def checkpoints(self) -> list[str]:
        """Specs of the checkpoints (directories with a card.json) under the roots."""
        out = []
        cwd = os.path.realpath(os.getcwd())
        for root in self.roots:
            if not os.path.isdir(root):
                continue
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                if dirpath[len(root):].count(os.sep) >= 3:
                    dirnames[:] = []
                if "card.json" in filenames:  # a checkpoint: the card and the weights it names
                    rel = os.path.relpath(dirpath, cwd)
                    out.append("checkpoint:" + (dirpath if rel.startswith("..") else rel))
        return sorted(out)


def parse_action(u: Any, value: Any) -> int:
    """An action id from a name (``"play red-5"``) or an id; ``ApiError`` 400 if neither."""
    if isinstance(value, bool) or value is None:
        raise ApiError(400, f"action must be an action name or id, got {value!r}")
    if isinstance(value, int):
        if not 0 <= value < A.NUM_ACTIONS:
            raise ApiError(400, f"action id must be in 0..{A.NUM_ACTIONS - 1}, got {value}")
        return value
    if isinstance(value, str):
        name = re.sub(r"\s+", " ", value.strip().lower()).replace("colour ", "color ")
        if name.isdigit():
            return parse_action(u, int(name))
        try:
            return u.action_id(name)
        except ValueError:
            raise ApiError(400, f"unknown action {value!r} (e.g. 'play red-5', 'draw', "
                                f"'color blue', or an id 0..{A.NUM_ACTIONS - 1})") from None
    raise ApiError(400, f"action must be an action name or id, got {value!r}")
