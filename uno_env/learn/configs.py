"""Typed, validated YAML configs: one dataclass per concern, every key checked, unknown keys errors.

The training scripts (``training/train.py``: SB3; ``training/train_rllib.py``: RLlib) each keep
their config as a dataclass and a table ``{key: Check}`` next to it; what they share is here
(:class:`TrainingConfig` and its checks :data:`TRAINING_CHECKS`: each script's ``Config``
subclasses it, adds its own keys and may change a default). This module reads and checks them
the same way:

=========================  =================================================================
:class:`TrainingConfig`    the keys of both training scripts; :data:`TRAINING_CHECKS` checks them
:func:`load_config`        a YAML file (+ ``--set`` overrides) -> the dataclass, every key checked
:func:`split_overrides`    ``--set`` values -> (config keys, rule options of ``Rules``)
:class:`Check`             one key's test and its description for the error message;
                           built by :func:`integer`, :func:`real`, :func:`choice`,
                           :func:`boolean`, :func:`layer_sizes`, :func:`specs`, :func:`phases`
:data:`REMOVED_KEYS`       the options that were measured, gave nothing and were removed: a
                           config or ``--set`` that names one is an error saying where the
                           study is written up; a card that records one switched off loads
:func:`league_entries`     the league entries of ``phases`` (weight > 0)
:func:`check_agent_specs`  builds every agent spec of a league or ``eval_opponents`` once, so
                           that a bad one stops a run before it spends anything
:func:`initial_policy`     the checked actor tensors of ``init_checkpoint`` (a run that
                           starts from a checkpoint's policy)
=========================  =================================================================

Decisions:

* Errors are ``ValueError`` naming the source (the file, or ``--set``) and the key, with the
  value shown short (``bad.yaml: config key 'total_steps' must be an integer >= 1, got 'abc'``);
  a script turns them into one line and exit code 2. The file is read with bounds and the
  safe YAML loader (:func:`uno_env.game.rules.read_yaml_mapping`: at most 256 KiB, a regular
  file, never runs code); a file that cannot be read, is not UTF-8 or not YAML, nests too
  deeply, holds an integer too long to read, or is not a mapping of string keys is named as such.
* The checks are exact: ``true`` is not an integer, ``1.5`` is not an integer, ``.nan`` is not
  a number; a key whose value may be absent says ``or null``.
* **Research leaves the product.** An option kept only because a study once needed it is
  removed once the study is written up (docs/4p-experiments.md): :data:`REMOVED_KEYS` names
  it and its section there. A config, ``--set`` or resumed run's stored overrides that name
  one fail with that pointer; a checkpoint card that records one at its "off" value (all the
  shipped cards of 0.5.5-0.5.13 do) still loads, plays and resumes
  (:func:`check_removed_in_card`).
* ``phases`` (the league's curriculum, shared by both scripts) is checked entry by entry and
  the message names the entry (``phases[0].until must be ...``).
* What a checkpoint can hold is checked with the config (``net_arch``: 1..16 layers of
  1..8192, :mod:`uno_env.agents.checkpoint`), what the machine can hold before the run spends
  anything (:func:`uno_env.learn.machine.check_machine`, called by each script's own
  ``check_machine``); the bounds
  are in docs/RELIABILITY.md.
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from uno_env import _files
from uno_env._processes import usable_cpus
from uno_env.agents import checkpoint as ckpt
from uno_env.game.actions import NUM_ACTIONS
from uno_env.game.global_state import GLOBAL_STATE_SIZE
from uno_env.game.observation import OBS_SIZE
from uno_env.game.rules import Rules, read_yaml_mapping, show_value


@dataclass(frozen=True)
class Check:
    """What one config key must hold: ``ok(value)`` and its description ``what``; ``detail``,
    if given, explains a failure more precisely (``phases``) or returns None."""

    ok: Callable[[Any], bool]
    what: str
    detail: Callable[[Any], str | None] | None = None

    def problem(self, key: str, value: Any) -> str | None:
        """None if ``value`` passes, else the error message (without its source)."""
        if self.ok(value):
            return None
        detail = self.detail(value) if self.detail is not None else None
        return detail or f"config key {key!r} must be {self.what}, got {show_value(value)}"


def is_number(value: Any, low: float | None = None, high: float | None = None, low_open: bool = False) -> bool:
    """A finite int or float (not bool) in the range (``low`` excluded when ``low_open``); an
    int beyond a float's range (YAML reads ``0xfff...`` of any length) is not one."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        if not math.isfinite(value):
            return False
    except OverflowError:  # math.isfinite converts an int to a float
        return False
    if low is not None and (value <= low if low_open else value < low):
        return False
    return high is None or value <= high


