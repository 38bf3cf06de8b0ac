"""Training smoke run, resume (also of a uno_env 0.2 run), the checkpoints training writes
(safe weights + card, model.zip for resuming), mismatches, and the ``checkpoint:<dir>`` agent
playing a trained policy exactly as SB3 would."""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from uno_env import _atomic  # noqa: E402
from uno_env.agents import checkpoint as ckpt  # noqa: E402
from uno_env.agents import make_agent  # noqa: E402
from uno_env.learn.sb3.actor import masked_policy, sb3_logits  # noqa: E402
from uno_env.learn.sb3.convert import main as convert_main  # noqa: E402
from uno_env.learn.sb3.save import load_model  # noqa: E402
from uno_env.agents.policy import load_policy  # noqa: E402
from uno_env.tools.evaluate import evaluate  # noqa: E402
from uno_env.envs.gym_env import UnoGymEnv  # noqa: E402
from uno_env.game.rules import make_rules  # noqa: E402
from helpers import cli_error, training_configs  # noqa: E402

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
    card = ckpt.load_card(d)
    for name in ("model.zip", "card.json", "eval.csv", "curve.png", card["policy"]["weights"]):
        assert os.path.isfile(os.path.join(d, name)), name
    assert card["format"] == ckpt.CARD_FORMAT
    assert card["policy"]["input"] == "obs_features" and card["policy"]["sizes"] == [361, 32, 32, 195]
    assert card["num_players"] == 2 and card["rules"] == make_rules("classic").to_dict()
    assert card["observation_layout"] == ckpt.OBS_LAYOUT and card["action_layout"] == ckpt.ACTION_LAYOUT
    assert card["total_steps"] == 512 and card["wall_time_s"] >= 0
    assert card["config"]["total_steps"] == 512 and card["config"]["net_arch"] == [32, 32]
    result = card["evaluation"]["random"]
    assert result["games"] == 20 and 0 <= result["ci95"][0] <= result["win_rate"] <= result["ci95"][1]
    assert trained["evaluation"]["random"]["games"] == 20
    model, card2 = load_model(d, make_rules("classic"), 2)
    assert model.num_timesteps == 512 and card2 == card
    snap_root = trained["base"] / "runs" / "smoke" / "snapshots"
    assert os.listdir(snap_root) == ["step_0000000256"]
    snap = str(snap_root / "step_0000000256")  # a league opponent: safe files only, no model.zip
    assert sorted(set(os.listdir(snap)) - {_atomic.LOCK_FILE}) == sorted(["card.json", ckpt.load_card(snap)["policy"]["weights"]])
    with open(os.path.join(d, "eval.csv")) as fh:
        rows = list(csv.DictReader(fh))
    assert [int(r["steps"]) for r in rows] == [256, 512]


def test_existing_run_needs_resume_or_force(trained, capsys):
    assert "pass --resume to continue it, --force to start over" in cli_error(train.main, capsys, trained["args"])


@pytest.mark.parametrize("name", ["", ".", "..", "../checkpoints", "a/b"])
def test_force_with_a_run_name_that_is_not_a_plain_folder_name_deletes_nothing(tmp_path, capsys, name):
    """``--run "$RUN" --force`` with $RUN unset, ``.`` or ``..`` deleted checkpoints/ or the
    working directory before 0.6."""
    (tmp_path / "checkpoints" / "classic-2p").mkdir(parents=True)
    (tmp_path / "checkpoints" / "classic-2p" / "card.json").write_text("{}")
    (tmp_path / "runs").mkdir()
    args = ["--config", TEST_CONFIG, "--run", name, "--force", "--checkpoint-dir",
            str(tmp_path / "checkpoints"), "--runs-dir", str(tmp_path / "runs"), "--no-progress"]
    assert "is not a plain folder name" in cli_error(train.main, capsys, args)
    assert (tmp_path / "checkpoints" / "classic-2p" / "card.json").read_text() == "{}"
    assert os.listdir(tmp_path / "runs") == []


