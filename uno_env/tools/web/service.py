"""What the web server's endpoints share (:mod:`uno_env.tools.web.server`): its options, its
store of games and replays, its agent specs; a new game or replay from a request's body.

Decisions:

* ``rules`` is a preset name or an object of options (it may name a ``preset``); ``options``
  overrides single options. The server never reads a rules file named by a request.
  Defaults: ``classic``, ``opponents`` ``heuristic`` for every other seat (``num_players``
  seats, default 2), ``seat`` 0, a random ``seed`` of 128 bits
  (:func:`uno_env.tools.gamelog.fresh_seed`: with 31, the first view singled the seed out of
  2**31 offline, and with it every hand and the DRAW pile). A request's ``seed`` is an integer
  or a string of decimal digits in ``0..2**128-1``; a view gives it as a string of digits
  (JavaScript reads a JSON number of 39 digits as a rounded float), in a watched game, and in
  a played one once it is over: the seed deals every hand and the DRAW pile, so a seated
  player does not see it during the game.
* The deal and the game follow the seed exactly as ``env.reset(seed=seed)`` and the
  terminal game (:func:`uno_env.tools.gamelog.reset_env`); the agent of seat ``i`` is
  seeded ``seed + 1 + i``. ``deck`` (card names, top first; exactly the ruleset's deck) and
  ``dealer`` stack the deal (for lessons and tests).
* ``checkpoint:<dir>`` specs load only from under ``--checkpoint-root`` (default
  ``./checkpoints``), so that a request cannot make the server open any other file.
* The others' moves are played by the server up to the human's next decision and sent as
  events, a table after each stretch that ends where every player sees it end (the human's
  decision, a regular turn with no penalty pending, the end:
  :meth:`uno_env.tools.web.games.Game.public_boundary`); the page shows them one by one.
* Every browser game is recorded: in ``--log-dir`` as ``web-<date>-<id>.jsonl`` when given,
  else written again from its deal and actions when asked for; once the game is over its log
  is served (``/api/games/{id}/log``, streamed) so that the page can replay it, all hands open.
"""

from __future__ import annotations

import datetime
import os
import threading
from typing import Any, Callable, Sequence

from uno_env.game import cards as C
from uno_env.game.rules import PRESETS, Rules
from uno_env.tools.gamelog import fresh_seed
from uno_env.tools.gamelog_read import read_log
from uno_env.tools.web import views
from uno_env.tools.web.games import Budget, Game, Store, new_env
from uno_env.tools.web.limits import (IDLE_TIMEOUT_S, MAX_BODY, MAX_CARD_CHARS, MAX_DECISIONS_PER_REQUEST,
                                      MAX_GAMES, MAX_INFLIGHT_PER_CLIENT, MAX_LOG_BYTES, MAX_MEMORY,
                                      MAX_PER_CLIENT, MAX_STEPS_PER_REQUEST, MAX_UPLOADS, REQUEST_SECONDS,
                                      Inflight)
from uno_env.tools.web.replays import Replay
from uno_env.tools.web.validate import (HUMAN, ApiError, Specs, check_game_rules, check_int, check_seed,
                                        parse_rules, show)

_GAME_KEYS = {"mode", "rules", "options", "num_players", "opponents", "agents", "seat", "seed",
              "deck", "dealer"}


