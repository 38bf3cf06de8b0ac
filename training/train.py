"""Train a UNO agent with MaskablePPO and a self-play league; evaluate it against the bots.

    python training/train.py --config configs/train/quick.yaml --run quick
    python training/train.py --config configs/train/classic-2p.yaml --run classic-2p --resume

One learner plays one seat of ``uno_env.envs.gym_env.UnoGymEnv``; the other seats are played
inside the env by opponents drawn per episode from the league: scripted bots and frozen
snapshots of the learner (saved every ``snapshot_every`` steps), mixed by the config's
``phases`` (a curriculum). Every ``eval_every`` steps the greedy policy plays ``eval_games``
games against each of ``eval_opponents`` in every other seat with
``uno_env.tools.evaluate.evaluate_vs`` (1 vs the rest, seats rotated, duplicate deals; win rate
and 95% Wilson interval; on the batched engine where the opponent plays there, as
``uno-evaluate``'s ``--engine auto``: the card's ``evaluation`` records the ``engine``) ->
TensorBoard and ``eval.csv``. At the end (``total_steps`` or
``time_limit_min``): ``final_eval_games`` games each, written to the card, a results table, and
the learning curve ``curve.png``.

**Two learners** (``learner``). ``sb3``: Stable-Baselines3's MaskablePPO on ``n_envs`` scalar
envs (``UnoGymEnv``), as above; the resumable state is ``model.zip`` (a pickle). ``batched``:
the lean torch PPO of :mod:`uno_env.learn.lean_ppo` on ``n_envs`` games of the batched engine
(:class:`uno_env.envs.vector_env.UnoVectorEnv`), the league inside the batch: the games split
into ``league_slices`` slices, each against one entry (compiled bots, frozen snapshots
evaluated batched, ``self``: the current weights; :mod:`uno_env.learn.batched_league`);
``bf16`` and ``device: cuda`` are its options (nothing needs a GPU). Its resumable state is
``learner.safetensors`` (weights, Adam, the generator, the step counts: no pickle), and a run
resumed from a periodic checkpoint continues as the run would have (new deals at every
checkpoint). It keeps its starting policy in ``runs/<run>/start/`` and its final table adds
what the training added: the final agent against that start on the same deals
(``evaluate_paired``, a 95% interval). Both write the same checkpoint (card + safetensors).
Speed and the decision between them: docs/speed.md, "The learner".

**Imitation first** (``imitate_decisions`` > 0, a new run only): before PPO, the policy is
fitted to ``imitate_decisions`` decisions of ``imitate_teacher`` playing every seat (masked
cross-entropy, ``imitate_epochs`` passes at ``imitate_learning_rate``) and the value network to
their outcomes (:mod:`uno_env.learn.imitation`, :func:`uno_env.learn.sb3.imitate.imitate`); its time
counts in the run's wall time and time limit. PPO then fine-tunes the clone (the shipped
configs use small steps: lr 1e-4, clip 0.1). ``imitate_dataset: <id or path>`` reads the
decisions from a Minari dataset of ``uno-dataset create`` instead of playing them (checked
against the run before anything is spent: docs/datasets.md).

**Or a checkpoint's policy first** (``init_checkpoint: <dir>``, a new run only): the actor
starts as that checkpoint's (its safetensors weights copied exactly, :func:`uno_env.learn.sb3.actor.set_actor`;
rules, players and network must be the run's, checked before anything is spent), and the
imitation above, if any, fits only the value network (``imitate_teacher: checkpoint:<dir>``
fits it to the policy's own games). A shipped agent can so be trained further without its
``model.zip``.

**The critic** (``critic``). ``obs``: SB3's policy and value networks both read the
observation. ``state``: an asymmetric actor-critic (:class:`uno_env.learn.sb3.policy.AsymmetricPolicy`):
the env appends the global state seen from the learner (every hand, the DRAW pile's contents:
``UnoGymEnv(critic_state="append")``) and only the value network reads it; the policy, the part
the checkpoint saves, reads the observation alone, so the checkpoint is the same kind either way.
(The hand-prediction loss, oracle guiding and reward shaping were options here; measured, none
gained anything, and they were removed: docs/4p-experiments.md,
:data:`uno_env.learn.configs.REMOVED_KEYS`.)

**Stalling shows.** ``draw`` is always legal, so a policy can learn to draw forever. After
every rollout, TensorBoard's ``play/*`` scalars (and a line at each evaluation) give the share
of the learner's decisions that were ``draw``, the share of ``draw`` when it could have played
a card, and of its finished games the share won and the share truncated by a step cap
(``max_learner_steps``, the env's cap on the learner's decisions per game, in every shipped
config); the line ends with a warning when it draws at least half the time it could play or
5% of its games are truncated.

Outputs: ``checkpoints/<run>/`` (card.json and the policy's safetensors weights: the
checkpoint that ``checkpoint:<dir>`` plays, see ``uno_env.agents.checkpoint``; model.zip, the SB3
model for ``--resume``; eval.csv, curve.png) and ``runs/<run>/`` (TensorBoard logs, self-play
snapshots: safe checkpoints without model.zip). ``--resume`` continues from the latest
``checkpoints/<run>/model.zip`` and its step count; model.zip is a pickle, so resume only
runs you made (trusted input).

**Crash safety.** Every output file is written atomically (a new file replaces the old one
whole); a checkpoint's card is written after its weights, so it always matches them. eval.csv
is rewritten whole, header included, after each evaluation; the rows of an evaluation replace
any earlier rows of the same step. At every start the outputs are brought in line with the
model: rows of eval.csv and snapshots beyond the model's step (written after the last
checkpoint by a run that was killed) are dropped, so a resumed run never has two rows for one
step and its curve ends at the model. (TensorBoard's event files are append-only and may keep
points past the checkpoint of a killed run.)

**Stopping** (Ctrl-C, SIGTERM: :mod:`uno_env.learn.stop_signals`). In the training loop a
signal ends the rollout at the next env step (a callback; the partial rollout is not learned
from), an evaluation under way is dropped whole, and a checkpoint of the current step is
saved (model.zip, weights, card, as any checkpoint; eval.csv holds the evaluations up to it);
the script exits with 130 (SIGINT) or 143 (SIGTERM) and one line naming the step, and
``--resume`` continues. Before the loop (building, the imitation) and in the final
evaluation a signal stops the run at once, saving nothing new; a second signal in the loop
too (a save is never cut). Worker processes ignore SIGINT: a terminal's Ctrl-C is the
script's to handle.

``--set KEY=VALUE`` (repeatable; values read as YAML, :mod:`uno_env.tools.overrides`)
overrides one key for this run: a key of :class:`Config` (``--set n_envs=8 --set
learning_rate=1e-4``, checked like the YAML's own keys) or else a rule option of
:class:`uno_env.game.rules.Rules` (``--set uno_call=explicit``: the rules become
``make_rules(config.rules, uno_call="explicit")``). No key is both; any other key is an
error. ``--total-steps`` and ``--time-limit-min`` win over ``--set`` and are checked like it.
The card records the resulting config, the full rules and the overrides in effect
(``overrides``): ``--resume`` reads ``--config`` again and applies the run's overrides, then
the ones given again, which win (:func:`uno_env.learn.run_dirs.stored_overrides`); a rule
option given again that changes the run's rules is an error naming it. The checks are
:mod:`uno_env.learn.configs` (one per key, in ``_CONFIG_CHECKS``), shared with ``train_rllib.py``;
then, before anything is spent, :func:`check_machine` checks the config against this machine
(``torch_threads`` and its CPUs, the memory of the demonstrations, the rollout, the networks,
the envs and the workers: docs/RELIABILITY.md).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import math
import os
import re
import shutil
import signal
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.logger import configure
from stable_baselines3.common.utils import ConstantSchedule
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv
from tqdm import tqdm

import uno_env
import uno_env.agents.checkpoint as ckpt
from uno_env import _atomic, _files
from uno_env.agents.policy import PolicyAgent
from uno_env.envs.gym_env import UnoGymEnv
from uno_env.game import actions as A
from uno_env.game.global_state import GLOBAL_STATE_SIZE
from uno_env.game.rules import Rules, make_rules
from uno_env.learn import configs, lean_ppo, machine, run_dirs
from uno_env.learn.batched_league import league_line, BatchedLeague, slice_opponents
from uno_env.learn.demo_store import demonstrations
from uno_env.learn.imitation import summary as imitation_summary
from uno_env.learn.sb3.actor import masked_policy, set_actor
from uno_env.learn.sb3.convert import convert_checkpoint
from uno_env.learn.sb3.imitate import imitate
from uno_env.learn.sb3.policy import AsymmetricPolicy, ObsFeatures
from uno_env.learn.sb3.save import load_model, save_checkpoint
from uno_env.learn.stop_signals import Interrupted, StopSignals
from uno_env.tools import report
from uno_env.tools.evaluate import evaluate_vs
from uno_env.tools.progress import progress_file


@dataclass
class Config(configs.TrainingConfig):
    """Everything one training run needs; loaded from ``configs/train/<name>.yaml``. The keys
    shared with ``train_rllib.py`` are :class:`uno_env.learn.configs.TrainingConfig`'s; a step
    here is a learner decision."""

    # --- environments ---
    n_envs: int = 16
    """environments stepped in lockstep"""
    vec_env: str = "dummy"
    """dummy (one process; fastest on 2 cores) or subproc (one process per env)"""
    max_learner_steps: int | None = 1000
    """truncate an episode after this many learner decisions (UnoGymEnv's cap; None: only
    the engine's rules.max_steps). Ends the endless games of two untrained policies"""
    # --- MaskablePPO ---
    critic: str = "obs"
    """obs: the value network reads what the policy reads; state: an asymmetric actor-critic,
    the value network also reads the global state (every hand; uno_env.learn.sb3.policy.AsymmetricPolicy,
    the env appends the state to the observation), the policy only the observation. The
    checkpoint is the same either way (needs obs_features)"""
    n_steps: int = 256
    """steps per env per rollout (rollout = n_steps * n_envs)"""
    batch_size: int = 512
    n_epochs: int = 4
    target_kl: float | None = None
    # --- self-play league ---
    snapshot_sample: bool = True
    """snapshots sample their moves (True) or play their most likely move"""
    # --- the learner ---
    learner: str = "sb3"
    """sb3: MaskablePPO on n_envs scalar envs (UnoGymEnv); batched: the lean torch PPO
    (uno_env.learn.lean_ppo) on n_envs games of the batched engine, the league inside the batch
    (uno_env.learn.batched_league); both save the same checkpoint (card + safetensors)"""
    league_slices: int = 8
    """batched: the n_envs games are split into this many slices, one league entry each"""
    bf16: bool | str = False
    """batched: the update's forward and backward passes under bfloat16 autocast; ``auto``: where
    the device computes bfloat16 natively (:func:`uno_env.learn.lean_ppo.native_bf16`), float32
    elsewhere (emulated bfloat16 is several times slower than float32)"""
    device: str = "cpu"
    """batched: cpu or cuda (the network and the update; the games stay on the CPU)"""


# what each Config key must hold (uno_env.learn.configs: one check per key, unknown keys are errors)
_CONFIG_CHECKS = {**configs.TRAINING_CHECKS,  # the keys train_rllib.py shares, then our own
    "n_envs": configs.integer(1),
    "vec_env": configs.choice("dummy", "subproc"),
    "max_learner_steps": configs.integer(1, optional=True),
    "critic": configs.choice("obs", "state"),
    "n_steps": configs.integer(1),
    "batch_size": configs.integer(2),  # SB3 normalises advantages over a minibatch
    "n_epochs": configs.integer(1),
    "target_kl": configs.real(0, low_open=True, optional=True),
    "snapshot_sample": configs.boolean(),
    "learner": configs.choice("sb3", "batched"),
    "league_slices": configs.integer(1),
    "bf16": configs.boolean_or("auto"),
    "device": configs.choice("cpu", "cuda"),
}
BATCHED_ONLY = {"bf16": False, "device": "cpu"}  # keys (and their defaults) of learner: batched alone


def load_config(path: str, overrides: dict | None = None) -> Config:
    """The :class:`Config` of a YAML file, with ``overrides`` (config keys, from ``--set`` and
    the command line) replacing its values. ``ValueError`` naming the file (or ``--set``) and
    the key if the file cannot be read or parsed, or a key is unknown or holds a value of the
    wrong type or range (``total_steps: abc``); the rules are checked with ``make_rules``."""
    cfg = configs.load_config(Config, _CONFIG_CHECKS, path, overrides)
    if cfg.batch_size > cfg.n_steps * cfg.n_envs:
        raise ValueError(f"{path}: config key 'batch_size' is {cfg.batch_size}, more than a rollout of "
                         f"n_steps x n_envs = {cfg.n_steps * cfg.n_envs} steps")
    if cfg.critic == "state" and not cfg.obs_features:
        raise ValueError(f"{path}: critic: state needs obs_features: true (the policy must not read "
                         f"the global state appended to its observations)")
    if cfg.learner == "batched":
        if cfg.vec_env != "dummy":
            raise ValueError(f"{path}: vec_env: {cfg.vec_env} is learner: sb3's (learner: batched steps "
                             f"its n_envs games in one process)")
        if cfg.critic != "obs":
            raise ValueError(f"{path}: critic: {cfg.critic} is learner: sb3's (learner: batched has critic: obs)")
        if cfg.league_slices > cfg.n_envs:
            raise ValueError(f"{path}: config key 'league_slices' is {cfg.league_slices}, more than the "
                             f"n_envs = {cfg.n_envs} games it splits")
    else:
        for key, default in BATCHED_ONLY.items():
            if getattr(cfg, key) != default:
                raise ValueError(f"{path}: config key {key!r} is learner: batched's (learner: sb3 trains "
                                 f"with float32 on the CPU)")
    try:
        make_rules(cfg.rules)
    except ValueError as e:
        raise ValueError(f"{path}: config key 'rules': {e}") from None
    return cfg


def check_machine(cfg: Config, source: str) -> None:
    """``ValueError`` naming the keys of ``cfg`` this machine cannot hold, before anything is
    spent (:func:`uno_env.learn.machine.check_machine`): ``torch_threads`` beyond its CPUs, and
    memory: the networks being trained, the rollout buffer (built with the model, before the
    imitation), the envs (a process each with ``vec_env: subproc``), the demonstrations and
    the worker processes."""
    state = cfg.critic == "state"
    n_in = ckpt.input_size(cfg.policy_input, cfg.num_players)
    subproc = cfg.vec_env == "subproc"
    if cfg.learner == "batched":
        if cfg.device == "cuda" and not torch.cuda.is_available():
            raise ValueError(f"{source}: config key 'device' is cuda, but torch finds no CUDA device here "
                             f"(device: cpu trains anywhere)")
        needs = {
            f"net_arch {cfg.net_arch}": machine.PARAMETER_BYTES * machine.network_parameters(list(cfg.net_arch), n_in),
            f"n_steps x n_envs {cfg.n_steps} x {cfg.n_envs}": cfg.n_steps * cfg.n_envs * machine.batched_step_bytes(n_in),
            f"n_envs {cfg.n_envs}": cfg.n_envs * machine.BATCHED_GAME_BYTES,
            f"imitate_decisions {cfg.imitate_decisions}": machine.demonstration_bytes(cfg, False)
            + cfg.imitate_decisions * 4 * n_in,  # and the network's input rows of them
            f"eval_workers {cfg.eval_workers}": cfg.eval_workers * machine.PROCESS_BYTES,
        }
        machine.check_machine(cfg, source, needs)
        return
    needs = {
        f"net_arch {cfg.net_arch}": machine.PARAMETER_BYTES * machine.network_parameters(
            list(cfg.net_arch), n_in, n_in + GLOBAL_STATE_SIZE if state else None),
        f"n_steps x n_envs {cfg.n_steps} x {cfg.n_envs}":
            cfg.n_steps * cfg.n_envs * (machine.STEP_BYTES + (machine.STATE_BYTES if state else 0)),
        f"n_envs {cfg.n_envs}": cfg.n_envs * (machine.PROCESS_BYTES if subproc else machine.ENV_BYTES),
        f"imitate_decisions {cfg.imitate_decisions}": machine.demonstration_bytes(cfg, state),
        f"eval_workers {cfg.eval_workers}": cfg.eval_workers * machine.PROCESS_BYTES,
    }
    machine.check_machine(cfg, source, needs)


def split_overrides(sets: dict) -> tuple[dict, dict]:
    """``--set`` values split into (training-config keys, rule options)."""
    return configs.split_overrides(Config, sets)


# ---------------------------------------------------------------------- league
def phase_opponents(cfg: Config, step: int, progress: float) -> dict[str, float]:
    """The opponent mixture of the curriculum phase at ``step`` (``progress`` in [0, 1])."""
    for phase in cfg.phases:
        until = phase["until"]
        if until is None or (progress < until if until <= 1 else step < until):
            return dict(phase["opponents"])
    return dict(cfg.phases[-1]["opponents"])


def check_league(cfg: Config, rules) -> None:
    """``ValueError`` naming a league entry or evaluation opponent that is no agent spec, or a
    ``checkpoint:<dir>`` that does not load for these rules and players: checked before
    anything is spent on the run (the imitation alone can take many minutes)."""
    entries = [e for e in configs.league_entries(cfg.phases) if e not in ("snapshots", "self")]
    if "self" in configs.league_entries(cfg.phases) and cfg.learner != "batched":
        raise ValueError("config key 'phases': league entry 'self' (the learner itself in more "
                         "seats) is learner: batched's and train_rllib.py's; learner: sb3 plays "
                         "against its past versions through 'snapshots'")
    configs.check_agent_specs(entries, rules, cfg.num_players, "league entry")
    configs.check_agent_specs(cfg.eval_opponents, rules, cfg.num_players, "eval_opponents entry")
    configs.check_imitation(cfg, rules, cfg.critic == "state")


def league_pool(cfg: Config, step: int, snapshots: list[str], progress: float | None = None
                ) -> list[tuple[str, float]]:
    """``(spec, weight)`` pairs for ``UnoGymEnv.set_opponent_pool``."""
    progress = step / cfg.total_steps if progress is None else progress
    pool = []
    for spec, weight in phase_opponents(cfg, step, progress).items():
        if spec != "snapshots":
            pool.append((spec, float(weight)))
        elif snapshots and weight > 0:  # split evenly over the snapshots in the pool
            suffix = "#sample" if cfg.snapshot_sample else ""
            pool += [(f"checkpoint:{path}{suffix}", weight / len(snapshots)) for path in snapshots]
    if not pool:  # e.g. "snapshots" only, before the first snapshot
        pool = [("random", 1.0)]
    return pool


# ---------------------------------------------------------------------- outputs
EVAL_COLUMNS = ["steps", "wall_time_s", "opponent", "games", "wins", "win_rate", "ci_low", "ci_high"]
SNAPSHOT_NAME = re.compile(r"step_(\d+)")


def evaluation_rows(cfg: Config, me: Any, rules: Rules, games: int, steps: int, wall: float,
                    workers: int) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """``me`` against each of ``cfg.eval_opponents`` (seed ``steps``, batched where every agent
    can play there): the rows of eval.csv and the results by opponent (both learners)."""
    rows, results = [], {}
    for opponent in cfg.eval_opponents:
        r = evaluate_vs(me, opponent, rules, cfg.num_players, games, seed=steps, workers=workers)
        results[opponent] = dict(r, steps=steps)
        rows.append({"steps": steps, "wall_time_s": round(wall, 1), "opponent": opponent,
                     "games": games, "wins": r["wins"], "win_rate": f"{r['win_rate']:.4f}",
                     "ci_low": f"{r['ci95'][0]:.4f}", "ci_high": f"{r['ci95'][1]:.4f}"})
    return rows, results


def read_eval_rows(path: str) -> list[dict[str, str]]:
    """The whole rows of ``eval.csv`` (none if it does not exist). Lines that are not a row
    (a header, a line cut by a crash of an older version, which also could leave the file
    without its header) are skipped."""
    if not os.path.exists(path):
        return []
    text = _files.read_bounded_bytes(path, run_dirs.MAX_STATE_BYTES, "evaluation table")
    lines = list(csv.reader(text.decode("utf-8", "replace").splitlines()))
    rows = []
    for line in lines:
        if len(line) != len(EVAL_COLUMNS) or line == EVAL_COLUMNS:
            continue
        row = dict(zip(EVAL_COLUMNS, line))
        try:
            [int(row[k]) for k in ("steps", "games", "wins")]
            [float(row[k]) for k in ("wall_time_s", "win_rate", "ci_low", "ci_high")]
        except ValueError:
            continue
        rows.append(row)
    return rows


def write_eval_rows(path: str, rows: list[dict]) -> None:
    """``eval.csv``, header and rows, written atomically."""
    with _atomic.atomic_write(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, EVAL_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def sync_outputs(eval_csv: str, snap_dir: str, step: int) -> list[str]:
    """Bring a run's outputs in line with its model at ``step`` (0: a new run) and return the
    snapshot directories to keep: rows of eval.csv beyond ``step`` are dropped (the file is
    rewritten whole, with its header); snapshots beyond ``step`` or never finished are deleted;
    snapshots saved by uno_env 0.2 (SB3 zips of this run: trusted) are converted."""
    if os.path.exists(eval_csv):
        write_eval_rows(eval_csv, [r for r in read_eval_rows(eval_csv) if int(r["steps"]) <= step])
    snapshots = []
    for name in sorted(os.listdir(snap_dir)):
        match, path = SNAPSHOT_NAME.fullmatch(name), os.path.join(snap_dir, name)
        if match is None:
            continue
        if int(match.group(1)) > step or not os.path.isfile(os.path.join(path, ckpt.CARD_FILE)):
            shutil.rmtree(path, ignore_errors=True)
            continue
        if ckpt.load_card(path, require_policy=False)["format"] == ckpt.LEGACY_CARD_FORMAT:
            convert_checkpoint(path, verify_games=0)
        snapshots.append(path)
    return snapshots


def write_curve(csv_path: str, png_path: str, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_eval_rows(csv_path)
    fig, ax = plt.subplots(figsize=(7, 4))
    for opponent in dict.fromkeys(r["opponent"] for r in rows):
        rs = [r for r in rows if r["opponent"] == opponent]
        x = [int(r["steps"]) for r in rs]
        ax.plot(x, [float(r["win_rate"]) for r in rs], marker="o", ms=3, label=f"vs {opponent}")
        ax.fill_between(x, [float(r["ci_low"]) for r in rs], [float(r["ci_high"]) for r in rs], alpha=0.2)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set(xlabel="learner steps", ylabel="win rate (95% Wilson)", ylim=(0, 1), title=title)
    ax.legend()
    fig.tight_layout()
    with _atomic.atomic_write(png_path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=120)
    plt.close(fig)


class StopCallback(BaseCallback):
    """Ends ``model.learn`` at the next env step once a stop signal arrived (the partial
    rollout is not learned from; its steps count)."""

    def __init__(self, stop: StopSignals):
        super().__init__()
        self.stop = stop

    def _on_step(self) -> bool:
        return not self.stop.requested


class ProgressBar(BaseCallback):
    def __init__(self, bar: tqdm):
        super().__init__()
        self.bar = bar

    def _on_step(self) -> bool:
        self.bar.update(min(self.training_env.num_envs, self.bar.total - self.bar.n))
        return True


STALL_DRAW_SHARE = 0.5  # warn when the learner draws this often while it could play
STALL_TRUNCATED_SHARE = 0.05  # or when this share of its games is cut by a step cap


class PlayStats(BaseCallback):
    """How the learner plays, per rollout, to TensorBoard (``play/*``) and :meth:`summary`:
    the share of its decisions that are ``draw``, the share of ``draw`` among the decisions
    where it could play a card (a stalling policy draws forever: this shows it), and of the
    games that ended: won, truncated (a step cap: ``max_learner_steps`` or ``rules.max_steps``),
    learner decisions per game."""

    def __init__(self):
        super().__init__()
        self._reset()
        self.last: dict[str, float] = {}

    def _reset(self) -> None:
        self.decisions = self.draws = self.could_play = self.draws_could_play = 0
        self.games = self.wins = self.truncated = self.game_steps = 0

    def _on_step(self) -> bool:
        actions = np.asarray(self.locals["actions"]).reshape(-1)
        masks = self.locals.get("action_masks")
        draw = actions == A.DRAW
        self.decisions += len(actions)
        self.draws += int(draw.sum())
        if masks is not None:
            playable = np.asarray(masks)[:, :A.PLAY_END].any(axis=1)
            self.could_play += int(playable.sum())
            self.draws_could_play += int((draw & playable).sum())
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done:
                self.games += 1
                self.wins += int(info.get("winner") == info.get("seat"))
                self.truncated += int("truncated_reason" in info)
                self.game_steps += int(info.get("learner_steps", 0))
        return True

    def _on_rollout_end(self) -> None:
        stats = {"draw_share": self.draws / max(1, self.decisions),
                 "draw_when_play_legal": self.draws_could_play / max(1, self.could_play)}
        if self.games:
            stats.update(games=self.games, win_rate=self.wins / self.games,
                         truncated_share=self.truncated / self.games,
                         learner_steps_per_game=self.game_steps / self.games)
        for key, value in stats.items():
            self.logger.record(f"play/{key}", value)
        self.last = stats
        self._reset()

    def summary(self) -> str:
        """One line on the last rollout, with a warning when the policy looks stalled."""
        s = self.last
        if not s:
            return ""
        line = (f"draws {s['draw_share']:.0%} of decisions ({s['draw_when_play_legal']:.0%} when it "
                f"could play)")
        if "games" in s:
            line += (f", {s['games']} games: won {s['win_rate']:.0%}, truncated {s['truncated_share']:.1%},"
                     f" {s['learner_steps_per_game']:.0f} decisions each")
        if s["draw_when_play_legal"] >= STALL_DRAW_SHARE or s.get("truncated_share", 0) >= STALL_TRUNCATED_SHARE:
            line += "  WARNING: the policy may be stalling (drawing instead of playing)"
        return line


# ---------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--config", required=True, help="configs/train/<name>.yaml")
    parser.add_argument("--run", required=True, help="run name: checkpoints/<run>/, runs/<run>/")
    parser.add_argument("--resume", action="store_true", help="continue checkpoints/<run>/")
    parser.add_argument("--force", action="store_true", help="start over, deleting an existing run")
    parser.add_argument("--total-steps", type=int, help="override total_steps")
    parser.add_argument("--time-limit-min", type=float, help="override time_limit_min")
    parser.add_argument("--checkpoint-dir", default="checkpoints")
    parser.add_argument("--runs-dir", default="runs")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config key (--set n_envs=8) or a rule option "
                             "(--set uno_call=explicit); repeatable, values read as YAML")
    args = parser.parse_args(argv)

    run_args = dict(resume=args.resume, force=args.force, holds_run=(ckpt.MODEL_FILE, lean_ppo.STATE_FILE))
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
    except ValueError as exc:
        parser.error(str(exc))
    stop = StopSignals("train.py").install()  # Ctrl-C, SIGTERM: a checkpoint, then exit 130 / 143
    try:  # --force deletes only this run's own folders; one writer at a time
        dirs = run_dirs.open_run(args.checkpoint_dir, args.runs_dir, args.run, **run_args, script="train.py")
    except run_dirs.RunDirError as exc:
        stop.uninstall()
        parser.error(str(exc))
    try:
        run = train_batched if cfg.learner == "batched" else train
        evaluation = run(args, cfg, rules, initial, dirs, overrides, stop)
    except Interrupted:  # at once: before the loop, in the final evaluation, or a second signal
        stop.exit_now(dirs.run_dir)
    finally:  # the signals' handlers and the run's lock, also when main() is called in a
        stop.uninstall()  # process that goes on (a notebook)
        _atomic.release_lock(dirs.run_dir)
    print("\n".join(configs.next_steps_lines(dirs.run_dir, cfg.rules, cfg.num_players, rule_sets)))
    return evaluation


def train(args: argparse.Namespace, cfg: Config, rules, initial, dirs: run_dirs.RunDirs,
          overrides: dict, stop: StopSignals) -> dict:
    """The run: environments, the model, imitation, PPO with its league, evaluations, the card.
    ``overrides``: the ``--set`` keys and flags in effect (recorded in the card); ``stop``:
    the stop signals (a signal in the loop ends it at the next env step, with a checkpoint)."""
    run_dir, log_dir = dirs.run_dir, dirs.log_dir
    snap_dir = os.path.join(log_dir, "snapshots")
    eval_csv = os.path.join(run_dir, "eval.csv")
    os.makedirs(snap_dir, exist_ok=True)
    print(f"uno_env {uno_env.__version__}: run {args.run!r} -> {run_dir}/, logs {log_dir}/")
    print("\n".join(configs.config_lines(dataclasses.asdict(cfg))))

    # --- seeds and threads ---
    torch.set_num_threads(cfg.torch_threads)

    # --- environments ---
    def make_env() -> UnoGymEnv:
        if cfg.vec_env == "subproc":  # a worker process: Ctrl-C is the training process's to handle
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        return UnoGymEnv(rules, cfg.num_players, opponents="random", seat="random",
                         max_learner_steps=cfg.max_learner_steps,
                         critic_state="append" if cfg.critic == "state" else None)

    vec_cls = DummyVecEnv if cfg.vec_env == "dummy" else SubprocVecEnv
    wall_before, evaluation = 0.0, {}
    if args.resume:
        try:
            card = ckpt.load_card(run_dir, require_policy=False)  # format 1: a run of uno_env 0.2
            ckpt.check_card(card, rules, cfg.num_players, where=f"checkpoint {run_dir!r}")
        except ValueError as exc:  # other rules than the run's (a --set left out), a damaged card
            sys.exit(f"--resume: {exc}")
        trained_by = card.get("config", {}).get("learner", "sb3")
        if trained_by != cfg.learner:
            sys.exit(f"--resume: {run_dir} was trained with learner: {trained_by}, the config says {cfg.learner}")
        trained_critic = card.get("config", {}).get("critic", "obs")
        if trained_critic != cfg.critic:
            sys.exit(f"--resume: {run_dir} was trained with critic: {trained_critic}, the config says {cfg.critic}")
        try:  # a run trained with an option removed since (a card recording it off resumes)
            configs.check_removed_in_card(card.get("config", {}), run_dir)
        except ValueError as exc:
            sys.exit(f"--resume: {exc}")
        wall_before, evaluation = float(card.get("wall_time_s", 0.0)), card.get("evaluation", {})
        seed = cfg.seed + int(card.get("total_steps", 0))  # new games, not a replay of the first ones
    else:
        seed = cfg.seed
    venv = make_vec_env(make_env, n_envs=cfg.n_envs, seed=seed, vec_env_cls=vec_cls)

    # --- the model ---
    if args.resume:
        model, _ = load_model(run_dir, rules, cfg.num_players, env=venv)  # our own run: trusted
        print(f"resumed at {model.num_timesteps} steps ({wall_before:.0f} s of training so far)")
        stop.saved(model.num_timesteps)
    else:
        activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.activation]
        policy_kwargs = {"net_arch": list(cfg.net_arch), "activation_fn": activation}
        if cfg.critic == "state":  # the policy on ObsFeatures, the value net on CriticFeatures
            policy, policy_kwargs["num_players"] = AsymmetricPolicy, cfg.num_players
        else:
            policy = "MlpPolicy"
            if cfg.obs_features:
                policy_kwargs.update(features_extractor_class=ObsFeatures,
                                     features_extractor_kwargs={"num_players": cfg.num_players})
        model = MaskablePPO(
            policy, venv, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
            batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
            gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range, ent_coef=cfg.ent_coef,
            vf_coef=cfg.vf_coef, max_grad_norm=cfg.max_grad_norm, target_kl=cfg.target_kl,
            policy_kwargs=policy_kwargs,
            seed=cfg.seed, device="cpu", verbose=0)
    model.set_logger(configure(os.path.join(log_dir, "tb"), ["tensorboard"]))

    # --- a checkpoint's policy as the start (a new run only): the actor's weights, exactly ---
    started_from = card.get("started_from") if args.resume else None  # kept in the card
    if initial is not None:
        started_from, tensors = initial
        set_actor(model, tensors, cfg.num_players)
        print(configs.started_from_line(started_from))

    # --- behaviour cloning warm start (a new run only; only the critic after init_checkpoint) ---
    if cfg.imitate_decisions and not args.resume:
        began = time.time()
        print(configs.imitation_start_line(cfg.imitate_decisions, cfg.imitate_teacher, cfg.imitate_epochs,
                                            cfg.imitate_cache, cfg.imitate_dataset), flush=True)
        demos, loaded = demonstrations(rules, cfg.num_players, cfg.imitate_decisions, seed=cfg.seed,
                                       teacher=cfg.imitate_teacher, critic_state=cfg.critic == "state",
                                       workers=cfg.imitate_workers, cache=cfg.imitate_cache, progress=True,
                                       dataset=cfg.imitate_dataset)
        fit = imitate(model, demos, epochs=cfg.imitate_epochs, learning_rate=cfg.imitate_learning_rate,
                      seed=cfg.seed, fit_actor=initial is None, progress=True)
        wall_before += time.time() - began  # part of the run's wall time
        for key, value in fit.items():
            model.logger.record(f"imitation/{key}", value)
        print(imitation_summary(demos, cfg.imitate_teacher, fit, time.time() - began,
                                (cfg.imitate_dataset or cfg.imitate_cache) if loaded else None,
                                fit_actor=initial is None))
        del demos  # gigabytes at 400k decisions: not kept through PPO
    rollout = cfg.n_steps * cfg.n_envs

    snapshots = sync_outputs(eval_csv, snap_dir, model.num_timesteps)

    def card_for(steps: int, wall: float) -> dict:
        return ckpt.make_card(rules=rules, num_players=cfg.num_players, total_steps=steps,
                              wall_time_s=wall, evaluation=evaluation, config=dataclasses.asdict(cfg),
                              extra={"run": args.run, run_dirs.OVERRIDES_KEY: overrides,
                                     **({"started_from": started_from} if started_from else {})})

    def run_eval(games: int, steps: int, wall: float, final: bool = False) -> None:
        """Every eval opponent: the in-memory policy (or, at the end, the saved checkpoint)."""
        if final:  # the checkpoint as users load it, in worker processes
            me, workers = f"checkpoint:{run_dir}", cfg.eval_workers
        else:
            me, workers = PolicyAgent(masked_policy(model, cfg.num_players), rules,
                                      cfg.num_players, name=args.run), 1
        rows, results = evaluation_rows(cfg, me, rules, games, steps, wall, workers)
        with stop.protected():  # all results of this evaluation at once (one cut short leaves
            earlier = [r for r in read_eval_rows(eval_csv) if int(r["steps"]) != steps]  # none);
            write_eval_rows(eval_csv, earlier + rows)  # they replace earlier rows of the same step
            evaluation.update(results)
        for opponent, r in results.items():
            model.logger.record(f"eval/win_rate_{opponent}", r["win_rate"])
        model.logger.dump(steps)

    if (cfg.imitate_decisions or initial is not None) and not args.resume:  # the curve starts there
        run_eval(cfg.eval_games, model.num_timesteps, wall_before)
        print("imitation: " + "  ".join(f"vs {o} {evaluation[o]['win_rate']:.3f}" for o in cfg.eval_opponents))

    # --- the training loop: one rollout + update per iteration ---
    start_time, start_steps = time.time(), model.num_timesteps
    time_limit = cfg.time_limit_min * 60 if cfg.time_limit_min else math.inf

    def wall() -> float:
        return wall_before + time.time() - start_time

    def progress() -> float:
        return min(1.0, max(model.num_timesteps / cfg.total_steps, wall() / time_limit))

    next_snapshot = (model.num_timesteps // cfg.snapshot_every + 1) * cfg.snapshot_every
    next_eval = (model.num_timesteps // cfg.eval_every + 1) * cfg.eval_every
    next_ckpt = (model.num_timesteps // cfg.checkpoint_every + 1) * cfg.checkpoint_every
    pool = None
    bar = tqdm(total=cfg.total_steps, initial=model.num_timesteps, unit="step", smoothing=0.05,
               disable=args.no_progress, dynamic_ncols=True, file=progress_file(sys.stderr),
               mininterval=0.5 if sys.stderr.isatty() else 60)  # a log file gets a line a minute
    play_stats = PlayStats()
    callback = [ProgressBar(bar), play_stats, StopCallback(stop)]
    stop.defer()  # from here a first signal ends the loop at the next env step, with a checkpoint
    while progress() < 1.0:
        step, frac = model.num_timesteps, progress()
        # schedules (linear anneals) and the league's mixture, applied per rollout
        if cfg.learning_rate_final is not None:
            model.lr_schedule = ConstantSchedule(
                cfg.learning_rate + frac * (cfg.learning_rate_final - cfg.learning_rate))
        if cfg.ent_coef_final is not None:
            model.ent_coef = cfg.ent_coef + frac * (cfg.ent_coef_final - cfg.ent_coef)
        new_pool = league_pool(cfg, step, snapshots, frac)
        if new_pool != pool:
            pool = new_pool
            venv.env_method("set_opponent_pool", pool)
        model.learn(rollout, reset_num_timesteps=False, callback=callback, progress_bar=False)
        step = model.num_timesteps
        done = progress() >= 1.0
        if step >= next_snapshot and not done and not stop.requested:
            path = os.path.join(snap_dir, f"step_{step:010d}")
            with stop.protected():
                save_checkpoint(model, path, card_for(step, wall()), resumable=False)
                snapshots.append(path)
                for old in snapshots[:-cfg.snapshot_keep]:
                    shutil.rmtree(old, ignore_errors=True)
                snapshots = snapshots[-cfg.snapshot_keep:]
            next_snapshot = (step // cfg.snapshot_every + 1) * cfg.snapshot_every
        if step >= next_eval and not done and not stop.requested:
            with stop.dropped():  # a signal drops the evaluation whole (its rows are written at its end)
                run_eval(cfg.eval_games, step, wall())
                summary = "  ".join(f"vs {o} {evaluation[o]['win_rate']:.3f}" for o in cfg.eval_opponents)
                sps = (step - start_steps) / max(1e-9, time.time() - start_time)
                bar.write(configs.eval_progress_line(step, wall(), sps, summary))
                bar.write(f"  last rollout: {play_stats.summary()}")
                next_eval = (step // cfg.eval_every + 1) * cfg.eval_every
        if step >= next_ckpt or done or stop.requested:
            with stop.protected():
                save_checkpoint(model, run_dir, card_for(step, wall()))
            stop.saved(step)
            next_ckpt = (step // cfg.checkpoint_every + 1) * cfg.checkpoint_every
        if stop.requested:
            break
    bar.close()
    if stop.requested:  # saved above, at the step the signal stopped the loop
        venv.close()
        stop.exit_saved(run_dir)
    stop.at_once()  # the final evaluation: the checkpoint of the last step is saved
    trained_wall = wall()
    sps = (model.num_timesteps - start_steps) / max(1e-9, time.time() - start_time)
    print(configs.trained_line(model.num_timesteps, trained_wall, sps))

    # --- final evaluation, card, curve, table ---
    venv.close()
    run_eval(cfg.final_eval_games, model.num_timesteps, trained_wall, final=True)
    with stop.protected():
        save_checkpoint(model, run_dir, card_for(model.num_timesteps, trained_wall))
    write_curve(eval_csv, os.path.join(run_dir, "curve.png"), f"{args.run}: {rules.name}, "
                f"{cfg.num_players} players")
    print_table(args.run, evaluation, cfg.eval_opponents)
    return evaluation


# ---------------------------------------------------------------------- learner: batched
ADDED_KEY = "learning_added"
"""the card's record of the final agent against its start on the same deals (learner: batched)"""


def batched_play_line(r: lean_ppo.Rollout, won: int, games: int) -> str:
    """The last rollout's play, as :meth:`PlayStats.summary` says it for learner: sb3."""
    draw = r.actions == A.DRAW
    playable = r.masks[:, :, :A.PLAY_END].any(axis=2)
    cut = int(((r.dones > 0) & (r.rewards == 0)).sum())
    line = (f"draws {draw.mean():.0%} of decisions ({(draw & playable).sum() / max(1, playable.sum()):.0%} "
            f"when it could play), {games} games: won {won / max(1, games):.0%}, truncated {cut / max(1, games):.1%}")
    if (draw & playable).sum() >= STALL_DRAW_SHARE * max(1, playable.sum()) or cut >= STALL_TRUNCATED_SHARE * max(1, games):
        line += "  WARNING: the policy may be stalling (drawing instead of playing)"
    return line


def train_batched(args: argparse.Namespace, cfg: Config, rules, initial, dirs: run_dirs.RunDirs,
                  overrides: dict, stop: StopSignals) -> dict:
    """``learner: batched``: the run of :func:`train` (imitation, league, evaluations, card,
    signals, ``--resume``) with the lean PPO (:mod:`uno_env.learn.lean_ppo`) on ``n_envs``
    games of the batched engine, the league inside the batch
    (:mod:`uno_env.learn.batched_league`). Its resumable state is
    ``checkpoints/<run>/learner.safetensors`` (no pickle); its starting policy is kept in
    ``runs/<run>/start/``, and the final table adds what the training added to it: the final
    agent and the start on the same deals against ``heuristic`` (paired, 95% interval)."""
    from stable_baselines3.common.logger import configure as configure_logger

    from uno_env.agents.policy import MaskedPolicy
    from uno_env.learn.imitation import fit_policy
    from uno_env.tools.evaluate import evaluate_paired

    run_dir, log_dir = dirs.run_dir, dirs.log_dir
    snap_dir, start_dir = os.path.join(log_dir, "snapshots"), os.path.join(log_dir, "start")
    eval_csv = os.path.join(run_dir, "eval.csv")
    os.makedirs(snap_dir, exist_ok=True)
    print(f"uno_env {uno_env.__version__}: run {args.run!r} -> {run_dir}/, logs {log_dir}/")
    print("\n".join(configs.config_lines(dataclasses.asdict(cfg))))
    torch.set_num_threads(cfg.torch_threads)
    lean_ppo.limit_blas_threads()  # the snapshot opponents' numpy MLP: 1 BLAS thread is ~4x faster

    learner = lean_ppo.Learner(list(cfg.net_arch), cfg.activation, cfg.policy_input, cfg.num_players,
                               seed=cfg.seed, learning_rate=cfg.learning_rate, device=cfg.device)
    wall_before, evaluation, started_from = 0.0, {}, None
    if args.resume:
        try:
            card = ckpt.load_card(run_dir, require_policy=False)
            ckpt.check_card(card, rules, cfg.num_players, where=f"checkpoint {run_dir!r}")
            trained_by = card.get("config", {}).get("learner", "sb3")
            if trained_by != "batched":
                raise ValueError(f"{run_dir} was trained with learner: {trained_by}, the config says batched")
            learner.load_state(run_dir)
        except ValueError as exc:
            sys.exit(f"--resume: {exc}")
        wall_before, evaluation = float(card.get("wall_time_s", 0.0)), card.get("evaluation", {})
        started_from = card.get("started_from")
        print(f"resumed at {learner.steps} steps ({wall_before:.0f} s of training so far)")
        stop.saved(learner.steps)
    logger = configure_logger(os.path.join(log_dir, "tb"), ["tensorboard"])

    if initial is not None:  # a checkpoint's policy as the start (a new run only)
        started_from, tensors = initial
        learner.set_actor(tensors)
        print(configs.started_from_line(started_from))
    if cfg.imitate_decisions and not args.resume:  # behaviour cloning (the critic alone after init_checkpoint)
        began = time.time()
        print(configs.imitation_start_line(cfg.imitate_decisions, cfg.imitate_teacher, cfg.imitate_epochs,
                                            cfg.imitate_cache, cfg.imitate_dataset), flush=True)
        demos, loaded = demonstrations(rules, cfg.num_players, cfg.imitate_decisions, seed=cfg.seed,
                                       teacher=cfg.imitate_teacher, critic_state=False,
                                       workers=cfg.imitate_workers, cache=cfg.imitate_cache, progress=True,
                                       dataset=cfg.imitate_dataset)
        x = learner.features(demos.observations)

        def log_prob_and_value(rows, masks, actions):
            logits, values = learner.net(rows.to(learner.device))
            log_probs = lean_ppo.masked_log_probs(logits, masks.to(learner.device))
            return log_probs.gather(1, actions[:, None].to(learner.device)).squeeze(1).cpu(), values.cpu()

        def greedy(rows, masks):
            logits = learner.net.actor(rows.to(learner.device))
            return logits.masked_fill(~masks.to(learner.device), lean_ppo.MASKED_LOGIT).argmax(1).cpu()

        params = learner.net.parameters() if initial is None else learner.net.critic.parameters()
        fit = fit_policy(params, log_prob_and_value, greedy, x, demos, epochs=cfg.imitate_epochs,
                         learning_rate=cfg.imitate_learning_rate, seed=cfg.seed, fit_actor=initial is None,
                         progress=True)
        wall_before += time.time() - began
        for key, value in fit.items():
            logger.record(f"imitation/{key}", value)
        print(imitation_summary(demos, cfg.imitate_teacher, fit, time.time() - began,
                                (cfg.imitate_dataset or cfg.imitate_cache) if loaded else None,
                                fit_actor=initial is None))
        del demos, x

    snapshots = sync_outputs(eval_csv, snap_dir, learner.steps)
    added: dict = {}  # the final paired comparison with the start (the card's ADDED_KEY)

    def card_for(steps: int, wall: float) -> dict:
        return ckpt.make_card(rules=rules, num_players=cfg.num_players, total_steps=steps,
                              wall_time_s=wall, evaluation=evaluation, config=dataclasses.asdict(cfg),
                              extra={"run": args.run, run_dirs.OVERRIDES_KEY: overrides,
                                     **({"started_from": started_from} if started_from else {}),
                                     **({ADDED_KEY: added} if added else {})})

    def save(directory: str, steps: int, wall: float, resumable: bool = True) -> None:
        description, tensors = learner.actor_tensors()
        os.makedirs(directory, exist_ok=True)
        if resumable:  # the state first, then the weights and the card (which names the weights)
            learner.save_state(directory)
        ckpt.save_policy(directory, dict(card_for(steps, wall), format=ckpt.CARD_FORMAT, policy=description), tensors)

    def run_eval(games: int, steps: int, wall: float, final: bool = False) -> None:
        if final:
            me, workers = f"checkpoint:{run_dir}", cfg.eval_workers
        else:
            me, workers = PolicyAgent(MaskedPolicy(*learner.actor_tensors(), cfg.num_players), rules,
                                      cfg.num_players, name=args.run), 1
        rows, results = evaluation_rows(cfg, me, rules, games, steps, wall, workers)
        with stop.protected():
            earlier = [r for r in read_eval_rows(eval_csv) if int(r["steps"]) != steps]
            write_eval_rows(eval_csv, earlier + rows)
            evaluation.update(results)
        for opponent, r in results.items():
            logger.record(f"eval/win_rate_{opponent}", r["win_rate"])
        logger.dump(steps)

    if not args.resume:  # the start, kept for the final paired comparison (and the curve's first point)
        with stop.protected():
            save(start_dir, 0, wall_before, resumable=False)
        if cfg.imitate_decisions or initial is not None:
            run_eval(cfg.eval_games, learner.steps, wall_before)
            print("start: " + "  ".join(f"vs {o} {evaluation[o]['win_rate']:.3f}" for o in cfg.eval_opponents))

    # --- the games: numba compiles the engine's kernels on first use (cached on disk after) ---
    began = time.time()
    print("batched engine: building (numba compiles its kernels the first time on a machine: "
          "up to ~2 minutes, then cached)", flush=True)
    league = BatchedLeague(rules, cfg.num_players, cfg.n_envs, cfg.league_slices, learner.opponent,
                           cfg.max_learner_steps)
    league.start(["random"] * league.n_slices, cfg.seed)  # the kernels compile on the first deal
    print(f"batched engine: {cfg.n_envs} games in {league.n_slices} slices, ready in {time.time() - began:.0f} s",
          flush=True)
    settings = lean_ppo.Settings(n_epochs=cfg.n_epochs, batch_size=cfg.batch_size, gamma=cfg.gamma,
                                 gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range, vf_coef=cfg.vf_coef,
                                 max_grad_norm=cfg.max_grad_norm, target_kl=cfg.target_kl,
                                 bf16=lean_ppo.use_bf16(cfg.bf16, cfg.device))
    print(lean_ppo.precision_line(cfg.bf16, cfg.device), flush=True)
    rollout = lean_ppo.Rollout(cfg.n_steps, cfg.n_envs, len(learner.keep))

    # --- the training loop: one rollout of n_steps x n_envs decisions + one update per iteration ---
    start_time, start_steps = time.time(), learner.steps
    cpu_start = time.process_time()
    time_limit = cfg.time_limit_min * 60 if cfg.time_limit_min else math.inf

    def wall() -> float:
        return wall_before + time.time() - start_time

    def progress() -> float:
        return min(1.0, max(learner.steps / cfg.total_steps, wall() / time_limit))

    def every(period: int) -> int:
        return (learner.steps // period + 1) * period

    next_snapshot, next_eval, next_ckpt = every(cfg.snapshot_every), every(cfg.eval_every), every(cfg.checkpoint_every)
    league_specs: list[str] | None = None  # None: deal anew at the next rollout
    league_deal: tuple = ()  # (mixture, snapshots) of the last deal: a new deal when either changes
    mixture_line = ""  # the league's mixture as last printed
    split = dict(env=0.0, forward=0.0, update=0.0)
    play_line = ""
    bar = tqdm(total=cfg.total_steps, initial=learner.steps, unit="step", smoothing=0.05,
               disable=args.no_progress, dynamic_ncols=True, file=progress_file(sys.stderr),
               mininterval=0.5 if sys.stderr.isatty() else 60)
    stop.defer()  # from here a first signal ends the loop at the next env step, with a checkpoint
    while progress() < 1.0:
        step, frac = learner.steps, progress()
        lr = cfg.learning_rate if cfg.learning_rate_final is None else \
            cfg.learning_rate + frac * (cfg.learning_rate_final - cfg.learning_rate)
        ent_coef = cfg.ent_coef if cfg.ent_coef_final is None else cfg.ent_coef + frac * (cfg.ent_coef_final - cfg.ent_coef)
        mixture = phase_opponents(cfg, step, frac)
        deal = (tuple(mixture.items()), tuple(snapshots))
        if league_specs is None or deal != league_deal:  # the start, a checkpoint, a new phase or snapshot
            league_specs = slice_opponents(mixture, league.n_slices, snapshots, sample=cfg.snapshot_sample,
                                           draw=step)  # the snapshots drawn for this deal, by its step
            league.start(league_specs, cfg.seed + step)
            league_deal = deal
            if league_line(league_specs, snapshots) != mixture_line:  # the mixture as whole slices, when it changes
                mixture_line = league_line(league_specs, snapshots)
                bar.write("league: " + mixture_line)
        won = games = 0
        for t in range(cfg.n_steps):
            if stop.requested:
                break
            t0 = time.process_time()
            features = learner.features(league.observations)
            rollout.features[t], rollout.masks[t] = features, league.masks
            actions, rollout.log_probs[t], rollout.values[t] = learner.act(features, league.masks)
            rollout.actions[t] = actions
            t1 = time.process_time()
            rollout.rewards[t], rollout.dones[t], won_now = league.step(actions)
            split["forward"] += t1 - t0
            split["env"] += time.process_time() - t1
            won, games = won + int(won_now.sum()), games + int(rollout.dones[t].sum())
        if stop.requested:  # the partial rollout is not learned from
            break
        t0 = time.process_time()
        stats = learner.update(rollout, learner.value(learner.features(league.observations)), settings, lr, ent_coef)
        split["update"] += time.process_time() - t0
        bar.update(min(cfg.n_steps * cfg.n_envs, bar.total - bar.n))
        play_line = batched_play_line(rollout, won, games)
        for key, value in stats.items():
            logger.record(f"train/{key}", value)
        logger.record("play/win_rate", won / max(1, games))
        step = learner.steps
        done = progress() >= 1.0
        if step >= next_snapshot:  # at the end too: a run resumed from here finds it, as this one would
            path = os.path.join(snap_dir, f"step_{step:010d}")
            with stop.protected():
                save(path, step, wall(), resumable=False)
                snapshots.append(path)
                for old in snapshots[:-cfg.snapshot_keep]:
                    shutil.rmtree(old, ignore_errors=True)
                snapshots = snapshots[-cfg.snapshot_keep:]
            next_snapshot = every(cfg.snapshot_every)
        if step >= next_eval and not done and not stop.requested:
            with stop.dropped():
                run_eval(cfg.eval_games, step, wall())
                summary = "  ".join(f"vs {o} {evaluation[o]['win_rate']:.3f}" for o in cfg.eval_opponents)
                cpu = time.process_time() - cpu_start
                parts = ", ".join(f"{k} {v / max(1e-9, sum(split.values())):.0%}" for k, v in split.items())
                bar.write(f"step {step} ({wall() / 60:.1f} min, {(step - start_steps) / max(1e-9, cpu):.0f} "
                          f"steps per CPU-s; {parts}): {summary}")
                bar.write(f"  last rollout: {play_line}")
                next_eval = every(cfg.eval_every)
        if step >= next_ckpt or done:
            with stop.protected():
                save(run_dir, step, wall())
            stop.saved(step)
            next_ckpt = every(cfg.checkpoint_every)
            league_specs = None  # new deals, as a run resumed from this checkpoint deals them
    bar.close()
    if stop.requested:  # a checkpoint of the last update's step (the weights, Adam, the generator)
        with stop.protected():
            save(run_dir, learner.steps, wall())
        stop.saved(learner.steps)
        stop.exit_saved(run_dir)
    stop.at_once()
    trained_wall = wall()
    cpu = time.process_time() - cpu_start
    trained = learner.steps - start_steps
    print(f"trained {learner.steps} steps in {trained_wall:.0f} s of wall time ({trained / max(1e-9, time.time() - start_time):.0f} "
          f"steps/s, {trained / max(1e-9, cpu):.0f} per CPU-s); last rollout: {play_line}")

    # --- final evaluation, what the training added, card, curve, table ---
    with stop.protected():  # the checkpoint the evaluation loads (also when the loop never ran)
        save(run_dir, learner.steps, trained_wall)
    run_eval(cfg.final_eval_games, learner.steps, trained_wall, final=True)
    against = "heuristic" if "heuristic" in cfg.eval_opponents else cfg.eval_opponents[0]
    paired = evaluate_paired([f"checkpoint:{start_dir}", f"checkpoint:{run_dir}"], against, rules,
                             cfg.num_players, games=cfg.final_eval_games, seed=learner.steps,
                             workers=cfg.eval_workers)
    start_row, final_row = paired["specs"]
    added.update(opponent=against, games=paired["games"], start_win_rate=start_row["win_rate"],
                 final_win_rate=final_row["win_rate"], **final_row["difference"])
    with stop.protected():
        save(run_dir, learner.steps, trained_wall)
    write_curve(eval_csv, os.path.join(run_dir, "curve.png"), f"{args.run}: {rules.name}, "
                f"{cfg.num_players} players")
    print_table(args.run, evaluation, cfg.eval_opponents)
    print(added_line(added))
    return evaluation


def added_line(added: dict) -> str:
    """What the training added to its start: the paired difference of the final table."""
    lo, hi = added["ci95"]
    return (f"learning added vs {added['opponent']}: {added['mean'] * 100:+.1f} points "
            f"({added['start_win_rate']:.1%} at the start -> {added['final_win_rate']:.1%}; 95% CI "
            f"{lo * 100:+.1f} to {hi * 100:+.1f}, paired on the same {added['games']} deals)")


def print_table(run: str, evaluation: dict, opponents: list[str]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{run}: greedy policy, seats rotated, duplicate deals")
    for col in ("opponent", "games", "wins", "win rate", "95% CI (Wilson)"):
        table.add_column(col, justify="right")
    for o in opponents:
        r = evaluation[o]
        table.add_row(o, str(r["games"]), str(r["wins"]), report.percent(r["win_rate"]), report.interval(*r["ci95"]))
    Console().print(table)


if __name__ == "__main__":
    main()