def is_integer(value: Any, low: int, high: int | None = None) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low and (high is None or value <= high)


def integer(low: int, high: int | None = None, optional: bool = False) -> Check:
    what = f"an integer >= {low}" + (f" and <= {high}" if high is not None else "") + (" or null" if optional else "")
    return Check(lambda v: (optional and v is None) or is_integer(v, low, high), what)


def real(low: float | None = None, high: float | None = None, low_open: bool = False, optional: bool = False) -> Check:
    bound = (f" > {low}" if low_open else f" >= {low}") if low is not None else ""
    bound += f" and <= {high}" if high is not None else ""
    return Check(lambda v: (optional and v is None) or is_number(v, low, high, low_open),
                 f"a number{bound}" + (" or null" if optional else ""))


def choice(*values: Any) -> Check:
    return Check(lambda v: isinstance(v, str) and v in values, " or ".join(map(str, values)))


def boolean() -> Check:
    return Check(lambda v: isinstance(v, bool), "true or false")


def boolean_or(*words: str) -> Check:
    """true, false or one of ``words`` (``bf16: auto``)"""
    return Check(lambda v: isinstance(v, bool) or (isinstance(v, str) and v in words),
                 "true, false or " + " or ".join(words))


def layer_sizes() -> Check:
    """Hidden layers a checkpoint can hold (:data:`~uno_env.agents.checkpoint.MAX_HIDDEN_LAYERS`
    of at most :data:`~uno_env.agents.checkpoint.MAX_WIDTH`): a run never fails at its first save."""
    return Check(lambda v: isinstance(v, list) and 1 <= len(v) <= ckpt.MAX_HIDDEN_LAYERS
                 and all(is_integer(x, 1, ckpt.MAX_WIDTH) for x in v),
                 f"a list of 1..{ckpt.MAX_HIDDEN_LAYERS} layer sizes, each in 1..{ckpt.MAX_WIDTH} "
                 f"(what a checkpoint holds)")


