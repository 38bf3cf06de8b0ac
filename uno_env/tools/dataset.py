"""``uno-dataset``: datasets of play for offline RL and imitation, in Minari's format.

    uno-dataset create --agents heuristic --num-players 2 --rules classic --decisions 1000000
    python -c 'import minari; print(minari.load_dataset("uno/classic-2p/heuristic-v0"))'
    uno-dataset check uno/classic-2p/heuristic-v0      # a dataset you were sent, before Minari reads it

``create`` plays episodes of a line-up and records one seat's view of the Gymnasium env
``uno_env/Uno-v1``: the learner seat is played by the first of ``--agents`` (any agent spec:
a bot, ``pretrained:<name>``, ``checkpoint:<dir>``), the other seats by the rest (one spec for
every seat, or one per seat, to the learner's left in order) inside the env. Each step keeps
the observation, the learner's action, the reward, terminated/truncated and the infos'
``action_mask`` and ``seat``; the layout, the metadata and the reader's checks are in
:mod:`uno_env.tools.dataset_read` (the format's one owner). It is written as a local Minari
dataset under ``$MINARI_DATASETS_PATH`` (``~/.minari/datasets`` by default), id ``--id``
(default ``uno/<rules>-<n>p/<learner>-v0``), so that ``minari.load_dataset(id)`` reads it.

``--decisions N`` plays episodes until the learner has taken at least N decisions (whole
episodes); ``--episodes N`` plays N. Episode ``i`` is reset with the ``i``-th seed drawn from
``numpy.random.default_rng(--seed)`` (kept as the episode's ``seed``), and the learner agent
with one drawn from ``default_rng([--seed, 1])``: the same command gives the same dataset, and
an episode replays exactly from its seed and actions (``tests/tools/test_dataset.py``).

``--engine`` (metadata ``engine``: the one that ran): ``auto`` (default) plays on the batched
engine (:mod:`uno_env.tools.dataset_batched`, :func:`choose_engine`) when every seat can play
there with the very choices of the scalar agent the env replays it with: the compiled
``heuristic`` (any options), ``greedy``, ``random`` and ``uniform`` (on their scalar agents'
Mersenne Twister streams), numpy policies (``pretrained:``, ``checkpoint:``; a ``#sample`` one
as the learner only); else the scalar env (``search``, ``module:`` agents...). ``batched``
refuses a line-up it cannot play (the seat and why); ``scalar`` always plays the env. Both give
the same episodes for the same arguments (the batched one seeds each game as
``env.reset(seed=s)`` does: the learner's seat, the opponents' seeds, then the card stream from
the same generator), so the engine changes the time, not the dataset
(``tests/tools/test_dataset_batched.py``), except with a ``#sample`` learner (the batched engine
samples it once per batch from one generator) and, on a near-exact tie of two logits, with a
policy opponent (a batched matrix product and a one-row one round differently): every episode
still replays exactly, since the env replays the stored actions. Both hand :class:`~uno_env.tools.dataset_read.Episode`
records, in episode order, to the same writer (:func:`write_episodes`).

A failed or interrupted ``create`` removes the dataset folder it started, once Minari's
create has made it (a folder another process made under the same id meanwhile is left alone;
an interruption inside Minari's own create may leave its empty dataset: remove it by hand). Needs the
``datasets`` extra (``pip install -e ".[datasets]"``: minari with h5py).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import sys
import time
import warnings
from typing import Any, Iterable, Iterator

import numpy as np

from uno_env.game.actions import NUM_ACTIONS
from uno_env.game.observation import LAYOUT_VERSION
from uno_env.game.rules import PRESETS, Rules, make_rules
from uno_env.tools.dataset_read import (COMPRESSION, DATASETS, DEFAULT_MAX_STEPS, ENV_ID, FORMAT, MAIN_FILE, DatasetError, Episode,
                                        DATASET_ID, MAX_EPISODE_STEPS, check_dataset, env_kwargs)
from uno_env.tools.dataset_batched import play_episodes_batched
from uno_env.tools.overrides import parse_overrides

ENGINES = ("auto", "batched", "scalar")
MAX_EPISODES = 500_000  # --episodes at most: ~9M decisions of classic play, under the reader's bound
DEFAULT_MAX_LEARNER_STEPS = 1000  # as the env (uno_env.envs.gym_env.DEFAULT_MAX_LEARNER_STEPS)
LIBVER = "latest"  # HDF5's newer object headers: 294 bytes a decision instead of 1,289 (18-decision episodes)


def _need_minari() -> Any:
    try:
        import h5py  # noqa: F401
        import minari
    except ImportError:
        raise SystemExit('uno-dataset needs minari and h5py: pip install -e ".[datasets]"') from None
    return minari


def default_id(rules_name: str, num_players: int, learner: str) -> str:
    """``uno/<rules>-<n>p/<learner>-v0``, the learner's spec made a Minari name."""
    slug = re.sub(r"[^-_\w]+", "_", learner).strip("_") or "agent"
    return f"uno/{rules_name}-{num_players}p/{slug}-v0"


