"""The web server's limits (``uno-serve``): one client must not exhaust it.

Through the real app (Starlette's TestClient, or uvicorn on a loopback port): replays are
stored compactly and their frames are the replayed game's; the store keeps its memory
bound and its caps (per client, in all), dropping idle items of the biggest holder first;
only an item's owner token deletes it; a request plays agents for a bounded time and says
how far it got; cross-site requests are refused; hostile bodies get a 4xx naming the
problem, with short echoes and no absolute paths. The 5 MB upload runs in a child process
under an address-space limit (``bench/web_memory.py``).
"""

from __future__ import annotations

import functools
import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from uno_env.game.engine import TURN  # noqa: E402
from uno_env.tools.gamelog_read import read_log  # noqa: E402
from uno_env.tools.gamelog_replay import replay  # noqa: E402
from uno_env.tools.web import views  # noqa: E402
from uno_env.tools.web.replays import CHECKPOINT_EVERY  # noqa: E402
from uno_env.tools.web.server import (MAX_INFLIGHT_PER_CLIENT, allowed_hosts, create_app)  # noqa: E402
from uno_env.tools.web.validate import MAX_ERROR_CHARS  # noqa: E402

from helpers import REPO_ROOT, free_port, load_script, run_bounded, web_server  # noqa: E402

web_memory = load_script("bench", "web_memory")
ROOT = REPO_ROOT
PY = sys.executable
NDJSON = {"Content-Type": "application/x-ndjson"}
SMALL_GAME = {"rules": "classic", "opponents": ["random"], "seed": 3}


def client(address: str = "testclient", **options) -> TestClient:
    options.setdefault("checkpoint_roots", [os.path.join(ROOT, "checkpoints")])
    return TestClient(create_app(**options), client=(address, 50000))


def as_client(c: TestClient, address: str) -> TestClient:
    """Another client (address) of the same app."""
    return TestClient(c.app, client=(address, 50000))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def store_clock(c: TestClient) -> Clock:
    clock = Clock()
    c.app.state.server.store.clock = clock
    return clock


# ---------------------------------------------------------------------------- compact replays
@pytest.fixture(scope="module")
def long_log() -> str:
    """A legal log of ~2,700 actions, 10 players, ~1,870 cards in the hands (bench/web_memory.py)."""
    return web_memory.heavy_log(300_000, seed=4)


def test_replay_frames_built_on_request_are_the_frames_of_the_replayed_game(long_log):
    log = read_log(long_log.splitlines())
    assert len(log.actions) > 2 * CHECKPOINT_EVERY + 10
    tables = []
    replay(log, on_reset=lambda e: tables.append(views.open_table(e.unwrapped)),
           on_step=lambda e, rec: tables.append(views.open_table(e.unwrapped)))
    c = client()
    r = c.post("/api/replays", content=long_log.encode(), headers=NDJSON)
    assert r.status_code == 201, r.text[:300]
    rid, count = r.json()["id"], r.json()["count"]
    assert count == len(tables) == len(r.json()["texts"])
    rep = c.app.state.server.store.items[rid]
    assert len(rep.actions) == count - 1 and len(rep.checkpoints) == (count - 1) // CHECKPOINT_EVERY + 1
    k = CHECKPOINT_EVERY
    order = [0, 1, 2, 3, k - 1, k, k + 1, 2 * k + 5, k + 2, count - 1, count - 2, 5, 0, k, 2 * k, 2 * k + 1, 7]
    for i in order:  # forwards, backwards, across the kept copies, the same frame twice
        frame = c.get(f"/api/replays/{rid}/frames/{i}").json()
        assert frame["index"] == i and frame["count"] == count
        assert frame["frame"]["table"] == tables[i], f"frame {i}"
        assert frame["frame"]["text"] == r.json()["texts"][i]
    assert r.json()["frame"]["table"] == tables[0]


