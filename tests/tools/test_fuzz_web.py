"""Hypothesis fuzzing of the web API's request bodies (``uno-serve``), through the app.

New-game bodies (known fields with random or near-valid values, unknown fields), raw bodies
(bytes, text, JSON with huge numbers or deep nesting), action and watch-step bodies, seat
queries, frame indexes and uploaded logs with a field replaced. The properties: the server
never answers 500 (a refusal is a 4xx with an ``error`` string), and a refused request
leaves everything as it was: the game (its whole state and its step count), and the store
(no game or replay kept).
"""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from uno_env.game.rules import PRESETS  # noqa: E402
from uno_env.tools.web.server import create_app  # noqa: E402

from fuzzing import FAST, JSON, NAMES, SLOW, replace_one_field  # noqa: E402

APP = create_app(max_per_client=10 ** 6, max_games=10 ** 6)
C = TestClient(APP, raise_server_exceptions=False)
STORE = APP.state.server.store
JSON_TYPE = {"Content-Type": "application/json"}
NDJSON = {"Content-Type": "application/x-ndjson"}

SPECS = st.sampled_from(["random", "greedy", "heuristic", "search:simulations=1", "human", "nosuchbot",
                         "search:simulations=100000", "search:fast=0", "search:x=1", "checkpoint:",
                         "checkpoint:/etc", "checkpoint:checkpoints/../..", "checkpoint:checkpoints/nothing",
                         "checkpoint:\x00", "random:1", " random ", "", "\u0663"]) | st.text(max_size=12)
NUMBERS = st.one_of(st.integers(-3, 12), st.integers(), st.sampled_from([2 ** 63, 2 ** 63 - 1, 10 ** 40, -1]),
                    st.floats(), st.booleans(), st.none())
OPTION_VALUES = st.one_of(NUMBERS, st.text(max_size=8), st.sampled_from(["explicit", "auto", "game", "tmnt"]), JSON)
OPTIONS = st.dictionaries(st.sampled_from(["hand_size", "max_steps", "stacking", "jump_in", "uno_call",
                                          "count_number", "episode", "target_score", "colors", "nosuch"])
                          | st.text(max_size=6), OPTION_VALUES, max_size=4)
FIELDS = {
    "mode": st.sampled_from(["play", "watch", "spectate"]) | JSON,
    "rules": st.sampled_from(sorted(PRESETS)) | st.just({"preset": "house"}) | OPTIONS | JSON,
    "options": OPTIONS | JSON,
    "num_players": NUMBERS,
    "opponents": st.lists(SPECS, max_size=4) | JSON,
    "agents": st.lists(SPECS, max_size=4) | JSON,
    "seat": NUMBERS | st.sampled_from(["all", "0", "x"]),
    "seed": NUMBERS,
    "deck": st.lists(st.sampled_from(NAMES) | st.text(max_size=6), max_size=6) | JSON,
    "dealer": NUMBERS,
}
GAME_BODIES = st.fixed_dictionaries({}, optional={**FIELDS, "colour": JSON})
RAW = st.one_of(st.binary(max_size=40), st.text(max_size=40).map(str.encode),
                st.integers(1, 3000).map(lambda n: b'{"seed": ' + b"9" * n + b"}"),
                st.integers(1, 20_000).map(lambda n: b'{"rules": ' + b"[" * n + b"]" * n + b"}"),
                st.sampled_from([b"NaN", b'{"seed": Infinity}', b"[]", b'"x"', b"{}", b"null", b'{"a":1}{']))
ACTIONS = st.one_of(NUMBERS, st.sampled_from(NAMES), st.text(max_size=12), JSON,
                    st.sampled_from(["draw", "pass", "uno", "9" * 300, "１", "²", " DRAW ", "play red-5"]))


def no_500(r) -> None:
    assert r.status_code != 500 and r.status_code < 600, r.text[:500]
    if r.status_code >= 400:
        assert isinstance(r.json()["error"], str) and r.json()["error"]


def drop(r) -> None:
    """Delete what a request created (the store stays small across examples)."""
    if r.status_code == 201:
        kind = "replays" if "count" in r.json() else "games"
        assert C.delete(f"/api/{kind}/{r.json()['id']}", headers={"X-Uno-Token": r.json()["token"]}).status_code == 200


def post_json(path: str, body: object):
    """``body`` as JSON (``NaN`` and ``Infinity`` as Python writes them: not JSON numbers)."""
    return C.post(path, content=json.dumps(body).encode(), headers=JSON_TYPE)


def new_game(body: dict):
    before = set(STORE.items)
    r = post_json("/api/games", body)
    no_500(r)
    if r.status_code >= 400:
        assert set(STORE.items) == before, "a refused game was kept"
    return r