def test_force_on_a_shipped_agents_folder_deletes_nothing(tmp_path, capsys):
    shipped = tmp_path / "checkpoints" / "classic-2p"
    shutil.copytree(SHIPPED, shipped)
    before = sorted(os.listdir(shipped))
    args = ["--config", TEST_CONFIG, "--run", "classic-2p", "--force", "--checkpoint-dir",
            str(tmp_path / "checkpoints"), "--runs-dir", str(tmp_path / "runs"), "--no-progress"]
    assert "--force deletes only a run's own folders" in cli_error(train.main, capsys, args)
    assert sorted(os.listdir(shipped)) == before


def test_force_starts_a_run_of_its_own_over(trained, tmp_path):
    shutil.copytree(trained["dir"], tmp_path / "checkpoints" / "smoke")
    shutil.copytree(trained["base"] / "runs" / "smoke", tmp_path / "runs" / "smoke")
    (tmp_path / "runs" / "smoke" / "snapshots" / "step_0000009999").mkdir()  # a later snapshot: goes
    train.main(["--config", TEST_CONFIG, "--run", "smoke", "--force", "--checkpoint-dir", str(tmp_path / "checkpoints"),
                "--runs-dir", str(tmp_path / "runs"), "--no-progress", "--total-steps", "256"])
    assert ckpt.load_card(str(tmp_path / "checkpoints" / "smoke"))["total_steps"] == 256
    assert os.listdir(tmp_path / "runs" / "smoke" / "snapshots") == []


def test_resume_continues_from_saved_steps(trained, tmp_path):
    base = tmp_path
    shutil.copytree(trained["dir"], base / "checkpoints" / "smoke")
    shutil.copytree(trained["base"] / "runs" / "smoke", base / "runs" / "smoke")
    args = ["--config", TEST_CONFIG, "--run", "smoke", "--checkpoint-dir", str(base / "checkpoints"),
            "--runs-dir", str(base / "runs"), "--no-progress", "--resume", "--total-steps", "768"]
    train.main(args)
    d = str(base / "checkpoints" / "smoke")
    model, card = load_model(d, make_rules("classic"), 2)
    assert model.num_timesteps == 768 and card["total_steps"] == 768
    weights = [f for f in os.listdir(d) if f.endswith(".safetensors")]  # the card's, and the one before it
    assert card["policy"]["weights"] in weights and len(weights) <= 2
    with open(os.path.join(d, "eval.csv")) as fh:
        assert [int(r["steps"]) for r in csv.DictReader(fh)] == [256, 512, 768]


def test_resume_with_other_rules_than_the_run_is_named_without_a_traceback(trained, tmp_path, capsys):
    """A ``--set`` rule option left out (or added) on ``--resume``: the card's rules differ."""
    copy = copy_run(trained, tmp_path)
    args = ["--config", TEST_CONFIG, "--run", "ckpt", "--checkpoint-dir", str(tmp_path),
            "--runs-dir", str(tmp_path / "runs"), "--no-progress", "--resume", "--set", "stacking=true"]
    with pytest.raises(SystemExit) as exc:
        train.main(args)
    assert str(exc.value.code).startswith("--resume: ") and "stacking=False (env: True)" in str(exc.value.code)
    assert ckpt.load_card(copy)["total_steps"] == 512  # untouched


def test_resume_without_a_run_is_an_error(tmp_path, capsys):
    line = cli_error(train.main, capsys, ["--config", TEST_CONFIG, "--run", "none", "--checkpoint-dir",
                                          str(tmp_path), "--runs-dir", str(tmp_path), "--resume"])
    assert "no run to resume" in line and "model.zip or learner.safetensors not found" in line


@pytest.mark.parametrize("name", training_configs())  # sb3/ included: the shipped agents' recipes
def test_shipped_configs_load(name):
    cfg = train.load_config(os.path.join(ROOT, "configs", "train", name))
    make_rules(cfg.rules)
    assert cfg.phases[-1]["until"] in (None, 1, 1.0)
    for phase in cfg.phases:
        for spec in phase["opponents"]:
            assert (spec == "snapshots" or (spec == "self" and cfg.learner == "batched")
                    or make_agent(spec, make_rules(cfg.rules), cfg.num_players))
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


