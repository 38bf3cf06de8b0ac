"""The agent interface shared by scripted bots, trained checkpoints and humans.

An agent sees exactly what its player observes: the observation vector of
:mod:`uno_env.game.observation` and the int8 action mask of :mod:`uno_env.game.actions`. It never
reads hidden state (other hands, DRAW order).

    agent = make_agent("heuristic", rules, num_players, seed=0)
    agent.reset(seed)                       # once per episode (optional)
    action = agent.act(observation, mask)   # a legal action id

Agent specs are strings, everywhere (CLI, configs, the web API): ``random``, ``greedy``,
``heuristic``, ``search``, ``pretrained:<name>`` (an agent shipped in the package,
:mod:`.shipped`), ``checkpoint:<dir>`` (a checkpoint directory, :mod:`.policy`). Their grammar,
read by :func:`parse_spec` (the one parser every tool uses)::

    kind[:argument][#sample]

``kind`` names a registered factory (:func:`register_agent`). ``argument`` is what follows the
first ``:``: a path, a name, or ``key=value`` options separated by commas
(:meth:`AgentSpec.options`: ``heuristic:w_color=2``, ``search:simulations=400``).
``#sample`` (policy kinds only: ``checkpoint``, ``pretrained``) samples from the policy
instead of playing its most likely action.

**A user's own agent**: ``module:<package.module>:<Class>`` imports ``package.module`` and
builds ``Class(rules, num_players, seed=seed)``, a subclass of :class:`Agent`, e.g.
``uno-evaluate --agents module:my_bots.uno:MyBot heuristic``. **It runs that module's code**
(importing it), so it is taken only from the user's own command line, config or program:
``uno-evaluate`` (and its ladder), ``uno-play``, ``uno-serve --agent`` (the operator's
command line), the Gymnasium and vector envs' opponents, training configs (the league) and
the worker processes they start (which import it too: the module must be importable there,
installed or on ``PYTHONPATH``). The web API refuses it from a client
(:mod:`uno_env.tools.web.validate`: only a spec ``uno-serve --agent`` named), and nothing
builds a ``module:`` agent, nor any bot, from the specs in a file a stranger supplies (game
logs, checkpoint cards). The one agent built from such a file is a checkpoint policy, which
runs no code (:mod:`.checkpoint`: a card and safetensors weights, validated before a weight is
read): ``uno-serve``'s replay of an uploaded log (``POST /api/replays``) builds the
``pretrained:<name>`` and ``checkpoint:<dir>`` agents its seats name, a checkpoint only under
the server's ``--checkpoint-root`` folders, to show what they thought
(:meth:`uno_env.tools.web.service.Server.replay_policies`); every other spec of the log is
only shown. :attr:`AgentSpec.runs_code` says whether a spec runs code.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from uno_env.game.rules import Rules, make_rules


class Agent:
    """Base class: ``act`` returns a legal action id for an observation and its mask."""

    name = "agent"

    def __init__(self, rules: Rules, num_players: int, seed: int | None = None):
        self.rules = rules
        self.num_players = num_players
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start of an episode; a seed re-seeds the agent's own RNG."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


AgentFactory = Callable[[str, Rules, int, "int | None"], Agent]
_REGISTRY: dict[str, AgentFactory] = {}
_POLICY_DIRS: dict[str, Callable[[str], str]] = {}  # policy kinds: argument -> checkpoint directory
SAMPLE_SUFFIX = "#sample"
CODE_PREFIX = "module"  # module:<package.module>:<Class>, a user's own agent class


@dataclass(frozen=True)
class AgentSpec:
    """An agent spec string, read: ``kind[:argument][#sample]`` (module docstring)."""

    text: str  # the spec as given
    kind: str  # the registered factory's prefix
    argument: str  # after the first ":" ("" without one), #sample removed
    sample: bool = False

    @property
    def is_policy(self) -> bool:
        """A stateless policy of a checkpoint (``checkpoint``, ``pretrained``): one agent may
        serve every seat and env, it plays batched and takes ``#sample``."""
        return self.kind in _POLICY_DIRS

    @property
    def runs_code(self) -> bool:
        """Building it imports code the spec names (``module:``): the user's own input only."""
        return self.kind == CODE_PREFIX

    def checkpoint_dir(self) -> str:
        """The checkpoint directory a policy spec plays (``pretrained:<name>``: its folder in
        the package); ``ValueError`` for another kind."""
        if not self.is_policy:
            raise ValueError(f"agent spec {self.text!r} is no checkpoint policy")
        return _POLICY_DIRS[self.kind](self.argument)

    def options(self, what: str = "option") -> dict[str, str]:
        """The ``key=value`` pairs of the argument (comma-separated, blanks around them ignored),
        values as text; ``ValueError`` naming a pair without a value or a key given twice
        (``what`` names the options in messages, e.g. ``"search option"``)."""
        out: dict[str, str] = {}
        for item in self.argument.split(","):
            if not item.strip():
                continue
            key, eq, text = item.partition("=")
            key, text = key.strip(), text.strip()
            if not eq or not text:
                raise ValueError(f"{what} {key!r} has no value in {self.text!r} (key=value)")
            if key in out:
                raise ValueError(f"{what} {key!r} is given twice in {self.text!r}")
            out[key] = text
        return out


def register_agent(prefix: str, factory: AgentFactory,
                   checkpoint_dir: Callable[[str], str] | None = None) -> None:
    """Register ``factory(spec, rules, num_players, seed)`` for specs ``prefix`` or ``prefix:...``.
    ``checkpoint_dir(argument)``: given for a kind whose agents are stateless checkpoint
    policies (:attr:`AgentSpec.is_policy`), the directory a spec's argument names."""
    _REGISTRY[prefix] = factory
    _POLICY_DIRS.pop(prefix, None)
    if checkpoint_dir is not None:
        _POLICY_DIRS[prefix] = checkpoint_dir


def agent_specs() -> list[str]:
    return sorted(_REGISTRY)


def parse_spec(spec: str) -> AgentSpec:
    """The :class:`AgentSpec` of a spec string; ``ValueError`` for an unknown kind, a
    ``#sample`` on a kind that does not sample, or a policy kind without its argument."""
    if not isinstance(spec, str):
        raise ValueError(f"an agent spec is a string, got {type(spec).__name__} {spec!r}")
    kind, _, argument = spec.partition(":")
    sample = False
    if spec.endswith(SAMPLE_SUFFIX):
        sample = True
        if argument:
            argument = argument[:-len(SAMPLE_SUFFIX)]
        else:
            kind = kind[:-len(SAMPLE_SUFFIX)]
    if kind not in _REGISTRY:
        raise ValueError(f"unknown agent spec {spec!r}; known: {agent_specs()} "
                         f"(pretrained:<name> or checkpoint:<dir> for trained agents)")
    if sample and kind not in _POLICY_DIRS:
        raise ValueError(f"agent spec {spec!r}: {SAMPLE_SUFFIX} samples a policy "
                         f"({', '.join(k + ':...' for k in sorted(_POLICY_DIRS))}); {kind} does not sample")
    if kind in _POLICY_DIRS and not argument:
        what = "a name: pretrained:<name>" if kind == "pretrained" else f"a path: {kind}:<dir>"
        raise ValueError(f"agent spec {spec!r} needs {what}")
    return AgentSpec(spec, kind, argument, sample)


def make_agent(spec: str, rules: "Rules | str | Mapping[str, Any]", num_players: int,
               seed: int | None = None) -> Agent:
    """An agent from its spec string, e.g. ``heuristic`` or ``pretrained:classic-2p``.

    ``rules``: a :class:`Rules`, a preset name, a YAML path or a mapping of rule options, as
    the envs take them (:func:`uno_env.game.rules.make_rules`: ``make_agent("heuristic",
    "classic", 2)``). An agent object given as ``spec`` is returned as it is."""
    if isinstance(spec, Agent):
        return spec
    rules = make_rules(rules)
    return _REGISTRY[parse_spec(spec).kind](spec, rules, num_players, seed)


def _make_module_agent(spec: str, rules: Rules, num_players: int, seed: int | None) -> Agent:
    """``module:<package.module>:<Class>``: import the module, build ``Class(rules, num_players,
    seed=seed)``."""
    module_name, _, attribute = parse_spec(spec).argument.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"agent spec {spec!r} needs a module and a class: {CODE_PREFIX}:<package.module>:<Class>")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is None or not (module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise  # the user's module imports something missing: their traceback
        raise ValueError(f"agent spec {spec!r}: no module {exc.name!r} (it must be importable: installed, "
                         f"or on PYTHONPATH)") from None
    cls: Any = module
    for part in attribute.split("."):
        if not hasattr(cls, part):
            raise ValueError(f"agent spec {spec!r}: module {module_name!r} has no {attribute!r}")
        cls = getattr(cls, part)
    if not (isinstance(cls, type) and issubclass(cls, Agent)):
        raise ValueError(f"agent spec {spec!r}: {module_name}:{attribute} is not an Agent subclass "
                         f"(uno_env.agents.Agent), got {cls!r}")
    agent = cls(rules, num_players, seed=seed)
    if type(agent).name == Agent.name:  # a class that names itself keeps its name
        agent.name = spec
    return agent


register_agent(CODE_PREFIX, _make_module_agent)
