"""Shared test helpers: stacked decks, named actions, scenario checks (``P``, ``hand``,
``size``, ``known``, ``offer_seen``, ``assert_conserved``), the decks' colour names, the
hidden-information check, ``cli_error`` (a command line's refusal), ``run_bounded`` (a
snippet in a child process under an address-space limit and a timeout: the memory-bound tests),
``WatchedProcess`` (a script run in a child process, watched line by line: a signal sent once
it printed a line) and ``web_server`` (an ASGI app served by uvicorn on a free loopback port,
in a thread); ``training_configs`` (every config of ``configs/train/``, its folders included).

``stacked_deck`` and ``deck_cards`` are :mod:`uno_env.game.decks`'; ``reset_stacked`` resets
an env with a stacked deck built for its rules and player count.
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import os
import queue
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from collections import Counter
from typing import Any, Iterator, Mapping

import numpy as np
import pytest

import uno_env
from uno_env.game import cards as C
from uno_env.game import observation as O
from uno_env.game.decks import deck_cards, stacked_deck  # noqa: F401  (the tests' names for them)
from uno_env.game.rules import Rules, make_rules


# The colour names of the decks (RULES.md 1), typed once for every test.
CLASSIC_COLORS = ("red", "yellow", "green", "blue")  # classic and house
TMNT_COLORS = ("blue", "orange", "red", "purple")


def reset_stacked(env: Any, dealer: int, hands: Mapping[int, list[str]], first: str,
                  draw_top: list[str] = (), seed: int = 0) -> Any:
    """Reset ``env`` (AEC or Gymnasium, raw or wrapped) with a stacked deck built for its rules
    and player count; what its ``reset`` returns."""
    u = env.unwrapped
    deck = stacked_deck(u.rules, u.engine.n, dealer, hands, first, draw_top)
    return env.reset(seed=seed, options={"deck": deck, "dealer": dealer})


def act(env: Any, name: str, agent: str | None = None) -> None:
    """Step ``env`` with the action called ``name`` (e.g. ``"play red-5"``).

    With ``agent`` given, first assert that it is ``env.agent_selection``.
    """
    if agent is not None:
        assert env.agent_selection == agent, f"expected {agent} to act, got {env.agent_selection}"
    env.step(env.unwrapped.action_id(name))


def legal_names(env: Any, agent: str | None = None) -> set[str]:
    """Names of the actions the mask of ``agent`` (default: ``agent_selection``) allows."""
    u = env.unwrapped
    mask = u.observe(agent or env.agent_selection)["action_mask"]
    return {u.action_names[i] for i in range(len(mask)) if mask[i]}


def card_counts(env: Any) -> Counter:
    """Multiset of every card in the hands, DRAW and DISCARD, from the snapshot."""
    snap = env.unwrapped.snapshot()
    out: Counter = Counter()
    for hand in snap["hands"].values():
        out.update(hand)
    out.update(snap["draw_pile"])
    out.update(snap["discard_pile"])
    return out


def assert_conserved(env: Any, snapshot: bool = True) -> None:
    """Card conservation: the hands, DRAW and DISCARD hold exactly the ruleset's deck, in the
    engine state and (``snapshot``, slower: scenario tests) in ``snapshot()``."""
    u = env.unwrapped
    s = u.game_state
    counts = s.hands.sum(axis=0).astype(np.int64)
    counts += np.bincount(np.asarray(s.draw_pile, np.int64), minlength=C.NUM_KINDS)
    counts += np.bincount(np.asarray(s.discard, np.int64), minlength=C.NUM_KINDS)
    assert counts.tolist() == list(u.rules.deck_counts()), "hands + DRAW + DISCARD != the deck"
    if snapshot:
        assert card_counts(env) == Counter(deck_cards(u.rules)), "the snapshot's cards != the deck"


# ---------------------------------------------------------------- scenario helpers
def P(i: int) -> str:
    """Agent name of seat ``i``."""
    return f"player_{i}"


def make_env(n: int, hands: Mapping[int, list[str]], first: str, draw_top=(), *, rules: Any = "classic",
             dealer: int | None = None, seed: int = 0, record_events: bool = False,
             **overrides: Any) -> Any:
    """A raw env with ``rules`` (+ overrides, hand_size 3 unless given) and a stacked deal
    (dealer: the last seat unless given, so seat 0 plays first); ``record_events``: its engine
    records public events (``env.game_state.events``) from the deal on."""
    overrides.setdefault("hand_size", 3)
    e = uno_env.raw_env(rules=rules, num_players=n, **overrides)
    e.engine.record_events = record_events
    reset_stacked(e, n - 1 if dealer is None else dealer, hands, first, list(draw_top), seed=seed)
    return e


def hand(e: Any, seat: int) -> Counter:
    return Counter(e.snapshot()["hands"][P(seat)])


def size(e: Any, seat: int) -> int:
    return int(e.game_state.hand_size[seat])


def opp_block(e: Any, observer: int, seat: int) -> np.ndarray:
    """The observation fields that ``observer`` has about ``seat``."""
    obs = e.observe(P(observer))["observation"]
    j = (seat - observer) % e.engine.n
    start = O.OPPONENTS + (j - 1) * O.OPP_FIELDS
    return obs[start:start + O.OPP_FIELDS]


def known(e: Any, observer: int, seat: int) -> Counter:
    """Cards ``observer``'s observation says are known to be in ``seat``'s hand."""
    block = opp_block(e, observer, seat)[O.OPP_KNOWN:O.OPP_OFFER]
    return Counter({e.card_names[k]: int(v) for k, v in enumerate(block) if v})


def offer_seen(e: Any, observer: int, seat: int) -> str | None:
    """The open offer of ``seat`` as ``observer``'s observation shows it (None: none)."""
    block = opp_block(e, observer, seat)[O.OPP_OFFER:O.OPP_FIELDS]
    hits = np.flatnonzero(block)
    assert len(hits) <= 1
    return e.card_names[hits[0]] if len(hits) else None


