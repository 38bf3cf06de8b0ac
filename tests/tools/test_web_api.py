"""The web server's JSON API (``uno-serve``), driven through Starlette's TestClient.

Whole games are played through HTTP for every preset; every view is compared with the true
state on the server: it holds the seat's own cards and what the seat was shown, never a
hidden card of another seat, and never who is asked in a window. Bad input gets a 4xx JSON
answer that names the problem and leaves the game unchanged.
"""

from __future__ import annotations

import copy
import json
import os
import random
import socket
import subprocess
import sys
import time
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

import uno_env  # noqa: E402
from uno_env.agents import pretrained, shipped  # noqa: E402
from uno_env.agents.base import Agent, register_agent  # noqa: E402
from uno_env.game import actions as A  # noqa: E402
from uno_env.game import cards as C  # noqa: E402
from uno_env.game import observation as O  # noqa: E402
from uno_env.game.engine import CATCH, JUMP, OFFER, TURN  # noqa: E402
from uno_env.game.events import EVENT_NAMES  # noqa: E402
from uno_env.tools.gamelog_read import read_log  # noqa: E402
from uno_env.tools.gamelog_replay import replay  # noqa: E402
from uno_env.tools.web import views  # noqa: E402
from uno_env.tools.web.server import MAX_BODY, create_app  # noqa: E402

from helpers import _perturbed, deck_cards, stacked_deck  # noqa: E402
from fuzzing import FAST, SLOW  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = sys.executable
OPEN_ONLY = {"hands", "cards", "actor"}  # fields of a spectator's view only
PUBLIC_KINDS = set(EVENT_NAMES) | {views.OWN_CARDS}
JSON = {"Content-Type": "application/json"}
NDJSON = {"Content-Type": "application/x-ndjson"}


def client(**options) -> TestClient:
    options.setdefault("checkpoint_roots", [os.path.join(ROOT, "checkpoints")])
    return TestClient(create_app(**options))


def game_of(c: TestClient, gid: str):
    return c.app.state.server.store.items[gid]


def names_of(counts, u) -> Counter:
    return Counter({u.card_names[k]: int(n) for k, n in enumerate(counts) if n})


def assert_seat_view_hides(view: dict, game, waiting: bool = False) -> None:
    """``view`` (of the human seat) against the true state of ``game``; ``waiting``: sent
    while the others are still to move (the request's budget ran out at a public boundary)."""
    u, s, me = game.u, game.u.game_state, game.human
    text = json.dumps(view)
    assert not OPEN_ONLY & set(view), "a seat view holds spectator fields"
    assert ("seed" in view) == view["over"], "the seed (it deals every hand) before the end"
    assert all(not OPEN_ONLY & set(p) for p in view["players"])
    assert Counter(view["hand"]) == names_of(s.hands[me], u)
    assert view["hand_sizes"] == [int(x) for x in s.hand_size]
    assert view["top"] == u.card_names[s.discard[-1]]
    # the view is sent when the human decides (or at the end, or, the request's budget spent, at
    # the start of a regular turn): nobody else's window answer is pending
    if waiting:
        assert not view["over"] and s.actor != me and s.phase == TURN and s.pending == 0
        assert view["legal_actions"] == view["choices"] == [] and view["phase"] is None
    elif not view["over"]:
        assert s.actor == me
        assert view["legal_actions"] == [u.action_names[a] for a in u.legal_actions()]
    else:
        assert view["legal_actions"] == [] and view["phase"] is None
    for p in view["players"]:
        q = p["seat"]
        if q == me:
            continue
        shown = Counter(p["known"])
        assert shown <= names_of(s.hands[q], u), f"seat {q}: known cards not in its hand"
        assert shown <= names_of(s.known[me, q], u), f"seat {q}: cards shown that {me} was never shown"
        if p["offer"] is not None:
            assert p["offer"] == u.card_names[s.offers[q]]
    for ev in view["events"]:
        assert ev["kind"] in PUBLIC_KINDS
        if ev["kind"] == views.OWN_CARDS:
            assert ev["seat"] == me
        if "hand" in ev:
            assert "table" in ev
        if "table" in ev:
            assert not OPEN_ONLY & set(ev["table"])
    assert "draw_pile" not in text and "deck" not in view


def played_on(c: TestClient, gid: str, r, game) -> dict:
    """The view after answer ``r``, asking the server to play on while the others are still to
    move (as the page does), every view checked."""
    assert r.status_code in (200, 201), r.text
    while True:
        waiting = r.json()["progress"]["waiting"]
        assert_seat_view_hides(r.json()["view"], game, waiting)
        if not waiting:
            return r.json()["view"]
        r = c.post(f"/api/games/{gid}/step", json={})
        assert r.status_code == 200, r.text


def play_through(c: TestClient, body: dict, seed: int, max_requests: int = 4000) -> tuple[str, int]:
    """Create a game and answer every decision with a random legal action, checking every view."""
    r = c.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    game = game_of(c, gid)
    view = played_on(c, gid, r, game)
    rng = random.Random(seed)
    requests = 0
    while not view["over"]:
        choice = view["choices"][rng.randrange(len(view["choices"]))]
        action = choice["name"] if rng.random() < 0.5 else choice["id"]
        view = played_on(c, gid, c.post(f"/api/games/{gid}/actions", json={"action": action}), game)
        requests += 1
        assert requests < max_requests
    return gid, requests


# ---------------------------------------------------------------------------- whole games
@pytest.mark.parametrize("rules,options,opponents,seat", [
    ("classic", {}, ["heuristic", "random", "greedy"], 1),
    ("tmnt", {"uno_call": "explicit"}, ["random", "heuristic"], 0),
    ("house", {"uno_call": "explicit", "max_steps": 3000}, ["random", "random"], 2),
    ("classic", {"episode": "game", "target_score": 150, "jump_in": True}, ["greedy"], 0),
])
def test_whole_games_over_http_never_show_a_hidden_card(rules, options, opponents, seat):
    c = client()
    gid, requests = play_through(c, {"rules": rules, "options": options, "opponents": opponents,
                                     "seat": seat, "seed": 11}, seed=5)
    game = game_of(c, gid)
    assert requests > 0
    assert game.over()
    final = c.get(f"/api/games/{gid}").json()["view"]
    s = game.u.game_state
    if s.game_over:
        assert final["winner"] == s.winner and final["round_winner"] == s.round_winner
        assert final["round_points"] == [int(x) for x in s.round_points]


