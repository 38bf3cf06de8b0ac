"""experiments/expert_distill.py: the rows are the expert's decisions (an override only where it
searched) with the value of every move it compared, a stopped collection resumes (and replays
blocks written without values), a distilled checkpoint is the policy it was fitted from when
nothing is fitted, and each kind of targets moves the policy where it should and nowhere else."""

from __future__ import annotations

import json
import os
import stat

import numpy as np
import pytest

from helpers import REPO_ROOT, cli_error, load_script
from uno_env.agents import make_agent
from uno_env.agents.policy import load_policy
from uno_env.game import actions as A
from uno_env.game.rules import make_rules

expert_distill = load_script("experiments", "expert_distill")
CLASSIC_2P = f"{REPO_ROOT}/checkpoints/classic-2p"


def collect(out, games=6, seed=3):
    return expert_distill.main(["collect", "--checkpoint", CLASSIC_2P, "--out", str(out), "--games", str(games),
                                "--simulations", "6", "--seed", str(seed)])


def greedy(block, checkpoint=CLASSIC_2P):
    """A checkpoint's greedy moves on a block's rows (its input is the rows' features)."""
    net, _ = load_policy(str(checkpoint), make_rules("classic"), 2)
    x = block["features"]
    for w, b in net.layers[:-1]:
        x = np.tanh(x @ w + b)
    w, b = net.layers[-1]
    return np.where(block["masks"], x @ w + b, -np.inf).argmax(1)


def rewritten(tmp_path, name, change):
    """``tmp_path/demos`` copied to ``tmp_path/name`` (its about.json, each block as ``change(block)``)."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / "about.json").write_text((tmp_path / "demos" / "about.json").read_text())
    for i, block in enumerate(expert_distill.load_blocks(str(tmp_path / "demos"))):
        np.savez(folder / f"block-{20 * i:06d}.npz", **change(block))
    return folder


def other_legal(block):
    """One row in four of those with a choice, each with a legal move that is not the policy's."""
    for r in np.flatnonzero(block["masks"].sum(1) >= 2)[::4]:
        legal = np.flatnonzero(block["masks"][r])
        yield r, legal[legal != block["prior"][r]][0]


def probes():
    """256 random observations and masks (draw always legal) to compare policies on."""
    obs = np.random.default_rng(0).random((256, 1537)).astype(np.float32)
    masks = np.random.default_rng(1).random((256, A.NUM_ACTIONS)) < 0.3
    masks[:, A.DRAW] = True
    return obs, masks


def test_each_row_is_the_experts_decision_and_it_overrides_the_policy_only_where_it_searched(tmp_path):
    out = collect(tmp_path / "demos")
    (block,) = expert_distill.load_blocks(str(tmp_path / "demos"))
    assert len(block["won"]) == 6 and out["games"] == 6 and len(block["actions"]) == out["decisions"] > 0
    legal = block["masks"][np.arange(len(block["actions"])), block["actions"]]
    assert legal.all()
    differ = block["actions"] != block["prior"]
    assert not differ[~block["searched"]].any()
    # the prior column is the policy's own greedy move on the row's input
    assert (greedy(block) == block["prior"]).all()
    # searched rows hold the value of every move compared (the default's 0), legal moves only
    values, samples, s = block["values"].astype(np.float64), block["samples"], block["searched"]
    rows = np.arange(len(values))
    assert np.isnan(values[~s]).all() and not samples[~s].any()
    assert (values[s, block["prior"][s]] == 0).all() and (samples[s, block["prior"][s]] > 0).all()
    assert ((~np.isnan(values)) == (samples > 0)).all() and block["masks"][samples > 0].all()
    assert ((samples[s] > 0).sum(1) >= 2).all()
    # an override is a move whose value beat the default's
    assert (values[rows, block["actions"]][differ] > 0).all()


def test_a_stopped_collection_plays_only_its_missing_blocks_and_refuses_another(tmp_path, capsys):
    folder = tmp_path / "demos"
    collect(folder, games=25)
    first = sorted(p.name for p in folder.iterdir())
    assert first == ["about.json", "block-000000.npz", "block-000020.npz"]
    (folder / "block-000020.npz").unlink()
    capsys.readouterr()
    again = collect(folder, games=25)
    assert "block 0:" not in capsys.readouterr().out and again["games"] == 25
    assert json.loads((folder / "about.json").read_text())["seed"] == 3
    # a larger --games plays the cut-short last block again, whole, and leaves the full one
    longer = collect(folder, games=30)
    assert "block 0:" not in capsys.readouterr().out and longer["games"] == 30
    assert [len(b["won"]) for b in expert_distill.load_blocks(str(folder))] == [20, 10]
    # a smaller one plays nothing and counts the blocks up to it
    shorter = collect(folder, games=15)
    assert "block" not in capsys.readouterr().out.split("expert vs")[0] and shorter["games"] == 20
    with pytest.raises(SystemExit, match="another collection"):
        collect(folder, games=25, seed=4)