def test_replay_is_charged_what_it_keeps_and_the_store_keeps_its_memory_bound(long_log):
    c = client(max_memory=2 * 2 ** 20)
    clock = store_clock(c)
    kept = []
    for _ in range(12):
        r = c.post("/api/replays", content=long_log.encode(), headers=NDJSON)
        if r.status_code != 201:
            break
        kept.append(r.json()["id"])
        store = c.app.state.server.store
        assert store.nbytes() <= store.max_bytes
    # nothing is idle yet: the store is full
    assert r.status_code == 503 and "MiB" in r.json()["error"], r.text[:300]
    assert 1 < len(kept) < 12
    one = store.items[kept[0]].nbytes
    assert 100_000 < one < 600_000  # actions (2,700 bytes), 3 state copies, the env
    # once they are idle, the least recently used one makes room
    clock.now += 61
    assert c.get(f"/api/replays/{kept[1]}/frames/3").status_code == 200  # touched: stays
    r = c.post("/api/replays", content=long_log.encode(), headers=NDJSON)
    assert r.status_code == 201
    assert kept[0] not in store.items and kept[1] in store.items
    assert c.get(f"/api/replays/{kept[0]}/frames/0").status_code == 404
    assert store.nbytes() <= store.max_bytes


def test_a_replay_bigger_than_the_whole_memory_bound_is_refused_413(long_log):
    r = client(max_memory=100_000).post("/api/replays", content=long_log.encode(), headers=NDJSON)
    assert r.status_code == 413 and "more than the server keeps" in r.json()["error"]


def test_a_5mb_log_upload_holds_a_few_mb_in_a_child_under_an_address_space_limit():
    """bench/web_memory.py in a child process limited to 1 GiB of address space: uploading
    its 5 MB log held 822 MB when every frame was kept built (a MemoryError under this limit);
    now it holds ~1 MB."""
    code = ("import runpy, sys; sys.argv = ['web_memory'] + sys.argv[1:]; "
            f"runpy.run_path({os.path.join(ROOT, 'bench', 'web_memory.py')!r}, run_name='__main__')")
    r = run_bounded(code, memory_mb=1024, timeout_s=600, args=("--bytes", "5000000", "--frames", "5", "--json"))
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert r.peak_mb < 600  # resident; it was 1.2 GB
    assert out["log_bytes"] <= 5_000_000 and out["actions"] > 40_000
    assert out["open_cards_last_frame"] > 1800
    assert out["held_mb"] < 8 and out["nbytes_mb"] < 8
    assert out["held_mb"] <= 2 * out["nbytes_mb"]  # the estimate the store charges is of its size
    assert out["peak_mb"] < 200


def test_game_log_kept_in_memory_is_the_log_a_log_dir_gets(tmp_path):
    """Without --log-dir a game keeps no log: it is written again from the deal and the actions."""
    texts = []
    for log_dir in (str(tmp_path), None):
        c = client(log_dir=log_dir)
        r = c.post("/api/games", json={"rules": "tmnt", "opponents": ["heuristic", "random"], "seed": 9})
        gid, view = r.json()["id"], r.json()["view"]
        while not view["over"]:
            view = c.post(f"/api/games/{gid}/actions", json={"action": view["legal_actions"][0]}).json()["view"]
        lines = [json.loads(x) for x in c.get(f"/api/games/{gid}/log").text.splitlines()]
        for x in lines[:1]:
            x["meta"].pop("created")
            x["meta"].pop("game")
        texts.append(lines)
    assert texts[0] == texts[1]
    assert texts[0][-1]["type"] == "end" and texts[0][-1]["status"] == "finished"


def test_game_is_charged_its_worst_case_up_front():
    c = client()
    short = c.post("/api/games", json={**SMALL_GAME, "options": {"max_steps": 100}}).json()["id"]
    long = c.post("/api/games", json={**SMALL_GAME, "options": {"max_steps": 20_000}}).json()["id"]
    items = c.app.state.server.store.items
    assert items[long].nbytes - items[short].nbytes >= 19_900 * 64
    r = c.post("/api/games", json={**SMALL_GAME, "options": {"max_steps": 20_001}})
    assert r.status_code == 400 and "20000 decisions" in r.json()["error"]


