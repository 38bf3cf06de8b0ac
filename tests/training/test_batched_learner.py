"""training/train.py with ``learner: batched`` (the lean PPO on the batched engine,
:mod:`uno_env.learn.lean_ppo`, :mod:`uno_env.learn.batched_league`) on
configs/train/test-batched.yaml: seconds. It trains, saves a checkpoint that numpy plays,
resumes exactly, stops on a signal with a checkpoint, and its config keys are checked."""

from __future__ import annotations

import os
import signal
import sys

import numpy as np
import pytest

from uno_env.agents import checkpoint as ckpt
from uno_env.agents.base import make_agent
from uno_env.game.rules import make_rules
from uno_env.learn import lean_ppo
from uno_env.learn.batched_league import SELF, league_line, opponent_seed, slice_opponents
from uno_env.tools.evaluate import evaluate_vs

from helpers import WatchedProcess, cli_error  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "training"))
import train  # noqa: E402

CONFIG = os.path.join(ROOT, "configs", "train", "test-batched.yaml")
SB3_CONFIG = os.path.join(ROOT, "configs", "train", "test.yaml")


def run_args(tmp_path, name: str = "lean", *extra: str) -> list[str]:
    return ["--config", CONFIG, "--run", name, "--checkpoint-dir", str(tmp_path / "checkpoints"),
            "--runs-dir", str(tmp_path / "runs"), "--no-progress", *extra]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    base = tmp_path_factory.mktemp("lean")
    evaluation = train.main(run_args(base))
    return {"dir": str(base / "checkpoints" / "lean"), "base": base, "evaluation": evaluation}


def test_a_batched_run_saves_a_checkpoint_that_numpy_plays(trained):
    d = trained["dir"]
    card, tensors = ckpt.load_checkpoint(d)  # validated: the card names these weights, hashes match
    assert card["total_steps"] == 512 and card["config"]["learner"] == "batched"
    assert card["policy"]["input"] == "obs_features" and card["policy"]["sizes"][1:-1] == [32, 32]
    assert not os.path.exists(os.path.join(d, ckpt.MODEL_FILE))  # no pickle anywhere
    assert os.path.isfile(os.path.join(d, lean_ppo.STATE_FILE))
    result = evaluate_vs(f"checkpoint:{d}", "random", make_rules("classic"), 2, games=20, seed=1)
    assert result["games"] == 20 and result["truncated"] == 0  # numpy plays it, legal moves only
    assert card["evaluation"]["random"]["games"] == 20
    added = card[train.ADDED_KEY]
    assert added["opponent"] == "random" and added["games"] == 20
    assert added["final_win_rate"] == card["evaluation"]["random"]["win_rate"]  # the same games


def test_the_learners_actor_is_the_checkpoints_policy(trained):
    learner = lean_ppo.Learner([32, 32], "tanh", "obs_features", 2)
    learner.load_state(trained["dir"])
    _, tensors = ckpt.load_checkpoint(trained["dir"])
    agent = make_agent(f"checkpoint:{trained['dir']}", "classic", 2)
    from uno_env.envs.vector_env import UnoVectorEnv
    obs, info = UnoVectorEnv(8, "classic", 2).reset(seed=3)
    with_numpy = agent.policy.logits(obs)
    import torch
    with torch.no_grad():
        with_torch = learner.net.actor(torch.as_tensor(learner.features(obs))).numpy()
    np.testing.assert_allclose(with_numpy, with_torch, atol=1e-4)
    for key, value in learner.actor_tensors()[1].items():
        np.testing.assert_array_equal(value, tensors[key])


def test_resume_continues_exactly_as_the_run_would_have(trained, tmp_path):
    train.main(run_args(tmp_path, "half", "--total-steps", "256"))
    train.main(run_args(tmp_path, "half", "--resume", "--total-steps", "512"))
    whole = lean_ppo.Learner([32, 32], "tanh", "obs_features", 2)
    whole.load_state(trained["dir"])
    resumed = lean_ppo.Learner([32, 32], "tanh", "obs_features", 2)
    resumed.load_state(str(tmp_path / "checkpoints" / "half"))
    assert resumed.steps == whole.steps == 512 and resumed.updates == whole.updates == 2
    for (name, a), b in zip(whole.net.state_dict().items(), resumed.net.state_dict().values()):
        assert np.array_equal(a.numpy(), b.numpy()), name
    assert np.array_equal(whole.generator.get_state().numpy(), resumed.generator.get_state().numpy())
    card = ckpt.load_card(str(tmp_path / "checkpoints" / "half"))
    assert card["policy"]["sha256"] == ckpt.load_card(trained["dir"])["policy"]["sha256"]


