"""The asymmetric actor-critic (``critic: state``): the value network reads the global state,
the policy only the observation; the checkpoint acts without the state. And the play
statistics that make a stalling policy visible."""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from uno_env.agents import checkpoint as ckpt  # noqa: E402
from uno_env.agents import make_agent  # noqa: E402
from uno_env.agents.policy import load_policy  # noqa: E402
from uno_env.envs.gym_env import UnoGymEnv  # noqa: E402
from uno_env.game import actions as A  # noqa: E402
from uno_env.game import cards as C  # noqa: E402
from uno_env.game import global_state as G  # noqa: E402
from uno_env.game import observation as O  # noqa: E402
from uno_env.game.rules import make_rules  # noqa: E402
from uno_env.learn import sb3  # noqa: E402
from uno_env.tools.evaluate import evaluate  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "training"))
import train  # noqa: E402

TEST_CONFIG = os.path.join(ROOT, "configs", "train", "test.yaml")


def asymmetric_model(num_players: int = 2) -> MaskablePPO:
    env = UnoGymEnv("classic", num_players, opponents="random", critic_state="append")
    return MaskablePPO(sb3.AsymmetricPolicy, env, n_steps=32, batch_size=32, seed=0, device="cpu",
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
    keep, scale = sb3.critic_features_layout(2)
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
    sb3.save_checkpoint(model, str(tmp_path), card)
    policy, card = load_policy(str(tmp_path))
    assert card["policy"]["input"] == "obs_features" and card["policy"]["sizes"][0] == 361
    obs = appended_observations()[:, :O.OBS_SIZE]  # what a player sees, nothing more
    np.testing.assert_allclose(policy.logits(obs), sb3.sb3_logits(model, obs), atol=1e-5)
    result = evaluate([f"checkpoint:{tmp_path}", "random"], num_players=2, games=4, seed=1)
    assert result["games"] == 4
    resumed, _ = sb3.load_model(str(tmp_path))  # model.zip with the asymmetric policy resumes
    assert type(resumed.policy).__name__ == "AsymmetricPolicy"


def test_asymmetric_policy_refuses_observations_without_the_state():
    with pytest.raises(ValueError, match="global state appended"):
        MaskablePPO(sb3.AsymmetricPolicy, UnoGymEnv("classic", 2, opponents="random"),
                    policy_kwargs={"num_players": 2})


def test_a_raw_input_actor_on_state_observations_is_not_exported():
    env = UnoGymEnv("classic", 2, opponents="random", critic_state="append")
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, device="cpu",
                        policy_kwargs={"net_arch": [8]})
    with pytest.raises(ValueError, match="hidden cards"):
        sb3.actor_tensors(model, 2)


def test_critic_state_training_run_and_resume(tmp_path):
    args = ["--config", TEST_CONFIG, "--run", "asym", "--checkpoint-dir", str(tmp_path / "c"),
            "--runs-dir", str(tmp_path / "r"), "--no-progress", "--set", "critic=state"]
    train.main(args)
    card = ckpt.load_card(str(tmp_path / "c" / "asym"))
    assert card["config"]["critic"] == "state" and card["policy"]["input"] == "obs_features"
    model, _ = sb3.load_model(str(tmp_path / "c" / "asym"))
    assert type(model.policy).__name__ == "AsymmetricPolicy"
    with pytest.raises(SystemExit, match="critic: state"):  # resuming with the other critic
        train.main(args[:-1] + ["critic=obs", "--resume"])
    train.main(args[:-2] + ["--resume", "--total-steps", "768"])  # the run's critic=state goes with it
    card = ckpt.load_card(str(tmp_path / "c" / "asym"))
    assert card["total_steps"] == 768 and card["config"]["critic"] == "state"


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


# ---------------------------------------------------------------------- the hand-prediction loss
def hand_model(num_players: int = 2, coef: float = 1.0, algo=None) -> MaskablePPO:
    env = UnoGymEnv("classic", num_players, opponents="random", critic_state="append")
    return (algo or sb3.HandLossPPO)(
        sb3.AsymmetricPolicy, env, n_steps=64, batch_size=32, n_epochs=2, seed=0, device="cpu",
        policy_kwargs={"num_players": num_players, "net_arch": [16, 16], "hand_loss_coef": coef})