def test_seat_view_is_the_same_whatever_the_hidden_cards():
    """Swapping cards hidden from the seat (other hands, DRAW order) changes nothing it is sent."""
    rng = np.random.default_rng(0)
    for rules, n in (("classic", 3), ("tmnt", 4), ("house", 3)):
        env = uno_env.raw_env(rules=rules, num_players=n, uno_call="explicit")
        env.reset(seed=int(rng.integers(1 << 30)))
        u = env.unwrapped
        specs = ["random"] * n
        checked = 0
        while not u.game_state.game_over and u.game_state.steps < 600:
            s = u.game_state
            seat = int(rng.integers(n))
            t, changed = _perturbed(s, seat, rng)
            if changed:
                assert views.seat_view(u, seat, specs, state=t) == views.seat_view(u, seat, specs, state=s)
                checked += 1
            legal = u.legal_actions()
            env.step(legal[int(rng.integers(len(legal)))])
        assert checked > 20


def test_seat_view_does_not_show_who_is_asked_in_a_window():
    rng = np.random.default_rng(1)
    env = uno_env.raw_env(rules="house", num_players=4, uno_call="explicit")
    env.reset(seed=3)
    u = env.unwrapped
    specs = ["random"] * 4
    windows = 0
    while not u.game_state.game_over and u.game_state.steps < 3000:
        s = u.game_state
        if s.phase in (CATCH, JUMP, OFFER):
            for seat in range(4):
                others = [q for q in range(4) if q != seat and q != s.actor]
                if seat == s.actor or not others:
                    continue
                t = copy.copy(s)
                t.actor = others[int(rng.integers(len(others)))]
                t.queue = [t.actor]
                t.legal_cache = None
                assert views.seat_view(u, seat, specs, state=t) == views.seat_view(u, seat, specs, state=s)
                windows += 1
        legal = u.legal_actions()
        env.step(legal[int(rng.integers(len(legal)))])
    assert windows > 0


def test_same_seed_and_answers_give_the_same_game():
    views_seen = []
    for _ in range(2):
        c = client()
        r = c.post("/api/games", json={"rules": "classic", "opponents": ["heuristic", "random"], "seed": 42})
        gid, view = r.json()["id"], r.json()["view"]
        seq = [view]
        while not view["over"]:
            view = c.post(f"/api/games/{gid}/actions", json={"action": view["legal_actions"][0]}).json()["view"]
            seq.append(view)
        for v in seq:
            v.pop("id")
        views_seen.append(seq)
    assert views_seen[0] == views_seen[1]


def test_defaults_two_players_heuristic_random_seed_reported_once_the_game_is_over():
    """The seed deals every hand and the DRAW pile: a seated player sees it only at the end."""
    c = client()
    r = c.post("/api/games", json={})
    assert r.status_code == 201
    view = r.json()["view"]
    assert view["num_players"] == 2 and view["specs"] == ["human", "heuristic"] and view["seat"] == 0
    assert "seed" not in view
    for key in ("hand", "legal_actions", "top", "color", "hand_sizes", "events", "over", "winner"):
        assert key in view
    gid, _ = play_through(c, {"rules": "classic", "opponents": ["heuristic"], "seed": 123}, seed=1)
    view = c.get(f"/api/games/{gid}").json()["view"]
    assert view["over"] and view["seed"] == "123"


def test_a_random_seed_has_128_bits_and_its_digits_deal_the_game_again():
    # a 31-bit seed was singled out of 2**31 from the first view offline (then every hand and
    # the DRAW pile were known): a random seed has 128 bits, shown as digits (JavaScript would
    # round a 39-digit number), and the game, its log and its replay follow it exactly
    c = client()
    watch = {"mode": "watch", "agents": ["random", "heuristic"]}
    seeds = [c.post("/api/games", json=watch).json()["view"]["seed"] for _ in range(6)]
    assert all(isinstance(x, str) and x.isdigit() for x in seeds)
    assert max(int(x) for x in seeds) >= 2 ** 64  # all six under 2**64: a chance of 2**-384
    seed = max(seeds, key=int)
    again = [c.post("/api/games", json={**watch, "seed": s}) for s in (seed, int(seed))]
    first = c.post("/api/games", json={**watch, "seed": seed}).json()
    for r in again:
        assert r.status_code == 201, r.text
        assert {**r.json()["view"], "id": None} == {**first["view"], "id": None}
    gid = first["id"]
    while not c.post(f"/api/games/{gid}/step", json={"steps": 50}).json()["view"]["over"]:
        pass
    log = read_log(c.get(f"/api/games/{gid}/log").text.splitlines())
    assert log.header["seed"] == int(seed) and log.header["agent_seeds"] == [int(seed) + 1, int(seed) + 2]
    replay(log)
    for bad in (2 ** 128, str(2 ** 128), -1, "12a", 1.5, True):
        r = c.post("/api/games", json={**watch, "seed": bad})
        assert r.status_code == 400 and "seed must be an integer in 0..2**128-1" in r.json()["error"], bad


# ---------------------------------------------------------------------------- decisions
SMALL = {"preset": "classic", "hand_size": 3}


def colour_and_challenge_deck():
    """2 players, dealer 1: seat 0 chooses the colour of a first wild, plays red-5; seat 1
    (greedy: wilds first) holds two Wild Draw Fours and blue cards, so seat 0 is asked to
    challenge."""
    return stacked_deck(SMALL, 2, 1, {0: ["red-5", "red-6", "red-7"],
                                      1: ["wild-draw4", "wild-draw4", "blue-1"]},
                        first="wild", draw_top=["green-1", "green-1", "green-2", "green-2", "green-3", "green-3"])


