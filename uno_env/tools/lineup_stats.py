"""The statistics of a line-up's games: :func:`aggregate`.

**Statistics** (:mod:`uno_env.tools.stats`). Per agent: wins (``win_rate`` with its Wilson score 95% interval), mean
points scored (``state.scores`` at the end), mean rank (1 = winner; the others by the
points left in their hands, or by game score in multi-round episodes; ties share the mean
rank). Per run: game length in regular turns (``state.turns``) and decisions
(``state.steps``) with percentiles, the win rate by seat and of the first seat. Games cut
at ``rules.max_steps`` are truncated: no one wins them; they are counted and reported.
Duplicate deals make an agent's results in one block negatively correlated (one of them
got the good hand), so the Wilson interval, which assumes independent games, is then
conservative.
"""

from __future__ import annotations

from typing import Any, Sequence

from uno_env.tools.stats import summarize, wilson_interval
from uno_env.tools.table import TableGame


def aggregate(played: list[TableGame], labels: list[str], specs: Sequence[Any], n: int) -> dict[str, Any]:
    games = len(played)
    wins = [0] * n
    points = [0.0] * n
    rank_sum = [0.0] * n
    seat_games = [[0] * n for _ in range(n)]
    seat_wins = [[0] * n for _ in range(n)]
    seat_win_total = [0] * n
    turns, steps = [], []
    truncated = 0
    for t in played:
        rec, entry_seat, winner = t.record, t.entry_seat, t.winner_entry
        turns.append(rec.turns)
        steps.append(rec.steps)
        truncated += rec.truncated
        for e in range(n):
            points[e] += rec.scores[entry_seat[e]]
            rank_sum[e] += t.seat_ranks[entry_seat[e]]
            seat_games[e][entry_seat[e]] += 1
        if winner >= 0:
            wins[winner] += 1
            seat_wins[winner][entry_seat[winner]] += 1
            seat_win_total[entry_seat[winner]] += 1
    agents = []
    for e in range(n):
        lo, hi = wilson_interval(wins[e], games)
        agents.append({
            "entry": e, "label": labels[e],
            "spec": specs[e] if isinstance(specs[e], str) else labels[e],
            "games": games, "wins": wins[e], "win_rate": wins[e] / games if games else 0.0,
            "win_ci95": [lo, hi],
            "mean_points": points[e] / games if games else 0.0,
            "mean_rank": rank_sum[e] / games if games else 0.0,
            "seat_games": seat_games[e], "seat_wins": seat_wins[e],
        })
    seat_rates = []
    for s in range(n):
        lo, hi = wilson_interval(seat_win_total[s], games)
        seat_rates.append({"seat": s, "games": games, "wins": seat_win_total[s],
                           "win_rate": seat_win_total[s] / games if games else 0.0, "win_ci95": [lo, hi]})
    return {
        "games": games,
        "agents": agents,
        "length": {"turns": summarize(turns), "steps": summarize(steps)},
        "seats": seat_rates,
        "first_seat": seat_rates[0] if seat_rates else {},
        "truncated": truncated,
        "truncated_rate": truncated / games if games else 0.0,
    }