def specs() -> Check:
    return Check(lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of agent specs")


def text(optional: bool = False) -> Check:
    return Check(lambda v: (optional and v is None) or (isinstance(v, str) and bool(v)),
                 "a non-empty string" + (" or null" if optional else ""))


def phase_problems(value: Any) -> list[str]:
    """What is wrong with the entries of a ``phases`` list (empty: nothing, or not a list)."""
    out: list[str] = []
    if not isinstance(value, list):
        return out
    for i, p in enumerate(value):
        if not isinstance(p, dict) or set(p) - {"until", "opponents"} or "opponents" not in p:
            out.append(f"phases[{i}] must be {{until: ..., opponents: {{entry: weight}}}}, got {show_value(p)}")
            continue
        until, opponents = p.get("until"), p["opponents"]
        if until is not None and not is_number(until, 0, low_open=True):
            out.append(f"phases[{i}].until must be a fraction of the run (<= 1), a step count or null, "
                       f"got {show_value(until)}")
        if (not isinstance(opponents, dict) or not opponents
                or not all(isinstance(k, str) and is_number(w, 0) for k, w in opponents.items())
                or sum(opponents.values()) <= 0):
            out.append(f"phases[{i}].opponents must map entries to weights >= 0, not all 0, "
                       f"got {show_value(opponents)}")
    return out


def phases() -> Check:
    return Check(lambda v: isinstance(v, list) and bool(v) and not phase_problems(v),
                 "a non-empty list of {until: fraction or step count, opponents: {entry: weight}}",
                 lambda v: ("config key 'phases': " + "; ".join(phase_problems(v))) if phase_problems(v) else None)


# The keys both training scripts share (training/train.py: SB3, training/train_rllib.py: RLlib):
# the rules and size of the run, the network, PPO's coefficients, the league, evaluation.
@dataclass
class TrainingConfig:
    """The keys both training scripts read, with their defaults (a script's ``Config`` adds its
    own keys and may change a default). A step is the script's own: a learner decision in
    ``train.py``, an env step of any seat in ``train_rllib.py``."""

    rules: str = "classic"
    """rules preset name or YAML path (uno_env.make_rules); rule options with --set"""
    num_players: int = 2
    total_steps: int = 200_000
    """steps to train for"""
    time_limit_min: float | None = None
    """also stop after this much training wall time (resumed runs included); schedules and
    curriculum phases then follow max(steps / total_steps, time / time_limit)"""
    seed: int = 0
    torch_threads: int = 1
    """torch's intra-op threads. One: on a 2-core machine busy with other work, two OpenMP
    threads made a PPO update ~5x slower in wall time and ~7x in CPU time than one
    (``bench/bench_torch_threads.py``); a machine of its own with many cores may set more"""
    # --- behaviour cloning warm start ---
    init_checkpoint: str | None = None
    """a new run's actor starts as this checkpoint directory's policy (card + safetensors, e.g.
    checkpoints/classic-4p: same rules, num_players, net_arch, activation and obs_features, else
    an error naming the difference); imitate_decisions then fit only the value net (to the
    outcomes of imitate_teacher's games: checkpoint:<the same dir> for the policy's own)"""
    init_other_rules: bool = False
    """let init_checkpoint be a policy trained under other rules (transfer: every preset has the
    same observation and action layouts, the rule flags are in the observation); players and
    network must still match, and the card's started_from records the checkpoint's rules"""
    imitate_decisions: int = 0
    """before PPO, fit the policy to this many decisions of imitate_teacher playing every seat
    (and the value net to their outcomes): uno_env.learn.imitation; 0: start at random"""
    imitate_teacher: str = "heuristic"
    imitate_epochs: int = 4
    imitate_learning_rate: float = 1e-3
    imitate_workers: int = 1
    """processes that collect the demonstrations (worth it for a slow teacher such as search)"""
    imitate_cache: str | None = None
    """a .safetensors file: read the demonstrations from it if it holds this very collection,
    else collect them and write it (uno_env.learn.demo_store); None: collect every time"""
    imitate_dataset: str | None = None
    """a Minari dataset of uno-dataset create (an id such as uno/classic-2p/heuristic-v0, or a
    path): read the imitate_decisions decisions from it instead of playing (its recorded seat
    played by imitate_teacher, the run's rules and players; no imitate_cache, no critic: state)"""
    # --- the policy ---
    net_arch: list = field(default_factory=lambda: [256, 256])
    """hidden layers of the policy and of the (separate) value net"""
    activation: str = "tanh"
    """tanh or relu"""
    obs_features: bool = True
    """policy input = the observation without the empty opponent slots, counts scaled (the
    checkpoint card's obs_features) instead of the raw observation vector"""

    @property
    def policy_input(self) -> str:
        """The checkpoint card's ``input`` of the policy this config builds."""
        return "obs_features" if self.obs_features else "raw"
    # --- PPO ---
    learning_rate: float = 3e-4
    learning_rate_final: float | None = None
    """linearly annealed to this by the end (None: constant)"""
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    ent_coef_final: float | None = None
    """linearly annealed to this by the end (None: constant)"""
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    # --- self-play league ---
    phases: list = field(default_factory=lambda: [{"until": 1.0, "opponents": {"random": 1.0}}])
    """curriculum: [{until: fraction of total_steps (<= 1) or a step count, opponents:
    {entry: weight}}]; entries: an agent spec (random, heuristic, checkpoint:<dir>) or
    "snapshots" (the learner's frozen snapshots); train_rllib.py adds "self" (the learner)"""
    snapshot_every: int = 100_000
    snapshot_keep: int = 5
    """snapshots in the pool (the latest ones)"""
    # --- evaluation and checkpoints ---
    eval_every: int = 100_000
    eval_games: int = 400
    """games per opponent at each periodic evaluation"""
    eval_opponents: list = field(default_factory=lambda: ["random", "heuristic"])
    final_eval_games: int = 1_000
    """games per opponent in the final evaluation (written to the card)"""
    eval_workers: int = 2
    """processes of the final evaluation"""
    checkpoint_every: int = 100_000


TRAINING_CHECKS: dict[str, Check] = {
    "rules": Check(lambda v: isinstance(v, str) and bool(v), "a rules preset name or YAML path"),
    "num_players": integer(2, 10),
    "total_steps": integer(1),
    "time_limit_min": real(0, low_open=True, optional=True),
    "seed": integer(0),
    "torch_threads": integer(1),
    "net_arch": layer_sizes(),
    "activation": choice("tanh", "relu"),
    "obs_features": boolean(),
    "learning_rate": real(0, low_open=True),
    "learning_rate_final": real(0, optional=True),
    "gamma": real(0, 1, low_open=True),
    "gae_lambda": real(0, 1),
    "clip_range": real(0, low_open=True),
    "ent_coef": real(0),
    "ent_coef_final": real(0, optional=True),
    "vf_coef": real(0),
    "max_grad_norm": real(0, low_open=True),
    "init_checkpoint": text(optional=True),
    "init_other_rules": boolean(),
    "imitate_decisions": integer(0),
    "imitate_teacher": text(),
    "imitate_epochs": integer(1),
    "imitate_learning_rate": real(0, low_open=True),
    "imitate_workers": integer(1),
    "imitate_cache": text(optional=True),
    "imitate_dataset": text(optional=True),
    "phases": phases(),
    "snapshot_every": integer(1),
    "snapshot_keep": integer(1),
    "eval_every": integer(1),
    "eval_games": integer(1),
    "eval_opponents": specs(),
    "final_eval_games": integer(1),
    "eval_workers": integer(1),
    "checkpoint_every": integer(1),
}


def read_mapping(path: str) -> dict[str, Any]:
    """The YAML file ``path`` as a dict with string keys (empty file: ``{}``); ``ValueError``
    naming the file otherwise (:func:`uno_env.game.rules.read_yaml_mapping`)."""
    data = read_yaml_mapping(path, "config")
    bad_keys = [k for k in data if not isinstance(k, str)]
    if bad_keys:
        raise ValueError(f"config {path!r}: keys must be strings, got {show_value(bad_keys)}")
    return data


RESEARCH_LOG = "docs/4p-experiments.md"
REMOVED_KEYS: dict[str, tuple[Any, str]] = {
    "hand_loss_coef": (0.0, "An auxiliary hand-prediction loss (0.5.5)"),
    "oracle_fade": (None, "Oracle guiding (0.5.6)"),
    "shaping_coef": (0.0, "Reward shaping (0.5.7)"),
}
"""Training options that were measured, gave no gain and were removed (``training/train.py``'s):
key -> (the value that switched it off, the section of :data:`RESEARCH_LOG` with the study)."""


def where_written_up(key: str) -> str:
    """Where the study of ``key`` (one of :data:`REMOVED_KEYS`) is written up."""
    return f"{RESEARCH_LOG}, \"{REMOVED_KEYS[key][1]}\""


def _check_not_removed(keys: Any, source: str) -> None:
    removed = sorted(str(k) for k in keys if k in REMOVED_KEYS)
    if removed:
        key = removed[0]
        raise ValueError(f"{source}: config key {key!r} was removed: the option was measured and gave "
                         f"no gain ({where_written_up(key)}); leave it out")


def check_removed_in_card(config: Mapping[str, Any], where: str) -> None:
    """``ValueError`` naming ``where`` if a checkpoint card's ``config`` records a removed option
    (:data:`REMOVED_KEYS`) switched on: such a run cannot be resumed as it was trained. The
    option at its off value (``hand_loss_coef: 0.0``, as every card of 0.5.5-0.5.13 records)
    is the run as this uno_env trains it."""
    for key, (off, _) in REMOVED_KEYS.items():
        if key in config and config[key] != off:
            raise ValueError(f"{where} was trained with {key}: {show_value(config[key])}, an option "
                             f"since removed ({where_written_up(key)}): it cannot be resumed as it "
                             f"was trained (its checkpoint still plays)")


def check_values(cls: type, checks: Mapping[str, Check], values: Mapping[str, Any], source: str) -> None:
    """``ValueError`` naming ``source`` and the first removed or unknown key, or bad value, of
    ``values``."""
    _check_not_removed(values, source)
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(str(k) for k in values if k not in known)
    if unknown:
        raise ValueError(f"{source}: unknown config keys {show_value(unknown)}; known: {sorted(known)}")
    for key, value in values.items():
        problem = checks[key].problem(key, value)
        if problem:
            raise ValueError(f"{source}: {problem}")


def load_config(cls: type, checks: Mapping[str, Check], path: str,
                overrides: Mapping[str, Any] | None = None) -> Any:
    """The ``cls`` instance of the YAML file ``path`` with ``overrides`` (from ``--set`` or
    command-line flags) replacing its values, every key checked (:func:`check_values`)."""
    data = read_mapping(path)
    check_values(cls, checks, data, path)
    check_values(cls, checks, overrides or {}, "--set")
    return cls(**{**data, **(overrides or {})})


def split_overrides(cls: type, sets: Mapping[str, Any]) -> tuple[dict, dict]:
    """``--set`` values split into (keys of the config ``cls``, rule options of ``Rules``);
    ``ValueError`` naming a key that is neither. No key is both (tested)."""
    _check_not_removed(sets, "--set")
    config_keys = {f.name for f in dataclasses.fields(cls)}
    rule_keys = {f.name for f in dataclasses.fields(Rules)}
    unknown = sorted(k for k in sets if k not in config_keys and k not in rule_keys)
    if unknown:
        raise ValueError(f"--set: {unknown} are neither training-config keys ({sorted(config_keys)}) "
                         f"nor rule options ({sorted(rule_keys)})")
    return ({k: v for k, v in sets.items() if k in config_keys},
            {k: v for k, v in sets.items() if k not in config_keys})


def league_entries(phases: list) -> list[str]:
    """Every league entry of ``phases`` (weight > 0), in order of first appearance."""
    seen: dict[str, None] = {}
    for p in phases:
        for entry, weight in p["opponents"].items():
            if weight > 0:
                seen[entry] = None
    return list(seen)


def check_agent_specs(specs: list[str], rules: Rules, num_players: int, what: str) -> None:
    """``ValueError`` naming the first of ``specs`` (``what``: which config key they come from)
    that is no agent spec, or a checkpoint policy (``checkpoint:<dir>``, ``pretrained:<name>``)
    whose card does not load for these rules and players. A training script calls it before it spends anything on the run (Ray,
    an imitation of many minutes), so that a typo in a league costs nothing."""
    from uno_env.agents.base import make_agent, parse_spec

    for spec in specs:
        try:
            parsed = parse_spec(spec)
            if parsed.is_policy:
                path = parsed.checkpoint_dir()
                ckpt.check_card(ckpt.load_card(path), rules, num_players, where=f"checkpoint {path!r}")
            else:
                make_agent(spec, rules, num_players, seed=0)
        except (ValueError, OSError) as exc:
            raise ValueError(f"{what} {spec!r}: {exc}") from None


def check_imitation(cfg: TrainingConfig, rules: Rules, critic_state: bool = False) -> None:
    """``ValueError`` naming what stops ``imitate_dataset`` from serving this run: another source
    set too (``imitate_cache``), no ``imitate_decisions``, a global state asked for, or a
    dataset that does not fit (:func:`uno_env.learn.imitation.check_dataset_for`: its metadata
    and structure, rules, players, teacher, size). Checked before the run spends anything."""
    if cfg.imitate_dataset is None:
        return
    from uno_env.learn.imitation import check_dataset_for

    if cfg.imitate_cache is not None:
        raise ValueError("config keys imitate_dataset and imitate_cache: one source of demonstrations, not both")
    if not cfg.imitate_decisions:
        raise ValueError("config key imitate_dataset needs imitate_decisions > 0: the decisions read from it")
    if critic_state:
        raise ValueError("config key imitate_dataset with critic: state: a dataset holds no global states")
    check_dataset_for(cfg.imitate_dataset, rules, cfg.num_players, cfg.imitate_teacher, cfg.imitate_decisions)


def initial_policy(cfg: TrainingConfig, rules: Rules) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """``(started_from, tensors)`` of ``cfg.init_checkpoint`` (None without one): the actor's
    tensors, checked against the run (rules, players, and the network of ``net_arch``,
    ``activation`` and ``obs_features``; ``ValueError`` naming the key and every difference),
    and what the run's card records of it (``checkpoint``, its weights' ``sha256``, its
    ``total_steps``). A training script calls it before it spends anything on the run."""
    if cfg.init_checkpoint is None:
        return None
    where = f"init_checkpoint {cfg.init_checkpoint!r}"
    try:
        card, tensors = ckpt.load_checkpoint(cfg.init_checkpoint, None if cfg.init_other_rules else rules,
                                             cfg.num_players)
        network = ckpt.policy_spec(list(cfg.net_arch), cfg.activation, cfg.policy_input, cfg.num_players)
        ckpt.check_network(card, network, where)
    except (ValueError, OSError) as exc:
        raise ValueError(exc if str(exc).startswith(where) else f"{where}: {exc}") from None
    started_from = {"checkpoint": cfg.init_checkpoint, "sha256": card["policy"]["sha256"],
                    "total_steps": card.get("total_steps")}  # information only: a card may lack it
    if cfg.init_other_rules:
        started_from["rules"] = ckpt.card_rules(card).name
    return started_from, tensors


def started_from_line(started_from: Mapping[str, Any]) -> str:
    """What a training script prints when its actor starts from a checkpoint."""
    steps = started_from.get("total_steps")
    trained = f" ({steps:,} steps)" if isinstance(steps, int) and not isinstance(steps, bool) else ""
    rules = started_from.get("rules")
    other = f", trained under the {rules!r} rules" if isinstance(rules, str) else ""
    return f"actor from {started_from['checkpoint']}{trained}{other}"


def config_lines(config: Mapping[str, Any], width: int = 100) -> list[str]:
    """A run's config as a readable two-column table (one key a line, values as YAML flow),
    which the training scripts print at their start."""
    import yaml

    key_width = max((len(k) for k in config), default=0)
    lines = ["config:"]
    for key, value in config.items():
        text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10 ** 6).strip()
        text = text.removesuffix("\n...").removesuffix("...").strip()
        if len(text) > width:
            text = text[:width - 3] + "..."
        lines.append(f"  {key:<{key_width}}  {text}")
    return lines