def seat_specs(agents: list[str], num_players: int) -> list[str]:
    """Every seat's spec, the learner's first: one spec for every seat, or one per seat."""
    if len(agents) == 1:
        return agents * num_players
    if len(agents) != num_players:
        raise ValueError(f"--agents takes one spec (every seat) or {num_players} (the learner's, then the seats "
                         f"to its left), got {len(agents)}: {agents}")
    return list(agents)


def play_episodes(rules: Rules, num_players: int, agents: list[str], seed: int, episodes: int | None = None,
                  decisions: int | None = None, seat: Any = "random",
                  max_learner_steps: int | None = DEFAULT_MAX_LEARNER_STEPS) -> Iterator[Episode]:
    """The episodes of a dataset, played on the scalar env (module doc), one at a time."""
    import gymnasium as gym

    import uno_env  # noqa: F401  (registers the env ids)
    from uno_env.agents.base import make_agent

    if (episodes is None) == (decisions is None):
        raise ValueError("give exactly one of episodes and decisions")
    env = make_env(rules, num_players, agents, seat, max_learner_steps)
    learner = make_agent(agents[0], rules, num_players)
    seeds, learner_seeds = np.random.default_rng(seed), np.random.default_rng([seed, 1])
    i, taken = 0, 0
    while (i < episodes) if episodes is not None else (taken < decisions):
        episode_seed = int(seeds.integers(2 ** 31))
        learner.reset(int(learner_seeds.integers(2 ** 31)))
        obs, info = env.reset(seed=episode_seed)
        observations, masks, seats = [obs], [info["action_mask"]], [info["seat"]]
        actions, rewards, terminations, truncations = [], [], [], []
        done = False
        while not done:
            action = int(learner.act(obs, info["action_mask"]))
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            observations.append(obs)
            masks.append(info["action_mask"])
            seats.append(info["seat"])
            actions.append(action)
            rewards.append(reward)
            terminations.append(terminated)
            truncations.append(truncated)
        i += 1
        taken += len(actions)
        yield Episode(seed=episode_seed, observations=np.array(observations, np.float32),
                      actions=np.array(actions, np.int64), rewards=np.array(rewards, np.float64),
                      terminations=np.array(terminations, bool), truncations=np.array(truncations, bool),
                      masks=np.array(masks, np.int8), seats=np.array(seats, np.int64))
    env.close()


def make_env(rules: Rules, num_players: int, agents: list[str], seat: Any, max_learner_steps: int | None) -> Any:
    import gymnasium as gym

    import uno_env  # noqa: F401  (registers the env ids)

    return gym.make(ENV_ID, **env_kwargs(rules, num_players, agents, seat, max_learner_steps))


def write_episodes(h5file: Any, episodes: Iterable[Episode], start: int = 0) -> tuple[int, int]:
    """Episodes appended to an open HDF5 file as ``episode_<start>``, ... in the layout of
    :mod:`uno_env.tools.dataset_read` (compressed); returns ``(episodes, steps)`` written."""
    count, steps = 0, 0
    for ep in episodes:
        i = start + count
        group = h5file.create_group(f"episode_{i}")
        group.attrs["id"] = i
        group.attrs["seed"] = ep.seed
        group.attrs["total_steps"] = len(ep)
        infos = group.create_group("infos")
        columns = {"observations": ep.observations, "actions": ep.actions, "rewards": ep.rewards,
                   "terminations": ep.terminations, "truncations": ep.truncations,
                   "infos/action_mask": ep.masks, "infos/seat": ep.seats}
        for path, (dtype, _, _) in DATASETS.items():
            parent, name = (infos, path[6:]) if path.startswith("infos/") else (group, path)
            data = np.ascontiguousarray(columns[path], dtype)
            parent.create_dataset(name, data=data, chunks=data.shape, **COMPRESSION)
        count += 1
        steps += len(ep)
        if steps > DEFAULT_MAX_STEPS:
            raise DatasetError(f"over {DEFAULT_MAX_STEPS:,} decisions: more than a reader takes in by default "
                               "(dataset_read.DEFAULT_MAX_STEPS); ask for fewer episodes or decisions")
    return count, steps


