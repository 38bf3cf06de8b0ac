"""The statistics of the evaluation tool: Wilson intervals, summaries, ranks, Bradley-Terry / Elo."""

from __future__ import annotations

import math

import numpy as np
import pytest

from uno_env.tools.stats import Z95, bradley_terry, elo_from_bt, mean_interval, ranks, summarize, wilson_interval


# ---------------------------------------------------------------------- statistics
@pytest.mark.parametrize("k,n,lo,hi", [
    (5, 10, 0.2365930905, 0.7634069095),  # statsmodels proportion_confint(5, 10, method="wilson")
    (0, 10, 0.0, 0.2775327999),  # upper = z^2 / (n + z^2)
    (10, 10, 0.7224672001, 1.0),  # lower = n / (n + z^2)
    (81, 263, 0.2552885199, 0.3662095770),
    (6800, 10000, 0.6707896100, 0.6890721506),
])
def test_wilson_interval_known_values(k, n, lo, hi):
    a, b = wilson_interval(k, n)
    assert a == pytest.approx(lo, abs=1e-9)
    assert b == pytest.approx(hi, abs=1e-9)


@pytest.mark.parametrize("k,n", [(1, 3), (37, 100), (500, 1000), (2, 50000)])
def test_wilson_bounds_solve_the_score_equation(k, n):
    """Each bound p satisfies (p_hat - p)^2 = z^2 p (1 - p) / n (the score test's boundary)."""
    z = 1.959963984540054
    p_hat = k / n
    for p in wilson_interval(k, n):
        assert (p_hat - p) ** 2 == pytest.approx(z * z * p * (1 - p) / n, rel=1e-9, abs=1e-15)
    lo, hi = wilson_interval(k, n)
    assert lo < p_hat < hi


def test_wilson_edge_cases():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo90, hi90 = wilson_interval(30, 100, z=1.6448536269514722)
    lo95, hi95 = wilson_interval(30, 100)
    assert lo95 < lo90 < 0.3 < hi90 < hi95


def test_mean_interval_is_the_mean_plus_minus_z_standard_errors():
    diffs = [1, 0, 0, -1, 1, 1, 0, 0]  # paired differences, game by game
    mean, lo, hi = mean_interval(diffs)
    se = math.sqrt(sum((x - 0.25) ** 2 for x in diffs) / 7 / 8)
    assert mean == 0.25 and lo == pytest.approx(0.25 - Z95 * se) and hi == pytest.approx(0.25 + Z95 * se)
    assert mean_interval(diffs, z=1.0)[2] == pytest.approx(0.25 + se)
    assert mean_interval([0.5]) == (0.5, -math.inf, math.inf)
    with pytest.raises(ValueError, match="no values"):
        mean_interval([])


def test_summarize_percentiles():
    s = summarize(list(range(1, 101)))
    assert s["mean"] == pytest.approx(50.5)
    assert s["p50"] == pytest.approx(50.5)
    assert s["min"] == 1 and s["max"] == 100 and s["count"] == 100
    assert summarize([]) == {"count": 0}


def test_bradley_terry_two_players():
    logp = bradley_terry(np.array([[0, 30], [10, 0]]), prior=0.0)
    assert logp[0] - logp[1] == pytest.approx(math.log(3.0), rel=1e-6)
    elo = elo_from_bt(logp)
    assert elo.mean() == pytest.approx(1500.0)
    assert elo[0] - elo[1] == pytest.approx(400 * math.log10(3.0), rel=1e-6)


def test_bradley_terry_undefeated_is_finite_and_transitive():
    wins = np.array([[0, 20, 20], [0, 0, 15], [0, 5, 0]])
    logp = bradley_terry(wins)
    assert np.all(np.isfinite(logp))
    assert logp[0] > logp[1] > logp[2]


def test_ranks_smaller_key_is_better_and_ties_share_the_mean_rank():
    assert ranks([3, 1, 2]) == [3.0, 1.0, 2.0]
    assert ranks([(0, 5), (1, 7), (1, 7), (1, 2)]) == [1.0, 3.5, 3.5, 2.0]
    assert ranks([4, 4, 4]) == [2.0, 2.0, 2.0]
    assert ranks([]) == []
    r = ranks([9, 2, 9, 0, 5])
    assert sum(r) == pytest.approx(15.0)  # ranks 1..5 are conserved under ties


def test_bradley_terry_ignores_pairs_that_never_met():
    """Three agents where 0 and 2 never met: the prior adds no virtual games between them,
    and 0 > 1 > 2 from the chain of results."""
    wins = np.array([[0, 12, 0], [4, 0, 9], [0, 3, 0]])
    logp = bradley_terry(wins)
    assert logp.mean() == pytest.approx(0.0, abs=1e-12)
    assert logp[0] > logp[1] > logp[2]
    elo = elo_from_bt(logp, mean=1000.0)
    assert elo.mean() == pytest.approx(1000.0)
