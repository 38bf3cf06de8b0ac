"""A lean PPO in plain torch (CleanRL style): the network, the sampling, the update, and the
learner's whole state for ``--resume``, with no pickle anywhere.

=======================  ======================================================================
:class:`Settings`        PPO's coefficients (the training config's keys of the same names)
:class:`Rollout`         the rollout's buffers, ``(n_steps, n_games, ...)``, allocated once
:class:`Learner`         the actor-critic, its Adam, its torch generator and step counts:
                         :meth:`~Learner.act` (sample a batch of moves), :meth:`~Learner.update`
                         (GAE, then epochs of clipped-surrogate minibatches),
                         :meth:`~Learner.actor_tensors` (the checkpoint's policy),
                         :meth:`~Learner.save_state` / :meth:`~Learner.load_state`
=======================  ======================================================================

**The network** is the shipped agents' (``uno_env.learn.sb3.policy`` with MaskablePPO's
``MlpPolicy``): an actor and a separate critic, each ``input -> net_arch -> `` (tanh or relu),
heads of 195 logits and 1 value, on the ``obs_features`` input (the observation without the
empty opponent slots, counts scaled: 361 entries for 2 players,
:func:`uno_env.agents.checkpoint.obs_features_layout`) or the raw 1537-entry observation.
The actor's weights are saved exactly as ``actor.<i>.weight`` / ``bias`` with the card's
``policy`` description, so ``checkpoint:<dir>`` plays them with numpy
(:class:`uno_env.agents.policy.MaskedPolicy`), and a checkpoint's actor loads into it
(``init_checkpoint``). Initialisation as SB3's: orthogonal, gain sqrt(2) in the hidden layers,
0.01 for the logits, 1 for the value; Adam with eps 1e-5.

**The update** is SB3's MaskablePPO loss: illegal logits masked to -1e8, advantages by GAE
(``gamma``, ``gae_lambda``) normalised per minibatch, the clipped surrogate (``clip_range``),
``vf_coef`` x the squared error of the values (unclipped), ``ent_coef`` x the masked entropy,
gradients clipped to ``max_grad_norm``, and the epochs stopped early when the approximate KL
of a minibatch exceeds 1.5 ``target_kl``. The rollout stores the features the network reads
(361 floats a step, not the 1537 of the observation). ``bf16``: the forward and backward
passes of the update under bfloat16 autocast (the weights and Adam stay float32); the
rollout's sampling stays float32. Only a device with native bfloat16 gains by it
(:func:`native_bf16`; on a CPU without AVX512-BF16 or AMX torch emulates it, several times
slower than float32): a config's ``bf16: auto`` takes it where it is native (:func:`use_bf16`).

**Speed** (the same math, tested against the plain forms in tests/learn/test_lean_ppo.py):
tanh on float32 as ``2 sigmoid(2x) - 1`` (:class:`Tanh`); the policy's probabilities by
``softmax`` rather than ``exp`` of the masked log-probabilities (:func:`masked_policy`: an
``exp`` that underflows is 10x slower on this CPU); each epoch gathers its rows once in the
permutation's order and cuts the minibatches as contiguous slices; with ``bf16`` the rollout's
features are cast once per update; Adam is torch's fused kernel. The actor's and the critic's
first layers as one 361 -> 512 matmul gained nothing measurable (the matmuls run at the same
rate either way), so the two networks stay separate. On one core the update is then bound by
its matmuls (~7.3 MFLOP per sample at 4 epochs, ~90 GFLOP/s in float32, ~200 in bfloat16;
docs/speed.md).

**Determinism.** One torch generator (seeded by the run's seed) draws every sampled move
(the learner's and a self-play opponent's) and every minibatch permutation;
:meth:`Learner.save_state` keeps it with the weights, Adam's moments and the step counts in one
safetensors file (:data:`STATE_FILE`; the counts, format and device in its metadata), so a run
resumed from a periodic checkpoint continues as the run would have (tested). A run stopped by a
signal saves the state after the last update; its generator has also drawn the discarded
partial rollout's moves, so from there it continues as a run of its own (as train.py says).
With ``bf16`` the rollout's log-probabilities are float32 and the update's bfloat16: the first
minibatch's ratio is 1 within bfloat16's rounding (mean |log-ratio| 0.002-0.01, approximate KL
~2e-4), well inside the clip range.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import torch
import torch.nn as nn

from uno_env import _atomic, _files
from uno_env.agents import checkpoint as ckpt
from uno_env.game.actions import NUM_ACTIONS
from uno_env.game.observation import OBS_SIZE

STATE_FILE = "learner.safetensors"
"""a run's resumable state: weights, Adam, the generator, the step counts"""
STATE_FORMAT = "1"
MAX_STATE_BYTES = 1 << 30  # a learner state read back (1 GiB: a 8192-wide network's weights and Adam)
MASKED_LOGIT = -1e8  # an illegal action's logit (as sb3-contrib's MaskableCategorical)
ADAM_EPS = 1e-5  # as SB3's PPO