def expect_clean_exit(child: Any, status: int = 0) -> None:
    """A pexpect child runs to the end of its output and exits with ``status``."""
    import pexpect

    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == status


def vector_state(env: Any) -> list:
    """Everything of a vector env that a refused call must leave as it was: every array of the
    batch, the seats, the masks, the autoreset flags and the RNG streams."""
    u = env.unwrapped
    return ([a.tolist() for a in u.engine.st] + [u.seats.tolist(), u._masks.tolist(), u._autoreset.tolist(),
            u._opp_rng.tolist(), u.np_random.bit_generator.state])


def wait_for_input(child: Any, timeout: float = 60.0, pid: int | None = None) -> None:
    """Return once the pexpect ``child`` (or its process ``pid``), whose prompt was just
    matched, sleeps in its read.

    A Ctrl-C that arrives between the prompt's write and that read is lost: Python's handler
    only sets a flag, and CPython's ``input()`` then enters a read that nothing interrupts,
    so the program waits on. A person presses Ctrl-C at a waiting prompt; a test that sends
    it as soon as the prompt appears lands in that window whenever a loaded machine preempts
    the child right after the write (``test_ctrl_c_at_once_on_a_slow_machine`` makes it
    happen every time). So wait until the child's main thread is asleep (``S`` in
    ``/proc/<pid>/stat``); without ``/proc``, a second."""
    import time

    stat = f"/proc/{child.pid if pid is None else pid}/stat"
    if not os.path.exists(stat):
        time.sleep(1.0)
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(stat) as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "S":
                return
        time.sleep(0.01)
    raise AssertionError(f"the program did not wait for input within {timeout} s")


# ---------------------------------------------------------------- hidden information
def _perturbed(s, observer: int, rng: np.random.Generator):
    """A copy of ``s`` that differs from it only in cards hidden from ``observer``."""
    t = copy.copy(s)
    t.hands = s.hands.copy()
    t.held = list(s.held)
    t.draw_pile = list(s.draw_pile)
    t.history = s.history.copy()  # public: the same, but not shared
    t.legal_cache = None
    changed = False
    others = [q for q in range(s.n) if q != observer]

    def hidden_kinds(q):
        return [int(k) for k in np.flatnonzero(t.hands[q] > s.known[observer, q])]

    def move(q, k_out, k_in):
        t.hands[q, k_out] -= 1
        t.hands[q, k_in] += 1
        t.held[q] = sum(1 << int(k) for k in np.flatnonzero(t.hands[q]))

    # 1. swap one hidden card of another player with a different card of DRAW
    q = others[int(rng.integers(len(others)))]
    hk = hidden_kinds(q)
    if hk and t.draw_pile:
        k = hk[int(rng.integers(len(hk)))]
        idx = [i for i, c in enumerate(t.draw_pile) if c != k]
        if idx:
            i = idx[int(rng.integers(len(idx)))]
            move(q, k, t.draw_pile[i])
            t.draw_pile[i] = k
            changed = True
    # 2. swap hidden cards between two other players
    if len(others) >= 2:
        q, r = rng.choice(others, 2, replace=False)
        hq, hr = hidden_kinds(q), hidden_kinds(r)
        pairs = [(a, b) for a in hq for b in hr if a != b]
        if pairs:
            a, b = pairs[int(rng.integers(len(pairs)))]
            move(q, a, b)
            move(r, b, a)
            changed = True
    # 3. reorder DRAW
    if len(set(t.draw_pile)) > 1:
        rng.shuffle(t.draw_pile)
        changed = True
    return t, changed


