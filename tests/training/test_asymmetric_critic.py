"""The asymmetric actor-critic (``critic: state``): the value network reads the global state,
the policy only the observation; the checkpoint acts without the state. And the play
statistics that make a stalling policy visible."""

from __future__ import annotations

import json
import os
import sys
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from uno_env.agents import checkpoint as ckpt  # noqa: E402
from uno_env.agents.policy import load_policy  # noqa: E402
from uno_env.envs.gym_env import UnoGymEnv  # noqa: E402
from uno_env.game import actions as A  # noqa: E402
from uno_env.game import global_state as G  # noqa: E402
from uno_env.game import observation as O  # noqa: E402
from uno_env.game.rules import make_rules  # noqa: E402
from uno_env.learn.sb3.actor import actor_tensors, sb3_logits  # noqa: E402
from uno_env.learn.sb3.policy import AsymmetricPolicy, ObsFeatures, critic_features_layout  # noqa: E402
from uno_env.learn.sb3.save import load_model, save_checkpoint  # noqa: E402
from uno_env.tools.evaluate import evaluate  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "training"))
import train  # noqa: E402

TEST_CONFIG = os.path.join(ROOT, "configs", "train", "test.yaml")


def asymmetric_model(num_players: int = 2) -> MaskablePPO:
    env = UnoGymEnv("classic", num_players, opponents="random", critic_state="append")
    return MaskablePPO(AsymmetricPolicy, env, n_steps=32, batch_size=32, seed=0, device="cpu",
                       policy_kwargs={"num_players": num_players, "net_arch": [16, 16]})


def appended_observations(num_players: int = 2, games: int = 2) -> np.ndarray:
    env = UnoGymEnv("classic", num_players, opponents="random", critic_state="append")
    rng = np.random.default_rng(3)
    rows = []
    for game in range(games):
        obs, info = env.reset(seed=game)
        done = False
        while not done:
            rows.append(obs)
            obs, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            done = term or trunc
    return np.stack(rows)


@pytest.mark.parametrize("num_players", [2, 4])
def test_actor_output_does_not_change_when_only_the_global_state_changes(num_players):
    model = asymmetric_model(num_players)
    policy = model.policy
    x = torch.as_tensor(appended_observations(num_players))
    other = x.clone()
    other[:, O.OBS_SIZE:] = torch.as_tensor(np.random.default_rng(0).integers(0, 4, other[:, O.OBS_SIZE:].shape),
                                            dtype=torch.float32)
    with torch.no_grad():
        logits = [policy.get_distribution(v).distribution.logits for v in (x, other)]
        values = [policy.predict_values(v) for v in (x, other)]
    torch.testing.assert_close(logits[0], logits[1])
    assert not torch.allclose(values[0], values[1])  # the critic does read the state


def test_critic_reads_every_hand_and_the_policy_none_of_the_state():
    keep, scale = critic_features_layout(2)
    obs_keep, _ = ckpt.obs_features_layout(2)
    policy = asymmetric_model().policy
    assert np.array_equal(policy.pi_features_extractor.keep.numpy(), obs_keep)
    assert obs_keep.max() < O.OBS_SIZE  # the actor's input holds no entry of the state
    state_part = set((keep[keep >= O.OBS_SIZE] - O.OBS_SIZE).tolist())
    hands = range(G.HANDS, G.HANDS + 2 * 56)
    assert set(hands) <= state_part and set(range(G.DRAW, G.DRAW + 56)) <= state_part
    assert not set(range(G.HANDS + 2 * 56, G.DRAW)) & state_part  # empty seat slots left out
    assert policy.vf_features_extractor.features_dim == len(keep) == len(scale)


def test_saved_policy_acts_without_the_state(tmp_path):
    """The checkpoint of an asymmetric model is an ordinary obs_features actor: it plays
    from observations alone, with the SB3 actor's logits."""
    model = asymmetric_model()
    card = ckpt.make_card(rules=make_rules("classic"), num_players=2, total_steps=0, wall_time_s=0.0)
    save_checkpoint(model, str(tmp_path), card)
    policy, card = load_policy(str(tmp_path))
    assert card["policy"]["input"] == "obs_features" and card["policy"]["sizes"][0] == 361
    obs = appended_observations()[:, :O.OBS_SIZE]  # what a player sees, nothing more
    np.testing.assert_allclose(policy.logits(obs), sb3_logits(model, obs), atol=1e-5)
    result = evaluate([f"checkpoint:{tmp_path}", "random"], num_players=2, games=4, seed=1)
    assert result["games"] == 4
    resumed, _ = load_model(str(tmp_path))  # model.zip with the asymmetric policy resumes
    assert type(resumed.policy).__name__ == "AsymmetricPolicy"


