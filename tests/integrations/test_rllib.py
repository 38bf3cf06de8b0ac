"""The RLlib integration: the multi-agent env, the masked module, bots as modules, the league,
the export, and a tiny training on a simulated two-node Ray cluster.

Marked ``rllib`` and skipped where ray is not installed (it lives in ``.venvs/rllib``:
``bash scripts/test_rllib.sh``). The tests that start Ray keep it small (1 CPU per node, an
object store of 100 MB per node)."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import signal
import struct
import sys
import threading

import numpy as np
import pytest

ray = pytest.importorskip("ray")
torch = pytest.importorskip("torch")

from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.utils.torch_utils import FLOAT_MIN  # noqa: E402

from uno_env.agents import checkpoint as ckpt  # noqa: E402
from uno_env.agents.base import Agent, make_agent, register_agent  # noqa: E402
from uno_env.game import actions as A  # noqa: E402
from uno_env.game.engine import Engine  # noqa: E402
from uno_env.game.observation import ObservationEncoder  # noqa: E402
from uno_env.game.rules import make_rules  # noqa: E402
from uno_env.integrations import ray_cluster  # noqa: E402
from uno_env.integrations.rllib import league as rllib_league  # noqa: E402
from uno_env.integrations.rllib.bots import env_to_module  # noqa: E402
from uno_env.integrations.rllib.imitate import imitate, imitate_learner  # noqa: E402
from uno_env.integrations.rllib.league import LeagueMapping, SNAPSHOTS  # noqa: E402
from uno_env.integrations.rllib.modules import model_config  # noqa: E402
from uno_env.integrations.rllib.multi_agent_env import (  # noqa: E402
    action_space, agent_id, MASK_KEY, OBS_KEY, observation_space, UnoMultiAgentEnv)
from uno_env.integrations.rllib.specs import (  # noqa: E402
    LEARNER, learner_module_spec, multi_module_spec, opponent_module_spec)
from uno_env.integrations.rllib.weights import (  # noqa: E402
    actor_tensors, copy_module, export_checkpoint, masked_policy, module_state, set_actor, with_actor)

from helpers import WatchedProcess  # noqa: E402

pytestmark = pytest.mark.rllib
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OBJECT_STORE = 100 * 2 ** 20


def play(env, rng, max_decisions=100_000):
    """Random legal actions to the end; yields (obs, action dict, step result) per decision."""
    obs, _ = env.reset(seed=int(rng.integers(2 ** 31)))
    for _ in range(max_decisions):
        (agent, o), = obs.items()
        action = int(rng.choice(np.flatnonzero(o[MASK_KEY])))
        result = env.step({agent: action})
        yield obs, {agent: action}, result
        obs, _, terminateds, truncateds, _ = result
        if terminateds["__all__"] or truncateds["__all__"]:
            return


# ---------------------------------------------------------------------- the env
@pytest.mark.parametrize("rules,n", [("classic", 2), ("classic", 4), ("house", 3), ("tmnt", 4)])
def test_only_the_deciding_seat_observes_with_the_legal_actions_as_its_mask(rules, n):
    env = UnoMultiAgentEnv({"rules": rules, "num_players": n})
    rng = np.random.default_rng(1)
    decisions = 0
    for obs, _, (nxt, rewards, terminateds, truncateds, _) in play(env, rng):
        s = env.state
        if terminateds["__all__"] or truncateds["__all__"]:
            break
        assert list(nxt) == [agent_id(s.actor)]  # the next decider only
        o = nxt[agent_id(s.actor)]
        assert np.array_equal(np.flatnonzero(o[MASK_KEY]), sorted(env.engine.legal_actions(s)))
        assert np.array_equal(o[OBS_KEY], env.encoder.encode(s, s.actor))
        assert o[MASK_KEY].dtype == np.float32 and env.observation_spaces["player_0"].contains(o)
        assert set(rewards.values()) == {0.0}
        decisions += 1
    assert decisions > 5


@pytest.mark.parametrize("n", [2, 4])
def test_at_the_end_every_seat_gets_its_reward_last_observation_and_termination(n):
    env = UnoMultiAgentEnv({"rules": "classic", "num_players": n})
    *_, (_, _, (obs, rewards, terminateds, truncateds, infos)) = play(env, np.random.default_rng(n))
    agents = env.possible_agents
    winner = env.state.winner
    assert set(obs) == set(rewards) == set(agents)
    assert rewards == {a: (1.0 if i == winner else -1.0 / (n - 1)) for i, a in enumerate(agents)}
    assert all(terminateds[a] for a in agents) and terminateds["__all__"] and not truncateds["__all__"]
    assert all(not o[MASK_KEY].any() for o in obs.values())  # nobody decides any more
    assert all(info["winner"] == winner for info in infos.values())
    with pytest.raises(ValueError, match="after the episode ended"):
        env.step({agents[0]: 0})


def test_an_episode_is_truncated_at_max_steps_with_reward_zero_for_everyone():
    env = UnoMultiAgentEnv({"rules": "classic", "num_players": 3, "max_steps": 5})
    steps = list(play(env, np.random.default_rng(0)))
    obs, rewards, terminateds, truncateds, _ = steps[-1][2]
    assert len(steps) == 5
    assert truncateds["__all__"] and all(truncateds[a] for a in env.possible_agents)
    assert not terminateds["__all__"] and set(rewards.values()) == {0.0} and set(obs) == set(env.possible_agents)


def test_an_illegal_action_ends_the_episode_with_minus_one_for_the_seat_that_made_it():
    env = UnoMultiAgentEnv({"rules": "classic", "num_players": 3})
    obs, _ = env.reset(seed=3)
    (agent, o), = obs.items()
    illegal = int(np.flatnonzero(o[MASK_KEY] == 0)[0])
    _, rewards, terminateds, _, infos = env.step({agent: illegal})
    assert rewards[agent] == -1.0 and sum(rewards.values()) == -1.0
    assert terminateds["__all__"] and infos[agent]["illegal"]
    assert not any(infos[a]["illegal"] for a in env.possible_agents if a != agent)


def test_on_illegal_raise_names_the_action_and_keeps_the_state():
    env = UnoMultiAgentEnv({"rules": "classic", "num_players": 2, "on_illegal": "raise"})
    obs, _ = env.reset(seed=3)
    (agent, o), = obs.items()
    illegal = int(np.flatnonzero(o[MASK_KEY] == 0)[0])
    steps = env.state.steps
    with pytest.raises(ValueError, match="illegal action"):
        env.step({agent: illegal})
    assert env.state.steps == steps


def test_an_action_for_a_seat_that_is_not_deciding_is_a_value_error():
    env = UnoMultiAgentEnv({"rules": "classic", "num_players": 2})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    other = next(a for a in env.possible_agents if a != agent)
    with pytest.raises(ValueError, match=f"exactly one action, for {agent}"):
        env.step({other: 0})


@pytest.mark.parametrize("config,match", [({"num_players": 2, "bogus": 1}, "bogus"),
                                          ({"num_players": 2, "on_illegal": "ignore"}, "on_illegal")])
def test_a_bad_env_config_is_a_value_error_naming_it(config, match):
    with pytest.raises(ValueError, match=match):
        UnoMultiAgentEnv(config)


def test_the_same_seed_plays_the_same_deal():
    def first_obs(seed):
        env = UnoMultiAgentEnv({"rules": "classic", "num_players": 4})
        obs, _ = env.reset(seed=seed)
        return next(iter(obs.values()))[OBS_KEY]

    assert np.array_equal(first_obs(7), first_obs(7)) and not np.array_equal(first_obs(7), first_obs(8))


def test_rllibs_own_env_checker_accepts_the_env():
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    check_multiagent_environments(UnoMultiAgentEnv({"rules": "house", "num_players": 4}))


# ---------------------------------------------------------------------- modules
def batch_of(env_config, count, seed=0):
    env = UnoMultiAgentEnv(env_config)
    rng = np.random.default_rng(seed)
    observations = []
    while len(observations) < count:
        for obs, _, _ in play(env, rng):
            observations.append(next(iter(obs.values())))
    observations = observations[:count]
    return {OBS_KEY: np.stack([o[OBS_KEY] for o in observations]),
            MASK_KEY: np.stack([o[MASK_KEY] for o in observations])}


def torch_batch(batch):
    return {Columns.OBS: {k: torch.as_tensor(v) for k, v in batch.items()}}


def test_the_masked_module_gives_illegal_actions_float_min_logits_and_samples_only_legal_ones():
    module = learner_module_spec(model_config(4, [32])).build()
    batch = batch_of({"num_players": 4}, 64)
    logits = module.forward_exploration(torch_batch(batch))[Columns.ACTION_DIST_INPUTS]
    legal = batch[MASK_KEY] > 0
    assert (logits.numpy()[~legal] == FLOAT_MIN).all() and (logits.numpy()[legal] > -1e3).all()
    dist = module.get_exploration_action_dist_cls().from_logits(logits)
    for _ in range(5):
        actions = dist.sample().numpy()
        assert legal[np.arange(len(actions)), actions].all()
    values = module.compute_values(torch_batch(batch))
    assert values.shape == (64,)


def test_rllibs_action_masking_example_module_runs_on_the_env_unchanged():
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, observation_space=observation_space(),
                          action_space=action_space(), model_config={"head_fcnet_hiddens": [16]}).build()
    batch = batch_of({"num_players": 2}, 16)
    logits = module.forward_inference(torch_batch(batch))[Columns.ACTION_DIST_INPUTS].numpy()
    assert (logits.argmax(axis=1) == np.where(batch[MASK_KEY] > 0, logits, -np.inf).argmax(axis=1)).all()


def exported(tmp_path, n=4, hidden=(32, 16), input_kind="obs_features"):
    config = model_config(n, hidden, "relu", input_kind)
    module = learner_module_spec(config).build()
    card = ckpt.make_card(rules=make_rules("classic"), num_players=n, total_steps=1, wall_time_s=0.0,
                          extra={"algorithm": "PPO (Ray RLlib)"})
    export_checkpoint(module.get_state(), config, str(tmp_path), card)
    return module, str(tmp_path)


@pytest.mark.parametrize("input_kind", ["obs_features", "raw"])
def test_an_exported_checkpoint_plays_the_modules_greedy_actions_as_checkpoint_agent(tmp_path, input_kind):
    module, path = exported(tmp_path, input_kind=input_kind)
    card = ckpt.load_card(path)
    assert card["policy"]["input"] == input_kind and card["policy"]["sizes"][1:] == [32, 16, A.NUM_ACTIONS]
    agent = make_agent(f"checkpoint:{path}", make_rules("classic"), 4)
    batch = batch_of({"num_players": 4}, 50, seed=1)
    logits = module.forward_inference(torch_batch(batch))[Columns.ACTION_DIST_INPUTS].numpy()
    ours = [agent.act(o, m.astype(np.int8)) for o, m in zip(batch[OBS_KEY], batch[MASK_KEY])]
    assert ours == list(logits.argmax(axis=1))


def test_a_checkpoint_opponent_module_is_read_on_the_driver_and_plays_greedily(tmp_path):
    _, path = exported(tmp_path)
    spec = opponent_module_spec(f"checkpoint:{path}", make_rules("classic"), 4)
    assert "tensors" in spec.model_config  # travels as data: workers never read the directory
    module = spec.build()
    batch = batch_of({"num_players": 4}, 30, seed=2)
    actions = module.forward_inference(torch_batch(batch))[Columns.ACTIONS]
    agent = make_agent(f"checkpoint:{path}", make_rules("classic"), 4)
    assert list(actions) == [agent.act(o, m.astype(np.int8))
                             for o, m in zip(batch[OBS_KEY], batch[MASK_KEY])]
    with pytest.raises(ValueError, match="num_players"):
        opponent_module_spec(f"checkpoint:{path}", make_rules("classic"), 3)


def test_a_layout_0_checkpoint_plays_as_an_opponent_module(tmp_path):
    """A checkpoint of observation layout 0 reads the layout-0 prefix of the observations and
    picks what its checkpoint agent picks."""
    from helpers import layout0_checkpoint

    layout0_checkpoint(tmp_path, hidden=(32, 32))
    path = str(tmp_path)
    spec = opponent_module_spec(f"checkpoint:{path}", make_rules("classic"), 2)
    assert spec.model_config["layout_version"] == 0
    module = spec.build()
    batch = batch_of({"num_players": 2}, 30, seed=3)
    actions = module.forward_inference(torch_batch(batch))[Columns.ACTIONS]
    agent = make_agent(f"checkpoint:{path}", make_rules("classic"), 2)
    assert list(actions) == [agent.act(o, m.astype(np.int8))
                             for o, m in zip(batch[OBS_KEY], batch[MASK_KEY])]


def test_a_bad_opponent_spec_fails_on_the_driver_naming_it():
    with pytest.raises(ValueError, match="nonsense"):
        opponent_module_spec("nonsense", make_rules("classic"), 2)


def test_a_bot_module_without_the_seat_connector_says_what_to_add():
    module = opponent_module_spec("heuristic", make_rules("classic"), 2).build()
    with pytest.raises(RuntimeError, match="env_to_module"):
        module.forward_inference(torch_batch(batch_of({"num_players": 2}, 3)))


# ---------------------------------------------------------------------- the league
class FakeEpisode:
    def __init__(self, id_):
        self.id_ = id_


def test_the_league_puts_the_learner_in_one_seat_at_least_and_keeps_a_table_per_episode():
    mapping = LeagueMapping(4, {"heuristic": 1.0}, seed=0)
    for e in range(50):
        episode = FakeEpisode(f"e{e}")
        table = [mapping(agent_id(s), episode) for s in (3, 0, 1, 2)]
        assert table.count(LEARNER) == 1 and table.count("heuristic") == 3
        assert [mapping(agent_id(s), episode) for s in (3, 0, 1, 2)] == table


def test_league_phases_follow_progress_and_snapshots_join_once_filled():
    phases = [{"until": 0.5, "opponents": {"random": 1.0}},
              {"until": None, "opponents": {SNAPSHOTS: 1.0}}]
    mapping = LeagueMapping(2, phases, seed=0)
    assert mapping.mixture() == [("random", 1.0)]
    mapping.update(0.6, 600, snapshots=0)
    assert mapping.mixture() == [(LEARNER, 1.0)]  # no snapshot yet: self-play
    mapping.update(0.6, 600, snapshots=2)
    assert mapping.mixture() == [("snapshot_0", 0.5), ("snapshot_1", 0.5)]
    steps = LeagueMapping(2, [{"until": 1000, "opponents": {"random": 1.0}},
                                 {"until": None, "opponents": {"greedy": 1.0}}])
    steps.update(0.99, 999, 0)
    assert steps.mixture() == [("random", 1.0)]
    steps.update(0.0, 1000, 0)
    assert steps.mixture() == [("greedy", 1.0)]


# ---------------------------------------------------------------------- with Ray running
@pytest.fixture
def local_ray():
    torch.set_num_threads(1)
    ray.init(num_cpus=1, object_store_memory=OBJECT_STORE, include_dashboard=False)
    yield
    ray.shutdown()


def tiny_ppo(num_players, mixture, module=None, opponents=None, snapshots=0, envs=2, batch=128):
    """A PPO algorithm on classic rules, sampling in the driver: ``mixture`` is the league
    (module id -> weight), ``opponents`` the bot modules (module id -> agent spec)."""
    from ray.rllib.algorithms.ppo import PPOConfig

    env_config = {"rules": "classic", "num_players": num_players}
    spec = multi_module_spec(env_config, module or model_config(num_players, [16]),
                                opponents=opponents, snapshots=snapshots)
    config = (PPOConfig()
              .environment(UnoMultiAgentEnv, env_config=env_config)
              .env_runners(num_env_runners=0, num_envs_per_env_runner=envs, env_to_module_connector=env_to_module)
              .training(train_batch_size_per_learner=batch, minibatch_size=batch // 2, num_epochs=1)
              .multi_agent(policies=set(spec.rl_module_specs), policy_mapping_fn=LeagueMapping(num_players, mixture),
                           policies_to_train=[LEARNER])
              .rl_module(rl_module_spec=spec))
    return config.build_algo()


class Recorder(Agent):
    """A random agent that records every observation it is shown, with its own identity."""

    seen: list = []

    def act(self, observation, action_mask):
        Recorder.seen.append((id(self), observation.copy()))
        return int(self.rng.choice(np.flatnonzero(action_mask)))


register_agent("recorder", lambda spec, rules, n, seed: Recorder(rules, n, seed))


def seat_observations(sa_episode):
    obs = sa_episode.get_observations(slice(0, len(sa_episode)))
    if isinstance(obs, dict):
        return list(np.asarray(obs[OBS_KEY]))
    return [o[OBS_KEY] for o in obs]


def test_a_bot_module_keeps_one_agent_per_episode_and_seat_that_sees_exactly_that_seats_decisions(local_ray):
    algo = tiny_ppo(4, {"recorder": 1.0}, opponents={"recorder": "recorder"}, envs=6, batch=256)
    try:
        Recorder.seen.clear()
        episodes = algo.env_runner.sample(num_timesteps=1500, explore=True)
    finally:
        algo.stop()
    by_agent: dict[int, list] = {}
    for who, obs in Recorder.seen:
        by_agent.setdefault(who, []).append(obs.tobytes())
    checked = 0
    for episode in episodes:
        if episode.env_t_started != 0:
            continue
        for aid, sa_episode in episode.agent_episodes.items():
            if episode.module_for(aid) != "recorder" or not len(sa_episode):
                continue
            seat = [o.tobytes() for o in seat_observations(sa_episode)]
            # one agent object saw this seat's decisions, and nothing else (a game still going
            # on may have shown its agent one more observation, whose action is pending)
            matches = [seq for seq in by_agent.values() if seq[:len(seat)] == seat]
            assert len(matches) == 1
            assert len(matches[0]) == len(seat) if episode.is_done else len(matches[0]) - len(seat) <= 1
            checked += 1
    assert checked >= 10 and len(by_agent) >= checked


def test_a_snapshot_takes_the_learners_weights_on_the_learner_and_the_env_runner(local_ray):
    algo = tiny_ppo(2, {LEARNER: 1.0}, snapshots=1)
    try:
        algo.train()
        learner = module_state(algo, LEARNER)
        assert not np.array_equal(learner["pi.0.weight"], module_state(algo, "snapshot_0")["pi.0.weight"])
        copy_module(algo, LEARNER, "snapshot_0")
        snapshot = module_state(algo, "snapshot_0")
        assert set(snapshot) == {k for k in learner if k.startswith("pi.")}  # the actor only
        assert all(np.array_equal(snapshot[k], learner[k]) for k in snapshot)
        runner = algo.env_runner.module["snapshot_0"].get_state()
        assert all(np.array_equal(runner[k], learner[k]) for k in snapshot)
    finally:
        algo.stop()


def test_imitation_makes_the_learner_play_the_teachers_moves_on_the_learner_and_the_env_runner(local_ray):
    from uno_env.learn.imitation import collect_demonstrations

    algo = tiny_ppo(3, {LEARNER: 1.0}, module=model_config(3, [64]))
    try:
        demos = collect_demonstrations(make_rules("classic"), 3, 3000, seed=0)
        before = module_state(algo)
        untrained = masked_policy(before, model_config(3, [64]))
        fit = imitate_learner(algo, demos, epochs=8, learning_rate=3e-3, seed=0)
        after = module_state(algo)
        assert not np.array_equal(before["vf.0.weight"], after["vf.0.weight"])  # the critic learned too
        trained = masked_policy(after, model_config(3, [64]))
        greedy = [(p.act(demos.observations, demos.masks) == demos.actions).mean() for p in (untrained, trained)]
        assert greedy[1] == pytest.approx(fit["agreement"], abs=0.01) and greedy[1] > max(0.7, greedy[0] + 0.2)
        runner = algo.env_runner.module[LEARNER].get_state()
        assert all(np.array_equal(runner[k], after[k]) for k in after if k.startswith("pi."))
        spec = learner_module_spec(model_config(3, [8]))
        spec.inference_only = True  # as on remote env runners: no critic
        with pytest.raises(ValueError, match="critic"):
            imitate(spec.build(), demos)
    finally:
        algo.stop()


def test_a_checkpoints_actor_loads_into_the_learner_and_the_env_runner_and_the_critic_is_fitted_alone(local_ray):
    from uno_env.learn.imitation import collect_demonstrations

    config = model_config(3, [64])
    algo = tiny_ppo(3, {LEARNER: 1.0}, module=config)
    try:
        other = learner_module_spec(config).build()  # another initialisation: the checkpoint's actor
        _, tensors = actor_tensors({k: v.detach().numpy() for k, v in other.state_dict().items()}, config)
        before = module_state(algo)
        set_actor(algo, tensors)
        loaded = module_state(algo)
        assert all(np.array_equal(actor_tensors(loaded, config)[1][k], tensors[k]) for k in tensors)
        assert all(np.array_equal(loaded[k], before[k]) for k in before if k.startswith("vf."))
        runner = algo.env_runner.module[LEARNER].get_state()
        assert all(np.array_equal(runner[k], loaded[k]) for k in loaded if k.startswith("pi."))
        demos = collect_demonstrations(make_rules("classic"), 3, 2000, seed=0)
        imitate_learner(algo, demos, epochs=2, learning_rate=3e-3, seed=0, fit_actor=False)
        fitted = module_state(algo)
        assert all(np.array_equal(fitted[k], loaded[k]) for k in loaded if k.startswith("pi."))
        assert not np.array_equal(fitted["vf.0.weight"], loaded["vf.0.weight"])
        with pytest.raises(ValueError, match=r"tensors \['actor.0.weight'\]"):
            with_actor(loaded, dict(tensors, **{"actor.0.weight": tensors["actor.0.weight"][:, 1:]}))
    finally:
        algo.stop()


def load_script(name, folder="training"):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, folder, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def two_node_cluster():
    """A head and a worker node on this machine, 1 CPU each: two env runners of 1 CPU must
    land one on each node."""
    from ray.cluster_utils import Cluster

    torch.set_num_threads(1)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "object_store_memory": OBJECT_STORE})
    cluster.add_node(num_cpus=1, object_store_memory=OBJECT_STORE)
    cluster.wait_for_nodes()
    yield cluster
    ray.shutdown()
    cluster.shutdown()


def test_training_on_a_two_node_cluster_exports_a_checkpoint_that_evaluates_and_resumes(
        two_node_cluster, tmp_path, monkeypatch, capsys):
    train = load_script("train_rllib")
    args = ["--config", os.path.join(ROOT, "configs", "rllib", "test.yaml"), "--run", "c2",
            "--checkpoint-dir", str(tmp_path / "checkpoints"), "--runs-dir", str(tmp_path / "runs"),
            "--address", two_node_cluster.address, "--set", "num_env_runners=2"]
    evaluation = train.main(args)
    assert not ray.is_initialized()  # the script disconnected; the cluster runs on
    assert len(two_node_cluster.list_all_nodes()) == 2
    run = tmp_path / "checkpoints" / "c2"
    card = ckpt.load_card(str(run))
    assert card["trained_with"]["library"] == "ray[rllib]" and card["trained_with"]["version"] == ray.__version__
    assert card["algorithm"].startswith("PPO (Ray RLlib")
    assert card["total_steps"] >= 512 and card["evaluation"]["random"]["games"] == 8
    assert card["imitation"]["decisions"] >= 300 and card["imitation"]["teacher"] == "heuristic"
    assert evaluation["random"] == card["evaluation"]["random"]
    assert (run / "rllib").is_dir() and (run / "curve.png").is_file()
    assert os.listdir(tmp_path / "runs" / "c2" / "tb")

    # the export plays in the evaluation tool and as an opponent of the Gymnasium (SB3) env
    from uno_env.envs.gym_env import UnoGymEnv
    from uno_env.tools.evaluate import evaluate

    result = evaluate([f"checkpoint:{run}", "random", "random", "random"], rules="classic", num_players=4,
                      games=8, seed=0)
    assert sum(a["wins"] for a in result["agents"]) + result["truncated"] == 8
    env = UnoGymEnv("classic", 4, opponents=f"checkpoint:{run}#sample")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    # ... and in the terminal game (end of input: the game is abandoned cleanly)
    from uno_env.tools import play

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert play.main(["--opponents", f"checkpoint:{run}", "random", "random", "--seed", "1", "--no-color"]) == 0
    assert f"checkpoint:{run}" in capsys.readouterr().out

    # --resume continues from the saved step count
    resumed = train.main(args + ["--resume", "--total-steps", "1024"])
    card = ckpt.load_card(str(run))
    assert card["total_steps"] >= 1024 and resumed["random"]["steps"] == card["total_steps"]
    with open(run / "trainer.json") as fh:
        assert json.load(fh)["env_steps"] == card["total_steps"]


def test_a_run_from_a_checkpoint_starts_from_its_policy_and_records_it(local_ray, tmp_path, capsys):
    """``init_checkpoint``: the learner's actor starts as the checkpoint's (at a learning rate of
    1e-12 the export is still it), the imitation fits the critic alone, the card says so."""
    train = load_script("train_rllib")
    common = ["--config", os.path.join(ROOT, "configs", "rllib", "test.yaml"), "--total-steps", "256",
              "--checkpoint-dir", str(tmp_path / "checkpoints"), "--runs-dir", str(tmp_path / "runs")]
    train.main(common + ["--run", "first"])
    source = str(tmp_path / "checkpoints" / "first")
    train.main(common + ["--run", "more", "--set", f"init_checkpoint={source}",
                         "--set", f"imitate_teacher=checkpoint:{source}", "--set", "learning_rate=1e-12"])
    out = capsys.readouterr().out
    assert f"actor from {source}" in out and "value network only" in out
    run = tmp_path / "checkpoints" / "more"
    (card, tensors), (first, source_tensors) = ckpt.load_checkpoint(str(run)), ckpt.load_checkpoint(source)
    assert all(np.allclose(tensors[k], source_tensors[k], atol=1e-6) for k in source_tensors)
    assert card["started_from"] == {"checkpoint": source, "sha256": first["policy"]["sha256"],
                                    "total_steps": first["total_steps"]}
    assert card["imitation"]["fitted"] == "critic" and card["imitation"]["teacher"] == f"checkpoint:{source}"
    with open(run / "eval.csv") as fh:
        assert fh.read().splitlines()[1].startswith("0,")  # the start's strength: the curve's first point


def test_the_rllib_ppo_example_trains_exports_and_evaluates(local_ray, tmp_path):
    example = load_script("rllib_ppo", folder="examples")
    result = example.main(["--iterations", "1", "--batch", "256", "--eval-games", "8", "--num-players", "2",
                           "--out", str(tmp_path / "ckpt")])
    assert result["steps"] >= 256 and 0.0 <= result["win_rate"] <= 1.0
    assert ckpt.load_card(result["checkpoint"])["algorithm"] == "PPO (Ray RLlib)"


# ---------------------------------------------------------------------- a cluster that fails
RUNNERS = {"num_env_runners": 1, "num_cpus_per_env_runner": 1, "num_learners": 0}


def test_waiting_for_cpus_held_by_another_job_says_so_then_names_what_is_missing(local_ray):
    @ray.remote(num_cpus=1)
    class Holder:
        def ready(self):
            return True

    holder = Holder.remote()
    ray.get(holder.ready.remote())  # the cluster's one CPU is taken
    said = []
    with pytest.raises(ray_cluster.ClusterError) as exc:
        ray_cluster.wait_for_cpus(RUNNERS, 1.0, can_grow=True, say=said.append, poll_s=0.2)
    state = ("the cluster has 0 free CPUs of 1 on 1 node, the run needs 1 CPU (num_env_runners=1 x "
             "num_cpus_per_env_runner=1): 1 missing")
    assert str(exc.value).startswith(f"{state} after waiting 1 s (resources_wait_s); add a node")
    assert said == [f"waiting up to 1 s (resources_wait_s) for CPUs: {state}"]
    threading.Timer(0.5, ray.kill, [holder]).start()  # the other job ends while we wait
    assert ray_cluster.wait_for_cpus(RUNNERS, 300, can_grow=True, say=said.append, poll_s=0.2) > 0


def test_a_run_needing_more_cpus_than_its_local_ray_has_fails_at_once_naming_them(tmp_path, capsys):
    """Not RLlib's silent wait for actors that cannot start: an error before it builds, and the
    same command can run again (nothing of the run was written)."""
    train = load_script("train_rllib")
    args = ["--config", os.path.join(ROOT, "configs", "rllib", "test.yaml"), "--run", "big",
            "--checkpoint-dir", str(tmp_path / "checkpoints"), "--runs-dir", str(tmp_path / "runs"),
            "--set", "num_env_runners=2", "--set", "ray_num_cpus=1", "--set", "object_store_mb=100"]
    with pytest.raises(SystemExit) as exc:
        train.main(args)
    assert str(exc.value.code) == ("train_rllib.py: the local Ray has 1 CPU, the run needs 2 CPUs "
                                   "(num_env_runners=2 x num_cpus_per_env_runner=1): set ray_num_cpus to 2 "
                                   "or more, or ask for fewer env runners")
    assert not ray.is_initialized()
    assert sorted(os.listdir(tmp_path / "checkpoints" / "big")) == [".uno-lock", ".uno-run"]


def test_an_address_where_no_cluster_answers_is_a_one_line_error_at_once(tmp_path):
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    train = load_script("train_rllib")
    with pytest.raises(SystemExit) as exc:
        train.main(["--config", os.path.join(ROOT, "configs", "rllib", "test.yaml"), "--run", "x",
                    "--checkpoint-dir", str(tmp_path), "--runs-dir", str(tmp_path), "--address", f"127.0.0.1:{port}"])
    assert str(exc.value.code) == (f"train_rllib.py: cannot join the Ray cluster at 127.0.0.1:{port}: nothing "
                                   f"answers at 127.0.0.1:{port} (Connection refused): start the head there "
                                   f"with `ray start --head --port {port}`, or give its address")
    assert not ray.is_initialized()


def tensorboard_scalars(folder, tag):
    """Every value of the scalar ``tag`` in the TensorBoard event files under ``folder``
    (TFRecord: length, its CRC, an Event, its CRC), read with tensorboardX's protobuf."""
    from tensorboardX.proto.event_pb2 import Event

    values = []
    for root, _, files in os.walk(folder):
        for name in sorted(f for f in files if "tfevents" in f):
            with open(os.path.join(root, name), "rb") as fh:
                data = fh.read()
            at = 0
            while at + 12 <= len(data):
                (length,) = struct.unpack("<Q", data[at:at + 8])
                event = Event.FromString(data[at + 12:at + 12 + length])
                at += 12 + length + 4
                values += [(event.step, v.simple_value) for v in event.summary.value if v.tag == tag]
    return values