# ---------------------------------------------------------------------- mismatches, model.zip
def test_mismatched_rules_and_players_rejected(trained):
    d = trained["dir"]
    with pytest.raises(ValueError, match=r"rules .*stacking=False \(env: True\)"):
        load_model(d, make_rules("classic", stacking=True), 2)
    with pytest.raises(ValueError, match=r"num_players 2 \(the env has 3\)"):
        load_model(d, make_rules("classic"), 3)
    with pytest.raises(ValueError, match="stacking"):
        make_agent(f"checkpoint:{d}", make_rules("classic", stacking=True), 2)
    with pytest.raises(ValueError, match="num_players"):
        UnoGymEnv(num_players=3, opponents=f"checkpoint:{d}")


def test_missing_and_corrupt_model_zip_named(trained, tmp_path):
    path = copy_run(trained, tmp_path)
    with open(os.path.join(path, "model.zip"), "wb") as fh:
        fh.write(b"not a zip file")
    with pytest.raises(ValueError, match=r"model.zip.* corrupt"):
        load_model(path)
    os.remove(os.path.join(path, "model.zip"))
    with pytest.raises(FileNotFoundError, match="model.zip"):
        load_model(path)
    make_agent(f"checkpoint:{path}", make_rules("classic"), 2)  # playing never needs model.zip


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


def test_shipped_checkpoint_loads_and_plays():
    card = ckpt.load_card(SHIPPED)
    assert card["num_players"] == 2 and card["rules"]["name"] == "classic"
    assert not os.path.exists(os.path.join(SHIPPED, "model.zip"))  # nothing to unpickle ships
    agent = make_agent(f"checkpoint:{SHIPPED}", make_rules("classic"), 2)
    env = UnoGymEnv(opponents="heuristic")
    obs, info = env.reset(seed=1)
    for _ in range(300):
        a = agent.act(obs, info["action_mask"])
        assert info["action_mask"][a] == 1
        obs, _, term, trunc, info = env.step(a)
        if term or trunc:
            obs, info = env.reset()