def test_stacked_deal_asks_colour_choice_then_challenge():
    c = client()
    r = c.post("/api/games", json={"rules": "classic", "options": {"hand_size": 3}, "opponents": ["greedy"],
                                   "seed": 1, "deck": colour_and_challenge_deck(), "dealer": 1})
    assert r.status_code == 201, r.text
    gid, view = r.json()["id"], r.json()["view"]
    assert view["phase"] == "color" and view["color"] is None
    assert sorted(view["legal_actions"]) == ["color blue", "color green", "color red", "color yellow"]
    assert [ch["type"] for ch in view["choices"]] == ["color"] * 4
    view = c.post(f"/api/games/{gid}/actions", json={"action": "color red"}).json()["view"]
    assert view["color"] == "red" and view["phase"] == "turn"
    view = c.post(f"/api/games/{gid}/actions", json={"action": "play red-5"}).json()["view"]
    assert view["phase"] == "challenge"
    assert "challenge" in view["legal_actions"] and "player_1" in view["prompt"]
    assert [e["kind"] for e in view["events"]][:2] == ["played", "played"]
    assert view["events"][1]["card"] == "wild-draw4" and view["events"][1]["seat"] == 1
    before = len(view["hand"])
    view = c.post(f"/api/games/{gid}/actions", json={"action": "challenge"}).json()["view"]
    # player_1 held no red card: the challenge fails, the challenger draws 4 + 2
    assert "challenged" in [e["kind"] for e in view["events"]]
    assert len(view["hand"]) == before + 6
    assert view["players"][1]["known"], "the challenger is shown the challenged hand"


def test_wild_card_choices_carry_each_colour():
    c = client()
    deck = stacked_deck(SMALL, 2, 1, {0: ["wild", "red-6", "red-7"]}, first="red-1")
    view = c.post("/api/games", json={"options": {"hand_size": 3}, "opponents": ["random"], "seed": 0,
                                      "deck": deck, "dealer": 1}).json()["view"]
    wild = [ch for ch in view["choices"] if ch["card"] == "wild"]
    assert sorted(ch["color"] for ch in wild) == sorted(view["colors"])
    assert {ch["name"] for ch in wild} == {f"play wild {col}" for col in view["colors"]}


def test_own_drawn_cards_are_named_to_the_seat_only():
    c = client()
    deck = stacked_deck(SMALL, 2, 1, {0: ["red-5", "red-6", "red-7"], 1: ["blue-1", "blue-2", "blue-3"]},
                        first="green-9", draw_top=["yellow-4", "yellow-5"])
    r = c.post("/api/games", json={"options": {"hand_size": 3}, "opponents": ["random"], "seed": 0,
                                   "deck": deck, "dealer": 1})
    gid = r.json()["id"]
    view = c.post(f"/api/games/{gid}/actions", json={"action": "draw"}).json()["view"]
    got = [e for e in view["events"] if e["kind"] == views.OWN_CARDS]
    assert got and got[0]["cards"] == ["yellow-4"] and got[0]["seat"] == 0
    drew = [e for e in view["events"] if e["kind"] == "drew" and e["seat"] == 1]
    assert all(e["card"] is None for e in drew), "another seat's drawn card is never named"


# ---------------------------------------------------------------------------- bad input
def fresh_game(c: TestClient) -> tuple[str, dict]:
    r = c.post("/api/games", json={"rules": "classic", "opponents": ["random", "random"], "seed": 8})
    assert r.status_code == 201
    return r.json()["id"], r.json()["view"]


def state_of(c: TestClient, gid: str):
    u = game_of(c, gid).u
    return u.snapshot(), int(u.game_state.steps)


@pytest.mark.parametrize("make_request,status,words", [
    (lambda c, g, v: c.post(f"/api/games/{g}/actions", content=b"{not json", headers=JSON), 400, "not JSON"),
    (lambda c, g, v: c.post(f"/api/games/{g}/actions", json=["draw"]), 400, "JSON object"),
    (lambda c, g, v: c.post(f"/api/games/{g}/actions", json={}), 400, "action"),
    (lambda c, g, v: c.post(f"/api/games/{g}/actions", json={"action": "draw", "x": 1}), 400, "'x'"),
    (lambda c, g, v: c.post(f"/api/games/{g}/actions", json={"action": "fly away"}), 400, "unknown action"),
    (lambda c, g, v: c.post(f"/api/games/{g}/actions", json={"action": 195}), 400, "0..194"),
    (lambda c, g, v: c.post(f"/api/games/{g}/actions", json={"action": -1}), 400, "0..194"),
    (lambda c, g, v: c.post(f"/api/games/{g}/actions", json={"action": True}), 400, "name or id"),
    (lambda c, g, v: c.post(f"/api/games/{g}/actions", json={"action": None}), 400, "name or id"),
    (lambda c, g, v: c.post(f"/api/games/{g}/actions", json={"action": "challenge"}), 409, "not legal"),
    (lambda c, g, v: c.post(f"/api/games/{g}/actions",
                            json={"action": next(f"play {k}" for k in C.card_names(("red", "yellow", "green", "blue"))
                                                 if f"play {k}" not in v["legal_actions"] and "wild" not in k)}),
     409, "not legal"),
    (lambda c, g, v: c.post(f"/api/games/{g}/actions", content=b'{"action": "' + b"x" * MAX_BODY + b'"}',
                            headers=JSON),
     413, "too large"),
    (lambda c, g, v: c.post("/api/games/nosuchgame/actions", json={"action": "draw"}), 404, "unknown game"),
    (lambda c, g, v: c.post(f"/api/games/{g}/step", json={}), 409, "human seat"),
    (lambda c, g, v: c.get(f"/api/games/{g}?seat=1"), 403, "seat 0 only"),
    (lambda c, g, v: c.get(f"/api/games/{g}/log"), 409, "over"),
    (lambda c, g, v: c.put(f"/api/games/{g}", json={}), 405, "not allowed"),
    (lambda c, g, v: c.get("/api/nothing"), 404, "no such"),
])
def test_bad_action_requests_get_4xx_and_leave_the_game_unchanged(make_request, status, words):
    c = client()
    gid, view = fresh_game(c)
    before = state_of(c, gid)
    r = make_request(c, gid, view)
    assert r.status_code == status, r.text
    assert words in r.json()["error"]
    assert state_of(c, gid) == before
    assert c.get(f"/api/games/{gid}").json()["view"]["hand"] == view["hand"]


