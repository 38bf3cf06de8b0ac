"""What a training run asks of its Ray cluster, checked before RLlib builds, and how its env
runners fare while it runs (``training/train_rllib.py``).

=========================  =================================================================
:func:`check_reachable`    a ``HOST:PORT`` address answers (Ray retries a wrong one for minutes)
:func:`cpus_needed`        the CPUs the run's actors reserve, by kind (env runners, learners)
:func:`wait_for_cpus`      returns once the cluster has them free; waits with a message up to
                           a timeout, else :class:`ClusterError` saying what is missing
:func:`runner_health`      ``(healthy, total)`` remote env runners of an algorithm
=========================  =================================================================

Decisions:

* **Why check first.** RLlib creates its env runner actors with ``num_cpus_per_env_runner``
  CPUs each and then waits for them without a timeout: on a cluster with fewer free CPUs
  (a node not started, or lost before a ``--resume``) ``build_algo`` hangs with no message.
  So the script asks Ray (``ray.cluster_resources()``, ``ray.available_resources()``) first.
* **What counts.** ``num_env_runners * num_cpus_per_env_runner`` plus one CPU per learner
  actor (``num_learners`` > 0: RLlib's ``num_cpus_per_learner="auto"`` is 1 on CPUs). The
  driver (the script: it builds the algorithm in its own process, not as a Tune trial)
  reserves no Ray CPU, though it uses one: on a machine of N cores ask for N - 1 runners.
* **Wait or fail.** A local Ray this script started cannot grow: too few CPUs is an error at
  once (naming ``ray_num_cpus``). A cluster can (a node still joining, another job ending):
  the script waits up to ``resources_wait_s`` (0: not at all), saying once what it waits for,
  and then fails naming the CPUs missing, the cluster's total and free CPUs and its nodes.
* **Joining.** ``ray.init(address=...)`` retries an address where nothing listens for minutes,
  silently: :func:`check_reachable` opens a TCP connection first (a few seconds at most) and
  names the address. Ray 2.60's ``ray start`` clusters use token authentication (Ray 2.59
  turned it on for clusters on one machine): a driver or node without ``RAY_AUTH_MODE=token``
  and the head's token is refused after Ray's retries; the script's error says so
  (:data:`AUTH_HINT`).
* **Health** is RLlib's own count (``EnvRunnerGroup.num_healthy_remote_env_runners`` /
  ``num_remote_env_runners``, Ray 2.60): an actor lost with its node is unhealthy until Ray
  restarts it (``restart_failed_env_runners``, RLlib's default), which needs a free CPU
  somewhere; meanwhile the others sample alone. ``None`` when the driver samples itself.
"""

from __future__ import annotations

import socket
import time
from typing import Any, Callable

import ray

AUTH_HINT = (" (a cluster of `ray start` may use token authentication: give this process "
             "RAY_AUTH_MODE=token and the head's token, ~/.ray/auth_token or RAY_AUTH_TOKEN)")


class ClusterError(RuntimeError):
    """The cluster cannot give a run what it needs (the message says what is missing)."""


def check_reachable(address: str, timeout_s: float = 5.0) -> None:
    """:class:`ClusterError` unless a TCP connection to ``address`` (``HOST:PORT``, the GCS of a
    cluster's head) opens within ``timeout_s``; other forms (``auto``, ``ray://...``) pass."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or "/" in address:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ClusterError(f"nothing answers at {address} ({reason}): start the head there with "
                           f"`ray start --head --port {port}`, or give its address") from None


def cpus_needed(num_env_runners: int, num_cpus_per_env_runner: float, num_learners: int) -> dict[str, float]:
    """The CPUs the run's actors reserve, by what reserves them (kinds reserving none left out)."""
    need = {"env runners": float(num_env_runners * num_cpus_per_env_runner),
            "learners": float(num_learners)}
    return {k: v for k, v in need.items() if v > 0}


def _cpus(n: float, what: str = "") -> str:
    """``1 CPU``, ``2 CPUs``, ``0 free CPUs`` ..."""
    return f"{n:g} {what + ' ' if what else ''}CPU{'' if n == 1 else 's'}"


def _describe(need: dict[str, float], config: dict[str, Any]) -> str:
    """``3 CPUs (num_env_runners=3 x num_cpus_per_env_runner=1)`` and the learners', if any."""
    parts = []
    if "env runners" in need:
        parts.append(f"num_env_runners={config['num_env_runners']} x "
                     f"num_cpus_per_env_runner={config['num_cpus_per_env_runner']}")
    if "learners" in need:
        parts.append(f"num_learners={config['num_learners']} x 1")
    return f"{_cpus(sum(need.values()))} ({' + '.join(parts)})"


def _cluster() -> tuple[float, float, int]:
    """(total CPUs, free CPUs, alive nodes)."""
    total = float(ray.cluster_resources().get("CPU", 0.0))
    free = float(ray.available_resources().get("CPU", 0.0))
    nodes = sum(1 for n in ray.nodes() if n.get("Alive"))
    return total, free, nodes


def wait_for_cpus(config: dict[str, Any], timeout_s: float, *, can_grow: bool,
                  say: Callable[[str], None] = print, poll_s: float = 1.0) -> float:
    """Return the seconds waited once the cluster has the free CPUs that ``config``'s actors
    need (``num_env_runners``, ``num_cpus_per_env_runner``, ``num_learners``); else
    :class:`ClusterError` saying what is missing: at once when the cluster cannot grow (a
    local Ray) or ``timeout_s`` is 0, after ``timeout_s`` seconds of waiting otherwise."""
    need = cpus_needed(config["num_env_runners"], config["num_cpus_per_env_runner"],
                       config["num_learners"])
    wanted = sum(need.values())
    began = time.monotonic()
    said = False
    while True:
        total, free, nodes = _cluster()
        if free >= wanted:
            return time.monotonic() - began
        asks = _describe(need, config)
        if not can_grow and total < wanted:
            raise ClusterError(f"the local Ray has {_cpus(total)}, the run needs {asks}: "
                               f"set ray_num_cpus to {wanted:g} or more, or ask for fewer env runners")
        waited = time.monotonic() - began
        state = (f"the cluster has {_cpus(free, 'free')} of {total:g} on {nodes} node{'s' * (nodes != 1)}, "
                 f"the run needs {asks}: {wanted - free:g} missing")
        if waited >= timeout_s:
            after = f" after waiting {waited:.0f} s (resources_wait_s)" if timeout_s > 0 else ""
            raise ClusterError(f"{state}{after}; add a node (ray start --address HEAD:PORT "
                               f"--num-cpus N), let the other jobs end, or ask for fewer env runners")
        if not said:
            say(f"waiting up to {timeout_s:g} s (resources_wait_s) for CPUs: {state}")
            said = True
        time.sleep(min(poll_s, max(0.0, timeout_s - waited)))


def runner_health(algo: Any) -> tuple[int, int] | None:
    """``(healthy, total)`` remote env runners of an RLlib algorithm; None without any (the
    driver samples)."""
    group = getattr(algo, "env_runner_group", None)
    if group is None:
        return None
    total = group.num_remote_env_runners()
    if not total:
        return None
    return group.num_healthy_remote_env_runners(), total
