"""Training smoke run, resume, checkpoints (card, mismatches, corrupt files) and the
``checkpoint:<path>`` agent."""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys

import numpy as np
import pytest

from uno_env.agents import checkpoint as ckpt
from uno_env.agents import make_agent
from uno_env.tools.evaluate import evaluate
from uno_env.envs.gym_env import UnoGymEnv
from uno_env.game.rules import make_rules

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "training"))
import train  # noqa: E402

TEST_CONFIG = os.path.join(ROOT, "configs", "train", "test.yaml")
SHIPPED = os.path.join(ROOT, "checkpoints", "classic-2p")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One smoke run of configs/train/test.yaml (512 steps), shared by the tests below."""
    base = tmp_path_factory.mktemp("train")
    args = ["--config", TEST_CONFIG, "--run", "smoke", "--checkpoint-dir", str(base / "checkpoints"),
            "--runs-dir", str(base / "runs"), "--no-progress"]
    evaluation = train.main(args)
    return {"dir": str(base / "checkpoints" / "smoke"), "args": args, "base": base,
            "evaluation": evaluation}


def copy_run(trained, tmp_path) -> str:
    path = str(tmp_path / "ckpt")
    shutil.copytree(trained["dir"], path)
    return path


def test_smoke_run_writes_checkpoint_and_card(trained):
    d = trained["dir"]
    for name in ("model.zip", "card.json", "eval.csv", "curve.png"):
        assert os.path.isfile(os.path.join(d, name)), name
    card = ckpt.load_card(d)
    assert card["num_players"] == 2 and card["rules"] == make_rules("classic").to_dict()
    assert card["observation_layout"] == ckpt.OBS_LAYOUT and card["action_layout"] == ckpt.ACTION_LAYOUT
    assert card["total_steps"] == 512 and card["wall_time_s"] >= 0
    assert card["config"]["total_steps"] == 512 and card["config"]["net_arch"] == [32, 32]
    result = card["evaluation"]["random"]
    assert result["games"] == 20 and 0 <= result["ci95"][0] <= result["win_rate"] <= result["ci95"][1]
    assert trained["evaluation"]["random"]["games"] == 20
    model, card2 = ckpt.load_model(d, make_rules("classic"), 2)
    assert model.num_timesteps == 512 and card2 == card
    snapshots = os.listdir(trained["base"] / "runs" / "smoke" / "snapshots")
    assert snapshots == ["step_0000000256"]
    with open(os.path.join(d, "eval.csv")) as fh:
        rows = list(csv.DictReader(fh))
    assert [int(r["steps"]) for r in rows] == [256, 512]


def test_existing_run_needs_resume_or_force(trained):
    with pytest.raises(SystemExit, match="--resume"):
        train.main(trained["args"])


def test_resume_continues_from_saved_steps(trained, tmp_path):
    base = tmp_path
    shutil.copytree(trained["dir"], base / "checkpoints" / "smoke")
    shutil.copytree(trained["base"] / "runs" / "smoke", base / "runs" / "smoke")
    args = ["--config", TEST_CONFIG, "--run", "smoke", "--checkpoint-dir", str(base / "checkpoints"),
            "--runs-dir", str(base / "runs"), "--no-progress", "--resume", "--total-steps", "768"]
    train.main(args)
    d = str(base / "checkpoints" / "smoke")
    model, card = ckpt.load_model(d, make_rules("classic"), 2)
    assert model.num_timesteps == 768 and card["total_steps"] == 768
    with open(os.path.join(d, "eval.csv")) as fh:
        assert [int(r["steps"]) for r in csv.DictReader(fh)] == [256, 512, 768]


def test_resume_without_a_run_is_an_error(tmp_path):
    with pytest.raises(SystemExit, match="no model to resume"):
        train.main(["--config", TEST_CONFIG, "--run", "none", "--checkpoint-dir", str(tmp_path),
                    "--runs-dir", str(tmp_path), "--resume"])


@pytest.mark.parametrize("name", sorted(os.listdir(os.path.join(ROOT, "configs", "train"))))
def test_shipped_configs_load(name):
    cfg = train.load_config(os.path.join(ROOT, "configs", "train", name))
    make_rules(cfg.rules)
    assert cfg.phases[-1]["until"] in (None, 1, 1.0)
    for phase in cfg.phases:
        for spec in phase["opponents"]:
            assert spec == "snapshots" or make_agent(spec, make_rules(cfg.rules), cfg.num_players)
    assert (cfg.n_steps * cfg.n_envs) % cfg.batch_size == 0


def test_time_limit_stops_training(tmp_path):
    args = ["--config", TEST_CONFIG, "--run", "limited", "--checkpoint-dir", str(tmp_path),
            "--runs-dir", str(tmp_path), "--no-progress", "--total-steps", "100000",
            "--time-limit-min", "0.0001"]
    train.main(args)
    assert ckpt.load_card(str(tmp_path / "limited"))["total_steps"] == 256  # one rollout


def test_unknown_config_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("total_steps: 10\nlearning_rat: 0.1\n")
    with pytest.raises(ValueError, match="learning_rat"):
        train.load_config(str(bad))


def test_league_pool_curriculum():
    cfg = train.Config(total_steps=1000, phases=[
        {"until": 0.5, "opponents": {"random": 1.0}},
        {"until": 1.0, "opponents": {"heuristic": 0.5, "snapshots": 0.5}}])
    assert train.league_pool(cfg, 100, ["a", "b"]) == [("random", 1.0)]
    assert train.league_pool(cfg, 100, [], progress=0.7) == [("heuristic", 0.5)]
    assert train.league_pool(cfg, 600, []) == [("heuristic", 0.5)]
    assert train.league_pool(cfg, 600, ["a", "b"]) == [
        ("heuristic", 0.5), ("checkpoint:a#sample", 0.25), ("checkpoint:b#sample", 0.25)]


# ---------------------------------------------------------------------- mismatches, corrupt files
def test_mismatched_rules_players_and_layout_rejected(trained, tmp_path):
    d = trained["dir"]
    with pytest.raises(ValueError, match=r"rules .*stacking=False \(env: True\)"):
        ckpt.load_model(d, make_rules("classic", stacking=True), 2)
    with pytest.raises(ValueError, match=r"num_players 2 \(the env has 3\)"):
        ckpt.load_model(d, make_rules("classic"), 3)
    with pytest.raises(ValueError, match="stacking"):
        make_agent(f"checkpoint:{d}", make_rules("classic", stacking=True), 2)
    with pytest.raises(ValueError, match="num_players"):
        UnoGymEnv(num_players=3, opponents=f"checkpoint:{d}")
    path = copy_run(trained, tmp_path)
    card = ckpt.load_card(path)
    card["observation_layout"] = {"version": 99, "size": 1254}
    with open(os.path.join(path, "card.json"), "w") as fh:
        json.dump(card, fh)
    with pytest.raises(ValueError, match="observation layout"):
        ckpt.load_model(path, make_rules("classic"), 2)
    card["observation_layout"], card["action_layout"] = ckpt.OBS_LAYOUT, {"version": 0, "size": 61}
    with open(os.path.join(path, "card.json"), "w") as fh:
        json.dump(card, fh)
    with pytest.raises(ValueError, match="action layout"):
        make_agent(f"checkpoint:{path}", make_rules("classic"), 2)


def test_missing_and_corrupt_files_named(trained, tmp_path):
    missing = str(tmp_path / "nothing")
    with pytest.raises(FileNotFoundError, match="nothing.*card.json"):
        ckpt.load_model(missing)
    with pytest.raises(FileNotFoundError, match="card.json"):
        make_agent(f"checkpoint:{missing}", make_rules("classic"), 2)
    path = copy_run(trained, tmp_path)
    with open(os.path.join(path, "model.zip"), "wb") as fh:
        fh.write(b"not a zip file")
    with pytest.raises(ValueError, match=r"model.zip.* corrupt"):
        ckpt.load_model(path)
    os.remove(os.path.join(path, "model.zip"))
    with pytest.raises(FileNotFoundError, match="model.zip"):
        ckpt.load_model(path)
    with open(os.path.join(path, "card.json"), "w") as fh:
        fh.write("{ not json")
    with pytest.raises(ValueError, match=r"card.json.* corrupt"):
        ckpt.load_card(path)


# ---------------------------------------------------------------------- the checkpoint agent
def test_checkpoint_agent_plays_legal_moves(trained):
    spec = f"checkpoint:{trained['dir']}"
    result = evaluate([spec, "random"], rules="classic", games=10, seed=0)  # raises on illegal moves
    assert result["games"] == 10
    agent = make_agent(spec + "#sample", make_rules("classic"), 2, seed=0)
    assert not agent.deterministic
    env = UnoGymEnv(opponents=[spec])  # a checkpoint as a training opponent
    obs, info = env.reset(seed=0)
    for _ in range(200):
        a = agent.act(obs, info["action_mask"])
        assert info["action_mask"][a] == 1
        obs, _, term, trunc, info = env.step(a)
        if term or trunc:
            obs, info = env.reset()


@pytest.mark.skipif(not os.path.isfile(os.path.join(SHIPPED, "model.zip")),
                    reason="the shipped checkpoint is not trained yet")
def test_shipped_checkpoint_loads_and_plays():
    card = ckpt.load_card(SHIPPED)
    assert card["num_players"] == 2 and card["rules"]["name"] == "classic"
    agent = make_agent(f"checkpoint:{SHIPPED}", make_rules("classic"), 2)
    env = UnoGymEnv(opponents="heuristic")
    obs, info = env.reset(seed=1)
    for _ in range(300):
        a = agent.act(obs, info["action_mask"])
        assert info["action_mask"][a] == 1
        obs, _, term, trunc, info = env.step(a)
        if term or trunc:
            obs, info = env.reset()
    assert isinstance(np.asarray(obs), np.ndarray)


def test_numpy_actor_matches_torch(trained):
    policy, _ = ckpt.load_policy(trained["dir"])
    assert [kind for kind, _, _ in policy.layers][:2] == ["select", "linear"]  # ObsFeatures input
    env = UnoGymEnv(opponents="random")
    obs, info = env.reset(seed=2)
    batch = [obs]
    for _ in range(30):
        obs, _, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        batch.append(obs)
        if term or trunc:
            obs, info = env.reset()
    batch = np.stack(batch)
    np.testing.assert_allclose(policy.logits(batch), policy._torch_logits(batch), atol=1e-4)


# ---------------------------------------------------------------------- --set
def test_set_keys_route_to_the_config_or_the_rules_and_no_key_is_both():
    import dataclasses

    from uno_env.game.rules import Rules

    assert not {f.name for f in dataclasses.fields(train.Config)} & {f.name for f in dataclasses.fields(Rules)}
    config_sets, rule_sets = train.split_overrides({"n_envs": 2, "uno_call": "explicit", "rules": "tmnt"})
    assert config_sets == {"n_envs": 2, "rules": "tmnt"} and rule_sets == {"uno_call": "explicit"}
    with pytest.raises(ValueError, match="'n_env'.* neither"):
        train.split_overrides({"n_env": 2})


def test_set_overrides_a_run(tmp_path):
    """--set changes config keys and rule options of one run; the card records both."""
    args = ["--config", TEST_CONFIG, "--run", "set", "--checkpoint-dir", str(tmp_path), "--runs-dir",
            str(tmp_path), "--no-progress", "--time-limit-min", "0.0001", "--set", "uno_call=explicit",
            "--set", "net_arch=[16, 8]", "--set", "final_eval_games=4", "--set", "learning_rate=1e-3"]
    train.main(args)
    card = ckpt.load_card(str(tmp_path / "set"))
    assert card["rules"] == make_rules("classic", uno_call="explicit").to_dict()
    assert card["config"]["net_arch"] == [16, 8] and card["config"]["learning_rate"] == 1e-3
    assert card["evaluation"]["random"]["games"] == 4


@pytest.mark.parametrize("bad", [["--set", "n_env=2"], ["--set", "uno_call"], ["--set", "uno_call=shout"],
                                 ["--set", "vec_env=threads"]])
def test_bad_set_is_a_usage_error(bad, tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        train.main(["--config", TEST_CONFIG, "--run", "bad", "--checkpoint-dir", str(tmp_path),
                    "--runs-dir", str(tmp_path)] + bad)
    assert info.value.code == 2
    assert bad[1].split("=")[0] in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "bad")