def check_hidden(env, rng: np.random.Generator) -> None:
    s = env.game_state
    observer = int(rng.integers(s.n))
    t, changed = _perturbed(s, observer, rng)
    if not changed:
        return
    enc = env.encoder
    obs_t, obs_s = enc.encode(t, observer), enc.encode(s, observer)
    assert (obs_t[O.HISTORY:] == obs_s[O.HISTORY:]).all(), \
        f"public history (HISTORY, WD4_COLOR) of seat {observer}'s observation depends on hidden cards"
    assert (obs_t == obs_s).all(), f"observation of seat {observer} depends on hidden cards"
    if s.actor == observer and not s.game_over:
        assert env.engine.legal_actions(t) == env.engine.legal_actions(s)
    # the perturbed copy is still a valid deal of the deck
    assert (t.hands.sum(axis=0) + np.bincount(np.asarray(t.draw_pile, np.int64), minlength=C.NUM_KINDS)
            == s.hands.sum(axis=0) + np.bincount(np.asarray(s.draw_pile, np.int64), minlength=C.NUM_KINDS)).all()


def random_checkpoint(directory: Any, rules: Any = "classic", num_players: int = 2,
                      hidden: tuple[int, ...] = (16,), input_kind: str = "obs_features",
                      activation: str = "tanh", seed: int = 0) -> dict:
    """A safe checkpoint (card + safetensors weights) of an untrained MLP with random weights,
    written without torch or SB3; returns its card."""
    from uno_env.agents import checkpoint as ckpt

    r = rules if isinstance(rules, Rules) else make_rules(rules)
    spec = ckpt.policy_spec(list(hidden), activation, input_kind, num_players)
    rng = np.random.default_rng(seed)
    tensors = {name: rng.normal(0.0, 0.5, shape).astype(np.float32)
               for name, shape in ckpt.tensor_shapes(spec).items()}
    card = ckpt.make_card(rules=r, num_players=num_players, total_steps=0, wall_time_s=0.0, policy=spec)
    return ckpt.save_policy(str(directory), card, tensors)


def layout0_checkpoint(directory: Any, input_kind: str = "obs_features", hidden: tuple[int, ...] = (16,),
                       seed: int = 0) -> dict:
    """A checkpoint as uno_env wrote them before observation layout 1 (version 0: the policy
    reads the first ``V0_SIZE`` entries), classic rules, 2 players, random weights; returns its
    card. (The 0.2 agent that was kept as this fixture retired in 0.5.14.)"""
    from uno_env.agents import checkpoint as ckpt
    from uno_env.game import actions as A
    from uno_env.game import observation as O

    spec = {"input": input_kind, "sizes": [ckpt.input_size(input_kind, 2, 0), *hidden, A.NUM_ACTIONS],
            "activation": "tanh", "dtype": "float32"}
    rng = np.random.default_rng(seed)
    tensors = {name: rng.normal(0.0, 0.5, shape).astype(np.float32)
               for name, shape in ckpt.tensor_shapes(spec).items()}
    card = ckpt.make_card(rules=make_rules("classic"), num_players=2, total_steps=0, wall_time_s=0.0, policy=spec)
    card["observation_layout"] = {"version": 0, "size": O.V0_SIZE}
    return ckpt.save_policy(str(directory), card, tensors)


def perturb_hidden(s, observer: int, rng: np.random.Generator):
    """A copy of state ``s`` in which only cards hidden from ``observer`` changed (a hidden
    card of another hand swapped with DRAW, two other hands swapping hidden cards, DRAW
    reordered), and whether anything changed."""
    return _perturbed(s, observer, rng)


