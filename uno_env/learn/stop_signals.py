"""Ctrl-C (SIGINT) and SIGTERM for a training run: stop at a safe point, save, exit 130 / 143.

    stop = StopSignals("train.py").install()       # from here a signal stops the run at once
    try:
        model = build()                            # (nothing to save yet)
        stop.defer()                               # the loop: a signal is noted, not raised
        while not done and not stop.requested:
            learn(until=lambda: stop.requested)    # an SB3 rollout stops at the next env step
            if not stop.requested:
                with stop.dropped():               # a signal drops an evaluation whole
                    evaluate()                     # (its results written at its end only)
            with stop.protected():                 # a save is never cut
                save()
            stop.saved(step)
        if stop.requested:
            stop.exit_saved(run_dir)               # one line, SystemExit(130 or 143)
        stop.at_once()                             # the final evaluation: stop at once
        ...
    except Interrupted:
        stop.exit_now(run_dir)                     # one line: what was saved, what was not
    finally:
        stop.uninstall()

Both training scripts (``training/train.py``, ``training/train_rllib.py``) use it. Decisions:

* **At once, or at the next safe point.** Setting a run up (building a model, an imitation
  of minutes) leaves nothing worth saving, so there a signal raises :class:`Interrupted` and
  the run ends at once. In the training loop (:meth:`defer`) the first signal is only noted:
  the script finishes what it is doing where that is short and safe (an SB3 rollout stops at
  the next env step through a callback; an RLlib iteration runs to its end), saves a
  checkpoint that ``--resume`` continues, and exits. A second signal there ends the run at
  once without saving (the way out of an iteration that hangs; the last checkpoint stays).
* **Blocks** say what a signal means inside them: :meth:`dropped` (an evaluation: the
  block is dropped, the script goes on to save; the block must write its results at its end
  only) and :meth:`protected` (a save: never cut, not even by a second signal, so the
  checkpoint stays whole).
* The handler writes one line on stderr when a signal arrives (with ``os.write``: no
  reentrant ``print`` into a stream the signal interrupted); the script writes one more as
  it exits (:meth:`exit_saved`, :meth:`exit_now`). No traceback.
* :class:`Interrupted` is a ``BaseException`` (as ``KeyboardInterrupt``), so library code
  that catches ``Exception`` does not swallow it.
* **Exit codes** are the shell's: ``128 + signal number``, 130 for SIGINT, 143 for SIGTERM;
  the exit is a ``SystemExit``, so ``finally`` blocks run (the run's lock, Ray).
* Handlers are installed only from the main thread (Python's rule); :meth:`uninstall` puts
  the previous ones back, so a notebook or a test that calls ``main()`` keeps its own Ctrl-C.
  A script that starts Ray installs again after ``ray.init``, which sets its own SIGTERM
  handler.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from typing import Any, Iterator

SIGNALS = (signal.SIGINT, signal.SIGTERM)
_AT_ONCE, _DEFERRED, _DROPPED, _PROTECTED = "at once", "deferred", "dropped", "protected"


class Interrupted(BaseException):
    """A stop signal ended a block (raised by the handler of :class:`StopSignals`)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def signal_name(signum: int) -> str:
    return signal.Signals(signum).name


def exit_code(signum: int) -> int:
    """The shell's exit status of a process ended by ``signum``: 130 for SIGINT, 143 for SIGTERM."""
    return 128 + int(signum)


