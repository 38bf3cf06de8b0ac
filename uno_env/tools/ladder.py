"""The ladder: every bot and pretrained agent rated at every table the project plays.

    uno-evaluate --ladder --markdown docs/LADDER.md       # the docs' table (bash scripts/ladder.sh)
    uno-evaluate --ladder --games 200 --slow-games 4 --out runs/ladder   # ladder.json, quicker

    from uno_env.tools.ladder import run_ladder, ladder_markdown
    result = run_ladder(games=400, slow_games=4, seed=0, workers=2)

**Tables.** :data:`TABLES`: the presets ``classic``, ``tmnt`` and ``house`` at 2 and 4 players.
At each, the agents (:func:`table_agents`) are the bots of :data:`BOTS` and every pretrained
agent (:func:`uno_env.agents.pretrained`) whose card is for that preset and player count.

**Matches.** The *fast* agents play every table of ``num_players`` distinct fast agents
(every pair at 2 players), ``games`` games each. When there are fewer fast agents than
seats, the table is filled with :data:`FILLER` (``random``) seats that play but are not rated
(their finish is left out of the game's ranking). A *slow* agent (:data:`SLOW`: ``search``,
about 2 s of CPU a game of ``classic``, 25 s a game of ``house``) plays ``slow_games`` games
at every table of itself and ``num_players - 1`` fast agents (none with ``slow_games=0``), and
sits out the rulesets of :data:`SLOW_SKIPPED` (``house``: too slow for a ladder that fits in minutes). Every match is
played as :mod:`uno_env.tools.table` plays a line-up: seats rotated every game, duplicate
deals, game ``g`` seeded by ``(seed, g)`` whatever the workers. A table's fast matches play on the batched
engine when every fast agent plays there (:mod:`uno_env.agents.batched`: compiled bots and
pretrained policies; ``engine="auto"``), else all of them in the scalar arena; the slow ones
likewise (``search`` plays in the arena); the table's ``engines`` says which.

**Ratings** are OpenSkill's Plackett-Luce model (the ``openskill`` package, ``pip install
"uno_env[ladder]"``; the Weng-Lin Bayesian rating for games of several players): every
agent starts at mu 25, sigma 25/3, and each game updates the rated agents at the table from
its result: the winner first, every other rated agent tied behind it (:func:`result_ranks`:
a round of UNO has one winner; the places behind it go by points left in hand, which the bots
do not play for, and rating the full order ranked the heuristic, which wins 41% of 4-player
TMNT games against random and greedy, below both). The
games of a table's matches are taken in turn, game 0 of every match, then game 1..., so no
match comes last. Truncated games (no winner) update nothing. The ladder orders agents by
the ordinal, mu - 3 sigma (a conservative skill: an agent with few games, ``search``, has a
wide sigma and a low ordinal until it has played more).

**Head-to-head** rates: how often the row agent finished ahead of the column agent in the
games where both were rated (the full finishing order: the winner, then by points left in
hand; ties half), as ``uno-evaluate --pool`` reports it; at 2 players that is the win rate of
the pair. Every figure in ``docs/LADDER.md`` is what :func:`ladder_markdown`
printed from a run, with the command that made it.
"""

from __future__ import annotations

import itertools
import time
from typing import Any, Sequence

import numpy as np

from uno_env.game.rules import make_rules
from uno_env.tools.matches import choose_engine, play_matches

TABLES = tuple((preset, n) for preset in ("classic", "tmnt", "house") for n in (2, 4))
BOTS = ("random", "greedy", "heuristic", "search")
SLOW = frozenset({"search"})  # fewer games: slow_games
SLOW_SKIPPED = frozenset({"house"})  # rulesets where the slow agents sit out
FILLER = "random"  # an unrated seat where the fast agents are fewer than the seats
DEFAULT_GAMES = 400  # per match of fast agents (a multiple of 4: every seat equally often)
DEFAULT_SLOW_GAMES = 4  # per match of a slow agent (one rotation of 4 seats)


def table_agents(preset: str, num_players: int) -> list[str]:
    """The agents rated at a table: the bots (the slow ones but where they sit out), then the
    pretrained agents whose card is for ``preset`` and ``num_players``."""
    from uno_env.agents import pretrained

    bots = [b for b in BOTS if not (b in SLOW and preset in SLOW_SKIPPED)]
    return bots + [p.spec for p in pretrained() if p.rules == preset and p.num_players == num_players]