def test_asymmetric_policy_refuses_observations_without_the_state():
    with pytest.raises(ValueError, match="global state appended"):
        MaskablePPO(AsymmetricPolicy, UnoGymEnv("classic", 2, opponents="random"),
                    policy_kwargs={"num_players": 2})


def test_a_raw_input_actor_on_state_observations_is_not_exported():
    env = UnoGymEnv("classic", 2, opponents="random", critic_state="append")
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, device="cpu",
                        policy_kwargs={"net_arch": [8]})
    with pytest.raises(ValueError, match="hidden cards"):
        actor_tensors(model, 2)


def write_card(directory: str, card: dict) -> None:
    with open(os.path.join(directory, ckpt.CARD_FILE), "w", encoding="utf-8") as f:
        json.dump(card, f)


def test_critic_state_training_run_and_resume(tmp_path):
    args = ["--config", TEST_CONFIG, "--run", "asym", "--checkpoint-dir", str(tmp_path / "c"),
            "--runs-dir", str(tmp_path / "r"), "--no-progress", "--set", "critic=state"]
    train.main(args)
    card = ckpt.load_card(str(tmp_path / "c" / "asym"))
    assert card["config"]["critic"] == "state" and card["policy"]["input"] == "obs_features"
    model, _ = load_model(str(tmp_path / "c" / "asym"))
    assert type(model.policy).__name__ == "AsymmetricPolicy"
    with pytest.raises(SystemExit, match="critic: state"):  # resuming with the other critic
        train.main(args[:-1] + ["critic=obs", "--resume"])
    # a card of 0.5.5-0.5.13 records the removed options, switched off: the run resumes
    card["config"].update(hand_loss_coef=0.0, oracle_fade=None, shaping_coef=0.0)
    write_card(str(tmp_path / "c" / "asym"), card)
    train.main(args[:-2] + ["--resume", "--total-steps", "768"])  # the run's critic=state goes with it
    card = ckpt.load_card(str(tmp_path / "c" / "asym"))
    assert card["total_steps"] == 768 and card["config"]["critic"] == "state"
    card["config"].update(shaping_coef=0.5)  # one trained with one switched on: refused, named
    write_card(str(tmp_path / "c" / "asym"), card)
    with pytest.raises(SystemExit, match=r"--resume: .* was trained with shaping_coef: 0.5, an option since "
                                         r"removed \(docs/4p-experiments.md, \"Reward shaping"):
        train.main(args[:-2] + ["--resume", "--total-steps", "1024"])
    assert load_policy(str(tmp_path / "c" / "asym"))[1]["config"]["shaping_coef"] == 0.5  # still plays


def test_critic_state_needs_the_obs_features_input(tmp_path):
    with pytest.raises(ValueError, match="obs_features"):
        train.load_config(TEST_CONFIG, {"critic": "state", "obs_features": False})
    with pytest.raises(ValueError, match="critic"):
        train.load_config(TEST_CONFIG, {"critic": "global"})


# ---------------------------------------------------------------------- play statistics
def feed(stats: train.PlayStats, actions, masks, dones=None, infos=None) -> None:
    n = len(actions)
    stats.locals = {"actions": np.array(actions), "action_masks": np.array(masks),
                    "dones": np.array(dones or [False] * n), "infos": infos or [{}] * n}
    stats._on_step()


def play_mask() -> np.ndarray:
    m = np.zeros(A.NUM_ACTIONS, bool)
    m[[0, A.DRAW]] = True
    return m


def draw_only_mask() -> np.ndarray:
    m = np.zeros(A.NUM_ACTIONS, bool)
    m[A.DRAW] = True
    return m


class _Logger:
    def __init__(self):
        self.records = {}

    def record(self, key, value):
        self.records[key] = value


def test_stalling_policy_is_flagged():
    """A learner that draws whenever it could play, in games cut by the step cap."""
    stats = train.PlayStats()
    stats.model = SimpleNamespace(logger=_Logger())  # SB3 gives the callback its model
    for _ in range(10):
        feed(stats, [A.DRAW, A.DRAW], [play_mask(), play_mask()])
    feed(stats, [A.DRAW, 0], [play_mask(), play_mask()], dones=[True, False],
         infos=[{"seat": 0, "winner": -1, "truncated_reason": "max_learner_steps", "learner_steps": 11}, {}])
    stats._on_rollout_end()
    assert stats.logger.records["play/draw_share"] == pytest.approx(21 / 22)
    assert stats.logger.records["play/truncated_share"] == 1.0
    assert "stalling" in stats.summary()