@pytest.mark.parametrize("num_players", [2, 4])
def test_hand_loss_targets_are_the_opponents_hands_in_seat_order(num_players):
    """A head that always answers the true hands of the seats 1..n-1 places to the learner's
    left, card kind by kind and in that order, has zero loss; a head answering zeros, the
    mean square of those hands."""
    env = UnoGymEnv("classic", num_players, opponents="random", critic_state="append", seat=1)
    obs, _ = env.reset(seed=5)
    s = env.game_state
    expected = np.concatenate([s.hands[(env.seat + j) % num_players] for j in range(1, num_players)])
    policy = hand_model(num_players).policy
    x = torch.as_tensor(obs[None])
    with torch.no_grad():
        policy.hand_net.weight.zero_()
        policy.hand_net.bias.zero_()
        assert policy.hand_loss(x).item() == pytest.approx(float(np.mean(expected.astype(np.float64) ** 2)))
        policy.hand_net.bias.copy_(torch.as_tensor(expected, dtype=torch.float32))
        assert policy.hand_loss(x).item() == 0.0


def test_hand_loss_gradient_reaches_the_actor_layers_and_not_the_value_network():
    policy = hand_model(4).policy
    policy.optimizer.zero_grad()
    policy.hand_loss(torch.as_tensor(appended_observations(4, games=1))).backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in policy.mlp_extractor.policy_net.parameters())
    assert all(p.grad is None for p in policy.mlp_extractor.value_net.parameters())
    assert all(p.grad is None for p in [*policy.value_net.parameters(), *policy.action_net.parameters()])


def test_one_pass_evaluation_is_evaluate_actions_and_the_hand_loss():
    policy = hand_model(4).policy
    x = torch.as_tensor(appended_observations(4, games=1))
    actions = torch.full((len(x),), A.DRAW)  # no masks given: any action will do
    with torch.no_grad():
        ours = policy.evaluate_actions_and_hand_loss(x, actions)
        theirs = (*policy.evaluate_actions(x, actions), policy.hand_loss(x))
    for a, b in zip(ours, theirs):
        torch.testing.assert_close(a, b)


def test_actor_still_ignores_the_state_with_a_hand_head():
    policy = hand_model(4).policy
    x = torch.as_tensor(appended_observations(4, games=1))
    other = x.clone()
    other[:, O.OBS_SIZE:] = 3.0
    with torch.no_grad():
        torch.testing.assert_close(policy.get_distribution(x).distribution.logits,
                                   policy.get_distribution(other).distribution.logits)


def test_hand_loss_ppo_trains_the_head_and_logs_its_loss():
    model = hand_model(2)
    before = model.policy.hand_net.weight.detach().clone()
    model.learn(128)
    assert not torch.equal(before, model.policy.hand_net.weight)
    assert model.logger.name_to_value["train/hand_loss"] > 0


def test_hand_loss_ppo_with_coefficient_zero_is_maskable_ppo():
    """No head, and the same updates as MaskablePPO's own train() from the same seed."""
    plain = hand_model(2, coef=0.0, algo=MaskablePPO).learn(128)  # each seeds torch's global RNG
    ours = hand_model(2, coef=0.0).learn(128)
    assert not hasattr(ours.policy, "hand_net")
    for a, b in zip(plain.policy.parameters(), ours.policy.parameters()):
        torch.testing.assert_close(a, b)


def test_hand_loss_ppo_update_is_maskable_ppo_plus_the_hand_term():
    """With the hand term replaced by a constant 0, HandLossPPO's own loop makes exactly the
    updates of MaskablePPO.train (which ignores the head) from the same seed."""
    plain = hand_model(2, algo=MaskablePPO).learn(128)
    ours = hand_model(2)
    ours.policy.hand_loss = lambda observations, latent=None: torch.zeros(())
    ours.learn(128)
    for a, b in zip(plain.policy.parameters(), ours.policy.parameters()):
        torch.testing.assert_close(a, b)