class StopSignals:
    """SIGINT and SIGTERM of one training run (see the module docstring)."""

    def __init__(self, prog: str):
        self.prog = prog
        self.signum: int | None = None
        self.checkpoint_step: int | None = None  # the step of the last checkpoint this run holds
        self._mode = _AT_ONCE
        self._previous: dict[int, Any] = {}

    # ------------------------------------------------------------------ handlers
    def install(self) -> "StopSignals":
        """Handle SIGINT and SIGTERM from now on (again after a library replaced a handler);
        a no-op outside the main thread."""
        if threading.current_thread() is not threading.main_thread():
            return self
        for signum in SIGNALS:
            previous = signal.signal(signum, self._handle)
            if signum not in self._previous:
                self._previous[signum] = previous
        return self

    def uninstall(self) -> None:
        """Put back the handlers found by the first :meth:`install`."""
        for signum, previous in self._previous.items():
            signal.signal(signum, previous if previous is not None else signal.SIG_DFL)
        self._previous.clear()

    def _handle(self, signum: int, frame: Any) -> None:
        first = self.signum is None
        if first:
            self.signum = signum
        name = signal_name(signum)
        if self._mode == _PROTECTED:
            self._say(f"{name}: saving the checkpoint, then stopping")
        elif self._mode == _DROPPED and first:
            raise Interrupted(signum)
        elif self._mode == _DEFERRED and first:
            self._say(f"{name}: stopping at the next safe point to save a checkpoint "
                      f"(another {name} stops at once, without saving)")
        else:
            raise Interrupted(signum)

    def _say(self, line: str) -> None:
        try:
            os.write(sys.stderr.fileno(), f"{self.prog}: {line}\n".encode())
        except (OSError, ValueError, AttributeError):  # no usable stderr (a captured test stream)
            pass

    # ------------------------------------------------------------------ state
    @property
    def requested(self) -> bool:
        """Whether a stop signal arrived."""
        return self.signum is not None

    @property
    def name(self) -> str:
        return signal_name(self.signum) if self.signum is not None else "no signal"

    def saved(self, step: int) -> None:
        """The run now holds a checkpoint of ``step`` (for the exit line)."""
        self.checkpoint_step = int(step)

    # ------------------------------------------------------------------ modes and blocks
    def at_once(self) -> None:
        """From now on a signal raises :class:`Interrupted` (also one that arrived before)."""
        self._mode = _AT_ONCE
        if self.requested:
            raise Interrupted(self.signum)

    def defer(self) -> None:
        """From now on the first signal is noted (:attr:`requested`), a second one raised;
        one that arrived before raises now."""
        self.at_once()
        self._mode = _DEFERRED

    @contextlib.contextmanager
    def _in(self, mode: str) -> Iterator[None]:
        before, self._mode = self._mode, mode
        try:
            yield
        finally:
            self._mode = before

    @contextlib.contextmanager
    def dropped(self) -> Iterator[None]:
        """A first signal inside ends the block, which is dropped; the code after it goes on
        and sees :attr:`requested`. (A block cannot be skipped: check :attr:`requested` first.)"""
        try:
            with self._in(_DROPPED):
                yield
        except Interrupted:
            if self.signum is None:  # pragma: no cover - raised by us only with a signal
                raise

    def protected(self) -> contextlib.AbstractContextManager:
        """No signal cuts the block; they are noted."""
        return self._in(_PROTECTED)

    # ------------------------------------------------------------------ the exit
    def exit(self, message: str) -> None:
        """One line ``<prog>: <signal>: <message>`` on stderr, then ``SystemExit`` with the
        signal's exit code (130, 143)."""
        assert self.signum is not None, "exit() without a stop signal"
        sys.stderr.write(f"{self.prog}: {self.name}: {message}\n")
        sys.stderr.flush()
        raise SystemExit(exit_code(self.signum))

    def exit_saved(self, run_dir: str) -> None:
        """The exit after the save of the step :meth:`saved` last noted."""
        self.exit(f"saved a checkpoint at step {self.checkpoint_step:,} in {run_dir}; continue "
                  f"with --resume")

    def exit_now(self, run_dir: str) -> None:
        """The exit of a run stopped at once: what it holds."""
        if self.checkpoint_step is None:
            self.exit(f"stopped before the first checkpoint: nothing saved in {run_dir} (the same "
                      f"command starts the run again)")
        self.exit(f"stopped at once: {run_dir} holds the checkpoint of step {self.checkpoint_step:,} "
                  f"(continue with --resume)")