def test_a_distillation_of_no_epochs_plays_the_policy_it_started_from(tmp_path):
    collect(tmp_path / "demos", games=25)
    expert_distill.main(["distill", "--checkpoint", CLASSIC_2P, "--demos", str(tmp_path / "demos"),
                         "--out", str(tmp_path / "same"), "--epochs", "0"])
    rules = make_rules("classic")
    a = make_agent(f"checkpoint:{tmp_path / 'same'}", rules, 2)
    b = make_agent(f"checkpoint:{CLASSIC_2P}", rules, 2)
    obs, masks = probes()
    assert (a.policy.act(obs, masks) == b.policy.act(obs, masks)).all()
    np.testing.assert_allclose(a.policy.logits(obs), b.policy.logits(obs), atol=1e-5)


def test_soft_targets_leave_the_policy_where_the_expert_kept_its_moves(tmp_path):
    # the same rows with every override undone: soft targets are the policy's own
    # distribution, at their loss's minimum, so a fit leaves the moves as they were
    collect(tmp_path / "demos", games=25)
    kept = rewritten(tmp_path, "kept", lambda block: dict(block, actions=block["prior"]))
    rules = make_rules("classic")
    obs, masks = probes()
    moves = {}
    for targets in ("soft", "hard"):
        expert_distill.main(["distill", "--checkpoint", CLASSIC_2P, "--demos", str(kept), "--out",
                             str(tmp_path / targets), "--epochs", "3", "--learning-rate", "0.05",
                             "--targets", targets])
        moves[targets] = make_agent(f"checkpoint:{tmp_path / targets}", rules, 2).policy.logits(obs)
    source = make_agent(f"checkpoint:{CLASSIC_2P}", rules, 2).policy.logits(obs)
    np.testing.assert_allclose(moves["soft"], source, atol=1e-3)
    assert np.abs(moves["hard"] - source).max() > 1e-2  # the one-hot targets do move it


def test_soft_targets_teach_the_overrides(tmp_path):
    # rows where the "expert" overrode the policy (its second-best legal move, on one row in
    # four): soft targets move the policy there, towards those moves
    collect(tmp_path / "demos", games=25)

    def overridden(block):
        actions = block["prior"].copy()
        for r, move in other_legal(block):
            actions[r] = move
        return dict(block, actions=actions)

    taught = rewritten(tmp_path, "taught", overridden)
    expert_distill.main(["distill", "--checkpoint", CLASSIC_2P, "--demos", str(taught), "--out",
                         str(tmp_path / "soft"), "--epochs", "20", "--learning-rate", "0.1"])
    fitted = expert_distill.load_blocks(str(taught))[0]
    over = fitted["actions"] != fitted["prior"]
    assert over.sum() >= 5 and (greedy(fitted)[over] == fitted["actions"][over]).mean() == 0
    now = greedy(fitted, tmp_path / "soft")
    assert (now[over] == fitted["actions"][over]).mean() > 0.3


def test_improve_targets_move_the_policy_towards_the_moves_the_search_valued_and_nowhere_else(tmp_path):
    # one row in four "searched": the policy's move (value 0) compared with another legal move,
    # valued 0.5 above it (or 0); every other value NaN, as a collection writes them. Policy
    # improvement moves the policy to those moves and keeps its moves elsewhere; with no gain
    # it is the soft targets' fixed point
    collect(tmp_path / "demos", games=25)
    rules = make_rules("classic")
    obs, _ = probes()
    source = make_agent(f"checkpoint:{CLASSIC_2P}", rules, 2).policy.logits(obs)
    for name, gain in (("flat", 0.0), ("valued", 0.5)):

        def compared(block, gain=gain):
            values = np.full(block["masks"].shape, np.nan, np.float16)
            for r, move in other_legal(block):
                values[r, block["prior"][r]], values[r, move] = 0.0, gain
            return dict(block, actions=block["prior"], values=values)

        folder = rewritten(tmp_path, name, compared)
        expert_distill.main(["distill", "--checkpoint", CLASSIC_2P, "--demos", str(folder), "--out",
                             str(tmp_path / f"{name}-fit"), "--epochs", "20", "--learning-rate", "0.1",
                             "--targets", "improve", "--temperature", "0.1"])
        fitted = tmp_path / f"{name}-fit"
        if gain == 0:
            np.testing.assert_allclose(make_agent(f"checkpoint:{fitted}", rules, 2).policy.logits(obs), source,
                                       atol=1e-3)
            continue
        block = expert_distill.load_blocks(str(folder))[0]
        values = block["values"].astype(np.float64)
        gained = (values > 0).any(1)
        now = greedy(block, fitted)
        best = np.where(values > 0, values, -1).argmax(1)
        assert gained.sum() >= 5 and (now[gained] == best[gained]).mean() > 0.3
        assert (now[~gained] == block["prior"][~gained]).mean() > 0.9


