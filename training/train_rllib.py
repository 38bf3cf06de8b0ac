"""Train a UNO agent with Ray RLlib PPO: one policy shared by its seats, a league of bots and snapshots.

    python training/train_rllib.py --config configs/rllib/quick.yaml --run rllib-quick
    python training/train_rllib.py --config configs/rllib/classic-4p.yaml --run classic-4p --resume
    python training/train_rllib.py --config configs/rllib/classic-4p.yaml --run c4 --address HEAD:6379

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``, a virtual environment of its own:
ray pins gymnasium 1.2.2). The env, modules and league are :mod:`uno_env.integrations.rllib`.

**Where it runs.** Without ``--address`` the script starts a local Ray (``ray_num_cpus``
CPUs, an object store of ``object_store_mb``) and stops it at the end. ``--address
HOST:PORT`` (or the ``RAY_ADDRESS`` variable) joins a running cluster (``ray start --head``
on one machine, ``ray start --address=HOST:PORT`` on the others): ``num_env_runners`` actors
of ``num_cpus_per_env_runner`` CPUs each sample anywhere in the cluster, ``num_envs_per_env_runner``
games each; the driver (this process) learns (``num_learners: 0``) and evaluates. Every node
needs uno_env installed, or ``--ship-code`` uploads this checkout's package to the cluster.
``num_env_runners: 0`` samples in the driver (no actors).

**A cluster that fails** (:mod:`uno_env.integrations.ray_cluster`). An address where nothing
answers is an error at once. Before RLlib builds (a new run and ``--resume``) the script
checks that the cluster has the CPUs its actors reserve (``num_env_runners x
num_cpus_per_env_runner``, plus one per learner actor; the driver reserves none): RLlib
itself would wait for them without a word. A local Ray with too few is an error at once; a
cluster gets ``resources_wait_s`` seconds (a node joining, another job ending), with a line
saying what it waits for, then an error naming the CPUs missing. While training, the
progress line (and TensorBoard's ``ray/env_runners_healthy``, ``ray/env_runners``) shows
the healthy env runners of all (``env runners 1/2 healthy``; a change prints a line at
once): a node lost takes its runners, Ray restarts them where a CPU is free (RLlib's
``restart_failed_env_runners``) and the others sample on. With none alive the script waits
``resources_wait_s`` for them, then saves a checkpoint and exits with 1 and a line saying so.

**Stopping** (Ctrl-C, SIGTERM: :mod:`uno_env.learn.stop_signals`). In the training loop a
signal lets the iteration under way finish (an evaluation under way is dropped whole), saves
a checkpoint (the RLlib state, the exported policy and card, trainer.json; eval.csv holds the
evaluations up to it) and exits with 130 (SIGINT) or 143 (SIGTERM) and one line naming the
step; ``--resume`` continues. Before the loop and in the final evaluation a signal stops the
run at once, saving nothing new; a second signal in the loop too (a save is never cut).

**What it trains.** PPO (RLlib's new API stack) on :class:`~uno_env.integrations.rllib.multi_agent_env.UnoMultiAgentEnv`:
every decision of every seat is a step. One learner module (``shared``: a masked MLP actor and
critic, :class:`~uno_env.integrations.rllib.modules.MaskedPPOModule`) plays at least one seat of every
game and learns from all of them (parameter sharing); the other seats draw per game from the
league mixture of the current phase (``phases``, as in ``configs/train``): ``self`` (the learner
again: self-play), ``snapshots`` (frozen copies of the learner, refreshed every
``snapshot_every`` steps into ``snapshot_keep`` slots), scripted bots (``random``,
``heuristic`` ...) and ``checkpoint:<dir>`` policies. Steps are env steps: decisions of all
seats, the bots' included.

**Imitation first** (``imitate_decisions`` > 0, a new run only): before PPO the learner is
fitted to ``imitate_decisions`` decisions of ``imitate_teacher`` playing every seat (masked
cross-entropy for the actor, the outcomes for the critic; ``imitate_epochs`` passes at
``imitate_learning_rate``), as in ``training/train.py``: :func:`uno_env.integrations.rllib.imitate.imitate`.
It runs in the driver; its time counts in the run's wall time and its result goes in the card.

**Or a checkpoint's policy first** (``init_checkpoint: <dir>``, a new run only): the learner's
actor starts as that checkpoint's, its safetensors weights copied exactly
(:func:`uno_env.integrations.rllib.weights.set_actor`; rules, players and network must be the run's,
checked before Ray starts), and the imitation above, if any, fits only the critic
(``imitate_teacher: checkpoint:<dir>`` fits it to the policy's own games). The card records it
(``started_from``: the directory, its weights' SHA-256, its steps). The RLlib checkpoint of a
shipped agent stays with its run; this is how ``checkpoints/classic-4p`` is trained further::

    python training/train_rllib.py --config configs/rllib/classic-4p.yaml --run c4-more \
        --set init_checkpoint=checkpoints/classic-4p --set imitate_teacher=checkpoint:checkpoints/classic-4p

**Evaluation.** Every ``eval_every`` steps the learner's greedy policy plays ``eval_games``
games against each of ``eval_opponents`` in all the other seats with
:func:`uno_env.tools.evaluate.evaluate_vs` (1 vs the rest, seats rotated, duplicate deals;
Wilson interval) -> TensorBoard, ``eval.csv`` and the console. At the end ``final_eval_games``
games each, played by the exported checkpoint as users load it (``checkpoint:<run dir>``).

**Outputs.** ``checkpoints/<run>/``: ``card.json`` + ``policy-*.safetensors`` (the actor in this
project's checkpoint format, :mod:`uno_env.agents.checkpoint`; the card's ``algorithm`` and
``trained_with`` say RLlib), so ``checkpoint:checkpoints/<run>`` plays in ``uno-evaluate``,
``uno-play`` and as an opponent of ``training/train.py``; ``rllib/`` (the RLlib checkpoint:
every module, optimizer and counters, for ``--resume``); ``trainer.json`` (wall time, snapshot
slots); ``eval.csv`` and ``curve.png``. ``runs/<run>/``: TensorBoard logs. Checkpoints every
``checkpoint_every`` steps and at the end.

``--set KEY=VALUE`` overrides a config key or a rule option, as in ``training/train.py``;
``--total-steps`` and ``--time-limit-min`` win over it. The card records the overrides in
effect (``overrides``) and ``--resume`` applies them again, then the ones given again, which
win (``--resume --set num_env_runners=1`` on a smaller cluster). The config YAML is checked
like ``train.py``'s (:mod:`uno_env.learn.configs`): an unknown key or a bad value is an error
naming the file and the key; then, before Ray starts, :func:`check_machine` checks it against
the driver's machine (``torch_threads`` and its CPUs, the memory of the batch, the networks,
the demonstrations and the workers: docs/RELIABILITY.md).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import importlib.util
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import uno_env
from uno_env import _atomic, _files
from uno_env.agents import checkpoint as ckpt
from uno_env.agents.policy import PolicyAgent
from uno_env.game.rules import Rules, make_rules
from uno_env.learn import configs, machine, run_dirs
from uno_env.learn.demo_store import demonstrations
from uno_env.learn.imitation import summary as imitation_summary
from uno_env.learn.stop_signals import Interrupted, StopSignals
from uno_env.tools import report
from uno_env.tools.evaluate import evaluate_vs

SELF = "self"  # league entry: the learner itself (another seat of the shared policy)
SNAPSHOTS = "snapshots"  # league entry: frozen snapshots of the learner
RLLIB_DIR = "rllib"
TRAINER_FILE = "trainer.json"
EVAL_CSV = "eval.csv"


@dataclass
class Config(configs.TrainingConfig):
    """Everything one RLlib run needs; loaded from ``configs/rllib/<name>.yaml``. The keys
    shared with ``train.py`` are :class:`uno_env.learn.configs.TrainingConfig`'s; a step here
    is an env step (a decision of any seat, the bots' included)."""

    total_steps: int = 1_000_000
    time_limit_min: float | None = None
    """also stop after this much training wall time (resumed runs included); the league's
    phases follow max(steps / total_steps, time / time_limit), but the learning-rate and
    entropy schedules follow steps only (RLlib's schedules count env steps), so size
    total_steps to what the time gives"""
    torch_threads: int = 1
    """torch threads of the driver (actors get one per CPU they hold)"""
    # --- Ray ---
    num_env_runners: int = 0
    """sampling actors (0: sample in the driver)"""
    num_envs_per_env_runner: int = 16
    """games stepped together by each env runner (or by the driver)"""
    num_cpus_per_env_runner: int = 1
    num_learners: int = 0
    """0: learn in the driver; n: n learner actors"""
    ray_num_cpus: int | None = None
    """local Ray only: CPUs it may schedule (None: all of the machine's)"""
    resources_wait_s: float = 60.0
    """how long to wait for the cluster's CPUs (env runners, learners) before RLlib builds, and
    for Ray to restart env runners when none is alive, before failing with a message (0: fail
    at once); a local Ray with too few CPUs fails at once"""
    object_store_mb: int = 200
    """local Ray only: the object store's size"""
    # --- PPO ---
    train_batch_size: int = 4096
    """env steps per training iteration"""
    minibatch_size: int = 1024
    num_epochs: int = 4
    kl_coef: float = 0.0
    """RLlib's adaptive KL penalty (0: off, as in Stable-Baselines3)"""
    # --- league ---
    phases: list = field(default_factory=lambda: [{"until": 1.0, "opponents": {SELF: 1.0}}])
    snapshot_every: int = 200_000
    # --- evaluation and checkpoints ---
    eval_every: int = 200_000
    checkpoint_every: int = 200_000
    progress_every_s: float = 10.0
    """seconds between console progress lines"""


# what each Config key must hold (uno_env.learn.configs: one check per key, unknown keys are errors)
_CONFIG_CHECKS = {**configs.TRAINING_CHECKS,  # the keys train.py shares, then our own
    "num_env_runners": configs.integer(0),
    "num_envs_per_env_runner": configs.integer(1),
    "num_cpus_per_env_runner": configs.integer(1),
    "num_learners": configs.integer(0),
    "ray_num_cpus": configs.integer(1, optional=True),
    "object_store_mb": configs.integer(1),
    "resources_wait_s": configs.real(0),
    "train_batch_size": configs.integer(1),
    "minibatch_size": configs.integer(1),
    "num_epochs": configs.integer(1),
    "kl_coef": configs.real(0),
    "progress_every_s": configs.real(0),
}


def load_config(path: str, overrides: dict | None = None) -> Config:
    """The config of a YAML file with ``overrides`` (``--set`` and command-line flags) applied;
    ``ValueError`` naming the file (or ``--set``) and any unknown key or bad value."""
    cfg = configs.load_config(Config, _CONFIG_CHECKS, path, overrides)
    if cfg.minibatch_size > cfg.train_batch_size:
        raise ValueError(f"{path}: minibatch_size {cfg.minibatch_size} exceeds train_batch_size "
                         f"{cfg.train_batch_size}")
    return cfg


RLLIB_BATCH_COPIES = 3
"""copies of a training batch RLlib holds at once (episodes, the numpy batch, its torch tensors)"""


def check_machine(cfg: Config, source: str) -> None:
    """``ValueError`` naming the keys of ``cfg`` this machine (the driver's) cannot hold, before
    Ray starts (:func:`uno_env.learn.machine.check_machine`): ``torch_threads`` beyond its
    CPUs, and memory: the networks,
    the training batch, the envs sampled in the driver (``num_env_runners: 0``), the
    demonstrations and the evaluation workers. Env runners and learners on a cluster are
    Ray's to place."""
    n_in = ckpt.input_size(cfg.policy_input, cfg.num_players)
    driver_envs = cfg.num_envs_per_env_runner if cfg.num_env_runners == 0 else 0
    needs = {
        f"net_arch {cfg.net_arch}": machine.PARAMETER_BYTES * machine.network_parameters(list(cfg.net_arch), n_in),
        f"train_batch_size {cfg.train_batch_size}":
            cfg.train_batch_size * machine.STEP_BYTES * RLLIB_BATCH_COPIES,
        f"num_envs_per_env_runner {cfg.num_envs_per_env_runner}": driver_envs * machine.ENV_BYTES,
        f"imitate_decisions {cfg.imitate_decisions}": machine.demonstration_bytes(cfg, False),
        f"eval_workers {cfg.eval_workers}": cfg.eval_workers * machine.PROCESS_BYTES,
    }
    machine.check_machine(cfg, source, needs)


def split_overrides(sets: dict) -> tuple[dict, dict]:
    """``--set`` values split into (config keys, rule options)."""
    return configs.split_overrides(Config, sets)


# ---------------------------------------------------------------------- the league
def league_entries(cfg: Config) -> list[str]:
    """Every league entry of the config's phases (weights > 0), in order of appearance."""
    return configs.league_entries(cfg.phases)


def check_league(cfg: Config, rules: Rules) -> None:
    """``ValueError`` naming a league entry or evaluation opponent that is no agent spec, or a
    ``checkpoint:<dir>`` that does not load for these rules and players (checked before Ray
    starts)."""
    configs.check_agent_specs([e for e in league_entries(cfg) if e not in (SELF, SNAPSHOTS)],
                              rules, cfg.num_players, "league entry")
    configs.check_agent_specs(cfg.eval_opponents, rules, cfg.num_players, "eval_opponents entry")
    configs.check_imitation(cfg, rules)


def league_modules(cfg: Config) -> tuple[dict[str, str], int, list[dict]]:
    """``(opponent module id -> agent spec, snapshot slots, phases in module ids)``."""
    from uno_env.integrations.rllib import league, specs

    opponents: dict[str, str] = {}
    ids = {SELF: specs.LEARNER, SNAPSHOTS: league.SNAPSHOTS}
    for entry in league_entries(cfg):
        if entry in ids:
            continue
        mid = specs.module_id_for(entry)
        while mid in opponents or mid == specs.LEARNER or mid.startswith(specs.SNAPSHOT_PREFIX):
            mid += "_"
        opponents[mid] = entry
        ids[entry] = mid
    snapshots = cfg.snapshot_keep if SNAPSHOTS in league_entries(cfg) else 0
    phases = [{"until": p.get("until"), "opponents": {ids[e]: float(w) for e, w in p["opponents"].items()}}
              for p in cfg.phases]
    return opponents, snapshots, phases


# ---------------------------------------------------------------------- RLlib
def build_algo(cfg: Config, rules: Rules, opponents: dict[str, str], snapshots: int, phases: list):
    from ray.rllib.algorithms.ppo import PPOConfig

    from uno_env.integrations.rllib import bots, league, modules, multi_agent_env, specs

    env_config = {"rules": rules.to_dict(), "num_players": cfg.num_players}
    module = modules.model_config(cfg.num_players, cfg.net_arch, cfg.activation, cfg.policy_input)
    spec = specs.multi_module_spec(env_config, module, opponents=opponents, snapshots=snapshots,
                                   seed=cfg.seed)
    mapping = league.LeagueMapping(cfg.num_players, phases, seed=cfg.seed)

    def schedule(start: float, final: float | None) -> Any:
        return start if final is None else [[0, start], [cfg.total_steps, final]]

    config = (
        PPOConfig()
        .environment(multi_agent_env.UnoMultiAgentEnv, env_config=env_config)
        .env_runners(num_env_runners=cfg.num_env_runners,
                     num_envs_per_env_runner=cfg.num_envs_per_env_runner,
                     num_cpus_per_env_runner=cfg.num_cpus_per_env_runner,
                     env_to_module_connector=bots.env_to_module)
        .learners(num_learners=cfg.num_learners)
        .training(lr=schedule(cfg.learning_rate, cfg.learning_rate_final),
                  entropy_coeff=schedule(cfg.ent_coef, cfg.ent_coef_final),
                  train_batch_size_per_learner=cfg.train_batch_size // max(1, cfg.num_learners),
                  minibatch_size=cfg.minibatch_size, num_epochs=cfg.num_epochs, gamma=cfg.gamma,
                  lambda_=cfg.gae_lambda, clip_param=cfg.clip_range, vf_loss_coeff=cfg.vf_coef,
                  grad_clip=cfg.max_grad_norm, grad_clip_by="global_norm",
                  use_kl_loss=cfg.kl_coef > 0, kl_coeff=cfg.kl_coef)
        .multi_agent(policies=set(spec.rl_module_specs), policy_mapping_fn=mapping,
                     policies_to_train=[specs.LEARNER])
        .rl_module(rl_module_spec=spec)
        .debugging(seed=cfg.seed)
    )
    return config.build_algo()


def start_ray(args: argparse.Namespace, cfg: Config) -> str:
    """Join the cluster of ``--address`` / ``RAY_ADDRESS`` (``"cluster"``), or start a local Ray
    (``"local"``), or use the Ray this process is already connected to (``"running"``). This
    process disconnects at the end unless ``"running"`` (which stops a local Ray, never a
    cluster)."""
    import ray

    if ray.is_initialized():
        print(f"using the running Ray: {ray.cluster_resources().get('CPU', 0):.0f} CPUs")
        return "running"
    address = args.address or os.environ.get("RAY_ADDRESS")
    runtime_env = {"py_modules": [os.path.dirname(uno_env.__file__)]} if args.ship_code else None
    if address:
        from uno_env.integrations import ray_cluster

        try:  # Ray itself retries a wrong address for minutes
            ray_cluster.check_reachable(address)
            ray.init(address=address, runtime_env=runtime_env)
        except (ray_cluster.ClusterError, ConnectionError, ray.exceptions.AuthenticationError) as exc:
            sys.exit(f"train_rllib.py: cannot join the Ray cluster at {address}: {exc}".splitlines()[0]
                     + ray_cluster.AUTH_HINT * (not isinstance(exc, ray_cluster.ClusterError)))
        print(f"joined the Ray cluster at {address}: {ray.cluster_resources().get('CPU', 0):.0f} CPUs, "
              f"{len([n for n in ray.nodes() if n['Alive']])} nodes")
        return "cluster"
    ray.init(address="local", num_cpus=cfg.ray_num_cpus,  # a new one: never a `ray start` cluster found here
             object_store_memory=cfg.object_store_mb * 2 ** 20, include_dashboard=False, runtime_env=runtime_env)
    print(f"started a local Ray: {ray.cluster_resources().get('CPU', 0):.0f} CPUs")
    return "local"


# ---------------------------------------------------------------------- outputs
def write_curve(csv_path: str, png_path: str, title: str, num_players: int) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    text = _files.read_bounded_bytes(csv_path, run_dirs.MAX_STATE_BYTES, "evaluation table")
    rows = list(csv.DictReader(text.decode("utf-8", "replace").splitlines()))
    fig, ax = plt.subplots(figsize=(7, 4))
    for opponent in dict.fromkeys(r["opponent"] for r in rows):
        rs = [r for r in rows if r["opponent"] == opponent]
        x = [int(r["steps"]) for r in rs]
        ax.plot(x, [float(r["win_rate"]) for r in rs], marker="o", ms=3, label=f"vs {opponent}")
        ax.fill_between(x, [float(r["ci_low"]) for r in rs], [float(r["ci_high"]) for r in rs], alpha=0.2)
    ax.axhline(1 / num_players, color="grey", lw=0.8, ls="--")
    ax.set(xlabel="env steps (decisions of every seat)", ylabel="win rate (95% Wilson)", ylim=(0, 1),
           title=title)
    ax.legend()
    fig.tight_layout()
    tmp = png_path + ".partial.png"
    fig.savefig(tmp, dpi=120)
    plt.close(fig)
    os.replace(tmp, png_path)


def print_table(run: str, evaluation: dict, opponents: list[str]) -> None:
    print(f"{run}: greedy policy, seats rotated, duplicate deals")
    print(f"{'opponent':>12} {'games':>7} {'wins':>7} {'win rate':>9}  95% CI (Wilson)")
    for o in opponents:
        r = evaluation[o]
        print(f"{o:>12} {r['games']:>7} {r['wins']:>7} {report.percent(r['win_rate']):>9}  "
              f"{report.interval(*r['ci95'])}")


def _get(result: dict, *path: str, default: Any = None) -> Any:
    for key in path:
        if not isinstance(result, dict) or key not in result:
            return default
        result = result[key]
    return result


# ---------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--config", required=True, help="configs/rllib/<name>.yaml")
    p.add_argument("--run", required=True, help="run name: checkpoints/<run>/, runs/<run>/")
    p.add_argument("--resume", action="store_true", help="continue checkpoints/<run>/")
    p.add_argument("--force", action="store_true", help="start over, deleting an existing run")
    p.add_argument("--total-steps", type=int, help="override total_steps")
    p.add_argument("--time-limit-min", type=float, help="override time_limit_min")
    p.add_argument("--address", default=None, metavar="HOST:PORT",
                   help="join this Ray cluster (default: $RAY_ADDRESS, else start a local Ray)")
    p.add_argument("--ship-code", action="store_true",
                   help="upload this checkout's uno_env package to the cluster's workers")
    p.add_argument("--checkpoint-dir", default="checkpoints")
    p.add_argument("--runs-dir", default="runs")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config key (--set num_env_runners=2) or a rule option "
                        "(--set uno_call=explicit); repeatable, values read as YAML")
    return p


