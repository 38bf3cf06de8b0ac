"""Game logs of the battle-card games: written as the game goes, replayed exactly, and read
safely from strangers (every check names the line); fuzzed with hypothesis."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzzing import FAST, JSON, SLOW
from uno_env.battle.game import GAMES
from uno_env.battle.tools.gamelog import MAX_LINE_BYTES, MAX_LOG_BYTES, ReplayError, log_game, read_log, replay
from uno_env.battle.agents import make_battle_agent
from uno_env.battle.agents.arena import play_game

from battle_helpers import engine_of


def played_log(tmp_path, game="battle", n=2, seed=0, **overrides):
    e = engine_of(game, n, **overrides)
    agents = [make_battle_agent("random", e, q) for q in range(n)]
    record = play_game(e, agents, np.random.default_rng(seed), record_actions=True)
    path = tmp_path / f"{game}.jsonl"
    log_game(path, {"game": game, "rules": e.rules, "cards": e.cards, "num_players": n}, record.actions,
             np.random.default_rng(seed), specs=["random"] * n, agent_seeds=list(range(n)), meta={"note": 1})
    return path, record


@pytest.mark.parametrize("game", GAMES)
def test_a_logged_game_replays_exactly(tmp_path, game):
    path, record = played_log(tmp_path, game, 3, seed=4, **({"max_rounds": 50} if game == "bonus" else {}))
    log = read_log(path)
    assert log.header["game"] == game and len(log.actions) == record.steps and log.end["status"] == "finished"
    engine, state = replay(log)
    assert state.winners == log.end["winners"] and list(engine.returns(state)) == log.end["rewards"]
    assert log.header["events"][0]["kind"] == "dealt"


def rewrite(path, edit):
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    edit(lines)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def test_a_tampered_log_does_not_replay(tmp_path):
    path, _ = played_log(tmp_path, "dragon", 2, seed=1)

    def flip(lines):
        lines[3]["action"] = 1 - lines[3]["action"]
    rewrite(path, flip)
    with pytest.raises(ReplayError, match="step [34]: the events differ"):  # told when the window closes
        replay(path)
    path, _ = played_log(tmp_path, "battle", 2, seed=1)

    def other_deck(lines):
        lines[0]["deck"] = list(reversed(lines[0]["deck"]))
    rewrite(path, other_deck)
    with pytest.raises(ReplayError, match="the deal differs"):
        replay(path)
    path, _ = played_log(tmp_path, "names", 2, seed=1)

    def wrong_seat(lines):
        lines[1]["seat"] = 1 - lines[1]["seat"]
    rewrite(path, wrong_seat)
    with pytest.raises(ReplayError, match="step 1: player_. acts, but player_. decides"):
        replay(path)


@pytest.mark.parametrize("edit, message", [
    (lambda ls: ls[0].update(format="other"), "line 1 (header): not a battle-card game log"),
    (lambda ls: ls[0].update(version=9), "unknown log version 9"),
    (lambda ls: ls[0].update(game="chess"), "unknown game 'chess'"),
    (lambda ls: ls[0].update(num_players=2.5), "num_players must be an integer in 2..8"),
    (lambda ls: ls[0]["rules"].update(max_rounds=10 ** 9), "must be in 1..100000"),
    (lambda ls: ls[0]["cards"].update(extra=1), "unknown key(s) ['extra']"),
    (lambda ls: ls[0].update(rng={"bit_generator": "os.system"}), "unknown bit generator"),
    (lambda ls: ls[0].update(first=5), "first must be a seat in 0..1"),
    (lambda ls: ls[0].update(specs=["\x1b[2J", "x"]), "specs must be printable strings"),
    (lambda ls: ls[1].update(seat=-1), "line 2: seat must be a non-negative integer"),
    (lambda ls: ls[1].update(action="cover"), "line 2: action must be a non-negative integer"),
    (lambda ls: ls.append({"kind": "end"}) or ls.append({"kind": "action"}), "a record after the end"),
    (lambda ls: ls.insert(1, {"kind": "gossip"}), "line 2: unknown record kind 'gossip'"),
])
def test_a_bad_log_is_refused_naming_the_line(tmp_path, edit, message):
    path, _ = played_log(tmp_path, "dragon", 2)
    rewrite(path, edit)
    with pytest.raises(ValueError) as e:
        read_log(path)
    assert message in str(e.value)


def test_a_log_must_be_a_small_regular_file_of_strict_json(tmp_path):
    (tmp_path / "nan.jsonl").write_text('{"kind": "header", "x": NaN}\n')
    with pytest.raises(ValueError, match="line 1 is not JSON"):
        read_log(tmp_path / "nan.jsonl")
    (tmp_path / "deep.jsonl").write_text("[" * 100_000 + "\n")
    with pytest.raises(ValueError, match="line 1 is not JSON"):
        read_log(tmp_path / "deep.jsonl")
    (tmp_path / "bin.jsonl").write_bytes(b"\xff\xfe\n")
    with pytest.raises(ValueError, match="not UTF-8"):
        read_log(tmp_path / "bin.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(ValueError, match="empty"):
        read_log(tmp_path / "empty.jsonl")
    with pytest.raises(ValueError, match="not a regular file"):
        read_log(tmp_path)
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as fh:
        fh.seek(MAX_LOG_BYTES + 1)
        fh.write(b"\n")
    with pytest.raises(ValueError, match=r"bytes \(at most"):
        read_log(big)
    (tmp_path / "long.jsonl").write_text("x" * (MAX_LINE_BYTES + 1) + "\n")
    with pytest.raises(ValueError, match="a line longer than"):
        read_log(tmp_path / "long.jsonl")


def _fuzz_log(tmp_path_factory, header_edit, lines):
    path = tmp_path_factory.mktemp("log") / "g.jsonl"
    base = tmp_path_factory.mktemp("base")
    good, _ = played_log(base, "elusive", 2, deal=4)
    records = [json.loads(x) for x in good.read_text().splitlines()]
    if isinstance(header_edit, dict):
        records[0].update(header_edit)
    text = "".join(json.dumps(r) + "\n" for r in records[:3]) + "".join(json.dumps(x) + "\n" for x in lines)
    path.write_text(text)
    try:
        replay(read_log(path))
    except ValueError:
        pass


@FAST
@given(st.one_of(st.none(), st.dictionaries(st.sampled_from(["game", "num_players", "first", "deck", "rules", "rng",
                                                             "shuffled", "specs"]), JSON, max_size=2)),
       st.lists(JSON, max_size=3))
def test_fuzzed_logs_replay_or_raise_value_error(tmp_path_factory, header_edit, lines):
    _fuzz_log(tmp_path_factory, header_edit, lines)


@pytest.mark.slow
@SLOW
@given(st.one_of(st.none(), st.dictionaries(st.sampled_from(["game", "num_players", "first", "deck", "rules", "rng",
                                                             "shuffled", "specs", "cards", "agent_seeds"]), JSON,
                                            max_size=3)),
       st.lists(JSON, max_size=5))
def test_fuzzed_logs_replay_or_raise_value_error_slow(tmp_path_factory, header_edit, lines):
    _fuzz_log(tmp_path_factory, header_edit, lines)