# ---------------------------------------------------------------------------- fairness
def test_a_client_at_its_cap_is_refused_429_then_its_own_idle_item_makes_room():
    a = client("10.0.0.1", max_per_client=3)
    clock = store_clock(a)
    b = as_client(a, "10.0.0.2")
    mine = [a.post("/api/games", json=SMALL_GAME).json()["id"] for _ in range(3)]
    theirs = b.post("/api/games", json=SMALL_GAME).json()["id"]
    r = a.post("/api/games", json=SMALL_GAME)
    assert r.status_code == 429 and "keeps 3 games and replays" in r.json()["error"]
    assert b.post("/api/games", json=SMALL_GAME).status_code == 201  # another client is not held up
    clock.now += 61  # all idle now; client a touches its first game
    assert a.get(f"/api/games/{mine[0]}").status_code == 200
    assert a.post("/api/games", json=SMALL_GAME).status_code == 201
    items = a.app.state.server.store.items
    assert mine[1] not in items and mine[0] in items and mine[2] in items and theirs in items


def test_a_full_server_drops_an_idle_item_of_the_biggest_holder_first(tmp_path):
    a = client("10.0.0.1", max_games=4, log_dir=str(tmp_path))
    clock = store_clock(a)
    b, newcomer = as_client(a, "10.0.0.2"), as_client(a, "10.0.0.3")
    hog = [a.post("/api/games", json=SMALL_GAME).json()["id"] for _ in range(3)]
    other = b.post("/api/games", json=SMALL_GAME).json()["id"]
    r = newcomer.post("/api/games", json=SMALL_GAME)
    assert r.status_code == 503 and "full" in r.json()["error"]  # nothing idle yet
    clock.now += 61
    assert b.get(f"/api/games/{other}").status_code == 200  # the oldest touch now: a's games
    r = newcomer.post("/api/games", json=SMALL_GAME)
    assert r.status_code == 201
    items = a.app.state.server.store.items
    assert other in items and hog[0] not in items and hog[1] in items and r.json()["id"] in items
    # the dropped game: gone, and its log ends aborted
    assert a.get(f"/api/games/{hog[0]}").status_code == 404
    (path,) = tmp_path.glob(f"web-*-{hog[0]}.jsonl")
    assert read_log(str(path)).end["status"] == "aborted"


def test_only_the_token_given_to_the_creator_deletes_a_game_or_replay():
    c = client("10.0.0.1")
    r = c.post("/api/games", json=SMALL_GAME)
    gid, token = r.json()["id"], r.json()["token"]
    assert len(token) >= 20 and token != gid
    assert token not in json.dumps(c.get(f"/api/games/{gid}").json())  # not in the view
    gid2, _ = _finished_game(c)
    log = c.get(f"/api/games/{gid2}/log").text
    rep = c.post("/api/replays", content=log.encode(), headers=NDJSON)
    assert rep.json()["token"] not in log
    stranger = as_client(c, "10.0.0.9")
    for path, tok in ((f"/api/games/{gid}", token), (f"/api/replays/{rep.json()['id']}", rep.json()["token"])):
        for headers in ({}, {"X-Uno-Token": "x" * 22}, {"X-Uno-Token": tok[:-1]}):
            r = stranger.delete(path, headers=headers)
            assert r.status_code == 403 and "token" in r.json()["error"]
        assert c.delete(path).status_code == 403  # the creator too needs its token
        assert c.get(path if "games" in path else path + "/frames/0").status_code == 200
        assert stranger.delete(path, headers={"X-Uno-Token": tok}).status_code == 200  # the token is the proof
        assert c.get(path if "games" in path else path + "/frames/0").status_code == 404
        assert c.delete(path, headers={"X-Uno-Token": tok}).status_code == 404


def _finished_game(c: TestClient) -> tuple[str, dict]:
    r = c.post("/api/games", json=SMALL_GAME)
    gid, view = r.json()["id"], r.json()["view"]
    while not view["over"]:
        view = c.post(f"/api/games/{gid}/actions", json={"action": view["legal_actions"][0]}).json()["view"]
    return gid, view