def cli_error(main: Any, capsys: Any, args: list[str]) -> str:
    """The last line a script's ``main(args)`` writes when it refuses them: it must exit with
    code 2 and no traceback."""
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.strip().splitlines()[-1]


REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_script(folder: str, name: str) -> Any:
    """The script ``<repo>/<folder>/<name>.py`` (not a package module) imported as module
    ``name``, registered in ``sys.modules`` (dataclasses and pickling look their module up);
    loaded once per session, so that every test module holds the same one (a second copy
    would make the first one's functions unpicklable for worker processes)."""
    path = os.path.join(REPO_ROOT, folder, f"{name}.py")
    loaded = sys.modules.get(name)
    if loaded is not None and os.path.realpath(getattr(loaded, "__file__", "") or "") == os.path.realpath(path):
        return loaded
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


TRAINING_CONFIGS = os.path.join(REPO_ROOT, "configs", "train")


def training_configs() -> list[str]:
    """Every training config of ``configs/train/`` (``train.py``'s), those of its folders
    included (``sb3/``: the recipes the shipped agents were trained with), as paths relative to
    it; a config the tests check one by one must not hide in a folder."""
    found = [os.path.relpath(os.path.join(folder, name), TRAINING_CONFIGS)
             for folder, _, names in os.walk(TRAINING_CONFIGS) for name in names if name.endswith(".yaml")]
    return sorted(found)


# ---------------------------------------------------------------- bounded children
NOT_REGULAR = ("FIFO", "character device", "directory")  # what the readers refuse, as they name it


def not_a_regular_file(path: Any, kind: str) -> str:
    """Make ``path`` a FIFO that nobody writes (opening it would block), a link to the endless
    ``/dev/zero`` or a directory (``kind``, one of :data:`NOT_REGULAR`); returns its name."""
    if kind == "FIFO":
        os.mkfifo(path)
    elif kind == "character device":
        os.symlink("/dev/zero", path)
    elif kind == "directory":
        os.mkdir(path)
    else:
        raise ValueError(f"kind must be one of {NOT_REGULAR}, got {kind!r}")
    return str(path)


@dataclass
class Bounded:
    """What :func:`run_bounded` saw of its child."""

    returncode: int | None  # None: killed at the timeout
    stdout: str
    stderr: str
    peak_mb: float  # the child's peak resident memory after exec (VmHWM; its ru_maxrss would count
    #   the pages of the forking test process too)
    cpu_s: float  # the child's user + system CPU time
    timed_out: bool

    @property
    def last_line(self) -> str:
        lines = self.stderr.strip().splitlines()
        return lines[-1] if lines else ""


_PEAK_AT_EXIT = ("import atexit as _a, os as _o\n"
                 "def _peak():\n"
                 "    with open('/proc/self/status') as f:\n"
                 "        kb = next((l.split()[1] for l in f if l.startswith('VmHWM')), '')\n"
                 "    with open(_o.environ['UNO_TEST_PEAK'], 'w') as f:\n"
                 "        f.write(kb)\n"
                 "_a.register(_peak)\n")


