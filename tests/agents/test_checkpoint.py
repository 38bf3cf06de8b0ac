"""Safe checkpoints (``uno_env.agents.checkpoint``) and the numpy actor (``uno_env.agents.policy``):
the card is validated before any weight is read, the weights must be exactly what the card
describes, every problem is a ``ValueError`` naming the file and the problem, and a crash while
saving leaves a checkpoint whose card matches its weights. No torch or SB3 needed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from safetensors.numpy import save as st_save

from uno_env import _atomic
from uno_env.agents import checkpoint as ckpt
from uno_env.agents import make_agent
from uno_env.agents.policy import MaskedPolicy, load_policy
from uno_env.agents import shipped as shipped_agents
from uno_env.envs.gym_env import UnoGymEnv
from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game import observation as O
from uno_env.game.rules import make_rules

from helpers import layout0_checkpoint, not_a_regular_file, random_checkpoint, run_bounded

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHIPPED = os.path.join(ROOT, "checkpoints", "classic-2p")
CLASSIC = make_rules("classic")


def read_card(path) -> dict:
    with open(os.path.join(path, "card.json")) as fh:
        return json.load(fh)


def write_card(path, card) -> None:
    with open(os.path.join(path, "card.json"), "w") as fh:
        json.dump(card, fh)


def write_weights(path, data: bytes) -> None:
    """Replace the weights file the card names by ``data`` and give the card its hash (so the
    checks past the SHA-256 are reached)."""
    import hashlib

    card = read_card(path)
    with open(os.path.join(path, card["policy"]["weights"]), "wb") as fh:
        fh.write(data)
    card["policy"]["sha256"] = hashlib.sha256(data).hexdigest()
    write_card(path, card)


def observations(n_games: int = 3, num_players: int = 2, seed: int = 0):
    env = UnoGymEnv(num_players=num_players, opponents="random")
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out, masks = [], []
    for _ in range(n_games):
        done = False
        while not done:
            out.append(obs)
            masks.append(info["action_mask"])
            obs, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            done = term or trunc
        obs, info = env.reset()
    return np.stack(out), np.stack(masks)


# ---------------------------------------------------------------------- the network
@pytest.mark.parametrize("input_kind,activation,hidden", [("obs_features", "tanh", (16, 8)),
                                                          ("raw", "relu", (12,)), ("raw", "tanh", ())])
def test_actor_is_rebuilt_from_card_and_weights(tmp_path, input_kind, activation, hidden):
    card = random_checkpoint(tmp_path, hidden=hidden, input_kind=input_kind, activation=activation)
    loaded, tensors = ckpt.load_checkpoint(tmp_path, CLASSIC, 2)
    assert loaded == card and set(tensors) == set(ckpt.tensor_shapes(card["policy"]))
    obs, masks = observations()
    x = obs if input_kind == "raw" else obs[:, ckpt.obs_features_layout(2)[0]] * ckpt.obs_features_layout(2)[1]
    act = np.tanh if activation == "tanh" else (lambda v: np.maximum(v, 0))
    for i in range(len(hidden) + 1):  # torch.nn.Linear: x W^T + b, activation between layers
        x = x @ tensors[f"actor.{i}.weight"].T + tensors[f"actor.{i}.bias"]
        x = act(x) if i < len(hidden) else x
    policy, _ = load_policy(str(tmp_path))
    np.testing.assert_allclose(policy.logits(obs), x, rtol=1e-5, atol=1e-5)
    chosen = policy.act(obs, masks)
    assert masks[np.arange(len(obs)), chosen].all()
    assert np.array_equal(chosen, np.where(masks.astype(bool), x, -np.inf).argmax(axis=1))


def test_obs_features_drop_only_entries_that_are_always_zero():
    for n in (2, 3, 10):
        keep, scale = ckpt.obs_features_layout(n)
        assert len(keep) == O.OPPONENTS + (n - 1) * O.OPP_FIELDS + O.NUM_RULE_FLAGS \
            + (n - 1) * O.HIST_FIELDS + C.NUM_COLORS
        dropped = np.setdiff1d(np.arange(O.OBS_SIZE), keep)
        obs, _ = observations(2, n, seed=n)
        assert not obs[:, dropped].any()
        assert scale[list(keep).index(O.PENDING)] == ckpt.PENDING_SCALE
        assert scale[list(keep).index(O.OPPONENTS + O.OPP_HAND_SIZE)] == ckpt.HAND_SIZE_SCALE
        assert scale[list(keep).index(O.HISTORY + O.HIST_RECEIVED)] == ckpt.HAND_SIZE_SCALE
    assert len(ckpt.obs_features_layout(2)[0]) == 361


def test_obs_features_of_layout_0_are_those_of_before():
    """Layout 0's obs_features (what version-0 cards were trained on): 326 entries for two
    players, all in the version-0 prefix; layout 1's start with them."""
    for n in (2, 4):
        keep0, scale0 = ckpt.obs_features_layout(n, 0)
        keep1, scale1 = ckpt.obs_features_layout(n, 1)
        assert len(keep0) == O.OPPONENTS + (n - 1) * O.OPP_FIELDS + O.NUM_RULE_FLAGS
        assert keep0.max() < O.V0_SIZE
        assert (keep1[:len(keep0)] == keep0).all() and (scale1[:len(keep0)] == scale0).all()
    assert len(ckpt.obs_features_layout(2, 0)[0]) == 326
    with pytest.raises(ValueError, match="unknown observation layout version 7"):
        ckpt.obs_features_layout(2, 7)