def test_improve_targets_refuse_blocks_without_values_and_collecting_again_replays_them(tmp_path):
    collect(tmp_path / "demos", games=25)
    old = rewritten(tmp_path, "old", lambda block: {k: v for k, v in block.items() if k not in ("values", "samples")})
    with pytest.raises(SystemExit, match="2 of its 2 blocks hold no move values"):
        expert_distill.main(["distill", "--checkpoint", CLASSIC_2P, "--demos", str(old), "--out",
                             str(tmp_path / "out"), "--targets", "improve"])
    # collecting into the folder again replays those blocks, the same games, with their values
    expert_distill.main(["collect", "--checkpoint", CLASSIC_2P, "--out", str(old), "--games", "25",
                         "--simulations", "6", "--seed", "3"])
    blocks = zip(expert_distill.load_blocks(str(tmp_path / "demos")), expert_distill.load_blocks(str(old)))
    for before, after in blocks:
        assert set(after) == set(before)
        for column in before:
            np.testing.assert_array_equal(after[column], before[column])


def test_temperature_belongs_to_improve_targets(tmp_path, capsys):
    assert "--targets improve only" in cli_error(expert_distill.main, capsys, [
        "distill", "--demos", str(tmp_path), "--out", str(tmp_path / "out"), "--temperature", "0.1"])


def test_distill_refuses_demos_of_another_policy(tmp_path, capsys):
    collect(tmp_path / "demos", games=25)
    about = json.loads((tmp_path / "demos" / "about.json").read_text())
    (tmp_path / "demos" / "about.json").write_text(json.dumps(dict(about, checkpoint="checkpoints/tmnt-2p")))
    with pytest.raises(SystemExit, match="was collected with"):
        expert_distill.main(["distill", "--checkpoint", CLASSIC_2P, "--demos", str(tmp_path / "demos"),
                             "--out", str(tmp_path / "out")])
    assert "no about.json" in cli_error(expert_distill.main, capsys, ["distill", "--demos", str(tmp_path),
                                                                       "--out", str(tmp_path / "out")])
    assert "--games" in cli_error(expert_distill.main, capsys, ["collect", "--out", str(tmp_path / "x"),
                                                                 "--games", "0"])


def test_neither_step_writes_into_a_folder_it_did_not_fill(tmp_path):
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    (shipped / "card.json").write_text("{}")
    with pytest.raises(SystemExit, match="no collection wrote"):
        collect(shipped)
    collect(tmp_path / "demos", games=25)
    with pytest.raises(SystemExit, match="no distillation wrote"):
        expert_distill.main(["distill", "--checkpoint", CLASSIC_2P, "--demos", str(tmp_path / "demos"),
                             "--out", str(shipped)])
    assert (shipped / "card.json").read_text() == "{}" and len(list(shipped.iterdir())) == 1
    out = ["distill", "--checkpoint", CLASSIC_2P, "--demos", str(tmp_path / "demos"), "--out", str(tmp_path / "d")]
    expert_distill.main(out + ["--epochs", "0"])
    expert_distill.main(out + ["--epochs", "1"])  # its own output it may write again



def test_only_block_files_collect_wrote_are_read(tmp_path):
    collect(tmp_path / "demos", games=25)
    folder = tmp_path / "demos"
    (folder / "block-notanumber.npz").write_text("not a block")
    (folder / "block-000040.npz").symlink_to(folder / "block-000000.npz")
    os.mkfifo(folder / "block-000060.npz")
    blocks = expert_distill.load_blocks(str(folder))
    assert [len(b["won"]) for b in blocks] == [20, 5]
    assert expert_distill.block_games(str(folder / "block-000040.npz")) == 0
    assert expert_distill.block_games(str(folder / "block-000060.npz")) == 0
    # and a collection does not replace them
    with pytest.raises(SystemExit, match="block-000040.npz, block-000060.npz named as a block"):
        collect(folder, games=80)
    assert (folder / "block-000040.npz").is_symlink() and stat.S_ISFIFO(os.stat(folder / "block-000060.npz").st_mode)
