"""PPO on Ray RLlib (new API stack): every seat of a multi-agent UNO table, masked actions.

    pip install -e ".[rllib]"       # in a venv of its own: ray 2.60 pins gymnasium 1.2.2
    python examples/rllib_ppo.py --iterations 20 --num-players 4 --opponent heuristic
    python examples/rllib_ppo.py --iterations 2 --batch 512 --eval-games 20          # smoke

The recipe, top to bottom:

1. ``UnoMultiAgentEnv``: RLlib's ``MultiAgentEnv`` over the engine. Turn-based: only the seat
   that decides gets an observation, ``{"observations", "action_mask"}`` (the keys RLlib's
   action-masking module reads); at the end every seat gets its reward.
2. ``MaskedPPOModule``: an MLP actor and critic; illegal actions' logits -> ``FLOAT_MIN``.
   One module (``"shared"``) plays the learner's seats: parameter sharing.
3. The other seats: a scripted bot as a non-learning module (``AgentRLModule``), mapped per
   episode by ``LeagueMapping`` (a ``policy_mapping_fn``); ``env_to_module`` lets each bot
   remember its own seat's game. Only ``"shared"`` is in ``policies_to_train``.
4. ``algo.train()`` a few times, then the learner's actor is exported to this project's
   checkpoint format and played by ``uno_env``'s evaluation tool against the bot.

``training/train_rllib.py`` is the full script (league with snapshots, periodic evaluation,
TensorBoard, ``--resume``, clusters).
"""

from __future__ import annotations

import argparse
import tempfile

import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig

from uno_env.agents import checkpoint as ckpt
from uno_env.integrations.rllib.bots import env_to_module
from uno_env.integrations.rllib.league import LeagueMapping
from uno_env.integrations.rllib.modules import model_config
from uno_env.integrations.rllib.multi_agent_env import UnoMultiAgentEnv
from uno_env.integrations.rllib.specs import LEARNER, module_id_for, multi_module_spec
from uno_env.integrations.rllib.weights import export_checkpoint, module_state
from uno_env.tools.evaluate import evaluate
from uno_env.game.rules import make_rules


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="classic")
    p.add_argument("--num-players", type=int, default=4)
    p.add_argument("--opponent", default="heuristic", help="agent spec of the non-learning seats")
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--batch", type=int, default=4096, help="env steps per iteration")
    p.add_argument("--num-env-runners", type=int, default=0, help="sampling actors (0: in this process)")
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="checkpoint directory (default: a temp dir)")
    args = p.parse_args(argv)

    torch.set_num_threads(1)
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, object_store_memory=200 * 2 ** 20, include_dashboard=False)

    n = args.num_players
    env_config = {"rules": args.rules, "num_players": n}
    bot = module_id_for(args.opponent)
    # 1 seat in 2 (at least one per game) is the learner, the others the bot
    mapping = LeagueMapping(n, {LEARNER: 0.5, bot: 0.5}, seed=args.seed)
    config = (
        PPOConfig()
        .environment(UnoMultiAgentEnv, env_config=env_config)
        .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=8,
                     env_to_module_connector=env_to_module)
        .training(train_batch_size_per_learner=args.batch, minibatch_size=min(1024, args.batch),
                  num_epochs=4, lr=3e-4, gamma=0.995, lambda_=0.95, entropy_coeff=0.01,
                  use_kl_loss=False)
        .multi_agent(policies={LEARNER, bot}, policy_mapping_fn=mapping,
                     policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=multi_module_spec(
            env_config, model_config(n, hidden=[256, 256]), opponents={bot: args.opponent}))
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    for i in range(args.iterations):
        result = algo.train()
        runners = result["env_runners"]
        print(f"iteration {i + 1}: {runners['num_env_steps_sampled_lifetime']:.0f} env steps, "
              f"learner return {runners['module_episode_returns_mean'].get(LEARNER, float('nan')):+.3f}, "
              f"entropy {result['learners'][LEARNER]['entropy']:.3f}")

    # export the learner's actor as card.json + safetensors: checkpoint:<out> plays it anywhere
    out = args.out or tempfile.mkdtemp(prefix="uno-rllib-")
    rules = make_rules(args.rules)
    steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
    card = ckpt.make_card(rules=rules, num_players=n, total_steps=steps, wall_time_s=0.0,
                          extra={"algorithm": "PPO (Ray RLlib)", "trained_with": {"library": "ray[rllib]",
                                                                                  "version": ray.__version__}})
    export_checkpoint(module_state(algo), model_config(n, hidden=[256, 256]), out, card)
    algo.stop()
    if started:
        ray.shutdown()

    lineup = [f"checkpoint:{out}"] + [args.opponent] * (n - 1)
    me = evaluate(lineup, rules=rules, num_players=n, games=args.eval_games, seed=args.seed)["agents"][0]
    print(f"checkpoint:{out} wins {me['win_rate']:.3f} (95% {me['win_ci95'][0]:.3f}-{me['win_ci95'][1]:.3f}) "
          f"of {args.eval_games} games against {n - 1} x {args.opponent} (par {1 / n:.3f})")
    return {"checkpoint": out, "steps": steps, "win_rate": me["win_rate"]}


if __name__ == "__main__":
    main()