def main(argv: list[str] | None = None) -> dict:
    parser = build_parser()
    args = parser.parse_args(argv)
    run_args = dict(resume=args.resume, force=args.force, holds_run=TRAINER_FILE)
    try:  # a plain run name, its folders checked (nothing changed yet), the overrides in effect
        dirs, overrides = run_dirs.check_run_args(args, Config, _CONFIG_CHECKS, run_args["holds_run"])
    except ValueError as exc:
        parser.error(str(exc))
    try:
        config_sets, rule_sets = split_overrides(overrides)
        cfg = load_config(args.config, config_sets)
        check_machine(cfg, args.config)
        rules = make_rules(cfg.rules, **rule_sets)
        check_league(cfg, rules)
        initial = configs.initial_policy(cfg, rules) if not args.resume else None
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    trainer: dict[str, Any] = {"wall_time_s": 0.0, "snapshots_taken": 0, "evaluation": {}}
    if args.resume:
        try:
            trainer = _files.read_json(os.path.join(dirs.run_dir, TRAINER_FILE), run_dirs.MAX_STATE_BYTES,
                                       "trainer state")
            card = ckpt.load_card(dirs.run_dir)
            ckpt.check_card(card, rules, cfg.num_players, where=f"checkpoint {dirs.run_dir!r}")
        except (ValueError, OSError) as exc:  # other rules than the run's (a --set given), a damaged card
            parser.error(f"--resume: {exc}")
    if importlib.util.find_spec("ray") is None:
        parser.error('needs Ray RLlib: pip install -e ".[rllib]" (a virtual environment of its own; '
                     'ray pins gymnasium 1.2.2)')
    stop = StopSignals("train_rllib.py").install()  # Ctrl-C, SIGTERM: a checkpoint, then exit 130 / 143
    try:  # made, or emptied with --force, and locked: one writer at a time
        dirs = run_dirs.open_run(args.checkpoint_dir, args.runs_dir, args.run, **run_args,
                                 script="train_rllib.py")
    except run_dirs.RunDirError as exc:
        stop.uninstall()
        parser.error(str(exc))
    try:
        evaluation = train(args, cfg, rules, initial, dirs, overrides, trainer, stop)
    except Interrupted:  # at once: before the loop, in the final evaluation, or a second signal
        stop.exit_now(dirs.run_dir)
    finally:  # the signals' handlers and the run's lock, also when main() is called in a
        stop.uninstall()  # process that goes on (a notebook)
        _atomic.release_lock(dirs.run_dir)
    write_curve(os.path.join(dirs.run_dir, EVAL_CSV), os.path.join(dirs.run_dir, "curve.png"),
                f"{args.run}: {rules.name}, {cfg.num_players} players (RLlib PPO)", cfg.num_players)
    print_table(args.run, evaluation, cfg.eval_opponents)
    print("\n".join(configs.next_steps_lines(dirs.run_dir, cfg.rules, cfg.num_players, rule_sets)))
    return evaluation