@pytest.mark.parametrize("body,words", [
    ({"rules": "nosuchpreset"}, "unknown rules preset"),
    ({"rules": "/etc/passwd.yaml"}, "unknown rules preset"),
    ({"rules": 3}, "preset name or an object"),
    ({"rules": {"preset": "/tmp/x.yaml"}}, "unknown preset"),
    ({"options": {"stackin": True}}, "stackin"),
    ({"options": {"hand_size": "seven"}}, "hand_size"),
    ({"options": {"count_number": 100}}, "more than this server plays"),  # 3,600 cards: within the rule bounds
    ({"options": {"count_number": 100000}}, "must be in 0..100"),
    ({"options": []}, "object of rule options"),
    ({"opponents": ["nosuchbot"]}, "unknown agent spec"),
    ({"opponents": ["human"]}, "seat of the page"),
    ({"opponents": [7]}, "agent spec"),
    ({"opponents": []}, "1..9"),
    ({"opponents": ["checkpoint:/etc"]}, "checkpoint root"),
    ({"opponents": ["module:os:system"]}, "would import and run code; a client cannot name one"),
    ({"opponents": ["heuristic#sample"]}, "heuristic does not sample"),
    ({"opponents": ["checkpoint:checkpoints/../../etc"]}, "checkpoint root"),
    ({"num_players": 4, "opponents": ["random"]}, "needs 3 opponents"),
    ({"num_players": 11}, "2..10"),
    ({"seat": 2}, "seat"),
    ({"seat": "0"}, "seat"),
    ({"seed": -1}, "seed"),
    ({"seed": "abc"}, "seed"),
    ({"deck": ["red-1"] * 108}, "bad deal"),
    ({"deck": "red-1"}, "list of card names"),
    ({"dealer": 5}, "dealer"),
    ({"mode": "spectate"}, "mode"),
    ({"mode": "watch", "opponents": ["random"]}, "agents"),
    ({"mode": "watch", "agents": ["random"] * 3, "seat": 3}, "seat"),
    ({"agents": ["random", "random"]}, "watched game"),
    ({"colour": "red"}, "unknown field"),
])
def test_bad_new_game_requests_get_400_naming_the_problem(body, words):
    c = client()
    r = c.post("/api/games", json=body)
    assert r.status_code == 400, r.text
    assert words in r.json()["error"]
    assert c.app.state.server.store.items == {}


def test_refused_game_leaves_no_log_file(tmp_path):
    c = client(log_dir=str(tmp_path))
    r = c.post("/api/games", json={"deck": ["red-1"] * 108, "dealer": 0})
    assert r.status_code == 400 and "bad deal" in r.json()["error"]
    assert list(tmp_path.iterdir()) == []


def test_oversized_new_game_body_gets_413():
    c = client(max_body=1000)
    r = c.post("/api/games", content=json.dumps({"deck": ["red-1"] * 200}).encode(), headers=JSON)
    assert r.status_code == 413 and "at most 1000 bytes" in r.json()["error"]


# ---------------------------------------------------------------------------- store
def test_several_games_at_once_each_with_its_own_id():
    c = client()
    first = c.post("/api/games", json={"rules": "classic", "opponents": ["random", "random"], "seed": 8})
    a, va = first.json()["id"], first.json()["view"]
    r = c.post("/api/games", json={"rules": "tmnt", "opponents": ["random"], "seed": 8})
    b = r.json()["id"]
    assert a != b
    c.post(f"/api/games/{b}/actions", json={"action": r.json()["view"]["legal_actions"][0]})
    assert c.get(f"/api/games/{a}").json()["view"]["hand"] == va["hand"]
    assert c.get(f"/api/games/{b}").json()["view"]["rules"]["name"] == "tmnt"
    assert c.delete(f"/api/games/{a}", headers={"X-Uno-Token": first.json()["token"]}).status_code == 200
    assert c.get(f"/api/games/{a}").status_code == 404
    assert c.get(f"/api/games/{b}").status_code == 200


def test_idle_games_are_dropped_and_their_logs_end_aborted(tmp_path):
    c = client(idle_timeout=60, log_dir=str(tmp_path))
    now = [1000.0]
    c.app.state.server.store.clock = lambda: now[0]
    gid, _ = fresh_game(c)
    other, _ = fresh_game(c)
    now[0] += 50
    assert c.get(f"/api/games/{other}").status_code == 200  # touched: stays
    now[0] += 30
    r = c.get(f"/api/games/{gid}")
    assert r.status_code == 404 and "unknown game" in r.json()["error"]
    assert c.get(f"/api/games/{other}").status_code == 200
    logs = sorted(tmp_path.glob(f"web-*-{gid}.jsonl"))
    assert len(logs) == 1 and read_log(str(logs[0])).end["status"] == "aborted"


def test_full_server_answers_503():
    c = client(max_games=2)
    fresh_game(c)
    fresh_game(c)
    r = c.post("/api/games", json={})
    assert r.status_code == 503 and "full (2 games and replays" in r.json()["error"]


# ---------------------------------------------------------------------------- watch
def test_watch_game_steps_to_the_end_with_every_hand_or_one_seat():
    c = client()
    r = c.post("/api/games", json={"mode": "watch", "rules": "house", "agents": ["heuristic", "random", "greedy"],
                                   "seed": 4, "options": {"max_steps": 2000}})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    game = game_of(c, gid)
    assert r.json()["view"]["watching"] == "all"
    u = game.u
    steps = 0
    view = r.json()["view"]
    while not view["over"]:
        seat = "all" if steps % 3 else 1
        view = c.post(f"/api/games/{gid}/step", json={"seat": seat}).json()["view"]
        s = u.game_state
        if seat == "all":
            assert view["hands"] == [[u.card_names[k] for k in u.engine.hand_cards(s, q)] for q in range(3)]
            assert view["actor"] == (s.actor if s.actor >= 0 else None)
        else:
            assert "hands" not in view and view["seat"] == 1
            assert Counter(view["hand"]) == names_of(s.hands[1], u)
            assert view["choices"] == [] or s.actor == 1
        assert view["events"], "a step shows at least one move"
        steps += 1
        assert steps < 3000
    assert c.post(f"/api/games/{gid}/actions", json={"action": "draw"}).status_code == 409
    assert c.get(f"/api/games/{gid}?seat=9").status_code == 400
    assert c.get(f"/api/games/{gid}?seat=2").json()["view"]["seat"] == 2