class Server:
    """What the endpoints share: options, the store, agent specs."""

    def __init__(self, log_dir: str | None = None, idle_timeout: float = IDLE_TIMEOUT_S,
                 max_games: int = MAX_GAMES, checkpoint_roots: Sequence[str] = ("checkpoints",),
                 max_body: int = MAX_BODY, max_log_bytes: int = MAX_LOG_BYTES,
                 max_per_client: int = MAX_PER_CLIENT, max_memory: int = MAX_MEMORY,
                 request_seconds: float = REQUEST_SECONDS,
                 max_decisions: int = MAX_DECISIONS_PER_REQUEST,
                 hosts: Sequence[str] | None = None, clock: Callable[[], float] | None = None,
                 agents: Sequence[str] = ()):
        self.log_dir = log_dir
        self.store = Store(idle_timeout, max_games, max_per_client, max_memory)
        self.specs = Specs(checkpoint_roots, operator_specs=agents)
        self.max_body, self.max_log_bytes = max_body, max_log_bytes
        self.request_seconds, self.max_decisions = request_seconds, max_decisions
        self.hosts = None if hosts is None else {h.lower() for h in hosts}
        self.clock = clock  # of the request budget (tests); default time.monotonic
        self.inflight = Inflight()
        self.uploads = threading.BoundedSemaphore(MAX_UPLOADS)

    def budget(self) -> Budget:
        if self.clock is None:
            return Budget(self.request_seconds, self.max_decisions)
        return Budget(self.request_seconds, self.max_decisions, self.clock)

    def create_game(self, body: dict[str, Any], owner: str = "") -> tuple[Game, dict[str, Any]]:
        """A new game kept for ``owner``, the agents played up to the human's first decision
        (within a request's budget), and its first view."""
        unknown = sorted(set(body) - _GAME_KEYS)
        if unknown:
            raise ApiError(400, f"unknown field(s) {show(unknown)}; known: {sorted(_GAME_KEYS)}")
        mode = body.get("mode", "play")
        if mode not in ("play", "watch"):
            raise ApiError(400, f"mode must be 'play' or 'watch', got {show(mode)}")
        rules = check_game_rules(parse_rules(body.get("rules"), body.get("options")))
        n = body.get("num_players")
        if n is not None:
            n = check_int(n, "num_players", 2, 10)
        if mode == "play":
            if "agents" in body:
                raise ApiError(400, "'agents' names every seat of a watched game; a game you play "
                                    "takes 'opponents'")
            opponents = body.get("opponents")
            if opponents is None:
                opponents = ["heuristic"] * ((n or 2) - 1)
            if not isinstance(opponents, list) or not 1 <= len(opponents) <= 9:
                raise ApiError(400, f"opponents must be a list of 1..9 agent specs, got {show(opponents)}")
            if n is not None and n != len(opponents) + 1:
                raise ApiError(400, f"num_players {n} needs {n - 1} opponents, got {len(opponents)}")
            n = len(opponents) + 1
            seat = check_int(body.get("seat", 0), "seat", 0, n - 1)
            others = iter(opponents)
            specs = [HUMAN if i == seat else self.specs.check(next(others), f"opponents[{i - (i > seat)}]")
                     for i in range(n)]
            human: int | None = seat
            perspective = seat
        else:
            if "opponents" in body:
                raise ApiError(400, "a watched game takes 'agents' (one spec per seat), not 'opponents'")
            agents = body.get("agents", ["heuristic"] * (n or 2))
            if not isinstance(agents, list) or not 2 <= len(agents) <= 10:
                raise ApiError(400, f"agents must be a list of 2..10 agent specs, got {show(agents)}")
            if n is not None and n != len(agents):
                raise ApiError(400, f"num_players {n} does not match {len(agents)} agents")
            n = len(agents)
            specs = [self.specs.check(a, f"agents[{i}]") for i, a in enumerate(agents)]
            human = None
            watch = body.get("seat", "all")
            perspective = None if watch == "all" else check_int(
                watch, "seat (of a watched game: 'all' or a seat)", 0, n - 1)
        seed = body.get("seed")
        seed = fresh_seed() if seed is None else check_seed(seed)
        deck, dealer = body.get("deck"), body.get("dealer")
        if dealer is not None:
            dealer = check_int(dealer, "dealer", 0, n - 1)
        if deck is not None and (not isinstance(deck, list)
                                 or not all(isinstance(c, str) and len(c) <= MAX_CARD_CHARS for c in deck)):
            raise ApiError(400, f"deck must be a list of card names (at most {MAX_CARD_CHARS} characters "
                                "each), top first")
        self.store.check_room(owner)
        env = new_env(rules, n)
        if deck is not None:
            try:
                env.engine.check_deck(C.parse_deck(deck, env.colors))
            except ValueError as e:
                raise ApiError(400, f"bad deal: {e}") from None
        agents_by_seat = {i: self.specs.make(sp, rules, n, seed + 1 + i, f"seat {i} ({sp})")
                          for i, sp in enumerate(specs) if i != human}
        gid = self.store.new_id()
        log = None
        if self.log_dir is not None:
            stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
            log = os.path.join(self.log_dir, f"web-{stamp}-{gid}.jsonl")
        try:
            game = Game(gid, mode, env, specs, agents_by_seat, human, seed, log, deck, dealer, perspective,
                        agent_bytes=sum(self.specs.nbytes(sp) for sp in specs))
        except OSError as e:
            raise ApiError(500, f"cannot write the game log {self.specs.relative(str(log))}: "
                                f"{e.strerror or type(e).__name__}") from None
        budget = self.budget()
        with game.lock:  # in the store from here, busy until its first view is built
            try:
                game.token = self.store.add(game, owner)
            except ApiError:
                game.close()
                if log is not None:
                    os.unlink(log)  # the log of a game never played, written by this call
                raise
            game.advance(budget)
            view = game.view()
        return game, {"view": view, "progress": budget.report(waiting=game.waiting())}

    def create_replay(self, text: str, owner: str = "") -> tuple[Replay, dict[str, Any]]:
        try:
            log = read_log(text.splitlines())
        except ValueError as e:
            raise ApiError(400, f"not a game log: {e}") from None
        self.store.check_room(owner)
        rep = Replay(self.store.new_id(), log, self.replay_policies)
        del log, text
        texts = rep.texts()
        with rep.lock:
            rep.token = self.store.add(rep, owner)
            first = rep.frame(0)["frame"]
        return rep, {"id": rep.id, "token": rep.token, "count": rep.count, "header": rep.header,
                     "texts": texts, "frame": first}

    def replay_policies(self, rules: Any, n: int, specs: list[str]) -> dict[int, Any]:
        """The agents of a replayed log's checkpoint seats that this server may load (under its
        checkpoint roots, fitting the log's rules and player count), by seat; the others are
        left out (their frames show no thoughts)."""
        from uno_env.agents import parse_spec

        out: dict[int, Any] = {}
        for seat, spec in enumerate(specs):
            try:
                if not parse_spec(spec).is_policy:
                    continue
                out[seat] = self.specs.make(self.specs.check(spec, f"seat {seat}"), rules, n, seat, f"seat {seat}")
            except (ApiError, ValueError):
                continue
        return out

    def limits(self) -> dict[str, Any]:
        st = self.store
        return {"max_body": self.max_body, "max_log_bytes": self.max_log_bytes,
                "idle_timeout_s": st.idle_timeout, "max_games": st.max_games,
                "max_per_client": st.max_per_client, "max_memory": st.max_bytes,
                "evict_idle_s": st.evict_idle, "request_seconds": self.request_seconds,
                "max_decisions_per_request": self.max_decisions,
                "max_steps_per_request": MAX_STEPS_PER_REQUEST,
                "max_inflight_per_client": MAX_INFLIGHT_PER_CLIENT, "max_uploads": MAX_UPLOADS}

    def meta(self) -> dict[str, Any]:
        from dataclasses import fields

        from uno_env.agents import agent_specs, parse_spec
        from uno_env.agents.checkpoint import IGNORED_RULE_KEYS
        from uno_env.agents.shipped import SHIPPED, SPEC_PREFIX
        from uno_env.game import rules as R

        shipped = [f"{SPEC_PREFIX}:{name}" for name in SHIPPED]  # a damaged card: listed, its error in the cards
        # a shipped agent is offered once, as pretrained:<name>, not again as the checkpoint its
        # package folder links to (checkpoints/<name> in a source tree)
        shipped_dirs = {os.path.realpath(parse_spec(spec).checkpoint_dir()) for spec in shipped}
        checkpoints = [c for c in self.specs.checkpoints()
                       if os.path.realpath(c.split(":", 1)[1]) not in shipped_dirs]
        options = []
        defaults = Rules()
        for f in fields(Rules):
            if f.name == "name":
                continue
            o = {"name": f.name, "type": f.type, "default": getattr(defaults, f.name)}
            if f.name in R._CHOICES:
                o["choices"] = list(R._CHOICES[f.name])
            if isinstance(o["default"], tuple):
                o["default"] = list(o["default"])
            options.append(o)
        return {
            "presets": {k: {kk: list(vv) if isinstance(vv, tuple) else vv for kk, vv in v.items()}
                        for k, v in PRESETS.items()},
            "options": options,
            "agents": [a for a in agent_specs() if a not in ("checkpoint", "pretrained", "module")]
                      + shipped + self.specs.operator_specs,
            "checkpoints": checkpoints,
            # what every policy agent (checkpoint: and pretrained:) was trained for: the page
            # greys out those that do not fit the set-up, whichever way they are named; a damaged
            # card (even a shipped one) is listed with its error
            "checkpoint_cards": self.specs.checkpoint_cards(checkpoints + shipped),
            "ignored_rule_keys": list(IGNORED_RULE_KEYS),
            "view_version": views.VIEW_VERSION,
            "limits": self.limits(),
        }
