"""Requests of the web server (:mod:`uno_env.tools.web.server`): parsing and validation.

Every refusal is an :class:`ApiError` (an HTTP status and a message naming the problem),
which the app answers as ``{"error": "<message>"}`` with the game left unchanged. Rules come
from a preset name or an object of options (never from a file a request names), agent specs
are checked against the registry (:func:`uno_env.agents.parse_spec`), ``checkpoint:<dir>``
only loads from under the server's checkpoint roots, ``pretrained:<name>`` from the package,
and a ``module:`` spec (it imports code) is refused unless the server's own command line named
it (``uno-serve --agent``); actions are names (``"play red-5"``) or ids.

**Bounds on what a request may be** (each a 4xx naming the problem, never a 500):

=========================  ==========================================================
a JSON body                an object (:func:`parse_json`), nested at most
                           :data:`MAX_JSON_DEPTH` (32) deep, integers of at most
                           :data:`MAX_DIGITS` (40) digits, no ``NaN``/``Infinity``
an agent spec              printable text of at most :data:`MAX_SPEC_CHARS` (300)
                           characters; ``search`` at most :data:`MAX_SEARCH_ROLLOUTS`
                           (800) rollouts a decision (``rollouts=agents`` counts 8 each) and
                           rollouts of at most 1,000 decisions (its defaults): so that
                           one decision costs the server at most ~1.2 s of CPU
an action                  an id in 0..194, or a name of at most :data:`MAX_ACTION_CHARS`
                           (100) characters
the rules                  a deck of at most :data:`MAX_DECK` (2,000) cards, episodes of
                           at most :data:`MAX_GAME_STEPS` (20,000) decisions
=========================  ==========================================================

**What an error message shows.** An echoed value is cut short (:func:`show`, at most ~60
characters of a string) and a whole message is at most :data:`MAX_ERROR_CHARS` (1,000)
characters; a checkpoint root is named relative to the server's working directory, and so
is any path in an error of a checkpoint that does not load (:meth:`Specs.relative`), never
as an absolute path; a shipped agent's folder in the package is named by its spec
(``checkpoint 'pretrained:classic-2p' does not match ...``).
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Sequence

from uno_env.game import actions as A
from uno_env.game.rules import PRESETS, Rules, make_rules, show_value

MAX_DECK = 2000  # cards: a request must not make the server build a huge deck (house: 580)
MAX_GAME_STEPS = 20_000  # decisions of a game the server plays (rules max_steps; default 10,000)
MAX_JSON_DEPTH = 32  # nesting of a request body (the API's deepest: 3)
MAX_DIGITS = 40  # digits of an integer in a request body (a seed: at most 39)
MAX_SPEC_CHARS = 300  # characters of an agent spec
MAX_ACTION_CHARS = 100  # characters of an action name (the longest: 27)
MAX_SEARCH_ROLLOUTS = 800  # search's simulations per decision (its default), rollouts=agents counted 8x
MAX_SEARCH_ROLLOUT_STEPS = 1000  # search's rollout length (its default)
SLOW_ROLLOUT_COST = 8  # a rollouts=agents rollout (heuristic agents on observations) costs ~8 policy ones
MAX_ERROR_CHARS = 1000  # characters of an error message
HUMAN = "human"
show = show_value  # an echoed value in a message: a short repr, bounded in length and work


class ApiError(Exception):
    """A request the server refuses: HTTP ``status`` and a message naming the problem."""

    def __init__(self, status: int, message: str):
        if len(message) > MAX_ERROR_CHARS:
            message = message[:MAX_ERROR_CHARS - 5] + " ..."
        super().__init__(message)
        self.status = status
        self.message = message


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ApiError(400, f"the body holds an integer of {len(text.lstrip('-'))} digits "
                            f"(at most {MAX_DIGITS})")
    return int(text)


def _reject_constant(name: str) -> None:
    raise ApiError(400, f"the body holds {name}, which is not a JSON number")


def json_depth(value: Any) -> int:
    """How deep lists and objects nest in a JSON value (a scalar: 0), without recursion."""
    depth, stack = 0, [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (list, dict)):
            depth = max(depth, d + 1)
            if depth > MAX_JSON_DEPTH:
                return depth
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return depth


def parse_json(raw: bytes) -> dict[str, Any]:
    """A request body: a JSON object within the bounds of the module doc (an empty body: {})."""
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw, parse_int=_parse_int, parse_constant=_reject_constant)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ApiError(400, f"the body is not JSON: {show(str(e))}") from None
    except RecursionError:
        raise ApiError(400, f"the body is nested too deep (at most {MAX_JSON_DEPTH} levels)") from None
    except ValueError as e:  # a number Python does not convert
        raise ApiError(400, f"the body is not JSON: {show(str(e))}") from None
    if json_depth(body) > MAX_JSON_DEPTH:
        raise ApiError(400, f"the body is nested too deep (at most {MAX_JSON_DEPTH} levels)")
    if not isinstance(body, dict):
        raise ApiError(400, f"the body must be a JSON object, got {type(body).__name__}")
    return body


def check_int(value: Any, what: str, lo: int, hi: int) -> int:
    """``value`` if it is an integer in ``lo..hi`` (not a bool); ``ApiError`` 400 naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ApiError(400, f"{what} must be an integer in {lo}..{hi}, got {show(value)}")
    return value