def test_watch_from_one_seat_sends_that_seat_only_from_the_deal_on():
    c = client()
    r = c.post("/api/games", json={"mode": "watch", "agents": ["random", "greedy"], "seat": 1, "seed": 2})
    view = r.json()["view"]
    u = game_of(c, r.json()["id"]).u
    assert view["watching"] == 1 and "hands" not in view
    assert view["events"] and all("hands" not in e.get("table", {}) for e in view["events"])
    assert [e["hand"] for e in view["events"] if "hand" in e][-1] == \
        [u.card_names[k] for k in u.engine.hand_cards(u.game_state, 1)]


# ---------------------------------------------------------------------------- logs and replays
def test_browser_game_log_replays_on_the_server_frame_by_frame(tmp_path):
    c = client(log_dir=str(tmp_path))
    gid, _ = play_through(c, {"rules": "tmnt", "opponents": ["heuristic"], "seed": 3}, seed=2)
    text = c.get(f"/api/games/{gid}/log").text
    path = next(tmp_path.glob(f"web-*-{gid}.jsonl"))
    assert text == path.read_text()
    log = read_log(str(path))
    assert log.header["specs"] == ["human", "heuristic"] and log.end["status"] == "finished"
    replay(log)  # replays exactly
    r = c.post("/api/replays", content=text.encode(), headers=NDJSON)
    assert r.status_code == 201, r.text
    data = r.json()
    assert data["count"] == len(log.actions) + 1 == len(data["texts"])
    assert data["header"]["specs"] == ["human", "heuristic"] and data["header"]["colors"][1] == "orange"
    rid = data["id"]
    # every frame holds the table after its action, every hand open
    hands = []
    replay(log, on_reset=lambda e: hands.append(e.unwrapped.snapshot()["hands"]),
           on_step=lambda e, rec: hands.append(e.unwrapped.snapshot()["hands"]))
    for i in (0, 1, len(hands) // 2, len(hands) - 1, 1):  # forwards and backwards
        frame = c.get(f"/api/replays/{rid}/frames/{i}").json()
        assert frame["index"] == i
        assert frame["frame"]["table"]["hands"] == list(hands[i].values())
    assert c.get(f"/api/replays/{rid}/frames/{len(hands)}").status_code == 404
    assert c.get(f"/api/replays/{rid}/frames/x").status_code == 400
    assert c.get(f"/api/games/{rid}").status_code == 404  # a replay is not a game


def test_log_of_a_game_dealt_from_an_rng_state_replays(tmp_path):
    """The evaluation tool logs its games from the generator's state, not from a seed."""
    from uno_env.game.engine import Engine
    from uno_env.game.rules import make_rules
    from uno_env.tools.gamelog import log_game

    engine = Engine(make_rules("classic"), 3)
    s = engine.new_state(np.random.default_rng([5, 0]), dealer=2)
    rng = random.Random(0)
    actions = []
    while not s.game_over:
        a = rng.choice(engine.legal_actions(s))
        engine.step(s, a)
        actions.append(a)
    path = tmp_path / "eval.jsonl"
    log_game(str(path), "classic", 3, actions, rng=np.random.default_rng([5, 0]), dealer=2,
             specs=["random"] * 3)
    r = client().post("/api/replays", content=path.read_bytes(), headers=NDJSON)
    assert r.status_code == 201, r.text
    assert r.json()["count"] == len(actions) + 1 and r.json()["header"]["seed"] is None


@pytest.mark.parametrize("body,words", [
    (b"", "empty game log"),
    (b"not json\n", "not JSON"),
    (b'{"type": "action"}\n', "header"),
    (b"\xff\xfe", "UTF-8"),
])
def test_bad_logs_get_400(body, words):
    c = client()
    r = c.post("/api/replays", content=body, headers=NDJSON)
    assert r.status_code == 400 and words in r.json()["error"], r.text


def test_tampered_log_does_not_replay_and_big_log_is_refused():
    c = client(max_log_bytes=500_000)
    gid, _ = play_through(c, {"opponents": ["random"], "seed": 1}, seed=1)
    lines = c.get(f"/api/games/{gid}/log").text.splitlines()
    record = json.loads(lines[2])
    record["action"], record["name"] = 69, "pass"
    lines[2] = json.dumps(record)
    r = c.post("/api/replays", content="\n".join(lines).encode(), headers=NDJSON)
    assert r.status_code == 400 and "does not replay" in r.json()["error"]
    r = c.post("/api/replays", content=b" " * 500_001, headers=NDJSON)
    assert r.status_code == 413


# ---------------------------------------------------------------------------- page, meta, checkpoints
def test_page_and_static_files_ship_in_the_package_without_external_urls():
    c = client()
    r = c.get("/")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assert "default-src 'self'" in r.headers["content-security-policy"]
    static = os.path.join(ROOT, "uno_env", "tools", "web", "static")
    for name in ("index.html", "style.css", "app.js"):
        assert name in r.text or name == "index.html"
        body = c.get(f"/static/{name}").text
        assert body and "http://" not in body and "https://" not in body and "//cdn" not in body
        assert body == open(os.path.join(static, name), encoding="utf-8").read()


def test_meta_lists_presets_options_agents_and_each_shipped_agent_once():
    """A shipped agent is offered as pretrained:<name>, not a second time as the checkpoint its
    package folder links to; a checkpoint of one's own under the roots is still listed."""
    meta = client().get("/api/meta").json()
    assert {"classic", "tmnt", "house"} <= set(meta["presets"])
    assert {"uniform", "random", "greedy", "heuristic", "pretrained:classic-2p"} <= set(meta["agents"])
    assert not [c for c in meta["checkpoints"] if c.rstrip("/").endswith(tuple(shipped.SHIPPED))]
    assert {o["name"] for o in meta["options"]} >= {"stacking", "jump_in", "uno_call", "hand_size"}


def test_meta_gives_the_card_of_every_pretrained_agent_as_of_every_checkpoint():
    """The page greys out a pretrained: agent that does not fit the set-up as it does a checkpoint:
    one (with neither, Deal ended in a long error): both have their card in checkpoint_cards."""
    meta = client().get("/api/meta").json()
    for p in pretrained():
        card = meta["checkpoint_cards"][p.spec]
        assert card["num_players"] == p.num_players and card["rules"]["name"] == p.rules


def test_meta_lists_the_pretrained_agents_and_the_operators_agents():
    meta = client(agents=["module:uno_env.agents.bots:GreedyAgent"]).get("/api/meta").json()
    assert {"pretrained:classic-2p", "pretrained:classic-4p", "module:uno_env.agents.bots:GreedyAgent"} <= \
        set(meta["agents"])
    assert not {"pretrained", "module", "checkpoint"} & set(meta["agents"])


def test_a_module_agent_the_server_named_plays_and_no_other_does():
    c = client(agents=["module:uno_env.agents.bots:GreedyAgent"])
    r = c.post("/api/games", json={"rules": "classic", "opponents": ["module:uno_env.agents.bots:GreedyAgent"],
                                   "seed": 0})
    assert r.status_code == 201, r.text
    r = c.post("/api/games", json={"rules": "classic", "opponents": ["module:uno_env.agents.bots:RandomAgent"],
                                   "seed": 0})
    assert r.status_code == 400 and "would import and run code" in r.json()["error"]


def test_meta_lists_a_damaged_shipped_agent_as_unavailable_with_its_error(monkeypatch):
    # one shipped card that does not load must not take the page down (it answered 500): the
    # agent is listed, its card entry says why, as a checkpoint under --checkpoint-root
    from uno_env.agents import checkpoint as ckpt

    real = ckpt.load_card

    def load_card(path, *args, **kwargs):
        if os.path.basename(os.path.normpath(path)) == "house-4p":
            raise ckpt.CheckpointError(f"checkpoint card {os.path.join(path, 'card.json')!r} is not JSON")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(ckpt, "load_card", load_card)
    r = client(checkpoint_roots=[]).get("/api/meta")
    assert r.status_code == 200, r.text
    meta = r.json()
    assert {"pretrained:house-4p", "pretrained:classic-2p"} <= set(meta["agents"])
    cards = meta["checkpoint_cards"]
    assert set(cards["pretrained:house-4p"]) == {"error"} and "is not JSON" in cards["pretrained:house-4p"]["error"]
    assert ROOT not in cards["pretrained:house-4p"]["error"]
    assert cards["pretrained:classic-2p"]["num_players"] == 2
    assert cards["pretrained:classic-2p"]["rules"]["name"] == "classic"


@pytest.mark.parametrize("options,words", [({"rules": "house"}, "rules"), ({"num_players": 3}, "num_players 2")])
def test_a_shipped_agent_that_does_not_fit_is_named_by_its_spec_not_its_folder(tmp_path, monkeypatch,
                                                                                 options, words):
    # the package folder's absolute path told a client where the server is installed
    monkeypatch.chdir(tmp_path)
    n = options.get("num_players", 2)
    r = client(checkpoint_roots=[]).post("/api/games", json={
        "rules": options.get("rules", "classic"), "opponents": ["pretrained:classic-2p"] * (n - 1), "seed": 0})
    assert r.status_code == 400
    error = r.json()["error"]
    assert "checkpoint 'pretrained:classic-2p' does not match" in error and words in error
    assert ROOT not in error and os.path.realpath(ROOT) not in error and "uno_env/pretrained" not in error


def test_a_pretrained_opponent_plays_without_a_checkpoint_root():
    c = client(checkpoint_roots=[])
    r = c.post("/api/games", json={"rules": "classic", "opponents": ["pretrained:classic-2p"], "seed": 0})
    assert r.status_code == 201, r.text


def test_checkpoint_opponent_under_the_root_plays():
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    c = client()
    spec = "checkpoint:" + os.path.join(ROOT, "checkpoints", "classic-2p")
    r = c.post("/api/games", json={"rules": "classic", "opponents": [spec], "seed": 0})
    assert r.status_code == 201, r.text
    gid, view = r.json()["id"], r.json()["view"]
    for _ in range(5):
        if view["over"]:
            break
        view = c.post(f"/api/games/{gid}/actions", json={"action": view["legal_actions"][-1]}).json()["view"]
    r = c.post("/api/games", json={"rules": "classic", "opponents": [spec, "random"], "seed": 0})
    assert r.status_code == 400 and "num_players" in r.json()["error"]  # trained for 2 players


# ---------------------------------------------------------------------------- command line
def run_cli(*args: str, module: str = "uno_env.tools.web") -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", module, *args], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=ROOT), timeout=60)


def test_cli_help_runs():
    r = run_cli("--help")
    assert r.returncode == 0 and "uno-serve" in r.stdout and "--log-dir" in r.stdout


@pytest.mark.parametrize("args,words", [
    (["--port", "70000"], "--port"),
    (["--idle-timeout", "0"], "must be positive"),
    (["--port", "x"], "invalid int"),
])
def test_cli_bad_arguments_exit_2_with_one_line(args, words):
    r = run_cli(*args)
    assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("option", ["--log-dir", "--checkpoint-root"])
def test_cli_folder_options_naming_a_file_or_nothing_exit_2_with_one_line(capsys, tmp_path, option):
    from uno_env.tools.web.server import main as serve

    path = tmp_path / "a-file"
    path.write_text("mine")
    assert serve([option, str(path)]) == 2  # before the server starts
    assert capsys.readouterr().err == f"uno-serve: error: {option} {str(path)!r} is a regular file, not a directory\n"
    assert path.read_text() == "mine"
    if option == "--checkpoint-root":
        assert serve([option, str(tmp_path / "typo")]) == 2
        assert capsys.readouterr().err == f"uno-serve: error: {option} {str(tmp_path / 'typo')!r} does not exist\n"


def test_server_process_serves_the_api_on_a_free_port(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([PY, "-m", "uno_env.tools.web", "--port", str(port), "--log-dir", str(tmp_path)],
                            cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        import httpx
        deadline = time.monotonic() + 30
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/api/meta", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stdout.read()
                time.sleep(0.2)
        assert r.status_code == 200
        r = httpx.post(f"http://127.0.0.1:{port}/api/games", json={"seed": 1}, timeout=10)
        assert r.status_code == 201
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=20)
    assert f"http://127.0.0.1:{port}" in out
    assert len(list(tmp_path.glob("web-*.jsonl"))) == 1


def test_server_names_stay_importable_from_server():
    from uno_env.tools.web import games, replays, server, validate

    assert server.ApiError is validate.ApiError and server.Specs is validate.Specs
    assert server.parse_rules is validate.parse_rules and server.parse_action is validate.parse_action
    assert server.Game is games.Game and server.Store is games.Store and server.new_env is games.new_env
    assert server.Replay is replays.Replay
    assert (server.MAX_DECK, server.HUMAN, server.IDLE_TIMEOUT_S, server.MAX_GAMES) == \
        (validate.MAX_DECK, validate.HUMAN, games.IDLE_TIMEOUT_S, games.MAX_GAMES)


class _FirstLegalNoJumpIn(Agent):
    """Plays its lowest legal action id, but never jumps in (passes every window)."""

    def act(self, observation, action_mask):
        legal = np.flatnonzero(action_mask)
        return int(A.PASS if observation[O.PHASE + JUMP] and action_mask[A.PASS] else legal[0])


register_agent("first_legal_no_jump_in", lambda spec, rules, n, seed: _FirstLegalNoJumpIn(rules, n, seed))


def test_a_played_games_tables_do_not_tell_a_window_was_open():
    """RULES.md 6 and 9: a jump-in window the human is not in must not show. Seat 1 plays red-7;
    in one deal seat 2 holds another red-7 (a window opens for it alone, and it passes), in the
    other it does not. Until seat 2 plays, the human is sent the same events and tables."""
    options = {"hand_size": 3, "jump_in": True, "seven_slap": False}
    sent = []
    for seat2 in (["red-7", "yellow-1", "yellow-2"], ["red-8", "yellow-1", "yellow-2"]):
        deck = stacked_deck({"preset": "classic", **options}, 3, 2,
                            {0: ["red-5", "blue-5", "green-5"], 1: ["red-7", "blue-1", "green-2"], 2: seat2},
                            first="red-1")
        c = client()
        r = c.post("/api/games", json={"rules": "classic", "options": options, "seed": 0, "deck": deck, "dealer": 2,
                                       "opponents": ["first_legal_no_jump_in"] * 2})
        assert r.status_code == 201, r.text
        gid = r.json()["id"]
        view = c.post(f"/api/games/{gid}/actions", json={"action": "play red-5"}).json()["view"]
        shown = []
        for ev in view["events"]:
            shown.append((ev["kind"], ev["seat"], ev["card"], ev.get("table")))
            if ev["kind"] == "played" and ev["seat"] == 2:
                break
        sent.append(shown[:-1])  # up to seat 2's play, which differs in public
        assert [e[:3] for e in sent[-1]] == [("played", 0, "red-5"), ("played", 1, "red-7")]
    assert sent[0] == sent[1]
    assert sent[0][-1][3]["turn"] == 2  # the table after seat 1's play: seat 2's turn


class _Passive(Agent):
    """Plays no card it need not: passes a window, draws on its turn, keeps a drawn card, takes a
    penalty; else its lowest legal action. What the table sees of it does not depend on its
    hand, so two deals that differ only in cards hidden from the human look the same to it."""

    def act(self, observation, action_mask):
        for a in (A.PASS, A.DRAW):
            if action_mask[a]:
                return a
        return int(np.flatnonzero(action_mask)[0])


register_agent("passive_for_tests", lambda spec, rules, n, seed: _Passive(rules, n, seed))

HIDDEN_RULES = {  # rules whose windows open only for a player holding the right card
    "jump-in": {"preset": "classic", "jump_in": True, "seven_slap": False},
    "stacking": {"preset": "classic", "stacking": True, "jump_in": True},
    "house": {"preset": "house", "uno_call": "explicit"},
    "tmnt": {"preset": "tmnt", "jump_in": True},
}


def answers_of_twin_deals(rules, n, hand_size, dealer, rng, picks, max_decisions):
    """Two played games whose deals differ only in cards the human (seat 0) cannot see (the
    opponents' hands and DRAW below its first 40 cards), the same answers given to both, every
    answer of each (id and token left out) paired, up to the first pair whose views differ."""
    full = {**rules, "hand_size": hand_size}
    cards = [c for c in deck_cards(full)]
    rng.shuffle(cards)
    # a number card turned first (a first WILD DRAW FOUR is shuffled back into DRAW, hidden cards too)
    cards.insert(hand_size * n, cards.pop(next(i for i in range(hand_size * n, len(cards))
                                               if cards[i].rsplit("-", 1)[-1].isdigit())))
    mine, theirs = cards[:hand_size], cards[hand_size:hand_size * n]
    first, top = cards[hand_size * n], cards[hand_size * n + 1:hand_size * n + 41]
    rest = theirs + cards[hand_size * n + 41:]
    other = list(rest)
    rng.shuffle(other)
    decks = []
    for pool in (rest, other):
        hands = {0: mine, **{q: pool[(q - 1) * hand_size:q * hand_size] for q in range(1, n)}}
        decks.append(stacked_deck(full, n, dealer, hands, first, top))
    games = []
    for deck in decks:
        c = client(clock=lambda: 0.0, max_decisions=max_decisions)  # no deadline: only what the game does stops it
        r = c.post("/api/games", json={"rules": full, "seed": 1, "deck": deck, "dealer": dealer,
                                       "opponents": ["passive_for_tests"] * (n - 1)})
        assert r.status_code == 201, r.text
        games.append((c, r.json()["id"], r))
    pairs = []
    for pick in picks:
        answers = [r.json() for _, _, r in games]
        for a in answers:
            a.pop("id", None), a.pop("token", None), a["view"].pop("id")
        if answers[0]["view"] != answers[1]["view"]:
            break  # the human now sees a difference (a card drawn from below the first 40)
        pairs.append(answers)
        view = answers[0]["view"]
        if view["over"]:
            break
        if answers[0]["progress"]["waiting"]:
            games = [(c, gid, c.post(f"/api/games/{gid}/step", json={})) for c, gid, _ in games]
        else:
            action = view["legal_actions"][pick % len(view["legal_actions"])]
            games = [(c, gid, c.post(f"/api/games/{gid}/actions", json={"action": action}))
                     for c, gid, _ in games]
    return pairs


TWIN_DEALS = dict(rules=st.sampled_from(sorted(HIDDEN_RULES)), n=st.integers(2, 3), hand_size=st.integers(2, 5),
                  dealer=st.integers(0, 2), seed=st.integers(0, 2 ** 32 - 1),
                  picks=st.lists(st.integers(0, 50), min_size=12, max_size=12),
                  max_decisions=st.sampled_from([1, 2, 2000]))


def check_twin_deals(rules, n, hand_size, dealer, seed, picks, max_decisions) -> None:
    pairs = answers_of_twin_deals(HIDDEN_RULES[rules], n, hand_size, dealer % n, random.Random(seed), picks,
                                  max_decisions)
    assert pairs
    for one, two in pairs:
        assert one == two


@FAST
@given(**TWIN_DEALS)
def test_no_field_of_a_played_games_answers_depends_on_cards_hidden_from_the_seat(**drawn):
    """docs/web.md: nothing a seat is sent may depend on what it cannot see, in the whole answer
    (``progress`` too: counting the windows a held card opens told the human what was held)."""
    check_twin_deals(**drawn)


@pytest.mark.slow
@SLOW
@given(**TWIN_DEALS)
def test_no_field_of_a_played_games_answers_depends_on_cards_hidden_from_the_seat_long(**drawn):
    check_twin_deals(**drawn)


def test_a_played_games_progress_does_not_tell_a_window_was_open():
    """Seat 0 plays red-5; in one deal seat 1 holds another red-5 (a jump-in window opens for it
    alone, and it passes), in the other it does not: the answers are the same, progress too."""
    options = {"preset": "classic", "hand_size": 3, "jump_in": True, "seven_slap": False}
    answers = []
    for seat1 in (["red-5", "yellow-1", "yellow-2"], ["red-8", "yellow-1", "yellow-2"]):
        deck = stacked_deck(options, 2, 1, {0: ["red-5", "blue-5", "green-5"], 1: seat1}, first="red-1",
                            draw_top=["blue-1", "blue-2"])
        c = client(clock=lambda: 0.0)
        r = c.post("/api/games", json={"rules": options, "seed": 0, "deck": deck, "dealer": 1,
                                       "opponents": ["passive_for_tests"]})
        gid = r.json()["id"]
        out = c.post(f"/api/games/{gid}/actions", json={"action": "play red-5"}).json()
        out["view"].pop("id")
        answers.append(out)
    assert answers[0]["view"]["events"][0]["card"] == "red-5" and answers[0]["view"]["turn"] == 0
    assert answers[0] == answers[1]


def test_uno_serve_refuses_an_unknown_agent_on_its_command_line_before_it_starts(capsys):
    from uno_env.tools.web.server import main as serve_main

    assert serve_main(["--agent", "nobody"]) == 2
    err = capsys.readouterr().err
    assert "unknown agent spec 'nobody'" in err and err.count("\n") == 1


@pytest.mark.parametrize("spec,words", [
    ("module:uno_env.no_such_module:Bot", "no module 'uno_env.no_such_module'"),
    ("module:uno_env.agents.bots:NoSuchBot", "has no 'NoSuchBot'"),
    ("heuristic:bogus=1", "bogus"),
    ("search:simulations=zero", "simulations"),
    ("checkpoint:/nonexistent/run", "not found"),
])
def test_uno_serve_builds_every_operator_agent_before_it_starts(capsys, monkeypatch, spec, words):
    # a spec that parses but does not build served the page, then gave every client choosing it
    # a 400: it is built at start-up, and a bad one is a one-line error (exit 2)
    import uvicorn

    from uno_env.tools.web.server import main as serve_main

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("the server started"))
    assert serve_main(["--agent", "random", "--agent", spec]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--agent {spec!r} does not build" in err and words in err, err


def test_an_operator_agent_that_builds_is_offered():
    c = client(agents=["heuristic:w_skip=2", "module:uno_env.agents.bots:GreedyAgent"])
    assert {"heuristic:w_skip=2", "module:uno_env.agents.bots:GreedyAgent"} <= set(c.get("/api/meta").json()["agents"])


@pytest.mark.parametrize("spec,short", [
    ("heuristic", "heuristic"),
    ("checkpoint:checkpoints/runs/ppo-2p/best", "best"),
    ("checkpoint:checkpoints/runs/ppo-2p/best#sample", "best#sample"),
    ("search:depth=3,rollouts=200,seed=9", "search:depth=3,ro\u2026"),
])
def test_agents_are_shown_by_a_short_name_of_at_most_18_characters(spec, short):
    assert views.short_spec(spec) == short and len(short) <= views.MAX_SHORT_NAME
    assert views.seat_names(2, ["human", spec], you=0) == ["player_0 (you)", f"player_1 ({short})"]


def test_the_hands_are_revealed_with_their_points_only_once_the_game_is_over():
    c = client()
    r = c.post("/api/games", json={"seed": 3, "opponents": ["heuristic", "random"]})
    gid, view = r.json()["id"], r.json()["view"]
    u = game_of(c, gid).u
    while not view["over"]:
        assert view["reveal"] is None
        view = c.post(f"/api/games/{gid}/actions", json={"action": view["legal_actions"][0]}).json()["view"]
    s = u.game_state
    rv = view["reveal"]
    assert rv["hands"] == [[u.card_names[k] for k in u.engine.hand_cards(s, q)] for q in range(3)]
    assert [sum(p) for p in rv["points"]] == rv["left"] and rv["left"][view["winner"]] == 0
    assert rv["scores"] == view["scores"]
    kinds = [e["kind"] for e in view["events"]]
    if "got" in kinds:  # the cards a last penalty gave come before the end
        assert kinds.index("got") < kinds.index("game_over")


def test_meta_says_what_each_checkpoint_was_trained_for_from_its_card(tmp_path):
    from helpers import random_checkpoint

    random_checkpoint(tmp_path / "four", num_players=4, rules="house")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "card.json").write_text("{not json")
    meta = client(checkpoint_roots=[str(tmp_path)]).get("/api/meta").json()
    cards = meta["checkpoint_cards"]
    mine = {k: v for k, v in cards.items() if k.startswith("checkpoint:")}
    shipped = [p for p in meta["agents"] if p.startswith("pretrained:")]
    assert sorted(cards) == sorted(meta["checkpoints"] + shipped)
    assert sorted(mine) == sorted(meta["checkpoints"]) and len(mine) == 2
    four = next(v for k, v in cards.items() if k.endswith("four"))
    assert four["num_players"] == 4 and four["rules"]["name"] == "house"
    assert four["rules"]["stacking"] == uno_env.make_rules("house").stacking
    broken = next(v for k, v in cards.items() if k.endswith("broken"))
    assert set(broken) == {"error"} and "card" in broken["error"]
    assert "max_steps" in meta["ignored_rule_keys"]