# the console scripts the closing lines name, and the module each runs (for an uninstalled tree)
CONSOLE_SCRIPTS = {"uno-evaluate": "uno_env.tools.evaluate_cli", "uno-play": "uno_env.tools.play",
                   "uno-serve": "uno_env.tools.web.server"}


def console_command(name: str, scripts_dir: str | None = None, search_path: str | None = None) -> str:
    """How a new shell in this directory runs the console script ``name`` of this interpreter's
    install: the bare name where ``PATH`` finds that very script (its environment is activated),
    else its path (``.venv/bin/uno-evaluate``: ``scripts/main.sh`` runs ``.venv/bin/python``
    without activating ``.venv``), else, with no script installed, ``python -m <module>``.
    ``scripts_dir`` (default: this interpreter's) and ``search_path`` (default: ``$PATH``) are
    for tests."""
    import shutil
    import sys
    import sysconfig

    scripts_dir = sysconfig.get_path("scripts") if scripts_dir is None else scripts_dir
    script = os.path.join(scripts_dir, name)
    if not os.path.isfile(script):
        return f"{_short_path(sys.executable)} -m {CONSOLE_SCRIPTS[name]}"
    found = shutil.which(name, path=os.environ.get("PATH", os.defpath) if search_path is None else search_path)
    if found and os.path.realpath(found) == os.path.realpath(script):
        return name
    return _short_path(script)


