"""What the machine can hold: a training config checked against this machine's CPUs and memory
before a run spends anything.

=========================  =================================================================
:func:`check_machine`      a config against the machine: ``torch_threads`` and the CPUs, the
                           memory of its arrays (each training script adds up its own, from
                           the per-unit sizes below)
:func:`machine_memory`     the bytes this process may use (physical memory, cgroup, RLIMIT_AS)
:func:`network_parameters` the parameters of an actor and a critic of ``net_arch``
:func:`demonstration_bytes` the demonstrations of ``imitate_decisions`` and their collectors
:data:`DECISION_BYTES`...  the per-unit sizes (a demonstration, a rollout step, a parameter,
                           an env, a worker process)
=========================  =================================================================

The sizes are estimates, to refuse a run that cannot fit, not to tune one; the bounds are in
docs/RELIABILITY.md.
"""

from __future__ import annotations

import os
from decimal import Decimal
from typing import TYPE_CHECKING, Mapping

from uno_env import _files
from uno_env._processes import usable_cpus
from uno_env.game.actions import NUM_ACTIONS
from uno_env.game.global_state import GLOBAL_STATE_SIZE
from uno_env.game.observation import OBS_SIZE

if TYPE_CHECKING:
    from uno_env.learn.configs import TrainingConfig

# The arrays that grow with a config, in bytes (the rest of a run, the interpreter, torch and the
# engines, is ~0.3 GB whatever the config). Estimates, to refuse before anything is spent a run
# that cannot fit, not to tune one.
DECISION_BYTES = 4 * OBS_SIZE + NUM_ACTIONS + 8 + 4
"""one demonstration (imitate_decisions): the observation (1537 float32), the mask (bool), the
action (int64) and the return (float32); a state critic adds STATE_BYTES"""
STATE_BYTES = 4 * GLOBAL_STATE_SIZE
"""the global state of a decision or step (807 float32), kept with critic: state"""
STEP_BYTES = 4 * (OBS_SIZE + NUM_ACTIONS + 8)
"""one step of a rollout: the observation and the mask (float32, as SB3's buffer keeps it) and
eight float32 columns (action, reward, return, value, ...)"""
PARAMETER_BYTES = 16
"""one parameter being trained: the float32 weight, its gradient and Adam's two moments"""
ENV_BYTES = 64 << 10
"""one env in the learner's process (measured: ~51 KB, a classic 2-player UnoGymEnv)"""
PROCESS_BYTES = 256 << 20
"""one worker process (an evaluation or collection worker, a subproc env; measured: 240 MB
resident with torch and Stable-Baselines3 imported)"""
BATCHED_GAME_BYTES = 3 * 4 * OBS_SIZE + (8 << 10)
"""one game of the batched engine in the learner's process: its state (~2 KB measured,
docs/batched.md), a per-game opponent's (a scripted bot) and three observation rows"""


def batched_step_bytes(n_in: int) -> int:
    """one step of the batched learner's rollout (uno_env.learn.lean_ppo.Rollout): the network's
    input (``n_in`` float32), the mask (bool) and six columns, plus the update's copies (the
    illegal actions, and an epoch's rows gathered in its order: the input as float32, or as
    bfloat16 twice with bf16)"""
    return 2 * 4 * n_in + 3 * NUM_ACTIONS + 8 * 8


MEMORY_SHARE = 0.75
"""the share of the machine's memory (:func:`machine_memory`) a config may need"""


def machine_memory() -> int | None:
    """Bytes of memory this process may use: the machine's physical memory, or less where a
    container (cgroup) or ``RLIMIT_AS`` caps it; None where the platform does not tell."""
    try:
        limits = [os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")]
    except (AttributeError, OSError, ValueError):
        return None
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = _files.read_bounded_text(path, 1 << 16, "cgroup limit").strip()
        except (OSError, ValueError):
            continue
        if text.isdigit():
            limits.append(int(text))
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            limits.append(soft)
    except (ImportError, OSError, ValueError):
        pass
    return min(limits)


def network_parameters(net_arch: list[int], n_in: int, critic_in: int | None = None) -> int:
    """Parameters of the actor (``n_in`` -> ``net_arch`` -> the action logits) and the critic
    (``critic_in``, default ``n_in``, -> ``net_arch`` -> 1 value)."""
    def mlp(sizes: list[int]) -> int:
        return sum(a * b + b for a, b in zip(sizes, sizes[1:]))

    return mlp([n_in, *net_arch, NUM_ACTIONS]) + mlp([critic_in or n_in, *net_arch, 1])


def demonstration_bytes(cfg: TrainingConfig, critic_state: bool) -> int:
    """The demonstrations of ``imitate_decisions`` and their collectors: with ``imitate_workers``
    > 1, two copies (each worker's share, then the parent's columns) and the worker processes."""
    if not cfg.imitate_decisions:
        return 0
    per_decision = DECISION_BYTES + (STATE_BYTES if critic_state else 0)
    if cfg.imitate_workers == 1:
        return cfg.imitate_decisions * per_decision
    return 2 * cfg.imitate_decisions * per_decision + cfg.imitate_workers * PROCESS_BYTES


def _size(n: float) -> str:
    """``n`` bytes for a person; exact for any int (a config may ask for workers or decisions
    beyond a float's range: ``n / scale`` would raise OverflowError)."""
    n = Decimal(n)
    for unit, scale in (("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20)):
        if n >= scale:
            return f"{n / scale:,.1f} {unit}"
    return f"{n / (1 << 10):,.1f} KB"


def check_machine(cfg: TrainingConfig, source: str, needs: Mapping[str, int],
                  threads: Mapping[str, int] | None = None) -> None:
    """``ValueError`` naming ``source`` and the keys of ``cfg`` the machine cannot hold, before a
    run spends anything: a key of ``threads`` (by default ``torch_threads``: threads that only
    slow each other down beyond the CPUs) asking for more than the CPUs this process may use
    (:func:`uno_env._processes.usable_cpus`), or the memory ``needs`` (``{"keys of the config":
    bytes}``, all held at once) beyond :data:`MEMORY_SHARE` of :func:`machine_memory`, its parts
    named largest first. Worker processes count in the memory (:data:`PROCESS_BYTES` each);
    more of them than CPUs is no error: ``eval_workers`` are capped at the CPUs when they play
    (:func:`uno_env._processes.pool_size`; the results do not depend on them), and
    ``imitate_workers`` decide the demonstrations' rows, so they run as asked."""
    cpus = usable_cpus()
    threads = {"torch_threads": cfg.torch_threads, **(threads or {})}
    for key, count in threads.items():
        if count > cpus:
            raise ValueError(f"{source}: config key {key!r} is {count}, more than the {cpus} CPUs this "
                             f"machine lets the run use: at most {cpus} (--set {key}={cpus})")
    memory = machine_memory()
    total = sum(needs.values())
    if memory is not None and total > MEMORY_SHARE * memory:
        parts = ", ".join(f"{keys} ({_size(n)})" for keys, n in sorted(needs.items(), key=lambda kv: -kv[1]) if n)
        raise ValueError(f"{source}: the config needs about {_size(total)} of memory, more than "
                         f"{MEMORY_SHARE:.0%} of the {_size(memory)} this machine lets the run use: {parts}")