def dataset_card(dataset_id: str, about: dict[str, Any], episodes: int, steps: int, seconds: float) -> str:
    """The short card kept as the dataset's ``description``: what it is, how it was made."""
    agents = about["agents"]
    seat = "a random seat" if about["seat"] == "random" else f"seat {about['seat']}"
    rules_name = about["rules"].get("name", "custom")
    return (f"# {dataset_id}\n\n"
            f"UNO ({rules_name} rules, {about['num_players']} players): {episodes:,} episodes, {steps:,} decisions "
            f"of the learner seat ({seat} each episode), played by `{agents[0]}` against "
            f"{', '.join(f'`{a}`' for a in agents[1:])}, seen through the Gymnasium env `{ENV_ID}` "
            f"(uno_env {about['version']}, observation layout {about['layout']}).\n\n"
            f"Each step: the observation (1537 floats), the learner's action (0..{NUM_ACTIONS - 1}), the reward "
            f"(+1 win, -1/(n-1) loss, at the last step; 0 in a cut game), terminated/truncated, and the infos "
            f"`action_mask` (int8) and `seat`. Episode `seed`: its env reset seed; an episode replays exactly with "
            f"`gymnasium.make('{ENV_ID}', **metadata env_spec kwargs)`, `reset(seed=seed)` and its actions.\n\n"
            f"Made with: `{about['command']}` ({about['engine']} engine, {seconds:.0f} s). Full rules, every seat's "
            f"agent and the seeds: the metadata's `uno_env` key.\n")


