"""What the machine can hold (:mod:`uno_env.learn.machine`): threads beyond the CPUs and memory
beyond the machine are named by their config keys before a run spends anything."""
from __future__ import annotations

import dataclasses
import os

import pytest

from uno_env.learn import machine
from uno_env.learn.configs import TrainingConfig
from helpers import run_bounded


def test_more_torch_threads_than_cpus_are_named(monkeypatch):
    monkeypatch.setattr(machine, "usable_cpus", lambda: 2)
    cfg = TrainingConfig(torch_threads=2, eval_workers=40)  # workers: capped when they play
    machine.check_machine(cfg, "c.yaml", {})
    for key, threads in (("torch_threads", None), ("n_envs", {"n_envs": 3})):
        with pytest.raises(ValueError, match=rf"^c\.yaml: config key '{key}' is 3, more than the 2 CPUs this "
                                             rf"machine lets the run use: at most 2 \(--set {key}=2\)$"):
            machine.check_machine(dataclasses.replace(cfg, torch_threads=3) if threads is None else cfg,
                                  "c.yaml", {}, threads)


def test_memory_beyond_the_machine_is_named_by_its_keys_largest_first(monkeypatch):
    monkeypatch.setattr(machine, "machine_memory", lambda: 8 << 30)
    cfg = TrainingConfig()
    machine.check_machine(cfg, "c.yaml", {"imitate_decisions 1": 6 << 30})  # 75% of 8 GB
    with pytest.raises(ValueError, match=r"^c\.yaml: the config needs about 7\.0 GB of memory, more than 75% of "
                                         r"the 8\.0 GB this machine lets the run use: imitate_decisions 9 "
                                         r"\(6\.0 GB\), net_arch \[1\] \(1\.0 GB\)$"):
        machine.check_machine(cfg, "c.yaml", {"net_arch [1]": 1 << 30, "imitate_decisions 9": 6 << 30, "x": 0})


def test_the_machine_memory_is_the_lowest_of_its_limits():
    memory = machine.machine_memory()
    assert memory is not None and 0 < memory <= os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    child = run_bounded("from uno_env.learn import machine; print(machine.machine_memory())", memory_mb=700)
    assert child.returncode == 0 and int(child.stdout) == 700 << 20  # an address-space limit counts


def test_one_demonstration_is_an_observation_of_1537_float32_and_its_mask_action_and_return():
    assert machine.DECISION_BYTES == 4 * 1537 + 195 + 8 + 4
    cfg = TrainingConfig(imitate_decisions=1000)
    assert machine.demonstration_bytes(cfg, critic_state=False) == 1000 * machine.DECISION_BYTES
    assert machine.demonstration_bytes(dataclasses.replace(cfg, imitate_workers=3), True) == (
        2 * 1000 * (machine.DECISION_BYTES + 4 * 807) + 3 * machine.PROCESS_BYTES)
    assert machine.demonstration_bytes(dataclasses.replace(cfg, imitate_decisions=0, imitate_workers=3), True) == 0


def test_memory_beyond_a_floats_range_is_named_by_its_key_not_an_overflow_error(monkeypatch):
    """YAML reads ``eval_workers: 0xfff...`` (259 hex digits) as an int; times the bytes of a
    worker process it is beyond a float's range: still the error naming the key (found by
    the slow fuzz test of training configs)."""
    monkeypatch.setattr(machine, "machine_memory", lambda: 8 << 30)
    huge = int("f" * 259, 16) * machine.PROCESS_BYTES
    with pytest.raises(ValueError, match=r"^c\.yaml: the config needs about [0-9,]+\.\d TB of memory, .*: "
                                         r"eval_workers 0xfff\.\.\. \([0-9,]+\.\d TB\)$"):
        machine.check_machine(TrainingConfig(), "c.yaml", {"eval_workers 0xfff...": huge})
