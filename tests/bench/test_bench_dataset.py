"""bench/bench_dataset.py: both sources give their rows and a fitted clone's agreements."""

from __future__ import annotations

import os

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


def test_both_engines_write_the_same_dataset_side_by_side(tmp_path, monkeypatch):
    pytest.importorskip("minari")
    pytest.importorskip("numba")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    bench = load_script("bench", "bench_dataset_engines")
    rows = bench.main(["--decisions", "200", "--agents", "heuristic", "random"])
    assert [r["engine"] for r in rows] == ["batched", "scalar"]
    assert rows[0]["decisions"] == rows[1]["decisions"] >= 200 and rows[0]["episodes"] == rows[1]["episodes"]
    assert rows[0]["mb"] == rows[1]["mb"] > 0 and rows[0]["ratio"] == 1.0
    assert os.environ["MINARI_DATASETS_PATH"] == str(tmp_path) and not os.listdir(tmp_path)  # restored, removed


def test_play_only_times_the_collectors_without_writing(tmp_path, monkeypatch):
    pytest.importorskip("numba")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    bench = load_script("bench", "bench_dataset_engines")
    rows = bench.main(["--decisions", "100", "--play-only"])
    assert rows[0]["decisions"] == rows[1]["decisions"] >= 100 and all(r["mb"] == 0 for r in rows)
    assert not os.listdir(tmp_path)
