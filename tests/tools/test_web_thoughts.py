"""The agent panel's data (:mod:`uno_env.tools.web.thoughts`): a watched policy's
probabilities over its own legal actions, from its own observation only, shown only to a
viewer who may see that seat, and never in a played game."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient  # noqa: E402

from uno_env.game import actions as A  # noqa: E402
from uno_env.tools.web.server import create_app  # noqa: E402
from uno_env.tools.web.thoughts import MAX_SHOWN, agent_thoughts  # noqa: E402

from helpers import _perturbed, random_checkpoint  # noqa: E402


@pytest.fixture
def checkpoint(tmp_path):
    root = tmp_path / "checkpoints"
    random_checkpoint(root / "a-rather-long-run-name" / "best", num_players=2, hidden=(32,), seed=3)
    c = TestClient(create_app(checkpoint_roots=[str(root)]))
    specs = c.get("/api/meta").json()["checkpoints"]
    assert len(specs) == 1
    return c, specs[0]


def watch(c, agents, seat="all", seed=4):
    r = c.post("/api/games", json={"mode": "watch", "agents": agents, "seat": seat, "seed": seed})
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["view"]


def steps(c, gid, seat, n=80):
    for _ in range(n):
        view = c.post(f"/api/games/{gid}/step", json={"seat": seat, "steps": 1}).json()["view"]
        yield view
        if view["over"]:
            return


def test_a_watched_checkpoint_seat_shows_its_probabilities_over_its_legal_moves(checkpoint):
    c, spec = checkpoint
    gid, _ = watch(c, [spec, "heuristic"])
    seen = [v["thoughts"] for v in steps(c, gid, "all") if v["thoughts"]]
    assert seen, "the checkpoint seat never decided"
    decisions = set()
    for t in seen:
        assert t["seat"] == 0 and t["spec"] == spec and t["short"] == "best" and t["value"] is None
        ps = [a["p"] for a in t["actions"]]
        assert ps == sorted(ps, reverse=True) and 0 < sum(ps) <= 1.0001
        assert len(t["actions"]) == min(t["legal"], MAX_SHOWN)
        assert t["chosen"] == t["actions"][0]["name"]  # a deterministic policy plays its argmax
        decisions.add(t["decision"])
    assert len(decisions) > 1


def test_one_seats_watch_shows_that_seats_thoughts_only(checkpoint):
    c, spec = checkpoint
    gid, _ = watch(c, [spec, "heuristic"], seat=1)
    assert all(v["thoughts"] is None for v in steps(c, gid, 1, 40))
    gid, _ = watch(c, [spec, "heuristic"], seat=0)
    shown = [v["thoughts"] for v in steps(c, gid, 0, 40) if v["thoughts"]]
    assert shown and all(t["seat"] == 0 for t in shown)
    # switching the viewer to the other seat hides them
    assert c.get(f"/api/games/{gid}?seat=1").json()["view"]["thoughts"] is None


def test_a_played_game_never_sends_an_opponents_thoughts(checkpoint):
    c, spec = checkpoint
    r = c.post("/api/games", json={"opponents": [spec], "seed": 5})
    gid, view = r.json()["id"], r.json()["view"]
    for _ in range(60):
        assert "thoughts" not in view
        if view["over"]:
            break
        view = c.post(f"/api/games/{gid}/actions", json={"action": view["legal_actions"][0]}).json()["view"]


def test_thoughts_never_depend_on_cards_hidden_from_the_seat(checkpoint):
    """Other seats' hands and the DRAW pile changed (every card the seat cannot see): the
    probabilities are the same, so the panel cannot show another seat's hidden card."""
    c, spec = checkpoint
    gid, _ = watch(c, [spec, "heuristic"])
    game = c.app.state.server.store.items[gid]
    u, agent, rng = game.u, game.agents[0], np.random.default_rng(0)
    compared = 0
    for _ in steps(c, gid, "all", 60):
        s = u.game_state
        if s.actor != 0 or s.game_over:
            continue
        mask = u.observe(u.possible_agents[0])["action_mask"]
        before = agent_thoughts(agent, u.encoder.encode(s, 0), mask, u.action_names)
        t, changed = _perturbed(s, 0, rng)
        if not changed:
            continue
        after = agent_thoughts(agent, u.encoder.encode(t, 0), mask, u.action_names)
        assert after == before
        compared += 1
    assert compared >= 3


def test_a_bot_without_a_policy_has_no_thoughts(checkpoint):
    c, _ = checkpoint
    gid, _ = watch(c, ["heuristic", "random"])
    assert all(v["thoughts"] is None for v in steps(c, gid, "all", 20))