def table_matches(agents: Sequence[str], num_players: int) -> tuple[list[list[str]], list[list[str]]]:
    """``(fast, slow)`` line-ups: every table of distinct fast agents (filled with
    :data:`FILLER`), and every table of one slow agent with fast ones. A line-up's rated
    entries are its first ``min(num_players, fast agents)``; fillers come after them."""
    fast = [a for a in agents if a not in SLOW]
    slow = [a for a in agents if a in SLOW]
    size = min(num_players, len(fast))
    if size < 2 and not (size == 1 and slow):
        raise ValueError(f"a ladder table needs two agents to rate, got {list(agents)}")
    fill = [FILLER] * (num_players - size)
    fast_lineups = [list(c) + fill for c in itertools.combinations(fast, size)] if size >= 2 else []
    others = min(num_players - 1, len(fast))
    slow_lineups = [[s] + list(c) + [FILLER] * (num_players - 1 - others)
                    for s in slow for c in itertools.combinations(fast, others)]
    return fast_lineups, slow_lineups


def result_ranks(winner_entry: int, rated: int) -> list[int]:
    """The ranks a game gives OpenSkill: the winner 1, every other rated agent 2 (a round of UNO
    is won by one player: the places behind it are points in hand, which no bot plays for)."""
    return [1 if e == winner_entry else 2 for e in range(rated)]


def _rated(lineup: Sequence[str], num_players: int, fast_count: int) -> int:
    """How many leading entries of a line-up are rated (the rest are fillers)."""
    slow = lineup[0] in SLOW
    return (1 + min(num_players - 1, fast_count)) if slow else min(num_players, fast_count)


def rate_table(preset: str, num_players: int, agents: Sequence[str] | None = None, games: int = DEFAULT_GAMES,
               slow_games: int = DEFAULT_SLOW_GAMES, seed: int = 0, workers: int = 1,
               progress: bool = False, engine: str = "auto") -> dict[str, Any]:
    """Play and rate one table (module doc): ``preset``, ``num_players``, ``agents`` (default
    :func:`table_agents`), ``ratings`` (best first: ``agent``, ``mu``, ``sigma``, ``ordinal``,
    ``games``, ``wins``, ``win_rate``), ``head_to_head`` (``agents``, ``ahead_rate[i][j]``,
    ``games[i][j]``), ``matches`` (per line-up: ``agents``, ``rated``, ``games``),
    ``truncated``, ``engines`` (``fast`` and ``slow`` matches: ``engine`` and ``note``, as
    :func:`~uno_env.tools.matches.choose_engine` chose from ``engine``: the fast matches play
    batched only when all of them can), ``elapsed_s``. ``ValueError`` for an agent given twice
    (it would be rated against itself, each game counted twice), ``games < 1`` or
    ``slow_games < 0``."""
    from openskill.models import PlackettLuce

    _check_counts(games, slow_games)
    rules = make_rules(preset)
    agents = list(table_agents(preset, num_players) if agents is None else agents)
    names = [str(a) for a in agents]
    twice = sorted({a for a in names if names.count(a) > 1})
    if twice:  # one agent rated against itself, its games counted twice
        raise ValueError(f"ladder agents must be distinct, got {names} ({', '.join(map(repr, twice))} twice)")
    if slow_games == 0:  # the slow agents sit out
        agents = [a for a in agents if a not in SLOW]
    fast_lineups, slow_lineups = table_matches(agents, num_players)
    fast_count = sum(a not in SLOW for a in agents)
    t0 = time.perf_counter()
    played, engines = [], {}
    for lineups, count in ((fast_lineups, games), (slow_lineups, slow_games)):
        if lineups and count > 0:
            used, why = choose_engine(lineups, rules, num_players, engine)
            engines["slow" if lineups is slow_lineups else "fast"] = {"engine": used, "note": why}
            played += list(zip(lineups, play_matches(lineups, rules, num_players, count, seed, workers, True,
                                                     progress, desc=f"{preset} {num_players}p", engine=used)))
    model = PlackettLuce()
    rating = {a: model.rating(name=a) for a in agents}
    index = {a: i for i, a in enumerate(agents)}
    k = len(agents)
    ahead, shared = np.zeros((k, k)), np.zeros((k, k))
    wins, count_games = np.zeros(k), np.zeros(k)
    truncated = 0
    longest = max((len(g) for _, g in played), default=0)
    for g in range(longest):  # game g of every match, then g + 1
        for lineup, table_games in played:
            if g >= len(table_games):
                continue
            game = table_games[g]
            rated = lineup[:_rated(lineup, num_players, fast_count)]
            if game.record.truncated:
                truncated += 1
            rank = game.by_entry(game.seat_ranks)[:len(rated)]
            ids = [index[a] for a in rated]
            for a, i in enumerate(ids):
                count_games[i] += 1
                wins[i] += game.winner_entry == a
                for b, j in enumerate(ids):
                    if a != b:
                        shared[i, j] += 1
                        ahead[i, j] += 1.0 if rank[a] < rank[b] else (0.5 if rank[a] == rank[b] else 0.0)
            if game.record.truncated:
                continue
            new = model.rate([[rating[a]] for a in rated], ranks=result_ranks(game.winner_entry, len(rated)))
            for a, team in zip(rated, new):
                rating[a] = team[0]
    order = sorted(agents, key=lambda a: -rating[a].ordinal())
    ratings = [{"agent": a, "mu": rating[a].mu, "sigma": rating[a].sigma, "ordinal": rating[a].ordinal(),
                "games": int(count_games[index[a]]), "wins": int(wins[index[a]]),
                "win_rate": float(wins[index[a]] / count_games[index[a]]) if count_games[index[a]] else 0.0}
               for a in order]
    h2h = [[None if shared[index[a], index[b]] == 0 else float(ahead[index[a], index[b]] / shared[index[a], index[b]])
            for b in order] for a in order]
    return {"preset": preset, "num_players": num_players, "agents": agents, "ratings": ratings,
            "head_to_head": {"agents": order, "ahead_rate": h2h,
                             "games": [[int(shared[index[a], index[b]]) for b in order] for a in order]},
            "matches": [{"agents": list(lineup), "rated": _rated(lineup, num_players, fast_count),
                         "games": len(table_games)} for lineup, table_games in played],
            "truncated": truncated, "engines": engines, "elapsed_s": time.perf_counter() - t0}