def train(args: argparse.Namespace, cfg: Config, rules: Rules, initial: Any, dirs: run_dirs.RunDirs,
          overrides: dict, trainer: dict[str, Any], stop: StopSignals) -> dict:
    """The run: Ray, the algorithm, imitation, PPO with its league, evaluations, the exports.
    ``overrides``: the ``--set`` keys and flags in effect (recorded in the card); ``trainer``:
    trainer.json's record (a resumed run's); ``stop``: the stop signals (a signal in the loop
    ends it after the iteration, with a checkpoint). Returns the final evaluation."""
    import ray
    import torch
    from tensorboardX import SummaryWriter

    from uno_env.integrations import ray_cluster
    from uno_env.integrations.rllib import imitate, league, specs, weights

    run_dir, log_dir = dirs.run_dir, dirs.log_dir
    rllib_dir = os.path.abspath(os.path.join(run_dir, RLLIB_DIR))
    trainer_path = os.path.join(run_dir, TRAINER_FILE)
    eval_csv = os.path.join(run_dir, EVAL_CSV)
    opponents, n_snapshots, phases = league_modules(cfg)
    torch.set_num_threads(cfg.torch_threads)
    print(f"uno_env {uno_env.__version__}, ray {ray.__version__}: run {args.run!r} -> {run_dir}/, "
          f"logs {log_dir}/")
    print("\n".join(configs.config_lines(dataclasses.asdict(cfg))))
    if args.resume:
        stop.saved(int(trainer.get("env_steps", 0)))
    ray_kind = start_ray(args, cfg)
    stop.install()  # again: ray.init sets a SIGTERM handler of its own
    try:
        try:  # RLlib waits for its actors without a timeout: the CPUs first, or say what is missing
            ray_cluster.wait_for_cpus(dataclasses.asdict(cfg), cfg.resources_wait_s,
                                      can_grow=ray_kind != "local")
        except ray_cluster.ClusterError as exc:
            sys.exit(f"train_rllib.py: {exc}")
        algo = build_algo(cfg, rules, opponents, n_snapshots, phases)
        if args.resume:
            algo.restore_from_path(rllib_dir)
        evaluation = trainer.get("evaluation", {})
        module_config = algo.config.rl_module_spec.rl_module_specs[specs.LEARNER].model_config
        module_config = {k: module_config[k] for k in ("num_players", "hidden", "activation", "input")}
        writer = SummaryWriter(os.path.join(log_dir, "tb"))
        if initial is not None:  # a checkpoint's policy as the start: the actor's weights, exactly
            trainer["started_from"], tensors = initial
            weights.set_actor(algo, tensors)
            print(configs.started_from_line(trainer["started_from"]))
        if cfg.imitate_decisions and not args.resume:  # behaviour cloning warm start (the critic alone after init_checkpoint)
            began = time.time()
            print(configs.imitation_start_line(cfg.imitate_decisions, cfg.imitate_teacher, cfg.imitate_epochs,
                                                cfg.imitate_cache, cfg.imitate_dataset), flush=True)
            demos, loaded = demonstrations(rules, cfg.num_players, cfg.imitate_decisions, seed=cfg.seed,
                                           teacher=cfg.imitate_teacher, workers=cfg.imitate_workers,
                                           cache=cfg.imitate_cache, progress=True,
                                           dataset=cfg.imitate_dataset)
            fit = imitate.imitate_learner(algo, demos, epochs=cfg.imitate_epochs,
                                     learning_rate=cfg.imitate_learning_rate, seed=cfg.seed,
                                     fit_actor=initial is None, progress=True)
            for key, value in fit.items():
                writer.add_scalar(f"imitation/{key}", value, 0)
            trainer["imitation"] = dict({k: round(v, 4) for k, v in fit.items()}, decisions=len(demos),
                                        games=demos.games, teacher=cfg.imitate_teacher,
                                        fitted="critic" if initial else "actor and critic",
                                        read_from=(cfg.imitate_dataset or cfg.imitate_cache) if loaded else None,
                                        wall_time_s=round(time.time() - began, 1))
            trainer["wall_time_s"] = float(trainer.get("wall_time_s", 0.0)) + time.time() - began
            print(imitation_summary(demos, cfg.imitate_teacher, fit, time.time() - began,
                                    (cfg.imitate_dataset or cfg.imitate_cache) if loaded else None,
                                    fit_actor=initial is None),
                  flush=True)
            del demos  # gigabytes at 400k decisions: not kept through PPO

        steps = int(algo.metrics.peek(("env_runners", "num_env_steps_sampled_lifetime"), default=0) or 0)
        learner_steps = int(trainer.get("learner_steps", 0))
        wall_before = float(trainer.get("wall_time_s", 0.0))
        start_time, start_steps = time.time(), steps
        time_limit = cfg.time_limit_min * 60 if cfg.time_limit_min else math.inf
        taken = int(trainer.get("snapshots_taken", 0))

        def wall() -> float:
            return wall_before + time.time() - start_time

        def progress() -> float:
            return min(1.0, max(steps / cfg.total_steps, wall() / time_limit))

        def card_for(total: int, wall_s: float) -> dict:
            return ckpt.make_card(
                rules=rules, num_players=cfg.num_players, total_steps=total, wall_time_s=wall_s,
                evaluation=evaluation, config=dataclasses.asdict(cfg),
                extra={"run": args.run, "algorithm": "PPO (Ray RLlib, parameter-shared self-play league)",
                       "trained_with": {"library": "ray[rllib]", "version": ray.__version__,
                                        "api_stack": "new", "script": "training/train_rllib.py",
                                        "env_steps": total, "learner_steps": learner_steps,
                                        "rllib_checkpoint": RLLIB_DIR},
                       run_dirs.OVERRIDES_KEY: overrides,
                       **{k: trainer[k] for k in ("imitation", "started_from") if k in trainer}})

        def save(total: int) -> None:
            """The RLlib checkpoint, then the exported policy and card, then trainer.json (the
            commit point of a resumable save); never cut by a signal."""
            with stop.protected():
                algo.save_to_path(rllib_dir)
                weights.export_checkpoint(weights.module_state(algo), module_config, run_dir, card_for(total, wall()))
                state = {"wall_time_s": round(wall(), 1), "snapshots_taken": taken, "env_steps": total,
                         "learner_steps": learner_steps, "evaluation": evaluation,
                         **{k: trainer[k] for k in ("imitation", "started_from") if k in trainer}}
                _atomic.write_text(trainer_path, json.dumps(state, indent=2) + "\n")
            stop.saved(total)

        def run_eval(games: int, total: int, final: bool = False) -> None:
            """Every eval opponent; the results (eval.csv, the card's) are written at the end,
            all at once, so an evaluation cut short leaves none."""
            if final:  # the exported checkpoint, as users load it
                me, workers = f"checkpoint:{run_dir}", cfg.eval_workers
            else:
                me = PolicyAgent(weights.masked_policy(weights.module_state(algo), module_config), rules,
                                 cfg.num_players, name=args.run)
                workers = 1
            results = {o: dict(evaluate_vs(me, o, rules, cfg.num_players, games, seed=total, workers=workers),
                               steps=total) for o in cfg.eval_opponents}
            with stop.protected():
                new_file = not os.path.exists(eval_csv)
                with open(eval_csv, "a", newline="") as fh:
                    out = csv.writer(fh)
                    if new_file:
                        out.writerow(["steps", "wall_time_s", "opponent", "games", "wins", "win_rate",
                                      "ci_low", "ci_high"])
                    for opponent, r in results.items():
                        out.writerow([total, round(wall(), 1), opponent, games, r["wins"], f"{r['win_rate']:.4f}",
                                      f"{r['ci95'][0]:.4f}", f"{r['ci95'][1]:.4f}"])
                evaluation.update(results)
            for opponent, r in results.items():
                writer.add_scalar(f"eval/win_rate_{opponent}", r["win_rate"], total)
            summary = "  ".join(f"vs {o} {evaluation[o]['win_rate']:.3f}" for o in cfg.eval_opponents)
            print(f"[eval] step {total:,}: {summary} ({games} games each, 1 vs {cfg.num_players - 1})",
                  flush=True)

        if ("imitation" in trainer or "started_from" in trainer) and steps == 0:  # the curve's first point
            run_eval(cfg.eval_games, 0)
        next_snapshot = (steps // cfg.snapshot_every + 1) * cfg.snapshot_every
        next_eval = (steps // cfg.eval_every + 1) * cfg.eval_every
        next_ckpt = (steps // cfg.checkpoint_every + 1) * cfg.checkpoint_every
        last_print, last_health = 0.0, ray_cluster.runner_health(algo)
        lost_since = None  # since when no env runner is alive
        print(f"training from step {steps:,} to {cfg.total_steps:,}"
              + (f" or {cfg.time_limit_min} min" if cfg.time_limit_min else ""), flush=True)
        stop.defer()  # from here a first signal ends the loop after the iteration, with a checkpoint
        while progress() < 1.0:
            league.update_league(algo, progress(), steps, min(taken, n_snapshots))
            result = algo.train()
            steps = int(_get(result, "env_runners", "num_env_steps_sampled_lifetime", default=steps))
            learner_steps = int(_get(result, "env_runners", "num_module_steps_sampled_lifetime", specs.LEARNER,
                                     default=learner_steps))
            done = progress() >= 1.0
            sps = (steps - start_steps) / max(1e-9, time.time() - start_time)
            learn = _get(result, "learners", specs.LEARNER, default={}) or {}
            health = ray_cluster.runner_health(algo)  # (healthy, total) env runners; None: the driver samples
            scalars = {"perf/env_steps_per_s": sps,
                       "env/episode_len_mean": _get(result, "env_runners", "episode_len_mean"),
                       "train/entropy": learn.get("entropy"), "train/policy_loss": learn.get("policy_loss"),
                       "train/vf_loss": learn.get("vf_loss"), "train/mean_kl": learn.get("mean_kl_loss"),
                       "league/snapshots": min(taken, n_snapshots), "perf/learner_steps": learner_steps,
                       **({"ray/env_runners_healthy": health[0], "ray/env_runners": health[1]} if health else {})}
            for key, value in scalars.items():
                if isinstance(value, (int, float)) and math.isfinite(value):
                    writer.add_scalar(key, value, steps)
            if time.time() - last_print >= cfg.progress_every_s or done or health != last_health:
                last_print, last_health = time.time(), health
                eta = (cfg.total_steps - steps) / sps if sps > 0 else math.inf
                eta = max(0.0, min(eta, time_limit - wall()))
                ent = learn.get("entropy")
                print(f"step {steps:,}/{cfg.total_steps:,} ({100 * progress():.0f}%)  {sps:,.0f} env steps/s  "
                      f"iter {algo.iteration}  episode len {scalars['env/episode_len_mean'] or 0:.0f}  "
                      f"entropy {ent if ent is None else round(float(ent), 3)}  "
                      + (f"env runners {health[0]}/{health[1]} healthy  " if health else "")
                      + f"{wall() / 60:.1f} min, ~{eta / 60:.0f} min left", flush=True)
            if health and not health[0] and not stop.requested:  # no runner samples: say so, wait, fail
                if lost_since is None:
                    lost_since = time.time()
                    print(f"no env runner is alive (0/{health[1]}): waiting up to {cfg.resources_wait_s:g} s "
                          f"(resources_wait_s) for Ray to restart them", flush=True)
                if time.time() - lost_since >= cfg.resources_wait_s:
                    save(steps)
                    sys.exit(f"train_rllib.py: all {health[1]} env runners lost for "
                             f"{time.time() - lost_since:.0f} s (resources_wait_s): saved a checkpoint at step "
                             f"{steps:,} in {run_dir}; --resume once the cluster has the CPUs again (or with "
                             f"fewer env runners)")
                time.sleep(min(1.0, cfg.resources_wait_s))
                continue
            lost_since = None
            if n_snapshots and steps >= next_snapshot and not done and not stop.requested:
                weights.copy_module(algo, specs.LEARNER, f"{specs.SNAPSHOT_PREFIX}{taken % n_snapshots}")
                taken += 1
                next_snapshot = (steps // cfg.snapshot_every + 1) * cfg.snapshot_every
            if steps >= next_eval and not done and not stop.requested:
                with stop.dropped():  # a signal drops the evaluation whole
                    run_eval(cfg.eval_games, steps)
                    next_eval = (steps // cfg.eval_every + 1) * cfg.eval_every
            if steps >= next_ckpt or done or stop.requested:
                save(steps)
                next_ckpt = (steps // cfg.checkpoint_every + 1) * cfg.checkpoint_every
            if stop.requested:
                break
        if stop.requested:  # saved above, after the iteration the signal arrived in
            writer.close()
            stop.exit_saved(run_dir)
        stop.at_once()  # the final evaluation: the checkpoint of the last step is saved
        trained_wall = wall()
        sps = (steps - start_steps) / max(1e-9, time.time() - start_time)
        print(f"trained {steps:,} env steps ({learner_steps:,} of them the learner's) in "
              f"{trained_wall:.0f} s of wall time ({sps:,.0f} env steps/s)", flush=True)
        save(steps)  # the checkpoint the final evaluation plays
        run_eval(cfg.final_eval_games, steps, final=True)
        save(steps)  # with the final evaluation in the card
        writer.close()
        algo.stop()
    finally:
        if ray_kind != "running":
            ray.shutdown()
    return evaluation


if __name__ == "__main__":
    main()