def test_one_client_runs_at_most_four_requests_at_once_over_http():
    """Through uvicorn: slow watch steps (ten search agents) sent at once by one client; the
    ones beyond its limit get 429 at once, and another client is still served."""
    import httpx

    n = MAX_INFLIGHT_PER_CLIENT + 3
    with web_server(lambda port: create_app(request_seconds=1.0)) as url:
        games = []
        for _ in range(n):
            r = httpx.post(url + "/api/games", json={"mode": "watch", "rules": "house", "agents": ["search"] * 10,
                                                     "seed": 5}, timeout=60)
            assert r.status_code == 201, r.text
            games.append(r.json()["id"])
        answers: list[int] = []
        barrier = threading.Barrier(n)

        def step(gid: str) -> None:
            barrier.wait()
            answers.append(httpx.post(f"{url}/api/games/{gid}/step", json={"steps": 100}, timeout=120).status_code)

        threads = [threading.Thread(target=step, args=(g,)) for g in games]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
    assert sorted(answers).count(200) >= 1 and answers.count(429) >= n - MAX_INFLIGHT_PER_CLIENT
    assert set(answers) <= {200, 429}


# ---------------------------------------------------------------------------- the request budget
def test_watch_step_with_ten_search_agents_stops_at_its_deadline_and_says_how_far():
    c = client(request_seconds=0.5)
    r = c.post("/api/games", json={"mode": "watch", "rules": "house", "agents": ["search"] * 10, "seed": 1})
    assert r.status_code == 201
    gid = r.json()["id"]
    game = c.app.state.server.store.items[gid]
    r = c.post(f"/api/games/{gid}/step", json={"seat": "all", "steps": 100})
    p = r.json()["progress"]
    assert r.status_code == 200 and p["stopped"] == "deadline"
    assert 1 <= p["moves"] < 100 and p["decisions"] >= p["moves"]
    assert p["budget"] == {"seconds": 0.5, "decisions": 2000}
    steps = game.u.game_state.steps
    assert steps == p["decisions"]
    r = c.post(f"/api/games/{gid}/step", json={"seat": "all", "steps": 100})  # the next one goes on
    assert game.u.game_state.steps == steps + r.json()["progress"]["decisions"] > steps


def test_request_budget_counts_decisions_and_time_deterministically():
    ticks = [0.0]

    def clock() -> float:  # one second per look at the clock
        ticks[0] += 1
        return ticks[0]

    c = client(request_seconds=3, clock=clock)
    gid = c.post("/api/games", json={"mode": "watch", "agents": ["random"] * 3, "seed": 2}).json()["id"]
    p = c.post(f"/api/games/{gid}/step", json={"steps": 50}).json()["progress"]
    assert (p["decisions"], p["moves"], p["stopped"]) == (3, 3, "deadline")
    c = client(max_decisions=5)
    gid = c.post("/api/games", json={"mode": "watch", "agents": ["random"] * 3, "seed": 2}).json()["id"]
    p = c.post(f"/api/games/{gid}/step", json={"steps": 50}).json()["progress"]
    assert (p["decisions"], p["moves"], p["stopped"]) == (5, 5, "decisions")
    assert c.post(f"/api/games/{gid}/step", json={"steps": 2}).json()["progress"]["stopped"] is None


def test_a_played_game_stops_only_at_a_public_boundary_and_plays_on_when_asked():
    """One decision per request: the server stops where every player sees a turn begin, says
    the others are still to move, and POST .../step plays on up to the human's decision."""
    c = client(max_decisions=1)
    r = c.post("/api/games", json={"rules": "house", "opponents": ["heuristic"] * 5, "seat": 5, "seed": 6})
    gid = r.json()["id"]
    game = c.app.state.server.store.items[gid]
    waits = turns = 0
    for _ in range(300):
        p, view = r.json()["progress"], r.json()["view"]
        s = game.u.game_state
        if view["over"] or turns == 4:
            break
        if p["waiting"]:
            waits += 1
            assert p["decisions"] >= 1 and p["stopped"] == "decisions"
            assert s.actor != 5 and s.phase == TURN and s.pending == 0
            assert view["choices"] == [] and view["phase"] is None and "hands" not in view
            assert c.post(f"/api/games/{gid}/actions", json={"action": "draw"}).status_code == 409
            r = c.post(f"/api/games/{gid}/step", json={})
        else:
            assert s.actor == 5 and view["choices"]
            r2 = c.post(f"/api/games/{gid}/step", json={})
            assert r2.status_code == 409 and "its decision" in r2.json()["error"]
            turns += 1
            r = c.post(f"/api/games/{gid}/actions", json={"action": view["legal_actions"][0]})
        assert r.status_code == 200, r.text
    assert turns == 4 and waits >= 8  # five others play between two of the human's turns