def _check_counts(games: Any, slow_games: Any) -> None:
    """``games >= 1`` and ``slow_games >= 0`` (integers); ``ValueError`` otherwise."""
    for name, value, low in (("games", games, 1), ("slow_games", slow_games, 0)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"games must be >= 1 and slow_games >= 0, got {name}={value!r}")


def check_table(table: Any, index: int = 0) -> tuple[str, int]:
    """A ladder table ``(preset, num_players)``: a rules preset and 2..10 players; ``ValueError``
    naming the table and what is wrong (every table is checked before any is played)."""
    try:
        preset, n = table
    except (TypeError, ValueError):
        raise ValueError(f"tables[{index}] must be a pair (preset, num_players), got {table!r}") from None
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 2 <= n <= 10:
        raise ValueError(f"tables[{index}] {table!r}: the player count must be an integer in 2..10, got {n!r}")
    if not isinstance(preset, str):
        raise ValueError(f"tables[{index}] {table!r}: the rules must be a preset name, got {preset!r}")
    try:
        make_rules(preset)
    except ValueError as e:
        raise ValueError(f"tables[{index}] {table!r}: {e}") from None
    return preset, int(n)


def run_ladder(games: int = DEFAULT_GAMES, slow_games: int = DEFAULT_SLOW_GAMES, seed: int = 0, workers: int = 1,
               progress: bool = False, tables: Sequence[tuple[str, int]] | None = None,
               engine: str = "auto") -> dict[str, Any]:
    """Every table of ``tables`` (default :data:`TABLES`; :func:`rate_table`), each checked
    (:func:`check_table`) before any is played; ``config`` records the arguments."""
    import openskill

    import uno_env

    _check_counts(games, slow_games)
    tables = TABLES if tables is None else [check_table(t, i) for i, t in enumerate(tables)]
    t0 = time.perf_counter()
    out = [rate_table(preset, n, games=games, slow_games=slow_games, seed=seed, workers=workers,
                      progress=progress, engine=engine) for preset, n in tables]
    return {"config": {"games": games, "slow_games": slow_games, "seed": seed, "workers": workers, "engine": engine,
                       "tables": [list(t) for t in tables], "bots": list(BOTS), "slow": sorted(SLOW),
                       "slow_skipped": sorted(SLOW_SKIPPED), "filler": FILLER,
                       "uno_env": uno_env.__version__, "openskill": openskill.__version__},
            "tables": out, "elapsed_s": time.perf_counter() - t0}


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