def check_seed(value: Any) -> int:
    """A request's game seed: an integer or a string of decimal digits (what a view shows, so
    that JavaScript keeps every digit) in ``0..2**128-1``; ``ApiError`` 400 otherwise."""
    from uno_env.tools.gamelog import MAX_SEED, SEED_BITS

    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= len(str(MAX_SEED)):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
        raise ApiError(400, f"seed must be an integer in 0..2**{SEED_BITS}-1 (or its decimal digits as a "
                            f"string), got {show(value)}")
    return value


def parse_rules(rules: Any, options: Any) -> Rules:
    """Rules of a request: a preset name or an object of options, plus ``options``."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise ApiError(400, f"options must be an object of rule options, got {show(options)}")
    if rules is None:
        rules = "classic"
    if isinstance(rules, str) and rules not in PRESETS:
        raise ApiError(400, f"unknown rules preset {show(rules)}; presets: {sorted(PRESETS)} "
                            f"(or an object of rule options)")
    if not isinstance(rules, (str, dict)):
        raise ApiError(400, f"rules must be a preset name or an object of options, got {show(rules)}")
    try:
        r = make_rules(rules, **options)
    except (ValueError, TypeError) as e:
        raise ApiError(400, f"bad rules: {e}") from None
    if r.deck_size() > MAX_DECK:
        raise ApiError(400, f"a deck of {r.deck_size()} cards is more than this server plays "
                            f"({MAX_DECK})")
    return r


def check_game_rules(r: Rules) -> Rules:
    """``r`` if the server plays games of it: episodes of at most :data:`MAX_GAME_STEPS`."""
    if r.max_steps > MAX_GAME_STEPS:
        raise ApiError(400, f"max_steps {r.max_steps} is more than this server plays in one game "
                            f"({MAX_GAME_STEPS} decisions)")
    return r


class Specs:
    """Checks and builds agents from spec strings; ``checkpoint:`` paths only under roots, a
    ``module:`` spec (it runs code) only if the server's own command line named it
    (``uno-serve --agent``: ``operator_specs``)."""

    def __init__(self, checkpoint_roots: Sequence[str], operator_specs: Sequence[str] = ()):
        self.roots = [os.path.realpath(r) for r in checkpoint_roots]
        self.operator_specs = [self._operator_spec(spec) for spec in operator_specs]

    @staticmethod
    def _operator_spec(spec: str) -> str:
        """``spec`` (of ``uno-serve --agent``) once it builds: a checkpoint's card is read, any
        other agent is built for the classic rules at 2 players (a ``module:`` spec imports its
        module now). ``ValueError`` naming the spec otherwise, so that a server never starts
        offering an agent that every client choosing it would get a 400 for."""
        from uno_env.agents import checkpoint as ckpt
        from uno_env.agents import make_agent, parse_spec

        try:
            parsed = parse_spec(spec)
            if parsed.is_policy:
                ckpt.load_card(parsed.checkpoint_dir())
            else:
                make_agent(spec, "classic", 2, seed=0)
        except (ValueError, OSError, KeyError, ImportError) as e:
            raise ValueError(f"--agent {spec!r} does not build: {e}") from None
        return spec

    @staticmethod
    def _rel(path: str) -> str:
        return os.path.relpath(path, os.path.realpath(os.getcwd()))

    def relative(self, message: str) -> str:
        """``message`` with the roots and the working directory named relative to it, and the
        package's shipped agents by their spec (``pretrained:<name>``, wherever installed)."""
        from uno_env.agents.shipped import SHIPPED, SPEC_PREFIX, pretrained_path

        for name in SHIPPED:
            try:
                folder = pretrained_path(name)
            except (ValueError, OSError):
                continue
            for path in {folder, os.path.realpath(folder)}:
                message = re.sub(re.escape(path) + r"(?![\w.-])", f"{SPEC_PREFIX}:{name}", message)
        cwd = os.path.realpath(os.getcwd())
        for root in sorted(self.roots, key=len, reverse=True):
            message = message.replace(root, self._rel(root))
        return message.replace(cwd + os.sep, "").replace(cwd, ".")

    def check(self, spec: Any, what: str) -> str:
        from uno_env.agents import agent_specs, parse_spec

        if not isinstance(spec, str) or not spec.strip():
            raise ApiError(400, f"{what} must be an agent spec string ({', '.join(agent_specs())}, "
                                f"checkpoint:<dir>), got {show(spec)}")
        if len(spec) > MAX_SPEC_CHARS or not spec.isprintable():
            raise ApiError(400, f"{what}: an agent spec is printable text of at most {MAX_SPEC_CHARS} "
                                f"characters, got {show(spec)} ({len(spec)} characters)")
        spec = spec.strip()
        if spec.split(":", 1)[0] == HUMAN:
            raise ApiError(400, f"{what}: 'human' is the seat of the page, not an opponent")
        try:
            parsed = parse_spec(spec)
        except ValueError as e:
            raise ApiError(400, f"{what}: {e}") from None
        if parsed.runs_code and spec not in self.operator_specs:
            raise ApiError(400, f"{what}: {show(spec)} would import and run code; a client cannot name "
                                f"one (the server's own uno-serve --agent can)")
        if parsed.kind == "checkpoint":
            path = parsed.checkpoint_dir()
            real = os.path.realpath(path)
            if not any(real == r or real.startswith(r + os.sep) for r in self.roots):
                roots = ", ".join(self._rel(r) for r in self.roots) or "none"
                raise ApiError(400, f"{what}: checkpoint {show(path)} is not under a checkpoint root of "
                                    f"this server ({roots}; see --checkpoint-root)")
        if parsed.kind == "search":
            self._check_search(spec, what)
        return spec

    @staticmethod
    def _check_search(spec: str, what: str) -> None:
        """The search's cost per decision within what the server spends (module doc)."""
        from uno_env.agents.search.options import SearchOptions

        try:
            o = SearchOptions.from_spec(spec)
        except ValueError as e:
            raise ApiError(400, f"{what}: {e}") from None
        cost = o.simulations * (SLOW_ROLLOUT_COST if o.rollouts == "agents" else 1)
        if cost > MAX_SEARCH_ROLLOUTS or o.max_steps > MAX_SEARCH_ROLLOUT_STEPS:
            raise ApiError(400, f"{what}: this server searches with at most {MAX_SEARCH_ROLLOUTS} rollouts "
                                f"a decision (rollouts=agents: {MAX_SEARCH_ROLLOUTS // SLOW_ROLLOUT_COST}) of at most "
                                f"{MAX_SEARCH_ROLLOUT_STEPS} decisions; {show(spec)} asks for more")

    def make(self, spec: str, rules: Rules, n: int, seed: int, what: str) -> Any:
        from uno_env.agents import make_agent

        try:
            return make_agent(spec, rules, n, seed=seed)
        except (ValueError, OSError, KeyError) as e:
            raise ApiError(400, self.relative(f"{what}: {e}")) from None
        except ImportError as e:
            raise ApiError(400, f"{what}: this server cannot load {show(spec)} ({e}); "
                                f"install the train extra") from None

    @staticmethod
    def nbytes(spec: str) -> int:
        """What an agent of ``spec`` holds beyond a bot (a checkpoint: its files, twice: as read
        and as the network)."""
        from uno_env.agents import parse_spec

        try:
            parsed = parse_spec(spec)
            if not parsed.is_policy:
                return 0
            with os.scandir(parsed.checkpoint_dir()) as entries:
                return 2 * sum(e.stat().st_size for e in entries if e.is_file(follow_symlinks=False))
        except (OSError, ValueError):
            return 0

    def checkpoint_cards(self, specs: Sequence[str]) -> dict[str, dict[str, Any]]:
        """What each policy agent of ``specs`` (``checkpoint:<dir>`` or ``pretrained:<name>``) was
        trained for, read from its card alone (bounded, no weights): ``{"num_players", "rules"}``
        (every rule option), or ``{"error"}`` when the card cannot be read (a damaged one, even
        shipped: the others are still listed); the page greys out one that does not fit the
        set-up."""
        from uno_env.agents import checkpoint as ckpt
        from uno_env.agents import parse_spec

        out: dict[str, dict[str, Any]] = {}
        for spec in specs:
            try:
                card = ckpt.load_card(parse_spec(spec).checkpoint_dir())  # checkpoint: or pretrained:
                rules = {k: list(v) if isinstance(v, tuple) else v
                         for k, v in ckpt.card_rules(card).to_dict().items()}
                out[spec] = {"num_players": card["num_players"], "rules": rules}
            except (ValueError, OSError) as e:
                out[spec] = {"error": self.relative(str(e))}
        return out

    def checkpoints(self) -> list[str]:
        """Specs of the checkpoints (directories with a card.json) under the roots, named
        relative to the working directory."""
        out = []
        for root in self.roots:
            if not os.path.isdir(root):
                continue
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                if dirpath[len(root):].count(os.sep) >= 3:
                    dirnames[:] = []
                if "card.json" in filenames:  # a checkpoint: the card and the weights it names
                    out.append("checkpoint:" + self._rel(dirpath))
        return sorted(out)


def parse_action(u: Any, value: Any) -> int:
    """An action id from a name (``"play red-5"``) or an id; ``ApiError`` 400 if neither."""
    if isinstance(value, bool) or value is None:
        raise ApiError(400, f"action must be an action name or id, got {show(value)}")
    if isinstance(value, int):
        if not 0 <= value < A.NUM_ACTIONS:
            raise ApiError(400, f"action id must be in 0..{A.NUM_ACTIONS - 1}, got {show(value)}")
        return value
    if isinstance(value, str):
        if len(value) > MAX_ACTION_CHARS:
            raise ApiError(400, f"an action name is at most {MAX_ACTION_CHARS} characters, got "
                                f"{show(value)} ({len(value)} characters)")
        name = re.sub(r"\s+", " ", value.strip().lower()).replace("colour ", "color ")
        if name.isascii() and name.isdigit():
            return parse_action(u, int(name))
        try:
            return u.action_id(name)
        except ValueError:
            raise ApiError(400, f"unknown action {show(value)} (e.g. 'play red-5', 'draw', "
                                f"'color blue', or an id 0..{A.NUM_ACTIONS - 1})") from None
    raise ApiError(400, f"action must be an action name or id, got {show(value)}")