class _SigmoidTanh(torch.autograd.Function):
    """tanh as ``2 sigmoid(2x) - 1`` (float32; torch's own tanh took twice as long on this
    machine's CPU), its gradient ``g (1 - y^2)`` from the output as torch's."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        y = torch.sigmoid(x * 2).mul_(2).sub_(1)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        (y,) = ctx.saved_tensors
        return torch.ops.aten.tanh_backward(grad, y)


class Tanh(nn.Module):
    """``nn.Tanh`` with :class:`_SigmoidTanh` on float32 (within ~1e-7 of ``torch.tanh``);
    other dtypes (bfloat16 under autocast, where ``2 sigmoid(2x) - 1`` would lose the small
    values) use ``torch.tanh``."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _SigmoidTanh.apply(x) if x.dtype == torch.float32 else torch.tanh(x)


ACTIVATIONS = {"tanh": Tanh, "relu": nn.ReLU}


def limit_blas_threads(threads: int = 1) -> None:
    """numpy's BLAS on ``threads`` threads for the rest of the process (threadpoolctl, where
    installed): the batched snapshot opponents (a numpy MLP over a slice of games) ran 3-4x
    slower with OpenBLAS's 2 threads on a busy 2-core machine (docs/speed.md)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - then OPENBLAS_NUM_THREADS=1 does it
        return
    threadpool_limits(limits=threads, user_api="blas")


@dataclass
class Settings:
    """PPO's coefficients, as the training config names them."""

    n_epochs: int = 4
    batch_size: int = 1024
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    bf16: bool = False


def adam(params: Any, learning_rate: float) -> torch.optim.Adam:
    """SB3's Adam (eps 1e-5), torch's fused kernel (the same update, a third of the time of
    the per-tensor loop on this machine's CPU)."""
    return torch.optim.Adam(params, lr=learning_rate, eps=ADAM_EPS, fused=True)


def native_bf16(device: str = "cpu") -> bool:
    """Whether ``device`` computes bfloat16 matmuls natively: a GPU that torch says supports
    bfloat16; a CPU with AVX512-BF16 or AMX (torch's own checks). Elsewhere torch emulates
    bfloat16 and the update runs several times slower than in float32 (an AMD EPYC with AVX2
    only: docs/speed.md)."""
    if torch.device(device).type == "cuda":
        return torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")  # torch.cpu's, private: absent is False
    return any(getattr(torch.cpu, name, lambda: False)() for name in checks)


def use_bf16(bf16: bool | str, device: str = "cpu") -> bool:
    """The config's ``bf16`` as the update runs it: ``auto`` is bfloat16 where :func:`native_bf16`,
    float32 elsewhere; ``true`` and ``false`` are taken as said."""
    return native_bf16(device) if bf16 == "auto" else bool(bf16)