@pytest.mark.parametrize("spec,words", [
    ("search:simulations=801", "at most 800 rollouts"),
    ("search:rollouts=agents,simulations=101", "rollouts=agents: 100"),
    ("search:fast=0,simulations=101", "rollouts=agents: 100"),  # the old spelling
    ("search:max_steps=1001", "1000 decisions"),
    ("search:simulations=x", "simulations"),
])
def test_search_specs_that_cost_more_than_the_server_spends_are_refused(spec, words):
    c = client()
    r = c.post("/api/games", json={"opponents": [spec]})
    assert r.status_code == 400 and words in r.json()["error"], r.text
    assert c.post("/api/games", json={"opponents": ["search:simulations=800"], "seed": 1}).status_code == 201


# ---------------------------------------------------------------------------- cross-site requests
@pytest.mark.parametrize("path,content_type", [
    ("/api/games", "text/plain"),
    ("/api/games", "application/x-www-form-urlencoded"),
    ("/api/games", None),
    ("/api/replays", "text/plain"),
    ("/api/replays", "multipart/form-data; boundary=x"),
])
def test_posts_a_cross_site_form_could_send_are_refused_415(path, content_type):
    c = client()
    headers = {} if content_type is None else {"Content-Type": content_type}
    r = c.post(path, content=b"{}", headers=headers)
    assert r.status_code == 415 and "Content-Type" in r.json()["error"]
    assert c.app.state.server.store.items == {}
    assert c.post("/api/games", content=b"{}", headers={"Content-Type": "application/json; charset=utf-8"}
                  ).status_code == 201


def test_requests_from_another_origin_are_refused_403():
    c = TestClient(create_app(hosts=allowed_hosts("127.0.0.1")), base_url="http://127.0.0.1:8000")
    for origin in ("http://evil.example", "null", "http://127.0.0.1:9999", "file://", "http://127.0.0.1:8000.evil"):
        r = c.post("/api/games", json={}, headers={"Origin": origin})
        assert r.status_code == 403 and "another site" in r.json()["error"], origin
        assert c.get("/api/meta", headers={"Origin": origin}).status_code == 403
    assert c.app.state.server.store.items == {}
    assert c.post("/api/games", json={}, headers={"Origin": "http://127.0.0.1:8000"}).status_code == 201
    assert c.get("/api/meta").status_code == 200  # no Origin: a script, not a page


@pytest.mark.parametrize("host,status", [
    ("127.0.0.1:8000", 200), ("localhost:8000", 200), ("[::1]:8000", 200), ("LOCALHOST", 200),
    ("evil.example:8000", 403), ("evil.example", 403), ("127.0.0.1.nip.io:8000", 403), ("", 403),
])
def test_a_host_that_does_not_name_the_server_is_refused_403(host, status):
    """DNS rebinding: a page of evil.example whose name now points to 127.0.0.1 sends its own Host."""
    c = TestClient(create_app(hosts=allowed_hosts("127.0.0.1")), base_url="http://127.0.0.1:8000")
    for path in ("/", "/static/app.js", "/api/meta"):
        r = c.get(path, headers={"Host": host})
        assert r.status_code == status, (path, host)
        if status == 403:
            assert "does not name this server" in r.json()["error"]


def test_allowed_hosts_follow_the_listening_address():
    assert allowed_hosts("127.0.0.1") == allowed_hosts("localhost") == ["127.0.0.1", "::1", "localhost"]
    assert "192.168.1.5" in allowed_hosts("192.168.1.5") and "evil.example" not in allowed_hosts("192.168.1.5")
    assert allowed_hosts("0.0.0.0") is None  # every address: any name (the warning says so)
    assert "box.lan" in allowed_hosts("0.0.0.0", ["box.lan"])