def test_hand_head_is_not_in_the_checkpoint_and_the_coefficient_resumes(tmp_path):
    model = hand_model(2)
    card = ckpt.make_card(rules=make_rules("classic"), num_players=2, total_steps=0, wall_time_s=0.0)
    sb3.save_checkpoint(model, str(tmp_path), card)
    policy, card = load_policy(str(tmp_path))
    obs = appended_observations()[:, :O.OBS_SIZE]
    np.testing.assert_allclose(policy.logits(obs), sb3.sb3_logits(model, obs), atol=1e-5)
    resumed, _ = sb3.load_model(str(tmp_path))
    assert type(resumed).__name__ == "HandLossPPO" and resumed.policy.hand_loss_coef == 1.0
    torch.testing.assert_close(resumed.policy.hand_net.weight, model.policy.hand_net.weight)


def test_hand_loss_coefficient_is_refused_without_the_state_or_below_zero():
    with pytest.raises(ValueError, match="hand_loss_coef.*critic: state"):
        train.load_config(TEST_CONFIG, {"hand_loss_coef": 0.5})
    with pytest.raises(ValueError, match="hand_loss_coef"):
        train.load_config(TEST_CONFIG, {"critic": "state", "hand_loss_coef": -1})
    with pytest.raises(ValueError, match="hand_loss_coef must be >= 0"):
        hand_model(2, coef=-0.5)


def test_hand_loss_training_run_and_resume(tmp_path):
    args = ["--config", TEST_CONFIG, "--run", "hands", "--checkpoint-dir", str(tmp_path / "c"),
            "--runs-dir", str(tmp_path / "r"), "--no-progress", "--set", "critic=state",
            "--set", "hand_loss_coef=0.5"]
    train.main(args)
    card = ckpt.load_card(str(tmp_path / "c" / "hands"))
    assert card["config"]["hand_loss_coef"] == 0.5 and card["policy"]["input"] == "obs_features"
    with pytest.raises(SystemExit, match="hand_loss_coef: 0.5"):  # resuming with another coefficient
        train.main(args[:-1] + ["hand_loss_coef=0.25", "--resume", "--total-steps", "1024"])


# ---------------------------------------------------------------------- oracle guiding
def oracle_model(num_players: int = 4) -> MaskablePPO:
    env = UnoGymEnv("classic", num_players, opponents="random", critic_state="append")
    return sb3.HandLossPPO(sb3.AsymmetricPolicy, env, n_steps=64, batch_size=32, n_epochs=2, seed=0,
                           device="cpu", policy_kwargs={"num_players": num_players, "net_arch": [16, 16],
                                                        "oracle": True})


def with_other_hands(x: torch.Tensor, num_players: int) -> torch.Tensor:
    """``x`` with the appended state's opponents' hands (HANDS slots 1..n-1) changed."""
    other = x.clone()
    first = O.OBS_SIZE + G.HANDS + C.NUM_KINDS
    other[:, first:first + (num_players - 1) * C.NUM_KINDS] += 2.0
    return other