@pytest.mark.parametrize("input_kind", ["raw", "obs_features"])
def test_layout_0_checkpoint_plays_on_the_layout_0_prefix(tmp_path, input_kind):
    """A version-0 card loads; its policy reads the first 1254 entries of today's
    observation (the layout-0 observation), so it acts as it did, and also takes the
    layout-0 observations of the batched engine."""
    card = layout0_checkpoint(tmp_path, input_kind)
    _, tensors = ckpt.load_checkpoint(tmp_path, CLASSIC, 2)
    obs, masks = observations()
    assert obs.shape[1] == O.OBS_SIZE
    prefix = obs[:, :O.V0_SIZE]
    if input_kind == "raw":
        x = prefix
    else:
        keep, scale = ckpt.obs_features_layout(2, 0)
        x = prefix[:, keep] * scale
    for i in range(2):
        x = x @ tensors[f"actor.{i}.weight"].T + tensors[f"actor.{i}.bias"]
        x = np.tanh(x) if i == 0 else x
    policy, loaded = load_policy(str(tmp_path), CLASSIC, 2)
    assert loaded == card and policy.layout_version == 0
    np.testing.assert_allclose(policy.logits(obs), x, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(policy.logits(prefix), x, rtol=1e-5, atol=1e-5)
    agent = make_agent(f"checkpoint:{tmp_path}", CLASSIC, 2)
    assert agent.act(obs[0], masks[0]) == int(np.where(masks[0].astype(bool), x[0], -np.inf).argmax())


def test_layout_1_policy_refuses_a_layout_0_observation(tmp_path):
    random_checkpoint(tmp_path)
    policy, _ = load_policy(str(tmp_path))
    obs, _ = observations(1)
    with pytest.raises(ValueError, match="layout 1 .*1537 entries.*got 1254"):
        policy.logits(obs[:, :O.V0_SIZE])


@pytest.mark.parametrize("layout", [{"version": 0, "size": 1537}, {"version": 1, "size": 1254},
                                    {"version": 2, "size": 1600}, {"version": "1", "size": 1537},
                                    {"version": 1}])
def test_layout_with_a_wrong_size_or_unknown_version_is_refused(tmp_path, layout):
    card = random_checkpoint(tmp_path)
    card["observation_layout"] = layout
    with pytest.raises(ckpt.CheckpointError, match="observation layout"):
        ckpt.validate_card(card)


def test_sampling_agent_is_reproducible(tmp_path):
    random_checkpoint(tmp_path, hidden=(8,))
    obs, masks = observations(1)
    a = make_agent(f"checkpoint:{tmp_path}#sample", CLASSIC, 2, seed=3)
    b = make_agent(f"checkpoint:{tmp_path}#sample", CLASSIC, 2, seed=3)
    picks = [a.act(o, m) for o, m in zip(obs, masks)]
    assert picks == [b.act(o, m) for o, m in zip(obs, masks)]
    assert all(masks[i][p] for i, p in enumerate(picks))


# ---------------------------------------------------------------------- the card
BAD_CARDS = [
    ("rules is a string", lambda c: c.update(rules="classic"), "rules must be a JSON object of rule options, got str"),
    ("rules value", lambda c: c["rules"].update(stacking="yes"), "rules: rule 'stacking' must be true or false"),
    ("rules key", lambda c: c["rules"].update(bogus=1), r"rules: unknown rule key\(s\) \['bogus'\]"),
    ("players", lambda c: c.update(num_players=1), r"num_players must be an integer in 2\.\.10, got 1"),
    ("players type", lambda c: c.update(num_players="2"), "num_players must be an integer"),
    ("players bool", lambda c: c.update(num_players=True), "num_players must be an integer"),
    ("obs layout", lambda c: c["observation_layout"].update(version=99), "observation layout .*99"),
    ("obs layout size", lambda c: c["observation_layout"].update(size=1254), "observation layout .*1254"),
    ("action layout", lambda c: c["action_layout"].update(size=61), "action layout .*61"),
    ("format 1", lambda c: c.update(format=1), "format 1 describes an SB3 model.zip.*uno-convert-checkpoint"),
    ("format 3", lambda c: c.update(format=3), "unsupported format 3"),
    ("format str", lambda c: c.update(format="2"), "unsupported format '2'"),
    ("no policy", lambda c: c.pop("policy"), r"missing \['policy'\]"),
    ("policy type", lambda c: c.update(policy="pickle"), "policy: must be a JSON object"),
    ("policy keys", lambda c: c["policy"].update(code="x"), "policy: keys must be"),
    ("input", lambda c: c["policy"].update(input="custom"), "input must be one of"),
    ("activation", lambda c: c["policy"].update(activation="gelu"), "activation must be one of"),
    ("dtype", lambda c: c["policy"].update(dtype="float64"), "dtype must be 'float32'"),
    ("sizes type", lambda c: c["policy"].update(sizes="326"), "sizes must be a list"),
    ("sizes float", lambda c: c["policy"].update(sizes=[326, 16.5, 195]), "sizes must be a list"),
    ("sizes bool", lambda c: c["policy"].update(sizes=[326, True, 195]), "sizes must be a list"),
    ("sizes too deep", lambda c: c["policy"].update(sizes=[326] + [4] * 17 + [195]), "sizes must be a list"),
    ("input size", lambda c: c["policy"].update(sizes=[1254, 16, 195]), r"sizes\[0\] is 1254"),
    ("actions", lambda c: c["policy"].update(sizes=[361, 16, 61]), r"sizes\[-1\] is 61"),
    ("width", lambda c: c["policy"].update(sizes=[361, 10 ** 9, 195]), "hidden layer sizes must be in"),
    ("zero width", lambda c: c["policy"].update(sizes=[361, 0, 195]), "hidden layer sizes must be in"),
    ("traversal", lambda c: c["policy"].update(weights="../w.safetensors"), "plain file name"),
    ("absolute", lambda c: c["policy"].update(weights="/etc/passwd"), "plain file name"),
    ("zip", lambda c: c["policy"].update(weights="model.zip"), "plain file name"),
    ("sha", lambda c: c["policy"].update(sha256="abc"), "sha256 must be 64"),
]


@pytest.mark.parametrize("change,message", [b[1:] for b in BAD_CARDS], ids=[b[0] for b in BAD_CARDS])
def test_bad_card_is_a_value_error_before_any_weight_is_read(tmp_path, monkeypatch, change, message):
    random_checkpoint(tmp_path)
    card = read_card(tmp_path)
    change(card)
    write_card(tmp_path, card)

    def no_weights(*args, **kwargs):
        raise AssertionError("weights read before the card was validated")

    monkeypatch.setattr(ckpt, "load_weights", no_weights)
    monkeypatch.setattr("safetensors.safe_open", no_weights)
    with pytest.raises(ValueError, match=message) as info:
        make_agent(f"checkpoint:{tmp_path}", CLASSIC, 2)
    assert "card.json" in str(info.value) and "\n" not in str(info.value)


def test_card_for_other_env_is_refused_before_any_weight_is_read(tmp_path, monkeypatch):
    random_checkpoint(tmp_path)
    monkeypatch.setattr(ckpt, "load_weights", lambda *a: pytest.fail("weights read"))
    with pytest.raises(ValueError, match=r"rules .*stacking=False \(env: True\)"):
        make_agent(f"checkpoint:{tmp_path}", make_rules("classic", stacking=True), 2)
    with pytest.raises(ValueError, match=r"num_players 2 \(the env has 3\)"):
        UnoGymEnv(num_players=3, opponents=f"checkpoint:{tmp_path}")


def test_rule_option_absent_from_an_older_card_takes_its_default(tmp_path):
    random_checkpoint(tmp_path)
    card = read_card(tmp_path)
    del card["rules"]["giving"]  # a card written before the option existed
    write_card(tmp_path, card)
    make_agent(f"checkpoint:{tmp_path}", CLASSIC, 2)
    with pytest.raises(ValueError, match=r"giving=False \(env: True\)"):
        make_agent(f"checkpoint:{tmp_path}", make_rules("classic", giving=True), 2)


@pytest.mark.parametrize("content,message", [
    (b"{ not json", "is not JSON: Expecting property name"),
    (b"\xff\xfe{}", "is not UTF-8 text"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b"[]", "must be a JSON object, got list"),
    (b" " * (ckpt.MAX_CARD_BYTES + 1), rf"has {ckpt.MAX_CARD_BYTES + 1} bytes \(at most {ckpt.MAX_CARD_BYTES}\)"),
], ids=["syntax", "utf8", "nesting", "list", "size"])
def test_corrupt_card_named(tmp_path, content, message):
    random_checkpoint(tmp_path)
    with open(tmp_path / "card.json", "wb") as fh:
        fh.write(content)
    with pytest.raises(ValueError, match=message) as info:
        ckpt.load_card(tmp_path)
    assert "card.json" in str(info.value)


def test_missing_files_are_value_and_file_not_found_errors(tmp_path):
    missing = tmp_path / "nothing"
    with pytest.raises(ckpt.CheckpointNotFoundError, match="checkpoint directory .*nothing.* not found"):
        make_agent(f"checkpoint:{missing}", CLASSIC, 2)
    os.makedirs(missing)
    with pytest.raises(FileNotFoundError, match="nothing.*card.json.* not found"):
        make_agent(f"checkpoint:{missing}", CLASSIC, 2)
    card = random_checkpoint(tmp_path / "ckpt")
    os.remove(tmp_path / "ckpt" / card["policy"]["weights"])
    with pytest.raises(ValueError, match=f"weights .*{card['policy']['weights']}.* not found"):
        make_agent(f"checkpoint:{tmp_path / 'ckpt'}", CLASSIC, 2)
    assert issubclass(ckpt.CheckpointNotFoundError, ValueError)
    with pytest.raises(ValueError, match="is an SB3 model file.*uno-convert-checkpoint"):
        make_agent(f"checkpoint:{tmp_path / 'ckpt' / 'model.zip'}", CLASSIC, 2)
    with pytest.raises(ValueError, match="needs a path"):
        make_agent("checkpoint:", CLASSIC, 2)


# ---------------------------------------------------------------------- the weights
def test_weights_must_match_the_card(tmp_path):
    card = random_checkpoint(tmp_path, hidden=(16,))
    path = str(tmp_path)
    good = {n: np.ones(s, np.float32) for n, s in ckpt.tensor_shapes(card["policy"]).items()}
    size = os.path.getsize(os.path.join(path, card["policy"]["weights"]))

    def refused(data: bytes, message: str) -> None:
        write_weights(path, data)
        with pytest.raises(ValueError, match=message):
            ckpt.load_checkpoint(path)

    refused(st_save({**good, "actor.0.bias": np.full(16, np.nan, np.float32)}), "actor.0.bias holds NaN")
    renamed = {("actor.9.weight" if n == "actor.0.weight" else n): t for n, t in good.items()}
    refused(st_save(renamed), r"hold tensors .*actor\.9\.weight.*; the card's network has")
    refused(st_save({**good, "actor.0.weight": np.ones((361, 16), np.float32)}),
            r"tensor actor.0.weight is F32 \[361, 16\]; the card's network needs F32 \[16, 361\]")
    refused(st_save({**good, "actor.0.bias": np.ones(16, np.int32)}), "actor.0.bias is I32")
    refused(st_save({**good, "extra": np.ones(100_000, np.float32)}), "bytes; the card's network")
    refused(b"\x00" * 8 + bytes(size), "not a valid safetensors file")
    write_weights(path, st_save(good))
    ckpt.load_checkpoint(path)  # the same checks pass on the right tensors
    with open(os.path.join(path, card["policy"]["weights"]), "r+b") as fh:
        fh.seek(-1, 2)
        fh.write(b"\x01")
    with pytest.raises(ValueError, match="do not match the card: sha256"):
        ckpt.load_checkpoint(path)


# ---------------------------------------------------------------------- files read with bounds
def big_card_with_sparse_weights(directory, hidden: tuple[int, ...]) -> tuple[dict, int]:
    """A checkpoint whose card describes a large network and whose weights file has the size
    that network needs, sparse (nothing on disk): the size check passes, the hash fails."""
    card = random_checkpoint(directory)
    spec = ckpt.policy_spec(list(hidden), "tanh", "obs_features", 2)
    card["policy"] = dict(card["policy"], sizes=spec["sizes"])
    write_card(directory, card)
    size = 4 * sum(int(np.prod(s)) for s in ckpt.tensor_shapes(card["policy"]).values()) + 1000
    with open(os.path.join(directory, card["policy"]["weights"]), "r+b") as fh:
        fh.truncate(size)
    return card, size


def test_a_sparse_weights_file_of_the_declared_size_is_hashed_in_bounded_memory(tmp_path):
    card, size = big_card_with_sparse_weights(tmp_path, (ckpt.MAX_WIDTH,) * 3)  # 0.55 GB of float32
    assert size > 520 << 20
    child = run_bounded("import sys; from uno_env.agents import checkpoint as c; c.load_checkpoint(sys.argv[1])",
                        args=(str(tmp_path),), memory_mb=350, timeout_s=300)
    assert child.returncode == 1, child.stderr  # a read() of the whole file would need 0.55 GB
    assert "do not match the card: sha256" in child.last_line and card["policy"]["weights"] in child.last_line
    assert not child.peak_mb >= 200  # (NaN where /proc cannot tell)


def test_a_weights_file_larger_than_its_card_allows_is_refused_before_it_is_read(tmp_path):
    card = random_checkpoint(tmp_path)
    weights = tmp_path / card["policy"]["weights"]
    with open(weights, "r+b") as fh:
        fh.truncate(10 << 30)  # 10 GB, sparse
    child = run_bounded("import sys; from uno_env.agents import checkpoint as c; c.load_checkpoint(sys.argv[1])",
                        args=(str(tmp_path),), memory_mb=400, timeout_s=60)
    assert child.returncode == 1
    assert re.search(rf"has {10 << 30} bytes; the card's network \[.*\] needs \d+ bytes", child.last_line)
    assert child.cpu_s < 10


@pytest.mark.parametrize("which", ["card", "weights"])
@pytest.mark.parametrize("target", ["outside", "inside"])
def test_checkpoint_files_that_are_symbolic_links_are_refused_without_the_targets_size(tmp_path, which, target):
    """Anywhere a link points, in the folder or out of it: the error names the link, not its target."""
    card = random_checkpoint(tmp_path / "ckpt")
    name = ckpt.CARD_FILE if which == "card" else card["policy"]["weights"]
    path = tmp_path / "ckpt" / name
    real = (tmp_path / "elsewhere" if target == "outside" else tmp_path / "ckpt" / "real.bin")
    real.write_bytes(path.read_bytes() + b" " * 4321)
    size = real.stat().st_size
    path.unlink()
    path.symlink_to(real)
    with pytest.raises(ckpt.CheckpointError) as exc:
        ckpt.load_checkpoint(tmp_path / "ckpt")
    assert str(exc.value) == f"checkpoint {which} {str(path)!r} is a symbolic link, not a regular file"
    assert str(size) not in str(exc.value) and "elsewhere" not in str(exc.value)


@pytest.mark.parametrize("which", ["card", "weights"])
def test_a_fifo_card_or_weights_is_refused_without_waiting(tmp_path, which):
    card = random_checkpoint(tmp_path)
    path = tmp_path / (ckpt.CARD_FILE if which == "card" else card["policy"]["weights"])
    path.unlink()
    not_a_regular_file(path, "FIFO")
    child = run_bounded("import sys; from uno_env.agents import checkpoint as c; c.load_checkpoint(sys.argv[1])",
                        args=(str(tmp_path),), timeout_s=60)
    assert not child.timed_out
    assert child.last_line.endswith(f"checkpoint {which} {str(path)!r} is a FIFO, not a regular file")


@pytest.mark.parametrize("key", ["num_players", "policy.sizes[1]", "total_steps"])
def test_a_5000_digit_integer_in_the_card_names_the_file_and_the_key(tmp_path, key):
    random_checkpoint(tmp_path)
    text = (tmp_path / ckpt.CARD_FILE).read_text()
    card = json.loads(text)
    if key == "policy.sizes[1]":
        card["policy"]["sizes"][1] = "HUGE"
    else:
        card[key] = "HUGE"
    (tmp_path / ckpt.CARD_FILE).write_text(json.dumps(card).replace('"HUGE"', "7" * 5000))
    with pytest.raises(ckpt.CheckpointError, match=rf"^checkpoint card '.*card\.json': key '{re.escape(key)}' "
                                                   r"holds an integer of 5000 digits, too long to read$"):
        ckpt.load_card(tmp_path)


# ---------------------------------------------------------------------- saving
def test_save_replaces_the_weights_and_removes_stale_ones(tmp_path):
    """The weights of the card a save replaces stay (for a reader that read that card); those
    of earlier cards go; files of others stay."""
    first = random_checkpoint(tmp_path, seed=1)
    (tmp_path / "notes.txt").write_text("kept")
    second = random_checkpoint(tmp_path, seed=2)
    third = random_checkpoint(tmp_path, seed=3)
    assert len({c["policy"]["weights"] for c in (first, second, third)}) == 3
    assert sorted(set(os.listdir(tmp_path)) - {".uno-lock"}) == sorted(
        ["card.json", "notes.txt", second["policy"]["weights"], third["policy"]["weights"]])
    assert ckpt.load_checkpoint(tmp_path)[0] == third


def test_crash_while_saving_leaves_a_checkpoint_that_matches_its_weights(tmp_path, monkeypatch):
    """The card is the commit point: killed after the new weights, before the new card, the
    old card still names the old (intact) weights."""
    old = random_checkpoint(tmp_path, seed=1)
    obs, _ = observations(1)
    before = load_policy(str(tmp_path))[0].logits(obs)

    def crash(path, text):
        raise KeyboardInterrupt

    monkeypatch.setattr(_atomic, "write_text", crash)
    with pytest.raises(KeyboardInterrupt):
        random_checkpoint(tmp_path, seed=2)
    assert read_card(tmp_path) == old
    card, _ = ckpt.load_checkpoint(tmp_path, CLASSIC, 2)
    policy = MaskedPolicy(card["policy"], ckpt.load_weights(tmp_path, card), 2)
    np.testing.assert_array_equal(policy.logits(obs), before)


def test_save_refuses_tensors_that_do_not_fit_the_card(tmp_path):
    card = random_checkpoint(tmp_path / "a")
    tensors = ckpt.load_checkpoint(tmp_path / "a")[1]
    with pytest.raises(ValueError, match="do not match the card's network"):
        ckpt.save_policy(str(tmp_path / "b"), card, {**tensors, "x": np.ones(1, np.float32)})
    with pytest.raises(ValueError, match="policy: input must be one of"):
        ckpt.save_policy(str(tmp_path / "b"), dict(card, policy=dict(card["policy"], input="x")), tensors)
    assert not os.path.exists(tmp_path / "b" / "card.json")


# ---------------------------------------------------------------------- the shipped agent, play time
# the shipped agents are those uno_env.agents.shipped lists, not whatever checkpoints/ holds: a run
# of the user's own lands there too (scripts/main.sh writes checkpoints/quick/, with its model.zip)
SHIPPED_DIRS = list(shipped_agents.SHIPPED)


def test_every_shipped_checkpoint_folder_is_checked():
    assert {"classic-2p", "classic-4p", "house-2p", "house-4p", "tmnt-2p"} <= set(SHIPPED_DIRS)


@pytest.mark.parametrize("name", SHIPPED_DIRS)
def test_shipped_checkpoint_is_safe_and_plays_without_torch(name):
    """A shipped agent holds no pickle (not SB3's model.zip, not RLlib's checkpoint), only its
    card, its weights and its model card (README.md; the curve and eval.csv aside), and plays
    through numpy alone (torch, SB3 and ray are not even imported)."""
    shipped = os.path.join(ROOT, "checkpoints", name)
    card = ckpt.load_card(shipped)
    assert sorted(f for f in os.listdir(shipped) if not f.endswith((".csv", ".png"))) == sorted(
        ["README.md", "card.json", card["policy"]["weights"]])
    lineup = [f"checkpoint:checkpoints/{name}"] + ["random"] * (card["num_players"] - 1)
    code = ("import sys, numpy as np, uno_env\n"
            "import uno_env.learn.sb3.convert  # the SB3 side imports torch only when used\n"
            "from uno_env.tools.evaluate import evaluate\n"
            f"r = evaluate({lineup!r}, {card['rules']['name']!r}, num_players={card['num_players']}, games=4, seed=0)\n"
            "print(r['games'], [m for m in ('torch', 'stable_baselines3', 'sb3_contrib', 'ray') if m in sys.modules])\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["4", "[]"]


@pytest.mark.parametrize("break_it,message", [
    (lambda d, card: os.remove(os.path.join(d, "card.json")), "card.json.* not found"),
    (lambda d, card: os.remove(os.path.join(d, card["policy"]["weights"])), "weights .* not found"),
    (lambda d, card: write_card(d, dict(card, rules="classic")), "rules must be a JSON object"),
], ids=["no card", "no weights", "rules string"])
def test_uno_evaluate_names_a_broken_checkpoint_in_one_line(tmp_path, break_it, message):
    d = str(tmp_path / "ckpt")
    break_it(d, random_checkpoint(d))
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-m", "uno_env.tools.evaluate_cli", "--agents", f"checkpoint:{d}",
                          "random", "--games", "2", "--no-progress"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("uno-evaluate: error: ") and out.stderr.count("\n") == 1
    assert "Traceback" not in out.stderr
    assert re.search(message, out.stderr)
