"""Games of one line-up at one table: who sits where, the seeds, the ranks, the game logs.

:class:`Table` holds an engine, an encoder and one agent per line-up entry and plays game
``g`` of a run (:meth:`Table.play`); :mod:`uno_env.tools.matches` plays many of them, in
worker processes, and :mod:`uno_env.tools.evaluate` / :mod:`uno_env.tools.pool` /
:mod:`uno_env.tools.ladder` turn them into results.

**How games are played.** By the arena, :func:`uno_env.agents.arena.play_game`, straight on
the engine (``Engine.new_state`` / ``legal_actions`` / ``step``): each deciding seat gets
``ObservationEncoder.encode`` and the action mask of the legal actions, and its agent's
``act(observation, mask)`` answers, so any :class:`~uno_env.agents.base.Agent` (scripted
bots, ``checkpoint:<path>`` models, instances passed in) plays through the same interface
as in the AEC env. An illegal answer stops the run with
:class:`~uno_env.agents.arena.IllegalActionError` (a ``ValueError``) naming the game.

**Seats and seeds.** The dealer is the last seat, so seat 0 plays first. The agents of a
line-up sit in a rotation that moves by one seat every game, so with ``games`` a multiple
of the player count every agent plays every seat equally often. With ``duplicate`` (the
default) the ``n`` rotations of a block share one shuffled deck: every agent is dealt
every hand of the block, which removes most of the luck of the deal from comparisons.
Game ``g`` depends only on ``(seed, g)``: the deck/engine RNG is seeded with
``(seed, g // n)`` (``(seed, g)`` without duplicate) and every agent is reset with a
seed derived from ``(seed, g, entry)``. A run therefore gives the same games with any
number of workers, so ``workers`` is a maximum (:func:`worker_plan`): one process per task of
games at most, and per CPU this process may use.

**Game logs.** With ``log_dir`` (``--log-dir DIR``; ``log_games`` / ``--log-games N``: only
games ``0..N-1``) game ``g`` is also written to ``DIR/game-{g:06d}.jsonl``, a JSON Lines log
of :mod:`uno_env.tools.gamelog` (one record per decision) that
:func:`uno_env.tools.gamelog_replay.replay` (or ``uno-replay``) replays exactly. The arena keeps the action ids of a logged
game (``record_actions``) and the log is written afterwards with :func:`uno_env.tools.gamelog.log_game` from a fresh
generator seeded like the game's, the dealer, the spec of every seat, the agents' seeds and
``meta`` (``tool``, ``game``, ``seed``, ``deal``, ``duplicate``, ``entries``: the line-up
entry at each seat, ``labels``). Every worker writes the logs of the games it plays; games
that are not logged keep no actions.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from uno_env.agents.arena import GameRecord, IllegalActionError, play_game
from uno_env.game.engine import Engine
from uno_env.game.observation import ObservationEncoder
from uno_env.game.rules import Rules, make_rules
from uno_env.tools.stats import ranks


@dataclass(frozen=True)
class TableGame:
    """One game of a line-up: its number, who sat where, its arena record and ranks."""

    game: int
    seat_entry: tuple[int, ...]  # line-up entry at each seat
    record: GameRecord
    seat_ranks: tuple[float, ...]  # per seat: 1 = winner, then by points left / game score

    @property
    def entry_seat(self) -> list[int]:
        """Seat of each line-up entry."""
        out = [0] * len(self.seat_entry)
        for s, e in enumerate(self.seat_entry):
            out[e] = s
        return out

    @property
    def winner_entry(self) -> int:
        """Line-up entry of the winner, -1 if truncated."""
        w = self.record.winner
        return self.seat_entry[w] if w >= 0 else -1

    def by_entry(self, per_seat: Sequence[Any]) -> list[Any]:
        """A per-seat sequence reordered by line-up entry."""
        return [per_seat[s] for s in self.entry_seat]


def agent_seed(seed: int, game: int, entry: int) -> int:
    """The seed an agent is reset with for game ``game`` (-1: construction)."""
    state = np.random.SeedSequence([seed, game + 1, entry, 0x5EA7]).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


def rank_keys(record: GameRecord, multi_round: bool, alternative: bool) -> list[tuple]:
    """Per seat: the key that orders the finish (smaller is better): the winner first, then
    fewer points left in hand (one round) or the game score (higher; alternative scoring:
    lower tally)."""
    winner = record.winner
    if multi_round:
        return [(0 if s == winner else 1, (x if alternative else -x)) for s, x in enumerate(record.scores)]
    return [(0 if s == winner else 1, x) for s, x in enumerate(record.hand_points)]


class Table:
    """An engine, encoder and one agent per line-up entry, reused for many games."""

    def __init__(self, specs: Sequence[Any], rules: Rules, num_players: int, seed: int):
        from uno_env.agents import make_agent

        self.rules = rules
        self.n = num_players
        self.engine = Engine(rules, num_players)
        self.encoder = ObservationEncoder(self.engine)
        self.agents = [make_agent(spec, rules, num_players, seed=agent_seed(seed, -1, e))
                       for e, spec in enumerate(specs)]
        self.spec_names = [spec_name(s) for s in specs]
        self.labels = lineup_labels(specs)
        self.multi_round = rules.episode != "round"
        self.alternative = rules.scoring == "alternative"

    @classmethod
    def from_config(cls, specs: Sequence[Any], rules_dict: dict, num_players: int, seed: int) -> "Table":
        """A table in a worker process, from the ``rules.to_dict()`` the task carries."""
        return cls(specs, make_rules(rules_dict), num_players, seed)

    def play(self, seed: int, game: int, duplicate: bool, log_path: str | None = None) -> TableGame:
        """Play game ``game``; with ``log_path`` its log is written there afterwards."""
        n = self.n
        rot = game % n
        seat_entry = tuple((s + rot) % n for s in range(n))  # entry sitting at each seat
        deal = game // n if duplicate else game
        for e, agent in enumerate(self.agents):
            agent.reset(agent_seed(seed, game, e))
        seat_agents = [self.agents[seat_entry[s]] for s in range(n)]
        try:
            record = play_game(self.engine, seat_agents, np.random.default_rng([seed, deal]), dealer=n - 1,
                               record_actions=log_path is not None, encoder=self.encoder)
        except IllegalActionError as exc:
            raise IllegalActionError(f"game {game}: {exc}", agent=exc.agent, seat=exc.seat,
                                     action=exc.action, legal=exc.legal) from None
        if log_path is not None:
            self._write_log(log_path, seed, game, deal, duplicate, seat_entry, record.actions)
        seat_ranks = ranks(rank_keys(record, self.multi_round, self.alternative))
        return TableGame(game, seat_entry, record, tuple(seat_ranks))

    def _write_log(self, path: str, seed: int, game: int, deal: int, duplicate: bool,
                   seat_entry: Sequence[int], actions: Sequence[int]) -> None:
        """Write the log of a game just played from a fresh generator seeded like its deal."""
        from uno_env.tools.gamelog import log_game

        n = self.n
        log_game(path, self.rules, n, actions, rng=np.random.default_rng([seed, deal]), dealer=n - 1,
                 specs=[self.spec_names[seat_entry[s]] for s in range(n)],
                 agent_seeds=[agent_seed(seed, game, seat_entry[s]) for s in range(n)],
                 meta={"tool": "uno-evaluate", "game": game, "seed": seed, "deal": deal,
                       "duplicate": duplicate, "entries": list(seat_entry),
                       "labels": [self.labels[seat_entry[s]] for s in range(n)]})


def game_log_path(log_dir: str, game: int) -> str:
    """The log file of game ``game`` in ``log_dir``."""
    return os.path.join(log_dir, f"game-{game:06d}.jsonl")


def spec_name(spec: Any) -> str:
    """An agent spec string as it is, or an agent instance's ``name`` (else its class name)."""
    return spec if isinstance(spec, str) else getattr(spec, "name", type(spec).__name__)


def lineup_labels(specs: Sequence[Any]) -> list[str]:
    """Line-up labels: the spec names, a repeated name numbered from its second entry (``#2``)."""
    seen: dict[str, int] = {}
    out = []
    for name in map(spec_name, specs):
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out