def precision_line(bf16: bool | str, device: str = "cpu") -> str:
    """The line a run prints about the update's precision, naming why under ``auto`` and warning
    when ``true`` asks for bfloat16 that the device only emulates."""
    native = native_bf16(device)
    gpu = torch.device(device).type == "cuda"
    where = ("this GPU" if gpu else "this CPU") + (" computes bfloat16 natively" if native else
        " has no native bfloat16" + ("" if gpu else ": neither AVX512-BF16 nor AMX"))
    if bf16 == "auto":
        return f"update precision: {'bfloat16 autocast' if native else 'float32'} (bf16: auto; {where})"
    if bf16 and not native:
        return (f"update precision: bfloat16 autocast, emulated ({where}), several times slower than "
                f"float32; bf16: auto or false trains faster here")
    return f"update precision: {'bfloat16 autocast' if bf16 else 'float32'} (bf16: {str(bool(bf16)).lower()})"


def input_layout(input_kind: str, num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """``(keep, scale)``: the network reads ``observation[keep] * scale``."""
    if input_kind == "obs_features":
        return ckpt.obs_features_layout(num_players)
    return np.arange(OBS_SIZE), np.ones(OBS_SIZE, np.float32)


def mlp(sizes: list[int], activation: type, out_gain: float, generator: torch.Generator) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        linear = nn.Linear(a, b)
        last = i == len(sizes) - 2
        nn.init.orthogonal_(linear.weight, out_gain if last else math.sqrt(2), generator=generator)
        nn.init.zeros_(linear.bias)
        layers += [linear] if last else [linear, activation()]
    return nn.Sequential(*layers)


class ActorCritic(nn.Module):
    """The actor (``input -> net_arch -> 195`` logits) and the critic (``-> 1``), separate."""

    def __init__(self, n_in: int, net_arch: list[int], activation: str, seed: int = 0):
        super().__init__()
        act, generator = ACTIVATIONS[activation], torch.Generator().manual_seed(seed)
        self.actor = mlp([n_in, *net_arch, NUM_ACTIONS], act, 0.01, generator)
        self.critic = mlp([n_in, *net_arch, 1], act, 1.0, generator)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.actor(x), self.critic(x).squeeze(-1)


def masked_log_probs(logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(logits.float().masked_fill(~masks, MASKED_LOGIT), dim=-1)


def masked_policy(logits: torch.Tensor, illegal: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(log-probabilities, probabilities)`` of the logits with the ``illegal`` actions masked
    to :data:`MASKED_LOGIT`. The probabilities come from ``softmax``, not ``exp`` of the
    log-probabilities: ``exp`` of the masked entries' -1e8 (an underflow to 0) took 10x the
    time of an ordinary ``exp`` on this machine's CPU (the same values within 1e-7)."""
    masked = logits.float().masked_fill(illegal, MASKED_LOGIT)
    return torch.log_softmax(masked, dim=-1), torch.softmax(masked, dim=-1)


class Rollout:
    """A rollout's buffers, ``(n_steps, n_games, ...)``, allocated once and filled in place."""

    def __init__(self, n_steps: int, n_games: int, n_features: int):
        T, N = n_steps, n_games
        self.features = np.zeros((T, N, n_features), np.float32)
        self.masks = np.zeros((T, N, NUM_ACTIONS), bool)
        self.actions = np.zeros((T, N), np.int64)
        self.log_probs = np.zeros((T, N), np.float32)
        self.values = np.zeros((T, N), np.float32)
        self.rewards = np.zeros((T, N), np.float32)
        self.dones = np.zeros((T, N), np.float32)  # the game ended at this step (won, lost, cut)


class Learner:
    """The actor-critic being trained, its optimizer, its generator and step counts."""

    def __init__(self, net_arch: list[int], activation: str, input_kind: str, num_players: int,
                 seed: int = 0, learning_rate: float = 3e-4, device: str = "cpu"):
        self.net_arch, self.activation = list(net_arch), activation
        self.input_kind, self.num_players = input_kind, num_players
        self.device = torch.device(device)
        self.keep, self.scale = input_layout(input_kind, num_players)
        self.net = ActorCritic(len(self.keep), self.net_arch, activation, seed).to(self.device)
        self.optimizer = adam(self.net.parameters(), learning_rate)
        self.generator = torch.Generator(self.device).manual_seed(seed)
        self.steps = 0  # learner decisions trained on
        self.updates = 0

    # ------------------------------------------------------------------ acting
    def features(self, observations: np.ndarray) -> np.ndarray:
        """The network's input rows of observations ``(B, 1537)``."""
        return observations[:, self.keep] * self.scale

    @torch.no_grad()
    def act(self, features: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(actions, log-probabilities, values)`` of a batch: moves sampled from the masked
        policy with the learner's generator."""
        x = torch.as_tensor(features, device=self.device)
        m = torch.as_tensor(masks, device=self.device)
        logits, values = self.net(x)
        log_probs, probs = masked_policy(logits, ~m)
        actions = torch.multinomial(probs, 1, generator=self.generator).squeeze(1)
        chosen = log_probs.gather(1, actions[:, None]).squeeze(1)
        return actions.cpu().numpy(), chosen.cpu().numpy(), values.float().cpu().numpy()

    @torch.no_grad()
    def value(self, features: np.ndarray) -> np.ndarray:
        return self.net.critic(torch.as_tensor(features, device=self.device)).squeeze(-1).float().cpu().numpy()

    def opponent(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Self-play: the current weights as a vector-env opponent (sampled moves)."""
        return self.act(self.features(observations), masks.astype(bool))[0]

    # ------------------------------------------------------------------ learning
    def update(self, r: Rollout, last_values: np.ndarray, s: Settings, learning_rate: float,
               ent_coef: float) -> dict[str, float]:
        """One PPO update on the rollout ``r`` (``last_values``: the critic's values of the
        states after its last step). Returns the mean losses, the approximate KL and the
        clipped share of the last epoch."""
        T, N = r.rewards.shape
        advantages = np.zeros((T, N), np.float32)  # GAE, backwards
        gae = np.zeros(N, np.float32)
        for t in reversed(range(T)):
            next_values = last_values if t == T - 1 else r.values[t + 1]
            alive = 1.0 - r.dones[t]
            delta = r.rewards[t] + s.gamma * next_values * alive - r.values[t]
            gae = delta + s.gamma * s.gae_lambda * alive * gae
            advantages[t] = gae
        returns = advantages + r.values

        dev = self.device
        x = torch.as_tensor(r.features.reshape(T * N, -1), device=dev)
        if s.bf16:  # autocast casts the input to bfloat16 at the first matmul anyway: once here
            x = x.to(torch.bfloat16)
        illegal = ~torch.as_tensor(r.masks.reshape(T * N, -1), device=dev)
        actions = torch.as_tensor(r.actions.reshape(-1), device=dev)
        old_log_probs = torch.as_tensor(r.log_probs.reshape(-1), device=dev)
        adv_all = torch.as_tensor(advantages.reshape(-1), device=dev)
        ret_all = torch.as_tensor(returns.reshape(-1), device=dev)
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate
        autocast = torch.autocast(dev.type, dtype=torch.bfloat16, enabled=s.bf16)
        stats: dict[str, float] = {}
        for _ in range(s.n_epochs):
            sums = dict(policy_loss=0.0, value_loss=0.0, entropy=0.0, approx_kl=0.0, clip_fraction=0.0)
            order = torch.randperm(T * N, generator=self.generator, device=dev)
            # the epoch's rows in its order, once: each minibatch is then a contiguous slice
            # (the previous epoch's copy freed first: one copy at a time, machine.batched_step_bytes)
            epoch: list[torch.Tensor] = []
            rows = illegal_b = actions_b = old_b = adv = ret = None  # the last minibatch's views of it too
            epoch = [t[order] for t in (x, illegal, actions, old_log_probs, adv_all, ret_all)]
            starts = range(0, T * N, s.batch_size)
            stop, applied = False, 0
            for start in starts:
                rows, illegal_b, actions_b, old_b, adv, ret = (t[start:start + s.batch_size] for t in epoch)
                with autocast:
                    logits, values = self.net(rows)
                log_probs, probs = masked_policy(logits, illegal_b)
                new = log_probs.gather(1, actions_b[:, None]).squeeze(1)
                entropy = -(probs * log_probs).sum(1).mean()
                if len(adv) > 1:
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                log_ratio = new - old_b
                ratio = log_ratio.exp()
                policy_loss = -torch.min(adv * ratio, adv * ratio.clamp(1 - s.clip_range, 1 + s.clip_range)).mean()
                value_loss = ((ret - values.float()) ** 2).mean()
                loss = policy_loss + s.vf_coef * value_loss - ent_coef * entropy
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - log_ratio).mean().item()
                if s.target_kl is not None and approx_kl > 1.5 * s.target_kl:
                    stop = True  # as SB3: this minibatch and the rest of the update are skipped
                    break
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                nn.utils.clip_grad_norm_(self.net.parameters(), s.max_grad_norm)
                self.optimizer.step()
                for key, value in (("policy_loss", policy_loss.item()), ("value_loss", value_loss.item()),
                                   ("entropy", entropy.item()), ("approx_kl", approx_kl),
                                   ("clip_fraction", ((ratio - 1).abs() > s.clip_range).float().mean().item())):
                    sums[key] += value
                applied += 1
            if applied:  # the means over the minibatches applied (an epoch stopped at once keeps the last)
                stats = {key: value / applied for key, value in sums.items()}
            if stop:
                break
        self.steps += T * N
        self.updates += 1
        return stats

    # ------------------------------------------------------------------ the checkpoint's policy
    def policy_description(self) -> dict[str, Any]:
        return ckpt.policy_spec(self.net_arch, self.activation, self.input_kind, self.num_players)

    def actor_tensors(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """``(policy description, tensors)`` as a checkpoint card and its weights hold them."""
        linears = [m for m in self.net.actor if isinstance(m, nn.Linear)]
        tensors = {}
        for i, m in enumerate(linears):
            tensors[f"actor.{i}.weight"] = m.weight.detach().float().cpu().numpy().copy()
            tensors[f"actor.{i}.bias"] = m.bias.detach().float().cpu().numpy().copy()
        return self.policy_description(), tensors

    def set_actor(self, tensors: Mapping[str, np.ndarray]) -> None:
        """A checkpoint's actor tensors into the actor (``ValueError`` naming those that do not fit)."""
        _, current = self.actor_tensors()
        wrong = sorted(k for k in current.keys() | tensors.keys()
                       if k not in current or k not in tensors or np.shape(tensors[k]) != current[k].shape)
        if wrong:
            raise ValueError(f"the checkpoint's actor does not fit the learner's: tensors {wrong}")
        linears = [m for m in self.net.actor if isinstance(m, nn.Linear)]
        with torch.no_grad():
            for i, m in enumerate(linears):
                m.weight.copy_(torch.as_tensor(np.asarray(tensors[f"actor.{i}.weight"])))
                m.bias.copy_(torch.as_tensor(np.asarray(tensors[f"actor.{i}.bias"])))

    # ------------------------------------------------------------------ resume
    def save_state(self, directory: str) -> None:
        """:data:`STATE_FILE` in ``directory`` (atomically): the network, Adam's state, the
        generator, and in the metadata the step counts and the network's shape."""
        from safetensors.numpy import save

        tensors = {f"net.{k}": v.detach().cpu().numpy() for k, v in self.net.state_dict().items()}
        params = list(self.net.parameters())
        for i, p in enumerate(params):
            st = self.optimizer.state.get(p)
            if st:
                tensors[f"adam.{i}.exp_avg"] = st["exp_avg"].cpu().numpy()
                tensors[f"adam.{i}.exp_avg_sq"] = st["exp_avg_sq"].cpu().numpy()
                tensors[f"adam.{i}.step"] = np.asarray([float(st["step"])], np.float64)
        tensors["generator"] = self.generator.get_state().numpy()
        meta = {"format": STATE_FORMAT, "steps": str(self.steps), "updates": str(self.updates),
                "net_arch": ",".join(map(str, self.net_arch)), "activation": self.activation,
                "input": self.input_kind, "num_players": str(self.num_players), "device": self.device.type}
        with _atomic.atomic_write(os.path.join(directory, STATE_FILE), "wb") as fh:
            fh.write(save(tensors, metadata=meta))

    def load_state(self, directory: str) -> None:
        """The state :meth:`save_state` wrote; ``ValueError`` naming the file if it is not a
        learner state of this network (read with bounds; safetensors never runs code)."""
        import json

        from safetensors.numpy import load

        path = os.path.join(directory, STATE_FILE)
        data = _files.read_bounded_bytes(path, MAX_STATE_BYTES, "learner state")
        try:
            header_len = int.from_bytes(data[:8], "little")
            meta = json.loads(data[8:8 + header_len]).get("__metadata__") or {}
            tensors = load(data)
        except Exception as exc:  # safetensors' own errors, a truncated file, bad JSON
            raise ValueError(f"{path}: not a learner state ({type(exc).__name__}: {exc})") from None
        want = {"format": STATE_FORMAT, "net_arch": ",".join(map(str, self.net_arch)),
                "activation": self.activation, "input": self.input_kind, "num_players": str(self.num_players)}
        wrong = {k: meta.get(k) for k, v in want.items() if meta.get(k) != v}
        if wrong:
            raise ValueError(f"{path}: a learner state of another network or format ({wrong}; this run: "
                             f"{ {k: want[k] for k in wrong} })")
        saved_on = meta.get("device")  # None: a state of before the key (its generator's size tells)
        if saved_on is not None and saved_on != self.device.type:
            raise ValueError(f"{path}: a learner state saved on device {saved_on!r} (its generator's state is "
                             f"that device's); this run is on {self.device.type!r}: resume with "
                             f"--set device={saved_on}")
        own = self.net.state_dict()
        missing = [k for k in own if f"net.{k}" not in tensors or tensors[f"net.{k}"].shape != tuple(own[k].shape)]
        for i, p in enumerate(self.net.parameters()):  # Adam's moments: all three or none, each of its shape
            keys = [f"adam.{i}.exp_avg", f"adam.{i}.exp_avg_sq", f"adam.{i}.step"]
            present = [k in tensors for k in keys]
            if any(present) and not (all(present) and tensors[keys[0]].shape == tuple(p.shape)
                                     and tensors[keys[1]].shape == tuple(p.shape) and tensors[keys[2]].shape == (1,)):
                missing.append(f"adam.{i}")
        generator = tensors.get("generator")
        if generator is None or generator.dtype != np.uint8 or generator.shape != tuple(self.generator.get_state().shape):
            missing.append("generator" if saved_on is not None else
                           f"generator (not a {self.device.type} generator's: a state saved on another device?)")
        if missing:
            raise ValueError(f"{path}: tensors missing or of other shapes: {missing}")
        self.net.load_state_dict({k: torch.as_tensor(tensors[f"net.{k}"]) for k in own})
        self.optimizer.state.clear()
        for i, p in enumerate(self.net.parameters()):
            if f"adam.{i}.exp_avg" in tensors:
                self.optimizer.state[p] = {
                    "step": torch.tensor(float(tensors[f"adam.{i}.step"][0]), device=self.device),
                    "exp_avg": torch.as_tensor(tensors[f"adam.{i}.exp_avg"]).to(self.device),
                    "exp_avg_sq": torch.as_tensor(tensors[f"adam.{i}.exp_avg_sq"]).to(self.device)}
        self.generator.set_state(torch.as_tensor(tensors["generator"]))
        self.steps, self.updates = int(meta.get("steps", 0)), int(meta.get("updates", 0))
