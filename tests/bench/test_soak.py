"""bench/soak.py: a short soak is clean, and every kind of broken engine is caught with its seed."""

from __future__ import annotations

import json

import pytest

from helpers import load_script

from uno_env.game import actions as A
from uno_env.game import events as E
from uno_env.game.engine import H_LAST, H_RECEIVED, LAST_RESERVED, Engine

soak = load_script("bench", "soak")


@pytest.mark.parametrize("variant", sorted(soak.VARIANTS))
def test_short_soak_of_every_variant_is_clean_and_counts_every_game(variant):
    t = soak.run_chunk((variant, 0, 18, 4))  # two games per player count, full checks every 4 decisions
    assert t.failed == 0, t.failures
    assert t.games == 18 and t.decisions > 18
    assert sorted(t.by_players) == list(soak.PLAYER_COUNTS)
    assert all(row[0] == 2 for row in t.by_players.values())
    assert sum(row[1] for row in t.by_players.values()) == t.decisions


def test_a_game_is_its_seed():
    a = soak.play_game("house-explicit", 7, 1000)
    b = soak.play_game("house-explicit", 7, 1)  # checking more often does not change the game
    assert a == b
    assert a.n == soak.PLAYER_COUNTS[7 % 9]


def test_purely_uniform_house_games_are_truncated_with_zero_returns():
    seeds = [s for s in range(2000) if soak.game_setup("house", s)[2] == 1.0][:2]
    assert seeds, "no purely uniform game among the first seeds"
    for seed in seeds:
        r = soak.play_game("house", seed, 256)
        assert r.truncated and r.decisions == soak.UNIFORM_MAX_STEPS


def test_a_lost_card_is_reported_with_the_seed_that_reproduces_it(monkeypatch, capsys):
    original = Engine._draw_one

    def leaky(self, s, p):  # the 5th card drawn in a game vanishes
        k = original(self, s, p)
        s.leak = getattr(s, "leak", 0) + 1
        if s.leak == 5 and k >= 0:
            self._remove(s, p, k)
        return k

    monkeypatch.setattr(Engine, "_draw_one", leaky)
    t = soak.run_chunk(("classic", 100, 3, 64))
    assert t.failed == 3
    seed, message = t.failures[0]
    assert seed == 100 and "card total changed" in message
    assert soak.main(["--repro", f"classic:{seed}"]) == 1
    assert "card total" in capsys.readouterr().err  # found on a copy or after the step


def test_a_legal_action_that_step_rejects_is_caught_on_a_copy(monkeypatch):
    original = Engine.step

    def refuses_to_draw(self, s, action):
        if action == A.DRAW:
            raise ValueError("draw refused")
        original(self, s, action)

    monkeypatch.setattr(Engine, "step", refuses_to_draw)
    with pytest.raises(soak.SoakFailure, match=r"legal action 68 \(draw\) rejected: ValueError: draw refused"):
        soak.play_game("classic", 3, 1)


def test_an_empty_legal_set_before_the_end_is_a_failure(monkeypatch):
    original = Engine.legal_actions
    monkeypatch.setattr(Engine, "legal_actions", lambda self, s: [] if s.steps == 10 else original(self, s))
    with pytest.raises(soak.SoakFailure, match="decision 10: no legal action"):
        soak.play_game("tmnt", 2, 1000)


def test_returns_that_do_not_sum_to_zero_are_a_failure(monkeypatch):
    monkeypatch.setattr(Engine, "returns", lambda self, s: [1.0] * s.n)
    with pytest.raises(soak.SoakFailure, match="do not sum to 0"):
        soak.play_game("classic", 0, 1000)


def test_cli_prints_the_summary_table_and_writes_json(tmp_path, capsys):
    assert soak.main(["--variants", "tmnt-explicit", "--games", "9", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| tmnt-explicit | 9 |" in out and "failures" in out
    report = (tmp_path / "soak.json").read_text()
    assert '"games": 9' in report and '"failed": 0' in report


def test_cli_rejects_a_bad_repro_spec_with_exit_code_2(capsys):
    assert soak.main(["--repro", "poker:1"]) == 2
    assert "VARIANT:SEED" in capsys.readouterr().err


def test_a_missing_event_is_caught_against_the_state(monkeypatch):
    feed = soak.PublicTable.feed
    monkeypatch.setattr(soak.PublicTable, "feed",
                        lambda self, events: feed(self, [ev for ev in events if ev.kind != E.DREW]))
    with pytest.raises(soak.SoakFailure, match="the events disagree with the state: hand sizes"):
        soak.play_game("classic", 9, 1000)


def test_an_event_that_names_a_drawn_card_is_caught(monkeypatch):
    feed = soak.PublicTable.feed
    monkeypatch.setattr(soak.PublicTable, "feed", lambda self, events: feed(
        self, [ev._replace(card=0) if ev.kind == E.DREW else ev for ev in events]))
    with pytest.raises(soak.SoakFailure, match="event drew names a card"):
        soak.play_game("classic", 9, 1000)


def test_recording_events_does_not_change_the_game():
    assert soak.play_game("everything", 4, 1000, events=True) == soak.play_game("everything", 4, 1000, events=False)


def test_resume_goes_on_from_soak_json_and_adds_up_to_one_uninterrupted_run(tmp_path, capsys):
    args = ["--variants", "classic-explicit", "--check-every", "16"]
    assert soak.main(args + ["--games", "18", "--out", str(tmp_path / "a")]) == 0
    assert soak.main(args + ["--games", "45", "--out", str(tmp_path / "a"), "--resume"]) == 0
    assert soak.main(args + ["--games", "45", "--out", str(tmp_path / "b")]) == 0
    assert "resumed from 18 games" in capsys.readouterr().out
    a, b = (json.loads((tmp_path / d / "soak.json").read_text())["variants"]["classic-explicit"] for d in "ab")
    for key in ("games", "decisions", "truncated", "rounds", "by_players"):
        assert a[key] == b[key], key
    assert a["games"] == 45


def test_resume_refuses_a_soak_json_made_with_other_settings(tmp_path, capsys):
    assert soak.main(["--variants", "tmnt", "--games", "9", "--out", str(tmp_path)]) == 0
    with pytest.raises(SystemExit) as e:
        soak.main(["--variants", "tmnt", "--games", "18", "--out", str(tmp_path), "--resume", "--no-events"])
    assert e.value.code == 2 and "events=True" in capsys.readouterr().err


def test_a_public_history_out_of_range_is_caught(monkeypatch):
    original = Engine._draw_for_turn

    def negative_count(self, s, p):  # a draw that lowers the received count below zero
        original(self, s, p)
        s.history[p, H_RECEIVED] = -3

    monkeypatch.setattr(Engine, "_draw_for_turn", negative_count)
    with pytest.raises(soak.SoakFailure, match="public history out of range"):
        soak.play_game("classic", 9, 1)


def test_the_reserved_last_action_is_caught(monkeypatch):
    """Kind LAST_RESERVED (the retired kept event's) is never set: a seat showing it fails."""
    original = Engine._draw_for_turn

    def reserved(self, s, p):
        original(self, s, p)
        s.history[p, H_LAST] = LAST_RESERVED

    monkeypatch.setattr(Engine, "_draw_for_turn", reserved)
    with pytest.raises(soak.SoakFailure, match="public history out of range"):
        soak.play_game("classic", 9, 1)