def _serve(*args: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    proc = subprocess.Popen([PY, "-m", "uno_env.tools.web", "--port", str(port), *args], cwd=ROOT,
                            env=dict(os.environ, PYTHONPATH=ROOT), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    return proc, port


def _wait_up(proc: subprocess.Popen, port: int) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.2)


@pytest.mark.parametrize("host,warns", [("0.0.0.0", True), ("192.168.7.7", True), ("::", True),
                                        ("127.0.0.1", False), ("localhost", False), ("::1", False)])
def test_cli_warns_when_it_would_listen_beyond_loopback(host, warns, monkeypatch, capsys):
    """``main`` up to uvicorn (stubbed: nothing listens), and the app it would serve."""
    import uvicorn

    from uno_env.tools.web import server

    served = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.update(app=app, **kw))
    assert server.main(["--host", host, "--port", "8123", "--allow-host", "box.lan"]) == 0
    err = capsys.readouterr().err
    assert (f"warning: --host {host} listens beyond this machine" in err) == warns, err
    assert served["host"] == host and served["proxy_headers"] is False
    c = TestClient(served["app"], base_url="http://127.0.0.1:8123")
    meta = c.get("/api/meta")
    assert meta.status_code == 200 and meta.json()["limits"]["max_per_client"] == 16
    assert c.get("/api/meta", headers={"Host": "box.lan:8123"}).status_code == 200
    assert c.get("/api/meta", headers={"Host": "evil.example"}).status_code == 403


def test_cli_process_on_loopback_warns_of_nothing():
    proc, port = _serve()
    try:
        _wait_up(proc, port)
        import httpx

        assert httpx.get(f"http://127.0.0.1:{port}/api/meta", timeout=10).status_code == 200
        r = httpx.get(f"http://127.0.0.1:{port}/api/meta", headers={"Host": "evil.example"}, timeout=10)
        assert r.status_code == 403
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert "warning" not in err and "Traceback" not in err


# ---------------------------------------------------------------------------- hostile input
def _fresh(c: TestClient) -> tuple[str, dict]:
    r = c.post("/api/games", json={"rules": "classic", "opponents": ["random"], "seed": 8})
    return r.json()["id"], r.json()["view"]


def nested(depth: int) -> list:
    value: list = [0]
    for _ in range(depth - 1):
        value = [value]
    return value


HOSTILE = [
    ("POST", "/api/games", b"[" * 30_000 + b"]" * 30_000, 400, "nested too deep"),
    ("POST", "/api/games", json.dumps({"rules": {"preset": nested(34)}}).encode(), 400, "nested too deep"),
    ("POST", "/api/games", b'{"seed": ' + b"7" * 5000 + b"}", 400, "5000 digits"),
    ("POST", "/api/games", b'{"seed": -' + b"7" * 5000 + b"}", 400, "5000 digits"),
    ("POST", "/api/games", b'{"seed": NaN}', 400, "NaN"),
    ("POST", "/api/games", b'{"seed": 1e999}', 400, "seed"),
    ("POST", "/api/games", json.dumps({"opponents": ["checkpoint:checkpoints/classic-2p\x00x"]}).encode(),
     400, "printable"),
    ("POST", "/api/games", json.dumps({"opponents": ["checkpoint:\x00"]}).encode(), 400, "printable"),
    ("POST", "/api/games/{g}/actions", b'{"action": ' + b"9" * 5000 + b"}", 400, "5000 digits"),
    ("POST", "/api/games/{g}/actions", json.dumps({"action": "9" * 5000}).encode(), 400, "at most 100 characters"),
    ("POST", "/api/games/{g}/actions", json.dumps({"action": "9" * 99}).encode(), 400, "0..194"),
    ("POST", "/api/games/{g}/actions", json.dumps({"action": "\u00b2"}).encode(), 400, "unknown action"),
    ("POST", "/api/games/{g}/actions", json.dumps({"action": "\u0663"}).encode(), 400, "unknown action"),
    ("GET", "/api/games/{g}?seat=" + "9" * 5000, None, 403, "seat 0 only"),
    ("GET", "/api/replays/{r}/frames/" + "9" * 5000, None, 400, "frame index"),
    ("GET", "/api/replays/{r}/frames/-1", None, 400, "frame index"),
    ("GET", "/api/replays/{r}/frames/\u0663", None, 400, "frame index"),
]


