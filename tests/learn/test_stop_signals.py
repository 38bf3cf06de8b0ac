"""uno_env.learn.stop_signals: what SIGINT and SIGTERM do in each part of a training run (the
signals are real, raised in this process; the training scripts' own tests send them from
outside: tests/training/test_train_stop_signals.py, tests/integrations/test_rllib.py)."""

from __future__ import annotations

import signal

import pytest

from uno_env.learn.stop_signals import Interrupted, StopSignals, exit_code


@pytest.fixture
def stop():
    s = StopSignals("train.py").install()
    yield s
    s.uninstall()


def test_a_signal_while_setting_up_stops_at_once(stop):
    with pytest.raises(Interrupted) as exc:
        signal.raise_signal(signal.SIGTERM)
    assert exc.value.signum == signal.SIGTERM and stop.requested


def test_in_the_loop_a_first_signal_is_noted_and_a_second_stops_at_once(stop, capfd):
    stop.defer()
    signal.raise_signal(signal.SIGINT)
    assert stop.requested and stop.name == "SIGINT"
    assert "train.py: SIGINT: stopping at the next safe point to save a checkpoint" in capfd.readouterr().err
    with pytest.raises(Interrupted):
        signal.raise_signal(signal.SIGINT)


def test_a_signal_noted_while_setting_up_stops_the_run_as_the_loop_begins(stop):
    with stop.protected():  # e.g. the first evaluation's rows being written
        signal.raise_signal(signal.SIGINT)
    assert stop.requested
    with pytest.raises(Interrupted):
        stop.defer()


def test_a_signal_in_a_dropped_block_ends_it_and_the_code_after_goes_on(stop):
    stop.defer()
    done = []
    with stop.dropped():
        signal.raise_signal(signal.SIGTERM)
        done.append("the rest of the evaluation")  # pragma: no cover - never reached
    assert done == [] and stop.requested and stop.signum == signal.SIGTERM


def test_no_signal_cuts_a_protected_block_not_even_a_second_one(stop):
    stop.defer()
    steps = []
    with stop.protected():
        for _ in range(3):
            signal.raise_signal(signal.SIGINT)
            steps.append(1)
    assert steps == [1, 1, 1] and stop.requested


@pytest.mark.parametrize("signum,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_the_exit_after_a_save_is_one_line_and_the_shells_exit_code(stop, capsys, signum, code):
    stop.defer()
    signal.raise_signal(signum)
    stop.saved(1024)
    with pytest.raises(SystemExit) as exc:
        stop.exit_saved("checkpoints/x")
    assert exc.value.code == code == exit_code(signum)
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"train.py: {signal.Signals(signum).name}: saved a checkpoint at step 1,024 in "
                     f"checkpoints/x; continue with --resume"]


def test_a_run_stopped_at_once_says_what_it_holds(stop, capsys):
    with pytest.raises(Interrupted):
        signal.raise_signal(signal.SIGINT)
    with pytest.raises(SystemExit) as exc:
        stop.exit_now("checkpoints/x")
    assert exc.value.code == 130 and "nothing saved in checkpoints/x" in capsys.readouterr().err
    stop.saved(256)
    with pytest.raises(SystemExit):
        stop.exit_now("checkpoints/x")
    assert "holds the checkpoint of step 256 (continue with --resume)" in capsys.readouterr().err


def test_uninstall_puts_the_previous_handlers_back():
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    stop = StopSignals("x").install()
    stop.install()  # again (after a library replaced one): the first handlers found are kept
    assert signal.getsignal(signal.SIGINT) == stop._handle
    stop.uninstall()
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