def fresh(mode: str = "play") -> tuple[str, str, object]:
    body = {"mode": "watch", "agents": ["random", "greedy", "random"]} if mode == "watch" else \
        {"rules": "house", "opponents": ["random", "greedy"], "options": {"uno_call": "explicit"}}
    r = C.post("/api/games", json={**body, "seed": 7})
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["token"], STORE.items[r.json()["id"]]


def state(game) -> tuple:
    return json.dumps(game.u.snapshot(), sort_keys=True), game.u.game_state.steps, len(game.u.history)


def fuzz_new_game(data) -> None:
    drop(new_game(data.draw(GAME_BODIES, label="body")))


def fuzz_raw_body(data) -> None:
    before = set(STORE.items)
    path = data.draw(st.sampled_from(["/api/games", "/api/games/{g}/actions", "/api/games/{g}/step"]))
    gid, token, game = fresh(data.draw(st.sampled_from(["play", "watch"])))
    was = state(game)
    r = C.post(path.format(g=gid), content=data.draw(RAW, label="raw"), headers=JSON_TYPE)
    no_500(r)
    if r.status_code >= 400:
        assert state(game) == was
    drop(r)
    C.delete(f"/api/games/{gid}", headers={"X-Uno-Token": token})
    assert set(STORE.items) == before


def fuzz_actions(data) -> None:
    gid, token, game = fresh()
    for _ in range(data.draw(st.integers(1, 6))):
        legal = game.u.legal_actions()
        body = data.draw(st.one_of(
            st.fixed_dictionaries({"action": ACTIONS}),
            st.fixed_dictionaries({"action": st.sampled_from([game.u.action_names[a] for a in legal] + legal)}),
            st.dictionaries(st.text(max_size=6), JSON, max_size=3)), label="body")
        was = state(game)
        r = post_json(f"/api/games/{gid}/actions", body)
        no_500(r)
        if r.status_code >= 400:
            assert state(game) == was
        if game.over():
            break
    C.delete(f"/api/games/{gid}", headers={"X-Uno-Token": token})


def fuzz_watch(data) -> None:
    gid, token, game = fresh("watch")
    for _ in range(data.draw(st.integers(1, 4))):
        body = data.draw(st.fixed_dictionaries({}, optional={"seat": FIELDS["seat"], "steps": NUMBERS,
                                                             "extra": JSON}), label="body")
        was = state(game)
        r = post_json(f"/api/games/{gid}/step", body)
        no_500(r)
        if r.status_code >= 400:
            assert state(game) == was
        query = data.draw(st.text(max_size=8) | st.sampled_from(["all", "0", "2", "9" * 5000]), label="seat")
        r = C.get(f"/api/games/{gid}", params={"seat": query})
        no_500(r)
    C.delete(f"/api/games/{gid}", headers={"X-Uno-Token": token})


def _log() -> list[str]:
    gid, token, game = fresh()
    view = C.get(f"/api/games/{gid}").json()["view"]
    while not view["over"]:
        view = C.post(f"/api/games/{gid}/actions", json={"action": view["legal_actions"][0]}).json()["view"]
    lines = C.get(f"/api/games/{gid}/log").text.splitlines()
    C.delete(f"/api/games/{gid}", headers={"X-Uno-Token": token})
    return lines


LOG = _log()


def fuzz_replay(data) -> None:
    lines = list(LOG)
    i = data.draw(st.integers(0, len(lines) - 1), label="line")
    rec = json.loads(lines[i])
    replace_one_field(data, rec, JSON | NUMBERS)
    lines[i] = json.dumps(rec)
    before = set(STORE.items)
    r = C.post("/api/replays", content="\n".join(lines).encode(), headers=NDJSON)
    no_500(r)
    if r.status_code == 201:
        rid = r.json()["id"]
        index = data.draw(st.integers(-2, r.json()["count"] + 2).map(str) | st.text(max_size=6), label="frame")
        no_500(C.get(f"/api/replays/{rid}/frames/{quote(index, safe='')}"))
    else:
        assert set(STORE.items) == before
    drop(r)


FUZZERS = [fuzz_new_game, fuzz_raw_body, fuzz_actions, fuzz_watch, fuzz_replay]


@FAST
@given(st.data())
def test_fuzz_new_game_bodies_never_get_a_500_nor_keep_a_refused_game(data):
    fuzz_new_game(data)


@FAST
@given(st.data())
def test_fuzz_raw_bodies_never_get_a_500_nor_change_the_game(data):
    fuzz_raw_body(data)


@FAST
@given(st.data())
def test_fuzz_action_bodies_never_get_a_500_and_a_refused_one_changes_nothing(data):
    fuzz_actions(data)


@FAST
@given(st.data())
def test_fuzz_watch_step_bodies_and_seat_queries_never_get_a_500(data):
    fuzz_watch(data)


@FAST
@given(st.data())
def test_fuzz_uploaded_logs_and_frame_indexes_never_get_a_500(data):
    fuzz_replay(data)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_fuzz_web_api_long(data):
    data.draw(st.sampled_from(FUZZERS))(data)
