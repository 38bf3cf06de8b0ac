"""The round robin of a pool (``uno_env.tools.pool``): every table played, ratings and
head-to-head rates, bad pools refused."""

from __future__ import annotations

import numpy as np
import pytest

from uno_env.tools.pool import evaluate_pool


def test_pool_round_robin():
    r = evaluate_pool(["heuristic", "greedy", "random"], games=40, seed=0)
    assert len(r["matches"]) == 3
    assert sorted(x["agent"] for x in r["ratings"]) == ["greedy", "heuristic", "random"]
    elos = [x["elo"] for x in r["ratings"]]
    assert elos == sorted(elos, reverse=True)
    assert np.mean(elos) == pytest.approx(1500.0)
    h2h = r["head_to_head"]["ahead_rate"]
    for i in range(3):
        assert h2h[i][i] is None
        for j in range(3):
            if i != j:
                assert h2h[i][j] + h2h[j][i] == pytest.approx(1.0)
                assert r["head_to_head"]["games"][i][j] == 40
    assert all(x["games"] == 80 for x in r["ratings"])


def test_pool_tables_of_three():
    r = evaluate_pool(["heuristic", "greedy", "random", "heuristic:bluff=0"], table_size=3, games=6, seed=0)
    assert len(r["matches"]) == 4
    assert all(x["games"] == 18 for x in r["ratings"])


def test_pool_rejects_bad_input():
    with pytest.raises(ValueError):
        evaluate_pool(["random"], games=2)
    with pytest.raises(ValueError):
        evaluate_pool(["random", "random"], games=2)