def test_forced_draws_are_not_stalling():
    """Drawing when no card is playable is the rule, not a stall; wins are counted."""
    stats = train.PlayStats()
    stats.model = SimpleNamespace(logger=_Logger())
    feed(stats, [A.DRAW, 0], [draw_only_mask(), play_mask()], dones=[False, True],
         infos=[{}, {"seat": 1, "winner": 1, "learner_steps": 30}])
    stats._on_rollout_end()
    r = stats.logger.records
    assert r["play/draw_share"] == 0.5 and r["play/draw_when_play_legal"] == 0.0
    assert r["play/win_rate"] == 1.0 and r["play/learner_steps_per_game"] == 30
    assert "stalling" not in stats.summary()


# ---------------------------------------------------------------------- removed options
def saved_with(tmp_path, **removed) -> str:
    """A checkpoint of an asymmetric model whose ``model.zip`` records ``removed`` in its policy
    kwargs, as models saved before the options went record them (0.0 / False)."""
    import zipfile

    model = asymmetric_model(2)
    card = ckpt.make_card(rules=make_rules("classic"), num_players=2, total_steps=0, wall_time_s=0.0)
    save_checkpoint(model, str(tmp_path), card)
    path = tmp_path / ckpt.MODEL_FILE
    with zipfile.ZipFile(path) as z:
        files = {name: z.read(name) for name in z.namelist()}
    data = json.loads(files["data"])
    data["policy_kwargs"].update(removed)  # plain JSON: num_players, net_arch
    files["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(path, "w") as z:
        for name, content in files.items():
            z.writestr(name, content)
    return str(tmp_path)


def test_a_model_saved_with_the_removed_options_off_resumes(tmp_path):
    model, _ = load_model(saved_with(tmp_path, hand_loss_coef=0.0, oracle=False))
    assert type(model.policy).__name__ == "AsymmetricPolicy" and not hasattr(model.policy, "hand_net")


@pytest.mark.parametrize("removed, named", [({"hand_loss_coef": 1.0}, "An auxiliary hand-prediction loss"),
                                            ({"oracle": True}, "Oracle guiding")])
def test_a_model_trained_with_a_removed_option_is_refused_naming_it(tmp_path, removed, named):
    directory = saved_with(tmp_path, **removed)
    with pytest.raises(ckpt.CheckpointError, match=rf"option '{next(iter(removed))}' was removed: .*"
                                                   rf"docs/4p-experiments.md, \"{named}.*still plays"):
        load_model(directory)
    assert load_policy(directory)[0] is not None  # its safe checkpoint still plays


@pytest.mark.parametrize("critic", ["obs", "state"])
def test_a_model_saved_under_the_modules_former_name_still_resumes(tmp_path, monkeypatch, critic):
    """A ``model.zip`` of 0.3-0.5 pickled ``ObsFeatures`` (in the policy kwargs) and
    ``AsymmetricPolicy`` (the policy class) as ``uno_env.agents.sb3.<name>``: it loads as this
    release's classes, and the old name is gone again afterwards."""
    import zipfile

    from uno_env.learn.sb3 import policy as sb3_policy

    if critic == "state":
        model = asymmetric_model(2)
    else:
        model = MaskablePPO("MlpPolicy", UnoGymEnv("classic", 2, opponents="random"), n_steps=32, batch_size=32,
                            device="cpu", policy_kwargs={"net_arch": [16], "features_extractor_class": ObsFeatures,
                                                         "features_extractor_kwargs": {"num_players": 2}})
    with monkeypatch.context() as m:  # saved as 0.5 did: the classes named in uno_env.agents.sb3
        m.setitem(sys.modules, "uno_env.agents.sb3", sb3_policy)
        for name in ("ObsFeatures", "AsymmetricPolicy"):
            m.setattr(getattr(sb3_policy, name), "__module__", "uno_env.agents.sb3")
        card = ckpt.make_card(rules=make_rules("classic"), num_players=2, total_steps=0, wall_time_s=0.0)
        save_checkpoint(model, str(tmp_path), card)
    assert "uno_env.agents.sb3" not in sys.modules
    with zipfile.ZipFile(tmp_path / ckpt.MODEL_FILE) as z:
        data = z.read("data").decode()
    assert "uno_env.agents.sb3" in data or "dW5vX2Vudi5hZ2VudHMuc2Iz" in data  # (base64 of the pickle)
    resumed, _ = load_model(str(tmp_path))
    assert type(resumed.policy.pi_features_extractor) is ObsFeatures
    assert type(resumed.policy) is (AsymmetricPolicy if critic == "state" else type(model.policy))
    assert "uno_env.agents.sb3" not in sys.modules
    obs = appended_observations()[:, :O.OBS_SIZE]
    np.testing.assert_allclose(sb3_logits(resumed, obs), sb3_logits(model, obs), atol=1e-6)
