"""UNO on Ray RLlib 2.60 (new API stack): a multi-agent env, an action-masking RLModule, bots
and frozen checkpoints as non-learning RLModules, a league ``policy_mapping_fn``, and the
export of a trained policy into this project's checkpoint format.

    pip install -e ".[rllib]"        # ray[rllib]==2.60.0: its own venv (ray pins gymnasium 1.2.2)

    from ray.rllib.algorithms.ppo import PPOConfig
    from uno_env.integrations.rllib.bots import env_to_module
    from uno_env.integrations.rllib.league import LeagueMapping
    from uno_env.integrations.rllib.multi_agent_env import UnoMultiAgentEnv
    from uno_env.integrations.rllib.specs import multi_module_spec

    env_config = {"rules": "classic", "num_players": 4}
    config = (PPOConfig()
              .environment(UnoMultiAgentEnv, env_config=env_config)
              .env_runners(env_to_module_connector=env_to_module)
              .multi_agent(policies={"shared", "heuristic"},
                           policy_mapping_fn=LeagueMapping(4, {"shared": 0.5, "heuristic": 0.5}),
                           policies_to_train=["shared"])
              .rl_module(rl_module_spec=multi_module_spec(
                  env_config, opponents={"heuristic": "heuristic"})))
    algo = config.build_algo()
    algo.train()

``training/train_rllib.py`` is the complete script (league, evaluation, export, clusters).

=======================  ======================================================================
:mod:`.multi_agent_env`  :class:`UnoMultiAgentEnv` (the env), its spaces, the agent ids
:mod:`.modules`          :class:`MaskedPPOModule` (the learner), :class:`MaskedPolicyModule`
                         (its actor alone: the snapshots), :func:`model_config`
:mod:`.bots`             :class:`AgentRLModule` (any agent spec as a non-learning module) and
                         the connector :func:`env_to_module` it needs
:mod:`.specs`            the module ids and specs: :func:`multi_module_spec`,
                         :func:`opponent_module_spec`, :data:`LEARNER` ...
:mod:`.league`           :class:`LeagueMapping` (the ``policy_mapping_fn``), :func:`update_league`
:mod:`.weights`          module weights in and out: :func:`export_checkpoint`,
                         :func:`set_actor`, :func:`module_state`, :func:`copy_module` ...
:mod:`.imitate`          :func:`imitate_learner`: behaviour cloning of the learner
=======================  ======================================================================

**The env** (:class:`UnoMultiAgentEnv`, an RLlib ``MultiAgentEnv`` over the engine, no
PettingZoo machinery). Turn-based: after ``reset`` and every ``step`` only the seat that decides
next (``state.actor``: the player on turn, a Wild Draw Four victim, one player asked in a
window) gets an observation, so every decision of every seat is a step of that seat's agent,
and ``step`` takes exactly one action, the acting seat's. Agents ``player_0 ... player_{n-1}``
as in the AEC env.

=====================  =========================================================================
observation            ``Dict(observations=Box(0, inf, (1537,), float32),
                       action_mask=Box(0, 1, (195,), float32))``: the keys and mask dtype of
                       RLlib's action-masking example module (``ActionMaskingTorchRLModule``
                       runs on it unchanged); PettingZoo's key ``observation`` is renamed
action                 ``Discrete(195)`` (:mod:`uno_env.game.actions`)
rewards                0 during the game; at its end every seat (not only the one that moved)
                       gets ``Engine.returns``: +1 for the winner, -1/(n-1) for the others
end of the episode     every seat gets its last observation (mask all zero), its reward and
                       ``terminated`` (``truncated`` at ``rules.max_steps`` decisions, reward
                       0), with ``"__all__"``; ``infos[agent]["winner"]`` names the winner's seat
config                 ``{"rules": preset/path/dict, "num_players": n, "on_illegal": "end",
                       <rule option>: value}`` (an unknown key is the ``ValueError`` of
                       ``make_rules``)
reset options          ``{"deck": [...], "dealer": seat}`` as in the AEC env
=====================  =========================================================================

**Illegal actions** (masked sampling never produces one; RLlib's env check sends a random
action) end the episode as in the Gymnasium view and PettingZoo's ``TerminateIllegalWrapper``:
the seat that made it gets -1, the others 0, every seat is terminated and
``infos[agent]["illegal"]`` is True for it. ``on_illegal="raise"`` raises the engine's
``ValueError`` naming the action instead. An action for a seat that is not deciding is a
``ValueError``.

**The policy** (:class:`MaskedPPOModule`, torch). An MLP actor and a separate MLP critic on
the checkpoint card's ``obs_features`` input (the observation without the empty opponent
slots, counts scaled: :func:`uno_env.agents.checkpoint.obs_features_layout`) or the raw
vector; the logits of illegal actions are set to ``FLOAT_MIN`` (RLlib's "very negative"), so
sampling, argmax, entropy and KL see legal actions only. Orthogonal initialisation as in
Stable-Baselines3 (gain sqrt(2), 0.01 for the logits, 1 for the value). ``model_config``:
``num_players``, ``hidden`` (``[256, 256]``), ``activation`` (``tanh``/``relu``), ``input``
(``obs_features``/``raw``). Built inference-only (``RLModuleSpec(inference_only=True)``) it
has no critic. The
actor's layers are exactly a checkpoint card's ``policy`` network, so
:func:`export_checkpoint` writes ``card.json`` + safetensors weights that ``checkpoint:<dir>``
plays in ``uno-evaluate``, ``uno-play`` and as an SB3 league opponent.
:class:`MaskedPolicyModule` is the actor alone: the frozen snapshots of the learner (league
self-play) are of this class, so the learner computes no values for their seats.

**Non-learning players** (:class:`AgentRLModule`). Any agent spec plays as a module that
returns actions itself: ``random``, ``greedy``, ``heuristic[:key=value]`` and
``checkpoint:<dir>`` (read on the driver by :func:`opponent_module_spec` and shipped to the
workers as tensors, so a cluster's nodes need not share a file system; greedy, or
``#sample``). A scripted bot is one agent object per episode and seat, so its card counting
sees exactly that seat's decisions: the env-to-module connector piece :class:`AgentSeats`
(``config.env_runners(env_to_module_connector=env_to_module)``) tells the module which
episode and seat each row of its batch is. (Not RLlib's recurrent state: RLlib 2.60 loses the
state of a seat whose episode chunk ends while it waits for its turn.) Keep these modules
out of ``policies_to_train``.

**The league** (:class:`LeagueMapping`, a ``policy_mapping_fn``). Per episode one seat, drawn
at random, is the learner; every other seat draws a module from the mixture of the current
phase (weights over module ids; ``"shared"`` is the learner itself: parameter-shared
self-play; ``"snapshots"`` splits its weight over the snapshot modules filled so far).
Phases switch by training progress, which the driver sets on every env runner
(:meth:`LeagueMapping.update`, through ``EnvRunnerGroup.foreach_env_runner``).

**Imitation first** (:func:`imitate_learner`): the learner fitted to a teacher's decisions
(:mod:`uno_env.learn.imitation`) before PPO, as in ``training/train.py``;
``training/train_rllib.py`` does it when ``imitate_decisions`` > 0.

**A checkpoint's policy first** (:func:`set_actor`, :func:`with_actor`, the inverse of
:func:`actor_tensors`): the learner's actor set to a checkpoint's weights, exactly
(``init_checkpoint``); the imitation then fits the critic alone (``imitate(fit_actor=False)``).
The RLlib checkpoint is pickled state that stays with its run; this is how a shipped agent
(card + safetensors) is trained further, on a cluster or elsewhere.
"""