def test_a_new_run_over_a_batched_run_needs_resume_or_force(trained, capsys):
    line = cli_error(train.main, capsys, run_args(trained["base"]))
    assert "already holds a run" in line and "--resume" in line


def test_resume_with_the_other_learner_is_named(trained, tmp_path, capsys):
    import shutil
    shutil.copytree(trained["dir"], tmp_path / "checkpoints" / "lean")
    args = ["--config", SB3_CONFIG, "--run", "lean", "--checkpoint-dir", str(tmp_path / "checkpoints"),
            "--runs-dir", str(tmp_path / "runs"), "--no-progress", "--resume", "--set", "learner=sb3"]
    with pytest.raises(SystemExit) as exc:
        train.main(args)
    assert "trained with learner: batched, the config says sb3" in str(exc.value)


def test_a_stop_signal_saves_the_learner_and_the_run_resumes(tmp_path):
    run_dir = tmp_path / "checkpoints" / "sig"
    args = run_args(tmp_path, "sig", "--total-steps", "1000000000", "--set", "checkpoint_every=1000000000")
    run = WatchedProcess([sys.executable, os.path.join(ROOT, "training", "train.py"), *args],
                         tmp_path / "stderr.txt", env=dict(os.environ, PYTHONPATH=ROOT))
    try:
        run.wait_for(r"^step 256 \(")  # the first evaluation: the loop is running
        assert not os.path.exists(run_dir / lean_ppo.STATE_FILE)
        run.send(signal.SIGINT)
        code, _, err = run.finish()
    finally:
        run.kill()
    assert code == 130 and "Traceback" not in err, err[-3000:]
    assert "saved a checkpoint at step" in err.strip().splitlines()[-1]
    card, _ = ckpt.load_checkpoint(str(run_dir))
    learner = lean_ppo.Learner([32, 32], "tanh", "obs_features", 2)
    learner.load_state(str(run_dir))
    assert card["total_steps"] == learner.steps >= 256 and learner.steps % 256 == 0  # a whole update
    train.main(args + ["--resume", "--total-steps", str(learner.steps + 256)])
    assert ckpt.load_card(str(run_dir))["total_steps"] == learner.steps + 256


@pytest.mark.parametrize("sets, named", [
    (["learner=jax"], "'learner' must be sb3 or batched"),
    (["league_slices=0"], "'league_slices' must be an integer >= 1"),
    (["league_slices=17"], "'league_slices' is 17, more than the n_envs = 16"),
    (["bf16=2"], "'bf16' must be true, false or auto"),
    (["bf16=fast"], "'bf16' must be true, false or auto"),
    (["device=tpu"], "'device' must be cpu or cuda"),
    (["vec_env=subproc"], "vec_env: subproc is learner: sb3's"),
    (["critic=state"], "critic: state is learner: sb3's"),
])
def test_bad_batched_keys_are_named(sets, named, tmp_path, capsys):
    args = run_args(tmp_path)
    for s in sets:
        args += ["--set", s]
    assert named in cli_error(train.main, capsys, args)


@pytest.mark.parametrize("key", ["bf16=true", "bf16=auto", "device=cuda"])
def test_batched_keys_with_learner_sb3_are_errors(key, tmp_path, capsys):
    args = ["--config", SB3_CONFIG, "--run", "x", "--checkpoint-dir", str(tmp_path), "--runs-dir",
            str(tmp_path / "runs"), "--set", key]
    assert "is learner: batched's" in cli_error(train.main, capsys, args)


def test_self_in_the_league_is_learner_batched_s(tmp_path, capsys):
    args = ["--config", SB3_CONFIG, "--run", "x", "--checkpoint-dir", str(tmp_path), "--runs-dir",
            str(tmp_path / "runs"), "--set", "phases=[{until: 1.0, opponents: {self: 1.0}}]"]
    assert "'self'" in cli_error(train.main, capsys, args)