def _short_path(path: str) -> str:
    """``path`` relative to the working directory when it lies below it, else absolute."""
    rel = os.path.relpath(path)
    return rel if not rel.startswith(os.pardir) else os.path.abspath(path)


def next_steps_lines(run_dir: str, rules: str, num_players: int,
                     rule_sets: Mapping[str, Any] | None = None) -> list[str]:
    """What a training script prints last: where its outputs are and the commands to evaluate
    the trained agent, play against it in the terminal and watch it in the browser, each as a
    new shell runs it (:func:`console_command`: ``.venv/bin/uno-evaluate`` unless ``.venv`` is
    activated). ``rules`` is the config's ``rules`` (a preset or a YAML path) and ``rule_sets``
    the rule options ``--set`` changed, given again so that the checkpoint's rules match. The
    browser table's extra is named only where it is missing."""
    import importlib.util

    import yaml

    spec = f"checkpoint:{run_dir}"
    rules = rules + "".join(
        f" --set {k}={yaml.safe_dump(v, default_flow_style=True).strip().removesuffix('...').strip()}"
        for k, v in (rule_sets or {}).items())
    others = " ".join(["heuristic"] * (num_players - 1))
    evaluate, play, serve = (console_command(n) for n in CONSOLE_SCRIPTS)
    web_missing = any(importlib.util.find_spec(m) is None for m in ("starlette", "uvicorn"))
    lines = [
        f"outputs: {run_dir}/ (card.json, policy weights, eval.csv, curve.png)",
        "next:",
        f"  {evaluate} --agents {spec} {others} --rules {rules} --games 2000 --workers 2   # evaluate it",
        f"  {play} --rules {rules} --opponents {' '.join(['heuristic'] * (num_players - 2) + [spec])}"
        "   # play against it",
        f"  {serve}   # then, in the browser, Watch with {spec} in a seat"
        + (' (pip install -e ".[web]")' if web_missing else ""),
    ]
    if evaluate.endswith(os.sep + "uno-evaluate"):
        activate = os.path.join(os.path.dirname(evaluate), "activate")
        lines.append(f"  (or `source {activate}` first, then uno-evaluate, uno-play and uno-serve run as they are)")
    return lines


