"""Evaluate battle-card agents with the statistics of ``uno-evaluate``.

    from uno_env.battle.tools.evaluate import evaluate
    result = evaluate("battle", ["strong", "random"], games=10_000, seed=0, workers=2)
    result["agents"][0]["win_rate"], result["agents"][0]["win_ci95"], result["shared"]

    uno-evaluate --game battle --agents strong random --games 10000 --seed 0
    uno-evaluate --game elusive --rules elusive-others --agents strong random random --cards my-cards.yaml

The games are played by :class:`BattleTable` through the UNO evaluation tool's own runner
(:func:`uno_env.tools.matches.play_matches`: worker processes, chunks, progress) and
summarised by its statistics (:func:`uno_env.tools.lineup_stats.aggregate`: Wilson 95%
intervals, ranks, game lengths, the win rate by seat) and reports
(:mod:`uno_env.tools.report`), so a result has the keys and tables of ``evaluate``'s.

**Seats and seeds**, as for UNO: the line-up rotates by one seat every game and seat 0
plays first (the reset option ``first``), so with ``games`` a multiple of the player count
every agent plays every seat equally often; with ``duplicate`` (the default) the ``n``
rotations of a block share one deal (the RNG seeded with ``(seed, game // n)``), so every
agent is dealt every pile of the block; agents are reset with seeds derived from
``(seed, game, entry)``. Game ``g`` depends only on ``(seed, g)``.

**Shared wins** (docs/TMNT-BATTLE.md, C5) count as a win for nobody in ``wins`` and
``win_rate``; ``shared`` counts the games won by several players together and each agent's
``shared_wins`` the games it shared. Rank: the winners first, then by the game's count
(most cards / rounds won, or fewest cards where fewest wins); ``mean_points`` is the mean
of that count (``scores``). ``length``: ``turns`` are rounds, ``steps`` decisions.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from uno_env.agents.arena import IllegalActionError
from uno_env.battle.agents import make_battle_agent
from uno_env.battle.agents.arena import play_game
from uno_env.battle.game import make_encoder, make_engine
from uno_env.battle.game.cards import CardSet, load_cards
from uno_env.battle.game.rules import GameRules, make_rules
from uno_env.tools.evaluate import agent_list
from uno_env.tools.lineup_stats import aggregate
from uno_env.tools.matches import play_matches
from uno_env.tools.table import TableGame, agent_seed, lineup_labels, spec_name
from uno_env.tools.stats import ranks

# the games whose count is "fewest wins" (the others: most)
FEWEST_WINS = ("names", "bonus", "elusive")


def won(reward: float) -> bool:
    """A winner's reward (C5): a share of the win is >= 0, a loss is -1/(n-1)."""
    return reward >= 0


@dataclass(frozen=True)
class BattleConfig:
    """What a worker needs to build a table: the game, its rules and card set."""

    game: str
    rules: GameRules
    cards: CardSet

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "rules": self.rules.to_dict(), "cards": self.cards.to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "BattleConfig":
        return cls(d["game"], make_rules(d["game"], d["rules"]), load_cards(d["cards"]))

    @property
    def name(self) -> str:
        return f"{self.game} ({self.rules.name}, cards {self.cards.name})"


class BattleTable:
    """An engine, encoder and one agent per line-up entry, reused for many games (the
    ``table_cls`` of :func:`uno_env.tools.matches.play_matches`)."""

    def __init__(self, specs: Sequence[Any], config: BattleConfig, num_players: int, seed: int):
        self.config = config
        self.n = num_players
        self.engine = make_engine(config.game, config.rules, config.cards, num_players)
        self.encoder = make_encoder(self.engine)
        self.agents = [make_battle_agent(spec, self.engine, seed=agent_seed(seed, -1, e))
                       for e, spec in enumerate(specs)]
        self.spec_names = [spec_name(s) for s in specs]
        self.labels = lineup_labels(specs)
        self.most = config.game not in FEWEST_WINS

    @classmethod
    def from_config(cls, specs: Sequence[Any], config_dict: dict, num_players: int, seed: int) -> "BattleTable":
        return cls(specs, BattleConfig.from_dict(config_dict), num_players, seed)

    def play(self, seed: int, game: int, duplicate: bool, log_path: str | None = None) -> TableGame:
        n = self.n
        rot = game % n
        seat_entry = tuple((s + rot) % n for s in range(n))
        deal = game // n if duplicate else game
        for e, agent in enumerate(self.agents):
            agent.reset(agent_seed(seed, game, e))
        seat_agents = [self.agents[seat_entry[s]] for s in range(n)]
        try:
            record = play_game(self.engine, seat_agents, np.random.default_rng([seed, deal]), first=0,
                               record_actions=log_path is not None, encoder=self.encoder)
        except IllegalActionError as exc:
            raise IllegalActionError(f"game {game}: {exc}", agent=exc.agent, seat=exc.seat,
                                     action=exc.action, legal=exc.legal) from None
        if log_path is not None:
            from uno_env.battle.tools.gamelog import log_game

            c = self.config
            log_game(log_path, {"game": c.game, "rules": c.rules, "cards": c.cards, "num_players": n},
                     record.actions, np.random.default_rng([seed, deal]), first=0,
                     specs=[self.spec_names[seat_entry[s]] for s in range(n)],
                     agent_seeds=[agent_seed(seed, game, seat_entry[s]) for s in range(n)],
                     meta={"tool": "uno-evaluate", "game": game, "seed": seed, "deal": deal,
                           "duplicate": duplicate, "entries": list(seat_entry)})
        keys = [(0 if won(r) else 1, -x if self.most else x) for r, x in zip(record.rewards, record.scores)]
        return TableGame(game, seat_entry, record, tuple(ranks(keys)))