def run_bounded(code: str, *, memory_mb: int = 600, timeout_s: float = 60.0,
                args: tuple[str, ...] = ()) -> Bounded:
    """Run ``python -c code *args`` in a child process whose address space is capped at
    ``memory_mb`` (``RLIMIT_AS``: an allocation beyond it fails inside the child, never the
    machine) and which is killed after ``timeout_s`` seconds (a reader that hangs on a FIFO
    fails the test instead of hanging it). Single-threaded BLAS, the repository importable;
    the child's peak memory is read from ``/proc`` as it exits (NaN where there is none)."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as peak:
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
                   PYTHONPATH=os.pathsep.join([REPO_ROOT, os.path.dirname(os.path.abspath(__file__))]),
                   UNO_TEST_PEAK=peak.name)
        child = subprocess.Popen([sys.executable, "-c", _PEAK_AT_EXIT + code, *args], stdin=subprocess.DEVNULL,
                                 stdout=out, stderr=err, env=env, preexec_fn=limit)
        deadline = time.monotonic() + timeout_s
        timed_out = False
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                child.kill()
                pid, status, usage = os.wait4(child.pid, 0)
                timed_out = True
                break
            time.sleep(0.01)
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait
        out.seek(0)
        err.seek(0)
        hwm = peak.read().strip()
        return Bounded(None if timed_out else child.returncode, out.read().decode(errors="replace"),
                       err.read().decode(errors="replace"), int(hwm) / 1024 if hwm else float("nan"),
                       usage.ru_utime + usage.ru_stime, timed_out)


class WatchedProcess:
    """A command in a child process whose stdout is read line by line as it comes (Python's
    output unbuffered), stderr kept in a file: :meth:`wait_for` returns once a line matches,
    however loaded the machine (a test waits for what the process says, never for a time),
    :meth:`finish` returns ``(exit code, stdout, stderr)``."""

    def __init__(self, cmd: list[str], stderr_path: Any, *, cwd: str = REPO_ROOT,
                 env: Mapping[str, str] | None = None):
        self.stderr_path = str(stderr_path)
        with open(self.stderr_path, "w", encoding="utf-8") as err:  # the child writes it
            self.proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=err, text=True,
                                         env={**(env or os.environ), "PYTHONUNBUFFERED": "1"})
        self.lines: list[str] = []
        self._queue: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def _next(self, deadline: float) -> str | None:
        try:
            return self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            self.kill()
            pytest.fail(f"no line within the time allowed; stdout so far: {self.lines[-5:]}, "
                        f"stderr: {self.stderr()[-2000:]}")

    def wait_for(self, pattern: str, timeout: float = 600) -> str:
        """The first new stdout line matching the regex ``pattern``; the test fails if the
        process ends first (or ``timeout`` seconds pass: a safety net, not a measure)."""
        deadline = time.monotonic() + timeout
        while True:
            line = self._next(deadline)
            if line is None:
                pytest.fail(f"the process ended (exit code {self.proc.wait()}) before printing a line "
                            f"matching {pattern!r}; stdout: {self.lines[-5:]}, stderr: {self.stderr()[-2000:]}")
            self.lines.append(line)
            if re.search(pattern, line):
                return line

    def send(self, signum: int) -> None:
        self.proc.send_signal(signum)

    def finish(self, timeout: float = 600) -> tuple[int, str, str]:
        """Wait for the process to end: (exit code, all of stdout, stderr)."""
        deadline = time.monotonic() + timeout
        while (line := self._next(deadline)) is not None:
            self.lines.append(line)
        code = self.proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        return code, "\n".join(self.lines), self.stderr()

    def stderr(self) -> str:
        with open(self.stderr_path, encoding="utf-8", errors="replace") as fh:
            return fh.read()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def web_server(make_app: Any) -> Iterator[str]:
    """``make_app(port)`` served by uvicorn on 127.0.0.1 at a free port, in a thread of this
    process; yields the base URL and stops the server afterwards."""
    import uvicorn

    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(make_app(port), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


def small_dataset(root: Any, monkeypatch: Any, dataset_id: str = "uno/classic-2p/heuristic-v0",
                  agents: tuple[str, ...] = ("heuristic",), num_players: int = 2, episodes: int = 6,
                  seed: int = 0, **options: Any) -> str:
    """A small UNO dataset written under ``root`` (``MINARI_DATASETS_PATH`` set there for the
    test): ``episodes`` episodes of ``agents`` (uno_env.tools.dataset); returns its data folder."""
    from uno_env.game.rules import make_rules
    from uno_env.tools.dataset import create_dataset

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(root))
    return create_dataset(dataset_id, make_rules(options.pop("rules", "classic")), num_players, list(agents),
                          seed=seed, episodes=episodes, **options)


def replay_matches(dataset: Any) -> int:
    """Every episode of a Minari dataset replayed through its recovered env: the same
    observations, masks, seats, rewards and ends. Returns the steps replayed."""
    env = dataset.recover_environment()
    steps = 0
    for ep, meta in zip(dataset.iterate_episodes(), dataset.storage.get_episode_metadata(range(dataset.total_episodes))):
        obs, info = env.reset(seed=int(meta["seed"]))
        assert np.array_equal(obs, ep.observations[0])
        assert np.array_equal(info["action_mask"], ep.infos["action_mask"][0]) and info["seat"] == ep.infos["seat"][0]
        for t, action in enumerate(ep.actions):
            obs, reward, terminated, truncated, info = env.step(int(action))
            assert np.array_equal(obs, ep.observations[t + 1])
            assert np.array_equal(info["action_mask"], ep.infos["action_mask"][t + 1])
            assert (reward, terminated, truncated) == (ep.rewards[t], ep.terminations[t], ep.truncations[t])
            steps += 1
        assert terminated or truncated
    return steps