def logits_of(policy, x: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return policy.get_distribution(x).distribution.logits


@pytest.mark.parametrize("num_players", [2, 4])
def test_oracle_inputs_are_the_opponents_hands_in_seat_order_times_the_keep_factor(num_players):
    env = UnoGymEnv("classic", num_players, opponents="random", critic_state="append", seat=1)
    obs, _ = env.reset(seed=5)
    s = env.game_state
    hands = np.concatenate([s.hands[(env.seat + j) % num_players] for j in range(1, num_players)])
    policy = oracle_model(num_players).policy
    fx = policy.pi_features_extractor
    x = torch.as_tensor(obs[None])
    for keep in (0.0, 0.5, 1.0):
        policy.oracle_keep = keep
        with torch.no_grad():
            features = fx(x)[0].numpy()
        keep_idx, scale = ckpt.obs_features_layout(num_players)
        np.testing.assert_allclose(features[:fx.obs_dim], obs[keep_idx] * scale, rtol=1e-6)
        np.testing.assert_allclose(features[fx.obs_dim:], keep * hands, rtol=1e-6)


def test_oracle_policy_starts_blind_to_the_hands_and_loads_with_the_oracle_off():
    """The oracle columns start at 0 (a fresh or cloned policy plays the same with the hands in
    view), and a policy just built reads them at factor 0."""
    model = oracle_model(4)
    policy = model.policy
    assert policy.oracle_keep == 0.0
    x = torch.as_tensor(appended_observations(4, games=1))
    policy.oracle_keep = 1.0
    torch.testing.assert_close(logits_of(policy, x), logits_of(policy, with_other_hands(x, 4)))


def test_oracle_guided_actor_reads_the_hands_only_while_the_factor_is_above_zero():
    model = oracle_model(4)
    model.policy.oracle_keep = 1.0
    model.learn(256)  # PPO grows the oracle columns from 0
    policy, x = model.policy, torch.as_tensor(appended_observations(4, games=1))
    assert not torch.allclose(logits_of(policy, x), logits_of(policy, with_other_hands(x, 4)))
    policy.oracle_keep = 0.0
    torch.testing.assert_close(logits_of(policy, x), logits_of(policy, with_other_hands(x, 4)))


def test_oracle_checkpoint_is_the_actor_with_the_oracle_off_and_the_option_resumes(tmp_path):
    model = oracle_model(4)
    model.policy.oracle_keep = 1.0
    model.learn(256)
    card = ckpt.make_card(rules=make_rules("classic"), num_players=4, total_steps=0, wall_time_s=0.0)
    sb3.save_checkpoint(model, str(tmp_path), card)
    policy, card = load_policy(str(tmp_path))
    assert card["policy"]["input"] == "obs_features"
    x = appended_observations(4, games=1)
    p = model.policy
    p.oracle_keep = 0.0  # the true hands in view, at factor 0
    with torch.no_grad():
        raw = p.action_net(p.mlp_extractor.forward_actor(p.pi_features_extractor(torch.as_tensor(x))))
    np.testing.assert_allclose(policy.logits(x[:, :O.OBS_SIZE]), raw.numpy(), atol=1e-5)
    resumed, _ = sb3.load_model(str(tmp_path))
    assert resumed.policy.oracle and resumed.policy.oracle_keep == 0.0
    torch.testing.assert_close(resumed.policy.mlp_extractor.policy_net[0].weight,
                               model.policy.mlp_extractor.policy_net[0].weight)


def test_a_checkpoints_actor_loads_into_an_oracle_model_with_its_oracle_columns_at_zero():
    """``init_checkpoint`` on an oracle run: the checkpoint's actor goes into the obs_features
    columns, and the oracle columns start at 0 as in a fresh policy."""
    model = oracle_model(4)
    model.policy.oracle_keep = 1.0
    model.learn(256)  # oracle columns away from 0
    obs_dim = model.policy.pi_features_extractor.obs_dim
    assert model.policy.mlp_extractor.policy_net[0].weight[:, obs_dim:].any()
    _, tensors = sb3.actor_tensors(oracle_model(4), 4)  # another actor, as a checkpoint holds it
    sb3.set_actor(model, tensors, 4)
    _, loaded = sb3.actor_tensors(model, 4)
    assert all(np.array_equal(loaded[k], tensors[k]) for k in tensors)
    assert not model.policy.mlp_extractor.policy_net[0].weight[:, obs_dim:].any()


def test_oracle_keep_is_refused_out_of_range_or_without_the_oracle():
    with pytest.raises(ValueError, match=r"oracle_keep must be in \[0, 1\]"):
        oracle_model(2).policy.oracle_keep = 1.5
    with pytest.raises(ValueError, match="without oracle=True"):
        asymmetric_model(2).policy.oracle_keep = 1.0
    with pytest.raises(ValueError, match="oracle and hand_loss_coef"):
        env = UnoGymEnv("classic", 2, opponents="random", critic_state="append")
        sb3.HandLossPPO(sb3.AsymmetricPolicy, env, device="cpu",
                        policy_kwargs={"num_players": 2, "oracle": True, "hand_loss_coef": 1.0})


@pytest.mark.parametrize("progress, keep", [(0.0, 1.0), (0.3, 1.0), (0.4, 0.75), (0.5, 0.5), (0.7, 0.0), (1.0, 0.0)])
def test_oracle_fade_is_one_until_start_linear_to_zero_at_end(progress, keep):
    assert train.oracle_keep([0.3, 0.7], progress) == pytest.approx(keep)


def test_oracle_fade_ending_where_it_starts_is_a_step():
    assert train.oracle_keep([0.5, 0.5], 0.5) == 1.0 and train.oracle_keep([0.5, 0.5], 0.51) == 0.0


@pytest.mark.parametrize("sets, message", [
    ({"oracle_fade": [0.2, 0.6]}, "oracle_fade.*needs critic: state"),
    ({"critic": "state", "oracle_fade": [0.6, 0.2]}, "oracle_fade.*start <= end"),
    ({"critic": "state", "oracle_fade": [0.2, 1.5]}, "oracle_fade.*start <= end"),
    ({"critic": "state", "oracle_fade": 0.5}, "oracle_fade.*start <= end"),
    ({"critic": "state", "oracle_fade": [0.2]}, "oracle_fade.*start <= end"),
    ({"critic": "state", "oracle_fade": [0.2, 0.6], "hand_loss_coef": 1.0}, "oracle_fade and hand_loss_coef"),
])
def test_oracle_fade_config_is_checked(sets, message):
    with pytest.raises(ValueError, match=message):
        train.load_config(TEST_CONFIG, sets)


def tensorboard_scalars(log_dir, tag: str) -> list:
    """The events of one scalar of a run's TensorBoard logs, in step order."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    events = EventAccumulator(str(log_dir))
    events.Reload()
    return sorted(events.Scalars(tag), key=lambda e: e.step)


def test_oracle_training_run_fades_to_zero_and_resumes_only_with_the_same_fade(tmp_path):
    args = ["--config", TEST_CONFIG, "--run", "oracle", "--checkpoint-dir", str(tmp_path / "c"),
            "--runs-dir", str(tmp_path / "r"), "--no-progress", "--set", "critic=state",
            "--set", "oracle_fade=[0.2, 0.5]"]  # 2 rollouts: at progress 0 and 0.5
    train.main(args)
    run_dir = str(tmp_path / "c" / "oracle")
    card = ckpt.load_card(run_dir)
    assert card["config"]["oracle_fade"] == [0.2, 0.5] and card["policy"]["input"] == "obs_features"
    model, _ = sb3.load_model(run_dir)
    weight = model.policy.mlp_extractor.policy_net[0].weight
    assert weight[:, model.policy.pi_features_extractor.obs_dim:].abs().sum() > 0  # the oracle was used
    assert card["policy"]["sizes"][0] == model.policy.pi_features_extractor.obs_dim
    keep = [e.value for e in tensorboard_scalars(tmp_path / "r" / "oracle" / "tb", "train/oracle_keep")]
    assert keep == [1.0, 0.0]  # the oracle in view for the first rollout, gone for the last
    with pytest.raises(SystemExit, match=r"oracle_fade: \[0.2, 0.5\]"):
        train.main(args[:-1] + ["oracle_fade=[0.1, 0.5]", "--resume", "--total-steps", "1024"])


# ---------------------------------------------------------------------- reward shaping
def shaped_venv(num_players: int, coef: float, gamma: float, n_envs: int = 3, **env_kwargs):
    from stable_baselines3.common.env_util import make_vec_env
    venv = make_vec_env(lambda: UnoGymEnv("classic", num_players, opponents="random", **env_kwargs),
                        n_envs=n_envs, seed=5)
    return train.PotentialShaping(venv, num_players, coef, gamma)


@pytest.mark.parametrize("num_players", [2, 4])
def test_hand_potential_is_the_smallest_opponent_hand_minus_mine_from_the_engine(num_players):
    env = UnoGymEnv("classic", num_players, opponents="random", critic_state="append")
    rng = np.random.default_rng(1)
    checked = 0
    for game in range(3):
        obs, info = env.reset(seed=game)
        done = False
        while not done:
            sizes = env.game_state.hand_size
            me = env.seat
            others = [sizes[(me + j) % num_players] for j in range(1, num_players)]
            expected = 0.5 * (min(others) - sizes[me])
            assert train.hand_potential(obs, num_players, 0.5)[0] == pytest.approx(expected)
            assert train.hand_potential(obs[:O.OBS_SIZE], num_players, 0.5)[0] == pytest.approx(expected)
            checked += 1
            obs, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            done = term or trunc
    assert checked > 20


@pytest.mark.parametrize("num_players", [2, 4])
def test_shaped_rewards_of_a_finished_game_sum_to_its_reward_minus_the_first_potential(num_players):
    coef, gamma = 0.3, 0.9
    venv = shaped_venv(num_players, coef, gamma)
    obs = venv.reset()
    first = train.hand_potential(obs, num_players, coef)
    returns, discounts = np.zeros(venv.num_envs), np.ones(venv.num_envs)
    rng = np.random.default_rng(2)
    finished, nonzero = 0, 0
    while finished < 12:
        masks = np.stack(venv.env_method("action_masks"))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        nonzero += int(np.count_nonzero(rewards[~dones]))
        returns += discounts * rewards
        for i in np.flatnonzero(dones):
            assert not infos[i].get("TimeLimit.truncated", False)
            game = infos[i]["episode"]["r"]  # Monitor, under the shaping: the game's own reward
            assert game in (1.0, pytest.approx(-1 / (num_players - 1)))
            # sum of gamma^t (r_t + gamma phi_t+1 - phi_t) = gamma^T-1 * reward - phi_0
            assert returns[i] == pytest.approx(discounts[i] * game - first[i], abs=1e-5)
            first[i] = train.hand_potential(obs[i], num_players, coef)[0]
            returns[i], discounts[i] = 0.0, 1.0 / gamma
            finished += 1
        discounts *= gamma
    assert nonzero > 0  # the shaping did add rewards between the ends


def test_a_truncated_game_keeps_the_potential_of_the_state_it_was_cut_in():
    coef, gamma = 0.3, 0.9
    venv = shaped_venv(2, coef, gamma, n_envs=1, max_learner_steps=2)
    obs = venv.reset()
    phi = train.hand_potential(obs, 2, coef)[0]
    rng = np.random.default_rng(4)
    for _ in range(200):
        mask = venv.env_method("action_masks")[0]
        obs, rewards, dones, infos = venv.step(np.array([rng.choice(np.flatnonzero(mask))]))
        if dones[0] and infos[0].get("TimeLimit.truncated"):
            cut = train.hand_potential(infos[0]["terminal_observation"], 2, coef)[0]
            assert rewards[0] == pytest.approx(gamma * cut - phi, abs=1e-6)
            return
        phi = train.hand_potential(obs, 2, coef)[0]
    pytest.fail("no game was cut by max_learner_steps")


def test_shaping_coefficient_is_checked():
    with pytest.raises(ValueError, match="shaping_coef"):
        train.load_config(TEST_CONFIG, {"shaping_coef": -0.1})


def test_shaped_training_run_logs_the_games_own_returns_and_resumes_only_with_the_same_coef(tmp_path):
    args = ["--config", TEST_CONFIG, "--run", "shaped", "--checkpoint-dir", str(tmp_path / "c"),
            "--runs-dir", str(tmp_path / "r"), "--no-progress", "--set", "shaping_coef=0.5"]
    train.main(args)
    run_dir = str(tmp_path / "c" / "shaped")
    assert ckpt.load_card(run_dir)["config"]["shaping_coef"] == 0.5
    with pytest.raises(SystemExit, match="shaping_coef: 0.5"):
        train.main(args[:-1] + ["shaping_coef=0.2", "--resume", "--total-steps", "1024"])
