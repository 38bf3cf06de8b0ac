"""Demonstrations: a teacher's decisions as training data, for a behaviour-cloning warm start.

    demos = collect_demonstrations(make_rules("classic"), 2, decisions=100_000, seed=0)
    demos.observations, demos.masks, demos.actions, demos.returns   # one row per decision

A teacher (an agent spec, ``heuristic`` by default) plays every seat of games on the engine
(:func:`uno_env.agents.arena.play_game`); every decision of every seat becomes a row: the
observation that seat saw, its action mask, the teacher's action, and the seat's return at
the end of the game (``Engine.returns``: +1 for the winner, -1/(n-1) for the others, 0 for all
in a truncated game). ``critic_state=True`` also keeps the global state seen from that seat
(:mod:`uno_env.game.global_state`, for an asymmetric critic). Games are played whole, so a
collection holds at least ``decisions`` rows (the last game is not cut).

``training/train.py`` and ``training/train_rllib.py`` (``imitate_decisions``) fit the policy
to the actions (masked cross-entropy) and the value network to the returns before PPO starts:
the learner begins as a copy of the teacher instead of at random. :func:`fit_policy` is that
fit, for any torch policy; :func:`uno_env.learn.sb3.imitate.imitate` (a MaskablePPO model) and
:func:`uno_env.integrations.rllib.imitate` (an RLlib module) call it.

Determinism: the deals come from ``np.random.default_rng(seed)``, each teacher's own
generator is seeded from it per game; the same arguments give the same rows. With
``workers`` > 1 (``imitate_workers`` in the training configs) each worker plays its share of
the decisions, rounded up, from its own seed (``np.random.SeedSequence(seed).spawn``), and the
rows are joined in worker order: the same seed and number of workers give the same rows, but
not the rows of one worker. Worth it for a slow teacher: ``search:simulations=200`` makes ~27 ms
per decision against the heuristic's ~0.06 ms.

**From a dataset** (``imitate_dataset`` in the training configs): :func:`dataset_demonstrations`
reads the rows from a Minari dataset of ``uno-dataset create`` (:mod:`uno_env.tools.dataset`)
instead of playing: the recorded seat's decisions (one seat a game, where a collection keeps
every seat's), its masks and actions, and the episode's return (the sum of its rewards: the
same +1 / -1/(n-1) / 0 as ``Engine.returns``). :func:`check_dataset_for` checks it against the
run first (rules, players, the recorded seat's agent is the teacher, enough decisions), before
any episode is read. A dataset holds no global state (``critic_state``).

Memory: rows are written into preallocated arrays (``_Rows``), so a collection holds one copy
of its observations (~6 KB a decision in layout 1: ~0.9 GB at 150k decisions). Workers write
their shares to ``.npy`` files in a temporary folder (removed at the end), which the parent
reads memory-mapped into its arrays: the parent's peak stays one copy of the collection.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np

from uno_env._processes import ignore_interrupts, mp_context
from uno_env.agents.arena import play_game
from uno_env.agents.base import Agent, make_agent
from uno_env.game.engine import Engine
from uno_env.game.actions import NUM_ACTIONS
from uno_env.game.global_state import GLOBAL_STATE_SIZE, GlobalStateEncoder
from uno_env.game.observation import OBS_SIZE, ObservationEncoder
from uno_env.game.rules import Rules, make_rules
from uno_env.tools.dataset_read import UnoDataset, read_dataset


@dataclass
class Demonstrations:
    """Rows of decisions (see the module doc); ``states`` is None unless asked for."""

    observations: np.ndarray  # (N, OBS_SIZE) float32
    masks: np.ndarray  # (N, NUM_ACTIONS) bool
    actions: np.ndarray  # (N,) int64
    returns: np.ndarray  # (N,) float32
    states: np.ndarray | None  # (N, GLOBAL_STATE_SIZE) float32 or None
    games: int

    def __len__(self) -> int:
        return len(self.actions)


class _Recording(Agent):
    """A seat's teacher, writing down what it saw and what it chose."""

    def __init__(self, teacher: Agent, rows: list):
        super().__init__(teacher.rules, teacher.num_players)
        self.teacher, self.rows, self.name = teacher, rows, teacher.name

    def reset(self, seed: int | None = None) -> None:
        self.teacher.reset(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        action = int(self.teacher.act(observation, action_mask))
        self.rows.append((observation, action_mask.astype(bool), action))
        return action


class _NoBar:
    """What :func:`progress_bar` gives when no bar is wanted (or tqdm is missing)."""

    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(enabled: bool, **options: Any) -> Any:
    """A tqdm bar on standard error when ``enabled`` (the training scripts' imitation phase),
    else a bar that shows nothing; tqdm is imported only then (the ``train`` extra has it)."""
    if enabled:
        try:
            from tqdm import tqdm
        except ImportError:
            return _NoBar()
        import sys

        from uno_env.tools.progress import progress_file

        return tqdm(mininterval=1.0, **{"file": progress_file(sys.stderr), **options})
    return _NoBar()


def collect_demonstrations(rules: Rules, num_players: int, decisions: int, seed: int,
                           teacher: str = "heuristic", critic_state: bool = False,
                           workers: int = 1, progress: bool = False) -> Demonstrations:
    """At least ``decisions`` decisions of ``teacher`` playing every seat (module doc); with
    ``workers`` > 1, in that many processes (a slow teacher such as ``search``). ``progress``:
    a bar of the decisions collected (of the workers' shares done, with ``workers`` > 1)."""
    if decisions < 1:
        raise ValueError(f"decisions must be >= 1, got {decisions!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    if workers == 1:
        return _collect(rules, num_players, decisions, seed, teacher, critic_state, progress)
    share = -(-decisions // workers)  # each worker's share, rounded up
    seeds = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(workers)]
    columns = _columns(workers * share + 2048, critic_state)  # a last game past a share: rarely more
    games = 0
    with (tempfile.TemporaryDirectory(prefix="uno_env-demos-") as folder,
          mp_context().Pool(workers, initializer=ignore_interrupts) as pool):
        tasks = [(rules.to_dict(), num_players, share, worker_seed, teacher, critic_state,
                  os.path.join(folder, str(i))) for i, worker_seed in enumerate(seeds)]
        bar = progress_bar(progress, total=workers, unit="share", desc="imitation: collecting")
        for part, part_games in pool.imap(_collect_task, tasks):  # in worker order
            for name, rows in columns.items():  # read from the page cache straight into the columns
                rows.extend(np.load(f"{part}-{name}.npy", mmap_mode="r"))
            games += part_games
            bar.update()
        bar.close()
    return _demonstrations(columns, games)


def check_dataset_for(source: str, rules: Rules, num_players: int, teacher: str, decisions: int) -> UnoDataset:
    """The dataset ``source`` (a Minari id or a path) with its metadata and structure checked,
    and checked against a run: the same rules and players, the recorded seat's agent is
    ``teacher``, at least ``decisions`` decisions; a ``ValueError`` naming every difference."""
    data = read_dataset(source)
    problems = []
    if data.num_players != num_players:
        problems.append(f"{data.num_players} players (the run: {num_players})")
    if data.rules != rules:
        ours, theirs = rules.to_dict(), data.rules.to_dict()
        problems.append("rules " + ", ".join(f"{k}={theirs[k]!r} (the run: {ours[k]!r})"
                                             for k in ours if ours[k] != theirs.get(k)))
    if data.about["agents"][0] != teacher:
        problems.append(f"recorded seat played by {data.about['agents'][0]!r} (imitate_teacher: {teacher!r})")
    if sum(data.steps) < decisions:
        problems.append(f"{sum(data.steps):,} decisions (imitate_decisions: {decisions:,})")
    if problems:
        raise ValueError(f"imitate_dataset {source!r} ({data.dataset_id}) does not fit the run: " + "; ".join(problems))
    return data


def dataset_demonstrations(data: UnoDataset, decisions: int, progress: bool = False) -> Demonstrations:
    """The first whole episodes of ``data`` holding at least ``decisions`` decisions, as rows
    (module doc); each episode is checked as it is read."""
    columns = _columns(decisions + 2048, critic_state=False)
    games = 0
    bar = progress_bar(progress, total=decisions, unit="decision", unit_scale=True, desc="imitation: reading")
    for ep in data.episodes(max_steps=decisions):
        columns["observations"].extend(ep.observations[:-1])
        columns["masks"].extend(ep.masks[:-1].astype(bool))
        columns["actions"].extend(ep.actions)
        columns["returns"].extend(np.full(len(ep), ep.rewards.sum(), np.float32))
        games += 1
        bar.update(len(ep))
    bar.close()
    return _demonstrations(columns, games)


def _collect_task(task: tuple) -> tuple[str, int]:
    """Worker entry point: one worker's share of a collection, written to ``<part>-<column>.npy``
    files rather than sent back through a pipe (a pickled share is a second copy in each process)."""
    rules_dict, num_players, decisions, seed, teacher, critic_state, part = task
    demos = _collect(make_rules(rules_dict), num_players, decisions, seed, teacher, critic_state)
    for name in _column_names(critic_state):
        np.save(f"{part}-{name}.npy", getattr(demos, name))
    return part, demos.games


def _collect(rules: Rules, num_players: int, decisions: int, seed: int, teacher: str,
             critic_state: bool, progress: bool = False) -> Demonstrations:
    """One process's collection: the games of one generator seeded with ``seed``."""
    engine = Engine(rules, num_players)
    encoder = ObservationEncoder(engine)
    state_encoder = GlobalStateEncoder(engine) if critic_state else None
    rng = np.random.default_rng(seed)
    rows_by_seat: list[list] = [[] for _ in range(num_players)]
    seats = [_Recording(make_agent(teacher, rules, num_players), rows_by_seat[p]) for p in range(num_players)]
    game_states: list[tuple[int, np.ndarray]] = []  # (seat, state) of each decision of a game

    def remember_state(s, p, action) -> None:
        game_states.append((p, state_encoder.encode(s, p)))

    columns = _columns(decisions + 2048, critic_state)  # a game's decisions past ``decisions`` rarely need more
    games = 0
    bar = progress_bar(progress, total=decisions, unit="decision", unit_scale=True, desc="imitation: collecting")
    while len(columns["actions"]) < decisions:
        before = len(columns["actions"])
        for rows in rows_by_seat:
            rows.clear()
        game_states.clear()
        for agent in seats:
            agent.reset(int(rng.integers(2 ** 31)))
        record = play_game(engine, seats, rng, on_decision=remember_state if critic_state else None,
                           encoder=encoder)
        games += 1
        for p, rows in enumerate(rows_by_seat):
            if rows:
                columns["observations"].extend([obs for obs, _, _ in rows])
                columns["masks"].extend([mask for _, mask, _ in rows])
                columns["actions"].extend([action for _, _, action in rows])
                columns["returns"].extend([record.rewards[p]] * len(rows))
        if critic_state:  # regroup the states seat by seat, as the rows above
            for p in range(num_players):
                seat_states = [st for q, st in game_states if q == p]
                if seat_states:
                    columns["states"].extend(seat_states)
        bar.update(min(len(columns["actions"]), decisions) - min(before, decisions))
    bar.close()
    return _demonstrations(columns, games)


_COLUMNS = {  # name (a field of ``Demonstrations``): (row shape, dtype)
    "observations": ((OBS_SIZE,), np.float32),
    "masks": ((NUM_ACTIONS,), bool),
    "actions": ((), np.int64),
    "returns": ((), np.float32),
    "states": ((GLOBAL_STATE_SIZE,), np.float32),  # only with ``critic_state``
}


def _column_names(critic_state: bool) -> list[str]:
    return [name for name in _COLUMNS if critic_state or name != "states"]


def _columns(capacity: int, critic_state: bool) -> dict[str, "_Rows"]:
    """The preallocated columns of a collection."""
    return {name: _Rows(capacity, *_COLUMNS[name]) for name in _column_names(critic_state)}


def _demonstrations(columns: dict[str, "_Rows"], games: int) -> Demonstrations:
    """The filled columns as one ``Demonstrations`` (views, not copies)."""
    arrays = {name: rows.array() for name, rows in columns.items()}
    return Demonstrations(**{"states": None, **arrays}, games=games)


def summary(demos: Demonstrations, teacher: str, fit: dict[str, float], seconds: float,
            read_from: str | None = None, fit_actor: bool = True) -> str:
    """One line on a warm start, as the training scripts print it (``fit_actor=False``: the
    value network alone was fitted)."""
    source = f", read from {read_from}" if read_from else ""
    policy = "the policy now picks" if fit_actor else "value network only; the policy (kept) picks"
    return (f"imitation: {len(demos)} decisions of {teacher} ({demos.games} games{source}), {seconds:.0f} s; "
            f"{policy} the teacher's move {fit['agreement']:.1%} of the time "
            f"(policy loss {fit['policy_loss']:.3f}, value loss {fit['value_loss']:.3f})")


class _Rows:
    """Rows written into one preallocated array (grown by half when full): a collection holds
    one copy of its observations, not a list of row arrays and then a second, stacked copy."""

    def __init__(self, capacity: int, shape: tuple, dtype: Any):
        self.data, self.n = np.empty((capacity, *shape), dtype), 0

    def __len__(self) -> int:
        return self.n

    def extend(self, rows: list) -> None:
        end = self.n + len(rows)
        if end > len(self.data):
            grown = np.empty((max(end, len(self.data) * 3 // 2), *self.data.shape[1:]), self.data.dtype)
            grown[:self.n] = self.data[:self.n]
            self.data = grown
        self.data[self.n:end] = rows
        self.n = end

    def array(self) -> np.ndarray:
        return self.data[:self.n]


def fit_policy(parameters: Iterable[Any], log_prob_and_value: Callable, greedy: Callable,
               inputs: np.ndarray | tuple[np.ndarray, ...], demos: Demonstrations, epochs: int = 4, batch_size: int = 1024,
               learning_rate: float = 1e-3, seed: int = 0, max_grad_norm: float = 0.5,
               fit_actor: bool = True, progress: bool = False) -> dict[str, float]:
    """Behaviour cloning: ``epochs`` passes of Adam over shuffled minibatches of ``demos``,
    minimising the masked cross-entropy of the teacher's actions plus half the squared error of
    the values against the returns. With ``fit_actor=False`` only the values are fitted (the
    loss is their squared error alone, so no gradient reaches the actor and its weights stay as
    they are: the critic's warm start of a run that starts from a checkpoint's policy); the
    cross-entropy and agreement are still measured and returned.

    ``inputs`` are the network's rows: ``demos.observations``, or a tuple of arrays whose rows
    the network reads side by side (the observations and the global states of an asymmetric
    critic; joined minibatch by minibatch, never as a whole).
    ``log_prob_and_value(x, masks, actions)`` gives the policy's log-probability of
    ``actions`` (illegal actions masked) and its values, both ``(B,)`` tensors; ``greedy(x, masks)`` its most likely legal actions. Returns the last epoch's mean
    losses and the share of the teacher's actions the policy then picks greedily
    (``agreement``). The caller puts its network in training mode and back. ``progress``: a
    bar of the epochs done."""
    import torch

    parameters = list(parameters)
    parts = [torch.as_tensor(x) for x in (inputs if isinstance(inputs, tuple) else (inputs,))]

    def rows(idx: Any) -> Any:  # the network's input rows ``idx``: every part, side by side
        return parts[0][idx] if len(parts) == 1 else torch.cat([x[idx] for x in parts], dim=1)

    masks = torch.as_tensor(demos.masks)
    actions, returns = torch.as_tensor(demos.actions), torch.as_tensor(demos.returns)
    optimizer = torch.optim.Adam(parameters, lr=learning_rate)
    generator = torch.Generator().manual_seed(seed)
    n = len(actions)
    totals = {"policy_loss": 0.0, "value_loss": 0.0}
    bar = progress_bar(progress, total=epochs, unit="epoch", desc="imitation: fitting")
    for _ in range(epochs):
        totals = {"policy_loss": 0.0, "value_loss": 0.0}
        for idx in torch.randperm(n, generator=generator).split(batch_size):
            log_prob, values = log_prob_and_value(rows(idx), masks[idx], actions[idx])
            policy_loss = -log_prob.mean()
            value_loss = torch.nn.functional.mse_loss(values, returns[idx])
            loss = (policy_loss + 0.5 * value_loss) if fit_actor else 0.5 * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(parameters, max_grad_norm)
            optimizer.step()
            totals["policy_loss"] += policy_loss.item() * len(idx) / n
            totals["value_loss"] += value_loss.item() * len(idx) / n
        bar.update()
    bar.close()
    with torch.no_grad():
        agree = sum(int((greedy(rows(i), masks[i]) == actions[i]).sum()) for i in torch.arange(n).split(4096))
    return dict(totals, agreement=agree / n)