def test_a_lost_node_shows_as_fewer_healthy_runners_the_run_goes_on_and_resume_waits_for_its_cpus(
        two_node_cluster, tmp_path, monkeypatch, capsys):
    """The worker node goes after the first iteration: the progress line and TensorBoard say
    1 of 2 env runners, the other samples on; ``--resume`` (the run's num_env_runners=2 kept)
    on the node left fails after resources_wait_s naming the CPU missing; with a node added
    back it resumes on both."""
    train = load_script("train_rllib")
    args = ["--config", os.path.join(ROOT, "configs", "rllib", "test.yaml"), "--run", "lost",
            "--checkpoint-dir", str(tmp_path / "checkpoints"), "--runs-dir", str(tmp_path / "runs"),
            "--address", two_node_cluster.address]
    iterations = []
    real_update = rllib_league.update_league

    def update_league(*a, **kw):  # called before every iteration
        iterations.append(1)
        if len(iterations) == 2:
            two_node_cluster.remove_node(next(iter(two_node_cluster.worker_nodes)))
        return real_update(*a, **kw)

    monkeypatch.setattr(rllib_league, "update_league", update_league)
    train.main(args + ["--set", "num_env_runners=2", "--total-steps", "1024"])
    out = capsys.readouterr().out
    health = re.findall(r"^step [\d,]+/.* env runners (\d)/(\d) healthy", out, flags=re.M)
    assert health[0] == ("2", "2") and health[-1] == ("1", "2"), out[-3000:]
    run = tmp_path / "checkpoints" / "lost"
    assert ckpt.load_card(str(run))["total_steps"] >= 1024  # the run went on with the runner left
    healthy = tensorboard_scalars(tmp_path / "runs" / "lost" / "tb", "ray/env_runners_healthy")
    assert healthy[0][1] == 2 and healthy[-1][1] == 1
    monkeypatch.setattr(rllib_league, "update_league", real_update)

    with pytest.raises(SystemExit) as exc:  # one node of 1 CPU left; the run's 2 runners need 2
        train.main(args + ["--resume", "--total-steps", "1536", "--set", "resources_wait_s=1"])
    assert str(exc.value.code).startswith(
        "train_rllib.py: the cluster has 1 free CPU of 1 on 1 node, the run needs 2 CPUs (num_env_runners=2 x "
        "num_cpus_per_env_runner=1): 1 missing after waiting 1 s (resources_wait_s)")
    assert "waiting up to 1 s (resources_wait_s) for CPUs" in capsys.readouterr().out
    assert ckpt.load_card(str(run))["total_steps"] < 1536  # untouched

    two_node_cluster.add_node(num_cpus=1, object_store_memory=OBJECT_STORE)
    two_node_cluster.wait_for_nodes()
    train.main(args + ["--resume", "--total-steps", "1536"])
    assert re.search(r"env runners 2/2 healthy", capsys.readouterr().out)
    card = ckpt.load_card(str(run))
    assert card["total_steps"] >= 1536 and card["overrides"] == {"num_env_runners": 2, "total_steps": 1536}