def test_device_cuda_without_a_gpu_is_refused_before_anything_is_spent(tmp_path, capsys):
    import torch
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    line = cli_error(train.main, capsys, run_args(tmp_path, "x", "--set", "device=cuda"))
    assert "'device' is cuda" in line
    assert not (tmp_path / "checkpoints" / "x").exists()


def test_a_batch_this_machine_cannot_hold_is_refused_before_anything_is_spent(tmp_path, capsys):
    line = cli_error(train.main, capsys, run_args(tmp_path, "x", "--set", "n_envs=4000000000"))
    assert "of memory" in line and "n_envs 4000000000" in line
    assert not (tmp_path / "checkpoints" / "x").exists()


def test_league_slices_follow_the_weights_by_largest_remainders():
    assert slice_opponents({"heuristic": 0.5, "random": 0.25, "snapshots": 0.25}, 8, []) == \
        ["heuristic"] * 4 + ["random"] * 2 + [SELF] * 2  # no snapshot yet: the learner itself
    specs = slice_opponents({"heuristic": 0.6, "random": 0.25, "snapshots": 0.15}, 8, ["a", "b"])
    assert specs[:7] == ["heuristic"] * 5 + ["random"] * 2 and specs[7] in ("checkpoint:a#sample", "checkpoint:b#sample")
    specs = slice_opponents({"random": 1, "snapshots": 3}, 4, ["a", "b"])
    assert specs[0] == "random" and sorted(specs[1:3]) == ["checkpoint:a#sample", "checkpoint:b#sample"]
    assert slice_opponents({"random": 1.0, "heuristic": 0.0}, 3, []) == ["random"] * 3


def test_a_single_snapshot_slice_plays_every_kept_snapshot_over_the_deals():
    kept = [f"snap{i}" for i in range(5)]
    picks = [slice_opponents({"heuristic": 7, "snapshots": 1}, 8, kept, draw=step)[7] for step in range(0, 60_000, 1000)]
    assert {p.removeprefix("checkpoint:").removesuffix("#sample") for p in picks} == set(kept)
    assert slice_opponents({"snapshots": 1}, 3, kept, draw=42) == slice_opponents({"snapshots": 1}, 3, kept, draw=42)
    assert len(set(slice_opponents({"snapshots": 1}, 5, kept, draw=7))) == 5  # distinct while there are enough


def test_snapshot_sample_false_plays_the_snapshots_greedily():
    assert slice_opponents({"snapshots": 1}, 2, ["a"], sample=False) == ["checkpoint:a", "checkpoint:a"]
    assert slice_opponents({"snapshots": 1}, 1, ["a"], sample=True) == ["checkpoint:a#sample"]


def test_the_league_line_gives_each_entrys_share_of_the_slices():
    specs = slice_opponents({"heuristic": 0.6, "random": 0.2, "snapshots": 0.2}, 8, ["d/s1", "d/s2"], draw=3)
    assert league_line(specs, ["d/s1", "d/s2"]) == "heuristic 5/8 (62%), random 2/8 (25%), snapshots 1/8 (12%)"


def test_policy_opponents_are_seeded_apart_from_the_deals():
    seeds = {opponent_seed(100, k) for k in range(8)}
    assert len(seeds) == 8 and not seeds & set(range(100, 100 + 512))
    assert opponent_seed(100, 3) == opponent_seed(100, 3)


def test_a_learner_state_of_another_network_is_named(trained):
    other = lean_ppo.Learner([64], "tanh", "obs_features", 2)
    with pytest.raises(ValueError, match="learner.safetensors: a learner state of another network"):
        other.load_state(trained["dir"])


def test_a_damaged_learner_state_is_named(tmp_path):
    (tmp_path / lean_ppo.STATE_FILE).write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json")
    with pytest.raises(ValueError, match="not a learner state"):
        lean_ppo.Learner([32, 32], "tanh", "obs_features", 2).load_state(str(tmp_path))