# The exploitability section of docs/LADDER.md (bench/exploitability.py writes it between these
# markers; a ladder written over a page that has one keeps it: :func:`keep_exploitability`).
EXPLOITABILITY_BEGIN, EXPLOITABILITY_END = "<!-- exploitability: begin -->", "<!-- exploitability: end -->"


def exploitability_section(text: str) -> str | None:
    """The exploitability section of a page (markers included), or None (no begin marker with an
    end marker after it)."""
    begin = text.find(EXPLOITABILITY_BEGIN)
    if begin < 0 or text.find(EXPLOITABILITY_END, begin) < 0:
        return None
    body = text.split(EXPLOITABILITY_BEGIN, 1)[1]
    return EXPLOITABILITY_BEGIN + body.split(EXPLOITABILITY_END, 1)[0] + EXPLOITABILITY_END


def with_exploitability(text: str, section: str) -> str:
    """``text`` with its exploitability section replaced by ``section`` (appended if it has none)."""
    if exploitability_section(text) is None:
        return (text.rstrip("\n") + "\n\n" if text.strip() else "") + section + "\n"
    head, rest = text.split(EXPLOITABILITY_BEGIN, 1)
    return head + section + rest.split(EXPLOITABILITY_END, 1)[1]


def keep_exploitability(old: str | None, new: str) -> str:
    """A new ladder page that keeps the old page's exploitability section (made by another
    command, ``bench/exploitability.py``, in hours rather than minutes)."""
    section = exploitability_section(old or "")
    return new if section is None else with_exploitability(new, section)


def ladder_markdown(result: dict[str, Any], command: str) -> str:
    """``docs/LADDER.md``: the ratings and head-to-head rates of every table of ``result``."""
    cfg = result["config"]
    lines = ["# The ladder", "",
             "Every bot and pretrained agent rated at every table (preset x players) with OpenSkill "
             "(Plackett-Luce), plus head-to-head rates. Regenerate with:", "",
             "```", command, "```", "",
             f"uno_env {cfg['uno_env']}, openskill {cfg['openskill']}, seed {cfg['seed']}. Each match of "
             f"distinct agents: {cfg['games']:,} games (seats rotated, duplicate deals); "
             + (f"{', '.join(cfg['slow'])}: {cfg['slow_games']} games per match (about 2 s of CPU a game) and "
                f"not at the {', '.join(cfg['slow_skipped'])} tables (about 25 s a game). " if cfg["slow_games"]
                else f"{', '.join(cfg['slow'])} sits out (--slow-games 0). ")
             + f"Where the agents "
             f"are fewer than the seats, `{cfg['filler']}` fills them unrated. Each game rates its winner "
             "above the other rated agents (tied). Ordered by the ordinal mu - 3 sigma (a conservative "
             "skill: few games, wide sigma). Head-to-head: how often the row agent finished ahead of the "
             "column agent (the winner first, then by points left in hand; ties half). How it is computed: "
             "`uno_env/tools/ladder.py`.", ""]
    for table in result["tables"]:
        lines += [f"## {table['preset']}, {table['num_players']} players", "",
                  "| # | agent | ordinal | mu | sigma | games | win rate |",
                  "|---|---|---:|---:|---:|---:|---:|"]
        for i, r in enumerate(table["ratings"], 1):
            lines.append(f"| {i} | `{r['agent']}` | {r['ordinal']:.2f} | {r['mu']:.2f} | {r['sigma']:.2f} | "
                         f"{r['games']:,} | {_pct(r['win_rate'])} |")
        h2h = table["head_to_head"]
        names = h2h["agents"]
        lines += ["", "| ahead of → | " + " | ".join(f"`{b}`" for b in names) + " |",
                  "|---|" + "---:|" * len(names)]
        for a, row in zip(names, h2h["ahead_rate"]):
            lines.append(f"| `{a}` | " + " | ".join(_pct(x) for x in row) + " |")
        lines += ["", f"{sum(m['games'] for m in table['matches']):,} games in {len(table['matches'])} "
                      f"matches, {table['truncated']} truncated, {table['elapsed_s']:.0f} s.", ""]
    return "\n".join(lines)