SAVED = re.compile(r"^train_rllib\.py: (SIG[A-Z]+): saved a checkpoint at step ([\d,]+) in (.+); "
                   r"continue with --resume$")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stop_signal_mid_run_saves_a_checkpoint_that_resumes_and_exits_cleanly(tmp_path, signum):
    """A real child process with a local Ray and one env runner, signalled once it printed a
    progress line: the card matches the exported weights and trainer.json, eval.csv has whole
    rows up to the checkpoint, exit code 130 / 143 with one line, no traceback; --resume goes on."""
    run_dir = tmp_path / "checkpoints" / "sig"
    args = ["--config", os.path.join(ROOT, "configs", "rllib", "test.yaml"), "--run", "sig",
            "--checkpoint-dir", str(tmp_path / "checkpoints"), "--runs-dir", str(tmp_path / "runs"),
            "--total-steps", "100000000", "--set", "checkpoint_every=100000000", "--set", "num_env_runners=1",
            "--set", "ray_num_cpus=1", "--set", "object_store_mb=100"]
    run = WatchedProcess([sys.executable, os.path.join(ROOT, "training", "train_rllib.py"), *args],
                         tmp_path / "stderr.txt", env=dict(os.environ, PYTHONPATH=ROOT, RAY_DEDUP_LOGS="1"))
    try:
        run.wait_for(r"^step [\d,]+/100,000,000 .* env runners 1/1 healthy")
        run.send(signum)
        code, _, err = run.finish()
    finally:
        run.kill()
    assert code == 128 + signum
    assert "Traceback" not in err, err[-3000:]
    ours = [line for line in err.splitlines() if line.startswith("train_rllib.py: ")]  # not Ray's logs
    assert len(ours) <= 2, ours  # the signal's arrival (unless it dropped an evaluation), the exit
    name, step, where = SAVED.match(ours[-1]).groups()
    step = int(step.replace(",", ""))
    assert name == signal.Signals(signum).name and where == str(run_dir)
    card, _ = ckpt.load_checkpoint(str(run_dir))  # validated: the card names these weights, hashes match
    with open(run_dir / "trainer.json") as fh:
        trainer = json.load(fh)
    assert card["total_steps"] == trainer["env_steps"] == step >= 256
    with open(run_dir / "eval.csv") as fh:
        rows = fh.read().splitlines()
    assert rows[0].startswith("steps,") and all(len(r.split(",")) == 8 for r in rows)
    assert all(int(r.split(",")[0]) <= step for r in rows[1:])

    train = load_script("train_rllib")
    train.main(args + ["--resume", "--total-steps", str(step + 256)])
    card = ckpt.load_card(str(run_dir))
    assert card["total_steps"] >= step + 256 and card["overrides"]["total_steps"] == step + 256