def replayed(c, gid):
    """The log of game ``gid`` replayed: (its replay id, every frame)."""
    text = c.get(f"/api/games/{gid}/log").text
    r = c.post("/api/replays", content=text, headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 201, r.text
    rid, count = r.json()["id"], r.json()["count"]
    return rid, [c.get(f"/api/replays/{rid}/frames/{i}").json()["frame"] for i in range(count)]


def test_a_replayed_checkpoint_seat_shows_its_probabilities_at_its_decisions(checkpoint):
    c, spec = checkpoint
    gid, _ = watch(c, [spec, "heuristic"])
    watched = {v["thoughts"]["decision"]: v["thoughts"] for v in steps(c, gid, "all") if v["thoughts"]}
    rid, frames = replayed(c, gid)
    shown = [(i, f["thoughts"]) for i, f in enumerate(frames) if f["thoughts"]]
    assert shown, "the checkpoint seat never decided in the replay"
    for i, t in shown:
        assert t["seat"] == 0 and t["short"] == "best" and t["decision"] == i
        assert frames[i + 1]["seat"] == 0 and t["chosen"] == frames[i + 1]["action"]  # what it did next
        assert len(t["actions"]) == min(t["legal"], MAX_SHOWN)
    # the same probabilities as when it was watched, decision by decision
    strip = lambda t: (t["actions"], t["chosen"], t["legal"])  # noqa: E731
    assert [strip(t) for _, t in shown] == [strip(t) for _, t in sorted(watched.items())]
    assert all(f["thoughts"] is None or f["thoughts"]["seat"] == 0 for f in frames)


def test_replayed_thoughts_never_depend_on_cards_hidden_from_the_seat(checkpoint):
    """A replay shows every hand, but a seat's panel is from its own observation: other
    seats' hands and the DRAW pile changed, its probabilities are the same."""
    c, spec = checkpoint
    gid, _ = watch(c, [spec, "heuristic"])
    list(steps(c, gid, "all"))
    rid, frames = replayed(c, gid)
    rep = c.app.state.server.store.items[rid]
    agent, u, rng = rep.policies[0], rep.u, np.random.default_rng(1)
    compared = 0
    for i, f in enumerate(frames):
        if not f["thoughts"]:
            continue
        s = rep._state(i)[0]
        t, changed = _perturbed(s, 0, rng)
        if not changed:
            continue
        mask = A.legal_mask(u.engine.legal_actions(s))
        assert (A.legal_mask(u.engine.legal_actions(t)) == mask).all()
        after = agent_thoughts(agent, u.encoder.encode(t, 0), mask, u.action_names)
        assert after["actions"] == f["thoughts"]["actions"] and after["legal"] == f["thoughts"]["legal"]
        compared += 1
    assert compared >= 3


def test_a_replay_without_a_loadable_checkpoint_seat_has_no_thoughts(checkpoint, tmp_path):
    c, spec = checkpoint
    gid, _ = watch(c, [spec, "heuristic"])
    list(steps(c, gid, "all"))
    text = c.get(f"/api/games/{gid}/log").text
    other = TestClient(create_app(checkpoint_roots=[str(tmp_path / "elsewhere")]))  # not under its roots
    r = other.post("/api/replays", content=text, headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 201, r.text
    assert r.json()["frame"]["thoughts"] is None
    rid = r.json()["id"]
    assert all(other.get(f"/api/replays/{rid}/frames/{i}").json()["frame"]["thoughts"] is None
               for i in range(r.json()["count"]))


def test_an_uploaded_log_builds_only_the_checkpoint_policies_it_names(checkpoint, monkeypatch):
    """uno_env.agents.base's promise: from a stranger's file only a checkpoint policy is built
    (no code runs), a checkpoint only under the server's roots; a module: spec (even one the
    operator offers with --agent), a bot or a checkpoint elsewhere is only shown."""
    import uno_env.agents as agents
    from uno_env.game.rules import make_rules

    _, spec = checkpoint
    root = spec.split(":", 1)[1].rsplit("/", 2)[0]
    server = create_app(checkpoint_roots=[root], agents=["module:uno_env.agents.bots:GreedyAgent"]).state.server
    built = []
    real = agents.make_agent
    monkeypatch.setattr(agents, "make_agent", lambda s, *a, **k: built.append(s) or real(s, *a, **k))
    specs = ["module:uno_env.agents.bots:GreedyAgent", "heuristic", "pretrained:classic-2p",
             "checkpoint:/elsewhere/run", spec]
    got = server.replay_policies(make_rules("classic"), 2, specs)
    assert sorted(built) == sorted(["pretrained:classic-2p", spec])
    assert sorted(got) == [2, 4]