def eval_progress_line(step: int, wall_s: float, ppo_steps_per_s: float, summary: str) -> str:
    """A training script's line at each periodic evaluation: the wall time of the whole run
    (imitation included) and the PPO loop's own rate, each named."""
    return (f"step {step} ({wall_s / 60:.1f} min of wall time in all, PPO at {ppo_steps_per_s:.0f} steps/s): "
            f"{summary}")


def trained_line(steps: int, wall_s: float, ppo_steps_per_s: float) -> str:
    """What a training script prints when training ends: the steps, the run's wall time
    (imitation and evaluations included, and a resumed run's earlier time) and the rate of the
    PPO loop alone, which the wall time does not divide into."""
    return (f"trained {steps} steps in {wall_s:.0f} s of wall time (imitation and evaluations included); "
            f"PPO ran at {ppo_steps_per_s:.0f} steps/s")


def imitation_start_line(decisions: int, teacher: str, epochs: int, cache: str | None,
                         dataset: str | None = None) -> str:
    """What a training script prints as its imitation phase starts (it prints nothing more
    until the phase ends, and at a few hundred thousand decisions that takes minutes)."""
    kept = f" (cache file {cache})" if cache else f" (dataset {dataset})" if dataset else ""
    return (f"imitation: {decisions:,} decisions of {teacher}{kept}, then {epochs} epochs of fitting; "
            f"a summary line follows when it ends (minutes at 100k decisions and more)")