def real_observations(n_games: int = 20, seed: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of the learner's decisions in games against ``heuristic``."""
    env = UnoGymEnv(opponents="heuristic")
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    observations, masks = [], []
    for _ in range(n_games):
        done = False
        while not done:
            observations.append(obs)
            masks.append(info["action_mask"])
            obs, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            done = term or trunc
        obs, info = env.reset()
    return np.stack(observations), np.stack(masks).astype(bool)


def test_safe_policy_plays_like_the_sb3_model(trained):
    """The numpy actor rebuilt from card + weights gives the SB3 model's logits and actions."""
    policy, card = load_policy(trained["dir"])
    model, _ = load_model(trained["dir"])
    obs, masks = real_observations()
    np.testing.assert_allclose(policy.logits(obs), sb3_logits(model, obs), atol=1e-4)
    theirs, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert np.array_equal(policy.act(obs, masks), theirs)


def test_periodic_evaluation_policy_is_the_saved_one(trained):
    """train.py evaluates the in-memory model through the same numpy actor it saves."""
    model, _ = load_model(trained["dir"])
    obs, _ = real_observations(3)
    saved, _ = load_policy(trained["dir"])
    np.testing.assert_array_equal(masked_policy(model, 2).logits(obs), saved.logits(obs))


# ---------------------------------------------------------------------- conversion, old runs
def legacy_run(trained, tmp_path) -> str:
    """The trained run in the format before safe checkpoints (uno_env 0.2): a format-1 card
    and a model.zip, no safe weights."""
    path = copy_run(trained, tmp_path)
    _, card = load_model(path)
    os.remove(os.path.join(path, card["policy"]["weights"]))
    card = dict(card, format=ckpt.LEGACY_CARD_FORMAT, policy={"net_arch": [32, 32], "activation": "tanh"})
    with open(os.path.join(path, "card.json"), "w") as fh:
        json.dump(card, fh)
    return path


def test_legacy_checkpoint_refused_then_converted(trained, tmp_path):
    path = legacy_run(trained, tmp_path)
    with pytest.raises(ValueError, match="uno-convert-checkpoint"):
        make_agent(f"checkpoint:{path}", make_rules("classic"), 2)
    assert convert_main([path, "--verify-games", "5"]) == 0
    card = ckpt.load_card(path)
    assert card["format"] == ckpt.CARD_FORMAT and card["total_steps"] == 512
    model, _ = load_model(path)
    obs, masks = real_observations(5)
    policy, _ = load_policy(path, make_rules("classic"), 2)
    theirs, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert np.array_equal(policy.act(obs, masks), theirs)


def test_converter_errors_are_one_line(tmp_path, capsys):
    assert convert_main([str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not found" in err and "Traceback" not in err


def test_resume_of_an_old_run(trained, tmp_path):
    """A run with a format-1 card (no safe weights) resumes and then holds the safe format."""
    base = tmp_path / "base"
    os.makedirs(base / "checkpoints")
    shutil.move(legacy_run(trained, tmp_path), base / "checkpoints" / "smoke")
    args = ["--config", TEST_CONFIG, "--run", "smoke", "--checkpoint-dir", str(base / "checkpoints"),
            "--runs-dir", str(base / "runs"), "--no-progress", "--resume", "--total-steps", "768"]
    train.main(args)
    card = ckpt.load_card(str(base / "checkpoints" / "smoke"))
    assert card["format"] == ckpt.CARD_FORMAT and card["total_steps"] == 768


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


def test_resume_reuses_the_runs_overrides_and_one_given_again_wins(tmp_path):
    """The --set keys, rule options and --total-steps of a run go with it: --resume trains under
    them without repeating them (stacking=true would otherwise be other rules than the run's);
    one given again wins; the card records the overrides in effect."""
    args = ["--config", TEST_CONFIG, "--run", "keep", "--checkpoint-dir", str(tmp_path), "--runs-dir",
            str(tmp_path), "--no-progress"]
    train.main(args + ["--set", "stacking=true", "--set", "eval_games=6", "--set", "final_eval_games=4",
                       "--total-steps", "256"])
    first = ckpt.load_card(str(tmp_path / "keep"))
    assert first["overrides"] == {"stacking": True, "eval_games": 6, "final_eval_games": 4, "total_steps": 256}
    train.main(args + ["--resume", "--set", "final_eval_games=2", "--total-steps", "512"])
    card = ckpt.load_card(str(tmp_path / "keep"))
    assert card["rules"] == make_rules("classic", stacking=True).to_dict()
    assert card["total_steps"] == 512 and card["evaluation"]["random"]["games"] == 2
    assert card["config"]["eval_games"] == 6 and card["config"]["total_steps"] == 512
    assert card["overrides"] == {"stacking": True, "eval_games": 6, "final_eval_games": 2, "total_steps": 512}
    with open(tmp_path / "keep" / "eval.csv") as fh:
        assert [(r["steps"], r["games"]) for r in csv.DictReader(fh)] == [("256", "4"), ("512", "2")]


def test_stored_overrides_that_fail_the_checks_name_the_card(trained, tmp_path, capsys):
    run = copy_run(trained, tmp_path)
    card = ckpt.load_card(run)
    card["overrides"] = {"n_envs": 0}  # e.g. a bound added to the checks since the run began
    with open(os.path.join(run, "card.json"), "w") as fh:
        json.dump(card, fh)
    line = cli_error(train.main, capsys, ["--config", TEST_CONFIG, "--run", "ckpt", "--checkpoint-dir", str(tmp_path),
                                          "--runs-dir", str(tmp_path / "runs"), "--resume"])
    assert line.endswith(f"--resume: {run}/card.json: 'overrides': config key 'n_envs' must be an integer >= 1, got 0")


def test_a_four_player_run_is_evaluated_one_against_three(tmp_path):
    """The card's result at 4 players is the checkpoint in one seat, the opponent in the three
    others (train.py <= 0.5.2 recorded (agent, random, agent, random): one of two copies)."""
    train.main(["--config", TEST_CONFIG, "--run", "four", "--checkpoint-dir", str(tmp_path), "--runs-dir",
                str(tmp_path), "--no-progress", "--time-limit-min", "0.0001", "--set", "num_players=4",
                "--set", "final_eval_games=8", "--set", "net_arch=[16, 8]"])
    run = str(tmp_path / "four")
    recorded = ckpt.load_card(run)["evaluation"]["random"]
    full = evaluate([f"checkpoint:{run}"] + ["random"] * 3, num_players=4, games=8, seed=recorded["seed"])
    assert recorded["lineup"] == "1 vs 3 random"
    assert (recorded["games"], recorded["wins"]) == (8, full["agents"][0]["wins"])


@pytest.mark.parametrize("bad", [["--set", "n_env=2"], ["--set", "uno_call"], ["--set", "uno_call=shout"],
                                 ["--set", "vec_env=threads"]])
def test_bad_set_is_a_usage_error(bad, tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        train.main(["--config", TEST_CONFIG, "--run", "bad", "--checkpoint-dir", str(tmp_path),
                    "--runs-dir", str(tmp_path)] + bad)
    assert info.value.code == 2
    assert bad[1].split("=")[0] in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "bad")


@pytest.mark.parametrize("critic", ["obs", "state"])
def test_imitation_warm_start_runs_before_ppo(tmp_path, capsys, critic):
    """``imitate_decisions``: the teacher's play is imitated first, and recorded in the card."""
    train.main(["--config", TEST_CONFIG, "--run", "bc", "--checkpoint-dir", str(tmp_path / "c"),
                "--runs-dir", str(tmp_path / "r"), "--no-progress", "--set", "imitate_decisions=300",
                "--set", f"critic={critic}", "--set", "imitate_epochs=1"])
    out = capsys.readouterr().out
    assert "imitation: " in out and "decisions of heuristic" in out
    card = ckpt.load_card(str(tmp_path / "c" / "bc"))
    assert card["config"]["imitate_decisions"] == 300 and card["total_steps"] == 512
    first = [row for row in csv.DictReader(open(tmp_path / "c" / "bc" / "eval.csv"))][0]
    assert first["steps"] == "0"  # the clone is evaluated before PPO: the curve starts there


def test_a_run_from_a_checkpoint_starts_from_its_policy_and_records_it(trained, tmp_path, capsys):
    """``init_checkpoint``: the actor starts as the checkpoint's (at a learning rate of 1e-12 it
    ends there too), the imitation fits only the critic, the curve starts at step 0, and the
    card says where the run started; a resume keeps that record."""
    source = trained["dir"]
    args = ["--config", TEST_CONFIG, "--run", "more", "--checkpoint-dir", str(tmp_path / "c"),
            "--runs-dir", str(tmp_path / "r"), "--no-progress", "--total-steps", "256",
            "--set", f"init_checkpoint={source}", "--set", f"imitate_teacher=checkpoint:{source}",
            "--set", "imitate_decisions=300", "--set", "imitate_epochs=1", "--set", "learning_rate=1e-12"]
    train.main(args)
    out = capsys.readouterr().out
    assert f"actor from {source} (512 steps)" in out and "value network only" in out
    run = str(tmp_path / "c" / "more")
    (card, tensors), (source_card, source_tensors) = ckpt.load_checkpoint(run), ckpt.load_checkpoint(source)
    assert all(np.allclose(tensors[k], source_tensors[k], atol=1e-6) for k in source_tensors)
    assert card["started_from"] == {"checkpoint": source, "sha256": source_card["policy"]["sha256"],
                                    "total_steps": 512}
    assert card["total_steps"] == 256  # this run's steps
    assert [row for row in csv.DictReader(open(os.path.join(run, "eval.csv")))][0]["steps"] == "0"
    train.main(args + ["--resume", "--total-steps", "512"])
    assert ckpt.load_card(run)["started_from"] == card["started_from"]


def test_init_other_rules_starts_a_tmnt_run_from_a_classic_policy_and_records_its_rules(trained, tmp_path, capsys):
    """``init_other_rules``: a checkpoint of the classic rules starts a TMNT run (the layouts are
    the same at every preset); the card records the rules it came from. Without the key the
    same run is refused, naming the rule that differs."""
    source = trained["dir"]
    args = ["--config", TEST_CONFIG, "--run", "tmnt", "--checkpoint-dir", str(tmp_path / "c"),
            "--runs-dir", str(tmp_path / "r"), "--no-progress", "--total-steps", "256",
            "--set", "rules=tmnt", "--set", f"init_checkpoint={source}", "--set", "learning_rate=1e-12"]
    with pytest.raises(SystemExit):
        train.main(args)
    assert "count_team_attack=0 (env: 4)" in capsys.readouterr().err
    train.main(args + ["--set", "init_other_rules=true"])
    assert f"actor from {source} (512 steps), trained under the 'classic' rules" in capsys.readouterr().out
    (card, tensors), (source_card, source_tensors) = ckpt.load_checkpoint(str(tmp_path / "c" / "tmnt")), ckpt.load_checkpoint(source)
    assert card["rules"]["name"] == "tmnt" and card["rules"]["count_team_attack"] == 4
    assert all(np.allclose(tensors[k], source_tensors[k], atol=1e-6) for k in source_tensors)
    assert card["started_from"] == {"checkpoint": source, "sha256": source_card["policy"]["sha256"],
                                    "total_steps": 512, "rules": "classic"}


def test_imitate_dataset_fits_the_clone_to_a_minari_dataset_and_refuses_one_that_does_not_fit(
        tmp_path, monkeypatch, capsys):
    """``imitate_dataset``: the imitation reads its decisions from a dataset of ``uno-dataset``;
    a dataset of another teacher is refused before the run spends anything (no run folder)."""
    pytest.importorskip("minari")
    from helpers import small_dataset

    small_dataset(tmp_path / "datasets", monkeypatch, episodes=30, seed=2)
    common = ["--config", TEST_CONFIG, "--checkpoint-dir", str(tmp_path / "c"), "--runs-dir", str(tmp_path / "r"),
              "--no-progress", "--set", "imitate_decisions=300", "--set", "imitate_epochs=1",
              "--set", "imitate_dataset=uno/classic-2p/heuristic-v0", "--total-steps", "256"]
    train.main(common + ["--run", "a"])
    out = capsys.readouterr().out
    assert "games, read from uno/classic-2p/heuristic-v0)" in out and "the teacher's move" in out
    with pytest.raises(SystemExit):
        train.main(common + ["--run", "b", "--set", "imitate_teacher=random"])
    assert "played by 'heuristic' (imitate_teacher: 'random')" in capsys.readouterr().err
    assert not (tmp_path / "c" / "b").exists()


def test_imitate_cache_collects_once_and_the_second_run_reads_the_same_rows(tmp_path, capsys):
    cache = tmp_path / "demos" / "heuristic-300.safetensors"
    common = ["--config", TEST_CONFIG, "--checkpoint-dir", str(tmp_path / "c"), "--runs-dir", str(tmp_path / "r"),
              "--no-progress", "--set", "imitate_decisions=300", "--set", "imitate_epochs=1",
              "--set", f"imitate_cache={cache}", "--total-steps", "256"]
    train.main(common + ["--run", "a"])
    first = capsys.readouterr().out
    assert cache.is_file() and "read from" not in first
    train.main(common + ["--run", "b"])
    second = capsys.readouterr().out
    assert f"read from {cache}" in second
    line = [ln for ln in first.splitlines() if ln.startswith("imitation: 3")][0]
    again = [ln for ln in second.splitlines() if ln.startswith("imitation: 3")][0]
    assert line.split("), ")[1].split("; ")[1] == again.split("), ")[1].split("; ")[1]  # the same fit
    with pytest.raises(ValueError, match="seed 0 .asked: 1."):
        train.main(common + ["--run", "c", "--set", "seed=1"])