def choose_engine(engine: str, rules: Rules, num_players: int, agents: list[str]) -> str:
    """``"batched"`` or ``"scalar"``, the engine that plays the line-up (module doc): ``auto``
    takes the batched one where every seat plays there; ``batched`` where it cannot is a
    ``ValueError`` naming the seat and why."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {list(ENGINES)}, got {engine!r}")
    if engine == "scalar":
        return engine
    from uno_env.tools.dataset_batched import why_not_batched

    why = why_not_batched(agents, rules, num_players)
    if why is None:
        return "batched"
    if engine == "batched":
        raise ValueError(f"this line-up cannot play on the batched engine: {why} (--engine auto or scalar)")
    return "scalar"


def create_dataset(dataset_id: str, rules: Rules, num_players: int, agents: list[str], seed: int = 0,
                   episodes: int | None = None, decisions: int | None = None, seat: Any = "random",
                   max_learner_steps: int | None = DEFAULT_MAX_LEARNER_STEPS, command: str | None = None,
                   engine: str = "auto") -> str:
    """Play and write a dataset (module doc) under :func:`datasets_root`; returns its data folder.
    ``engine``: ``auto``, ``batched`` or ``scalar`` (:func:`choose_engine`)."""
    minari = _need_minari()
    import h5py
    from minari.dataset.minari_storage import MinariStorage
    from minari.storage import get_dataset_path
    from minari.utils import create_dataset_from_buffers

    from uno_env import __version__

    agents = seat_specs(list(agents), num_players)
    engine = choose_engine(engine, rules, num_players, agents)
    about = {"format": FORMAT, "version": __version__, "layout": LAYOUT_VERSION, "rules": rules.to_dict(),
             "num_players": num_players, "seat": seat, "agents": agents, "max_learner_steps": max_learner_steps,
             "seed": seed, "engine": engine,
             "command": command or f"create_dataset({dataset_id!r}, ...)"}
    folder = get_dataset_path(dataset_id)
    if os.path.exists(folder):
        raise DatasetError(f"dataset {dataset_id!r} already exists at {os.fspath(folder)!r}: "
                           "remove it or give another --id (a new version: -v1, ...)")
    began = time.process_time()
    env = make_env(rules, num_players, agents, seat, max_learner_steps)
    ours = False  # the folder is removed on failure only once this call has made it
    try:
        with warnings.catch_warnings():  # minari's reminders of the keys a UNO dataset has no use for
            warnings.simplefilter("ignore")
            created = create_dataset_from_buffers(dataset_id, [], env=env, algorithm_name=agents[0], author="uno_env",
                                                  description="(being written)")
        ours = True
        env.close()
        path = created._data.data_path
        with h5py.File(os.path.join(path, MAIN_FILE), "w", libver=LIBVER) as f:  # minari's, still empty
            play = play_episodes if engine == "scalar" else play_episodes_batched
            count, steps = write_episodes(f, play(rules, num_players, agents, seed, episodes, decisions, seat,
                                                  max_learner_steps))
        storage = MinariStorage.read(path)
        seconds = time.process_time() - began
        storage.update_metadata({"total_episodes": count, "total_steps": steps, "uno_env": about,
                                 "description": dataset_card(dataset_id, about, count, steps, seconds)})
        storage.update_metadata({"dataset_size": storage.get_size()})
    except BaseException:
        if ours:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    return os.fspath(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="uno-dataset", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("create", help="play a line-up and write a Minari dataset")
    make.add_argument("--agents", nargs="+", default=["heuristic"],
                      help="agent specs: one for every seat, or one per seat (the recorded learner's first)")
    make.add_argument("--num-players", type=int, default=2)
    make.add_argument("--rules", default="classic", help="a preset name or a YAML file")
    make.add_argument("--set", action="append", metavar="KEY=VALUE", help="a rule option (repeatable)")
    size = make.add_mutually_exclusive_group()
    size.add_argument("--decisions", type=int,
                      help="at least this many decisions of the recorded seat, whole episodes (default 10,000)")
    size.add_argument("--episodes", type=int)
    make.add_argument("--seed", type=int, default=0)
    make.add_argument("--seat", default="random", help="the recorded seat, or 'random' (drawn each episode)")
    make.add_argument("--max-learner-steps", type=int, default=DEFAULT_MAX_LEARNER_STEPS)
    make.add_argument("--engine", choices=ENGINES, default="auto",
                      help="auto: the batched engine where every seat plays there, else the scalar env")
    make.add_argument("--id", help="the Minari dataset id (default uno/<rules>-<n>p/<learner>-v0)")
    check = sub.add_parser("check", help="read and check a dataset (an id or a path): safe to load with Minari then")
    check.add_argument("dataset")
    args = parser.parse_args(argv)
    if args.command == "check":
        try:
            data = check_dataset(args.dataset)
        except DatasetError as e:
            print(f"uno-dataset: {e}", file=sys.stderr)
            return 1
        print(f"{data.dataset_id}: {len(data.steps):,} episodes, {sum(data.steps):,} decisions; agents "
              f"{data.about['agents']}, {data.num_players} players, rules {data.rules.name}; checked")
        return 0
    try:
        rules = make_rules(args.rules, **parse_overrides(args.set))
        if not 2 <= args.num_players <= 10:
            raise ValueError(f"--num-players must be in 2..10, got {args.num_players}")
        seat: Any = args.seat
        if seat != "random":
            if not (seat.isascii() and seat.isdigit() and int(seat) < args.num_players):
                raise ValueError(f"--seat must be 'random' or a seat in 0..{args.num_players - 1}, got {seat!r}")
            seat = int(seat)
        if not 1 <= args.max_learner_steps <= MAX_EPISODE_STEPS:
            raise ValueError(f"--max-learner-steps must be in 1..{MAX_EPISODE_STEPS}, got {args.max_learner_steps}")
        # what a reader takes in by default (DEFAULT_MAX_STEPS), the last episode's overshoot included
        most = {"--decisions": DEFAULT_MAX_STEPS - args.max_learner_steps, "--episodes": MAX_EPISODES}
        for flag, n in (("--decisions", args.decisions), ("--episodes", args.episodes)):
            if n is not None and not 1 <= n <= most[flag]:
                raise ValueError(f"{flag} must be in 1..{most[flag]:,} (a dataset a reader takes in by "
                                 f"default: {DEFAULT_MAX_STEPS:,} decisions), got {n}")
        agents = seat_specs(args.agents, args.num_players)
        from uno_env.agents.base import make_agent
        for spec in dict.fromkeys(agents):  # a typo costs nothing
            make_agent(spec, rules, args.num_players)
        choose_engine(args.engine, rules, args.num_players, agents)
    except ValueError as e:
        parser.error(str(e))
    rules_name = args.rules if args.rules in PRESETS and not args.set else "custom"
    dataset_id = args.id or default_id(rules_name, args.num_players, agents[0])
    if not DATASET_ID.fullmatch(dataset_id):
        parser.error(f"--id must be a Minari id, (namespace/)name-v<version> of letters, digits, - and _, "
                     f"got {dataset_id!r}")
    decisions = args.decisions if args.decisions is not None or args.episodes is not None else 10_000
    command = "uno-dataset " + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    began = time.perf_counter()
    try:
        path = create_dataset(dataset_id, rules, args.num_players, agents, seed=args.seed, episodes=args.episodes,
                              decisions=None if args.episodes is not None else decisions, seat=seat,
                              max_learner_steps=args.max_learner_steps, command=command, engine=args.engine)
    except DatasetError as e:
        print(f"uno-dataset: {e}", file=sys.stderr)
        return 1
    size = sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))
    from uno_env.tools.dataset_read import read_dataset
    data = read_dataset(path)
    print(f"{dataset_id}: {len(data.steps):,} episodes, {sum(data.steps):,} decisions, {size / 1e6:,.1f} MB, "
          f"{time.perf_counter() - began:,.1f} s ({data.about['engine']} engine); in {path}\n"
          f"  python -c 'import minari; print(minari.load_dataset(\"{dataset_id}\"))'")
    return 0


if __name__ == "__main__":
    sys.exit(main())