def test_a_batched_runs_progress_bar_in_a_log_file_writes_whole_lines(tmp_path, capsys):
    """In a log file (not a terminal) every redraw of the bar is a line of its own, so the
    evaluation lines written beside it start on lines of their own (as the sb3 path's)."""
    args = [a for a in run_args(tmp_path, "bar") if a != "--no-progress"]
    train.main(args)
    err = capsys.readouterr().err
    assert "\r" not in err
    assert any("step/s" in line or "step" in line and "%" in line for line in err.split("\n"))


def test_a_batched_run_clones_from_its_imitate_dataset(tmp_path, monkeypatch, capsys):
    """``imitate_dataset`` with ``learner: batched``: the clone reads the dataset's decisions (it
    played the teacher itself before, silently)."""
    pytest.importorskip("minari")
    from helpers import small_dataset

    small_dataset(tmp_path / "datasets", monkeypatch, episodes=30, seed=2)
    train.main(run_args(tmp_path, "ds", "--set", "imitate_decisions=300", "--set", "imitate_epochs=1",
                        "--set", "imitate_dataset=uno/classic-2p/heuristic-v0"))
    out = capsys.readouterr().out
    assert "games, read from uno/classic-2p/heuristic-v0)" in out and "the teacher's move" in out


def test_the_run_prints_the_league_mixture_once_each_time_it_changes(tmp_path, capsys):
    train.main(run_args(tmp_path, "mix"))
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("league: ")]
    assert lines[0] == "league: random 2/4 (50%), self 2/4 (50%)"  # no snapshot yet: the learner itself
    assert "league: random 2/4 (50%), snapshots 1/4 (25%), self 1/4 (25%)" in lines
    assert all(a != b for a, b in zip(lines, lines[1:]))


def test_the_league_deals_anew_only_at_the_start_a_snapshot_a_checkpoint_or_a_new_phase(tmp_path, monkeypatch):
    """A deal throws away every game in progress: it happens when the league changes (a new
    snapshot, a new phase) or at a checkpoint (as a resumed run deals), never at an ordinary
    rollout, whatever the snapshot slices drew."""
    from uno_env.learn import batched_league

    dealt = []
    real_start = batched_league.BatchedLeague.start

    def start(self, specs, seed):
        dealt.append(seed)  # the config's seed is 0: the deal's step
        return real_start(self, specs, seed)

    monkeypatch.setattr(batched_league.BatchedLeague, "start", start)
    train.main(run_args(tmp_path, "deals", "--set", "total_steps=4096", "--set", "snapshot_every=1024",
                        "--set", "checkpoint_every=2048", "--set", "snapshot_keep=3", "--set", "eval_every=100000",
                        "--set", "phases=[{until: 1.0, opponents: {random: 0.25, snapshots: 0.75}}]"))
    rollouts = 4096 // 256
    assert dealt[0] == 0 and dealt[1:] and all(step % 1024 == 0 for step in dealt[1:]), dealt
    assert len(dealt) < rollouts // 2


@pytest.mark.parametrize("native", [False, True])
def test_bf16_auto_trains_in_bfloat16_only_where_the_cpu_has_it_natively(native, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(lean_ppo, "native_bf16", lambda device="cpu": native)
    used = []
    real_settings = lean_ppo.Settings
    monkeypatch.setattr(lean_ppo, "Settings", lambda **kw: used.append(kw["bf16"]) or real_settings(**kw))
    train.main(run_args(tmp_path, "auto", "--set", "bf16=auto"))
    assert used == [native]
    out = capsys.readouterr().out
    assert ("update precision: bfloat16 autocast (bf16: auto" if native else
            "update precision: float32 (bf16: auto; this CPU has no native bfloat16") in out


def test_bf16_true_on_a_cpu_that_only_emulates_it_is_kept_and_warned(monkeypatch):
    monkeypatch.setattr(lean_ppo, "native_bf16", lambda device="cpu": False)
    assert lean_ppo.use_bf16(True) and not lean_ppo.use_bf16(False) and not lean_ppo.use_bf16("auto")
    assert "emulated" in lean_ppo.precision_line(True) and "bf16: auto or false" in lean_ppo.precision_line(True)
    monkeypatch.setattr(lean_ppo, "native_bf16", lambda device="cpu": True)
    assert lean_ppo.use_bf16("auto") and "emulated" not in lean_ppo.precision_line(True)