@pytest.mark.parametrize("method,path,body,status,words", HOSTILE)
def test_hostile_requests_get_a_4xx_naming_the_problem_never_a_500(method, path, body, status, words):
    c = client()
    gid, _ = _fresh(c)
    log = small_log()
    rid = c.post("/api/replays", content=log.encode(), headers=NDJSON).json()["id"]
    game = c.app.state.server.store.items[gid]
    before = game.u.snapshot()
    url = path.format(g=gid, r=rid)
    r = c.request(method, url, content=body, headers={"Content-Type": "application/json"} if body else {})
    assert r.status_code == status, r.text[:300]
    assert words in r.json()["error"] and len(r.json()["error"]) < 400
    assert game.u.snapshot() == before


def test_a_watched_games_seat_of_5000_digits_or_null_is_a_400():
    c = client()
    gid = c.post("/api/games", json={"mode": "watch", "agents": ["random"] * 2}).json()["id"]
    r = c.get(f"/api/games/{gid}?seat=" + "9" * 5000)
    assert r.status_code == 400 and "seat" in r.json()["error"] and len(r.json()["error"]) < 200
    r = c.post(f"/api/games/{gid}/step", json={"seat": None})  # found by the fuzzer: was a 500
    assert r.status_code == 400 and "seat must be 'all'" in r.json()["error"]


BIG = "z" * 60_000


@functools.lru_cache(maxsize=1)
def small_log() -> str:
    return web_memory.heavy_log(100_000)


@pytest.mark.parametrize("body", [
    {"rules": BIG}, {"opponents": [BIG]}, {"opponents": BIG}, {"mode": BIG}, {BIG: 1},
    {"options": {BIG: 1}}, {"options": {"hand_size": BIG}}, {"seed": BIG}, {"deck": [BIG] * 2},
    {"opponents": ["checkpoint:" + BIG]}, {"mode": "watch", "agents": [BIG, BIG]},
])
def test_error_messages_echo_at_most_a_short_cut_of_the_input(body):
    c = TestClient(create_app(max_body=2 ** 20))
    r = c.post("/api/games", json=body)
    assert r.status_code == 400
    message = r.json()["error"]
    assert len(message) <= MAX_ERROR_CHARS and "z" * 100 not in message
    gid, _ = _fresh(c)
    r = c.post(f"/api/games/{gid}/actions", json={"action": BIG})
    assert r.status_code == 400 and len(r.json()["error"]) < 300


def test_checkpoint_errors_name_roots_relative_to_the_working_directory(tmp_path, monkeypatch):
    root = tmp_path / "served" / "ckpts"
    (root / "broken").mkdir(parents=True)
    (root / "broken" / "card.json").write_text("{}")
    monkeypatch.chdir(tmp_path / "served")
    c = TestClient(create_app(checkpoint_roots=[str(root)]))
    meta = c.get("/api/meta").json()
    assert meta["checkpoints"] == ["checkpoint:ckpts/broken"]
    for spec in ("checkpoint:/etc", "checkpoint:ckpts/../..", "checkpoint:ckpts/broken",
                 "checkpoint:ckpts/none", "checkpoint:ckpts/broken/card.json"):
        r = c.post("/api/games", json={"opponents": [spec]})
        assert r.status_code == 400, r.text
        assert str(tmp_path) not in r.json()["error"] and "/tmp" not in r.json()["error"], r.json()["error"]
    r = c.post("/api/games", json={"opponents": ["checkpoint:/etc"]})
    assert "(ckpts; see --checkpoint-root)" in r.json()["error"]
    monkeypatch.chdir(tmp_path / "served" / "ckpts" / "broken")  # a root above the working directory
    c = TestClient(create_app(checkpoint_roots=[str(root)]))
    assert c.get("/api/meta").json()["checkpoints"] == ["checkpoint:."]
    r = c.post("/api/games", json={"opponents": ["checkpoint:/etc"]})
    assert "(..; see --checkpoint-root)" in r.json()["error"]


def test_an_internal_error_says_so_without_details(monkeypatch):
    c = TestClient(create_app(), raise_server_exceptions=False)
    monkeypatch.setattr(c.app.state.server, "meta", lambda: 1 / 0)
    r = c.get("/api/meta")
    assert r.status_code == 500 and r.json()["error"].startswith("internal error (ZeroDivisionError)")
    assert "division" not in r.json()["error"]
