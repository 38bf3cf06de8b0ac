"""bench/bench_dataset.py: both sources give their rows and a fitted clone's agreements."""

from __future__ import annotations

import pytest

from helpers import load_script, small_dataset


def test_the_dataset_and_the_collection_are_fitted_and_scored_on_the_same_held_out_rows(tmp_path, monkeypatch):
    pytest.importorskip("minari")
    pytest.importorskip("sb3_contrib")
    small_dataset(tmp_path, monkeypatch, episodes=30, seed=0)
    bench = load_script("bench", "bench_dataset")
    rows = bench.main(["--decisions", "300", "--test-decisions", "200", "--epochs", "1", "--hidden", "16"])
    assert [r["source"] for r in rows] == ["dataset", "collection"]
    assert all(r["rows"] >= 300 and 0.0 <= r["held_out"] <= 1.0 for r in rows)
    assert rows[0]["games"] > rows[1]["games"]  # one recorded seat a game against every seat's decisions