def evaluate(game: str, agents: Sequence[Any], rules: Any = None, cards: Any = None,
             num_players: int | None = None, games: int = 10_000, seed: int = 0, workers: int = 1,
             duplicate: bool = True, progress: bool = False, mp_context: str | None = None,
             log_dir: str | os.PathLike | None = None, log_games: int | None = None,
             **rule_overrides: Any) -> dict[str, Any]:
    """Play ``games`` games of ``game`` by a line-up of agent specs (``strong``, ``random``)
    and return the statistics of :func:`uno_env.tools.evaluate.evaluate`, plus ``shared``
    (games won by several players) and each agent's ``shared_wins``."""
    r = make_rules(game, rules, **rule_overrides)
    config = BattleConfig(game, r, load_cards(cards))
    agents = agent_list(agents, "agents")
    if not agents:
        raise ValueError("evaluate needs at least one agent")
    n = int(num_players) if num_players is not None else len(agents)
    if len(agents) > n:
        raise ValueError(f"{len(agents)} agents do not fit {n} seats")
    lineup = [agents[i % len(agents)] for i in range(n)]
    if games < 1:
        raise ValueError("games must be >= 1")
    engine = make_engine(game, r, config.cards, n)  # every bad option, card set or size fails here
    for spec in lineup:
        make_battle_agent(spec, engine)
    if log_games is not None and (log_dir is None or int(log_games) < 0):
        raise ValueError("log_games needs log_dir and must be >= 0")
    if log_dir is not None:
        log_dir = os.fspath(log_dir)
        os.makedirs(log_dir, exist_ok=True)
    t0 = time.perf_counter()
    (played,) = play_matches([lineup], config, n, games, seed, workers, duplicate, progress,
                              mp_context=mp_context, log_dir=log_dir,
                              log_games=None if log_games is None else int(log_games), table_cls=BattleTable)
    elapsed = time.perf_counter() - t0
    labels = lineup_labels(lineup)
    result = aggregate(played, labels, lineup, n)
    shared = [0] * n
    for t in played:
        if t.record.winner < 0:
            for e, reward in enumerate(t.by_entry(t.record.rewards)):
                shared[e] += won(reward)
    for a in result["agents"]:
        a["shared_wins"] = shared[a["entry"]]
    result["shared"] = sum(t.record.winner < 0 for t in played)
    result["config"] = {"game": game, "agents": [str(a) for a in lineup], "rules": config.name,
                        "rule_options": r.to_dict(), "cards": config.cards.name, "num_players": n,
                        "games": games, "seed": seed, "workers": workers, "duplicate": duplicate}
    if log_dir is not None:
        result["config"]["log_dir"] = log_dir
        result["config"]["logged_games"] = games if log_games is None else min(games, int(log_games))
    result["elapsed_s"] = elapsed
    result["games_per_s"] = games / elapsed if elapsed > 0 else float("inf")
    return result


def format_shared(result: dict[str, Any]) -> tuple[str, list[str], list[list[str]]]:
    """The table of shared wins (docs/TMNT-BATTLE.md C5), beside :func:`uno_env.tools.report.format_result`'s."""
    games = max(1, result["games"])
    rows = [[a["label"], str(a["shared_wins"]), f"{100 * a['shared_wins'] / games:.1f}%"] for a in result["agents"]]
    return (f"shared wins: {result['shared']} games ({100 * result['shared'] / games:.1f}%) were won by several "
            f"players together (a win for nobody above)", ["agent", "shared", "rate"], rows)


def cli_main(parser: Any, args: Any, overrides: dict[str, Any], error: Any) -> int:
    """``uno-evaluate --game GAME ...`` (:mod:`uno_env.tools.evaluate_cli` hands over its
    parsed arguments): the line-up of ``--agents`` with the same tables and files."""
    from uno_env.tools.report import PNG_NEEDS_MATPLOTLIB, format_result, print_tables, write_outputs

    if not args.agents:
        parser.error(f"--game {args.game} supports --agents only (no --pool, no --paired)")
    try:
        result = evaluate(args.game, args.agents, rules=args.rules, cards=args.cards,
                          num_players=args.num_players, games=args.games, seed=args.seed, workers=args.workers,
                          duplicate=args.duplicate, progress=args.progress, log_dir=args.log_dir,
                          log_games=args.log_games, **overrides)
    except ValueError as exc:
        return error(str(exc))
    if not args.quiet:
        print_tables(format_result(result) + [format_shared(result)])
    if args.out:
        try:
            paths = write_outputs(result, args.out, "evaluation")
        except OSError as exc:
            return error(f"cannot write --out {args.out!r}: {exc}")
        if not args.quiet:
            print("wrote " + ", ".join(paths.values()))
        if "png" not in paths:
            print(f"note: evaluation.png not written: {PNG_NEEDS_MATPLOTLIB}")
    if args.log_dir and not args.quiet:
        print(f"wrote {result['config']['logged_games']} game logs to {args.log_dir}")
    return 0
