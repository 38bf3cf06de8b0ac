"""The documentation stays true: README is a front door that starts with the two commands, its
shipped-agents table is the cards' evaluation, the model cards are what scripts/model_cards.py
writes from card.json, docs/RULES.md is the shared specification, every code-block marker has
its reason, and (slow) the blocks marked slow run (scripts/check_docs_code.py --only-slow; the
others run in .ci/run's own step)."""
from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
MAX_README_LINES = 250


def run_script(*args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def test_readme_is_a_front_door_that_starts_with_the_two_commands():
    lines = README.split("\n")
    assert len(lines) <= MAX_README_LINES
    first_block = README.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in first_block.strip().split("\n")]
    assert commands == ["bash scripts/main.sh", "bash scripts/test.sh"]
    assert README.index("```bash") < README.index("\n## ")  # before any section


def script(name: str):
    """``scripts/<name>.py`` imported as a module (registered first: its dataclasses look their
    module up)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


def model_cards_script():
    return script("model_cards")


def shipped_checkpoints() -> list[Path]:
    """The checkpoint directories scripts/model_cards.py writes cards for (git-tracked ones)."""
    return model_cards_script().shipped()


def percent(x: float) -> str:
    return f"{round(100 * x + 1e-9, 1):.1f}%"


def test_readme_shipped_agents_table_holds_each_cards_final_evaluation():
    for directory in shipped_checkpoints():
        card_path, name = directory / "card.json", directory.name
        row = next((line for line in README.split("\n") if line.startswith(f"| `{name}` ")), None)
        assert row is not None, f"README has no row for the shipped agent {name}"
        card = json.loads(card_path.read_text(encoding="utf-8"))
        for opponent in ("random", "heuristic"):
            r = card["evaluation"][opponent]
            lo, hi = r["ci95"]
            shown = f"{percent(r['win_rate'])} ({100 * lo:.1f}-{100 * hi:.1f})"
            assert shown in row.replace("**", ""), (name, opponent, shown, row)
        assert f"checkpoints/{name}/README.md" in row


def test_every_figure_against_random_names_the_bot_and_has_the_uniform_figure_beside_it():
    """`random` never draws while it holds a playable card, so "against random" is not the uniform
    random player other projects report: README's table and each card give both, by name."""
    cards = model_cards_script()
    header = next(line for line in README.split("\n") if line.startswith("| agent | rules, players |"))
    assert "| vs `random` | vs `uniform` |" in header
    for directory in shipped_checkpoints():
        name = directory.name
        u = cards.UNIFORM[name]
        lo, hi = u["ci95"]
        shown = f"{cards.pct(u['wins'] / u['games'])} ({100 * lo:.1f}-{100 * hi:.1f})"
        row = next(line for line in README.split("\n") if line.startswith(f"| `{name}` "))
        assert row.split(" | ")[3].startswith(shown), (name, shown, row)
        card = (directory / "README.md").read_text(encoding="utf-8")
        assert f"**{shown.split()[0]}** ({100 * lo:.1f}-{100 * hi:.1f})" in card
        assert f"--agent pretrained:{name} --opponent uniform" in card.replace("\n", " ")


def test_model_cards_are_what_the_script_writes_from_card_json():
    done = run_script("scripts/model_cards.py", "--check")
    assert done.returncode == 0, done.stderr


# the keys that make a run the one its card records (learner's default: sb3, the training configs')
RECIPE_KEYS = {"learner": "sb3", "rules": None, "num_players": None, "seed": None, "n_envs": None,
               "n_steps": None, "batch_size": None, "n_epochs": None, "net_arch": None}


def test_each_model_cards_training_command_names_the_config_its_agent_was_trained_with():
    """A card's commands reproduce its agent: the config each new run's command names, with the
    command's own ``--set`` overrides, exists and has the learner, table, seed and rollout shape
    the card.json records (the shipped agents of 0.5 were trained with MaskablePPO:
    configs/train/sb3/, while configs/train/ moved on to the batched learner; a ``--resume``
    continues the run its first command started)."""
    import yaml

    for directory in shipped_checkpoints():
        text = (directory / "README.md").read_text(encoding="utf-8").replace("\\\n", " ")
        commands = [line for line in text.split("\n") if re.search(r"--config configs/\S+\.yaml", line)]
        assert commands, f"{directory.name}'s model card names no config"
        recorded = json.loads((directory / "card.json").read_text(encoding="utf-8"))["config"]
        for command in commands:
            if "--resume" in command:
                continue
            path = re.search(r"--config (configs/\S+\.yaml)", command).group(1)
            config = yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))
            config.update({k: yaml.safe_load(v) for k, v in re.findall(r"--set '?([a-z_]+)=([^\s']+)", command)})
            differ = {key: (config.get(key, default), recorded.get(key, default))
                      for key, default in RECIPE_KEYS.items()
                      if config.get(key, default) != recorded.get(key, default)}
            assert not differ, (directory.name, path, differ)


def test_model_card_figures_come_from_the_card():
    card = json.loads((ROOT / "checkpoints/classic-4p/card.json").read_text(encoding="utf-8"))
    text = (ROOT / "checkpoints/classic-4p/README.md").read_text(encoding="utf-8")
    assert f"{card['evaluation']['heuristic']['wins']:,}" in text
    assert f"{card['total_steps']:,} steps" in text
    assert card["policy"]["sha256"][:16] in text


def test_docs_rules_is_the_shared_specification():
    shared = ROOT.parent / "shared" / "RULES.md"
    if not shared.is_file():
        pytest.skip("no shared/RULES.md beside this checkout")
    assert (ROOT / "docs" / "RULES.md").read_bytes() == shared.read_bytes()


def test_every_docs_code_block_marker_is_justified_and_parses():
    done = run_script("scripts/check_docs_code.py", "--list")
    assert done.returncode == 0, done.stderr
    skips = [line for line in done.stdout.split("\n") if line.startswith("skip")]
    assert skips and all(re.search(r": (skip|slow): \S.{10,}", line) for line in skips), skips


def test_every_block_that_trains_is_marked_skip_or_slow():
    """A block that starts a training run or a best-response search takes minutes to hours:
    unmarked, .ci/run's docs step would run it and time out (CI failed so on a research log)."""
    module = script("check_docs_code")
    trains = re.compile(r"training/train(_rllib)?\.py|bench/exploitability\.py")
    unmarked = [f"{module.shown(b.path)}:{b.line}" for path in module.doc_files()
                for b in module.blocks_of(path) if b.mark is None and trains.search(b.code)]
    assert unmarked == []


def test_a_marker_without_a_reason_is_refused(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- docs-code: skip -->\n```bash\necho hi\n```\n", encoding="utf-8")
    done = run_script("scripts/check_docs_code.py", "--list", str(page))
    assert done.returncode == 1 and "needs a reason" in done.stderr


def test_a_block_whose_output_differs_from_its_text_block_fails(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```python\nprint('one')\n```\n\n<!-- docs-code: output -->\n```text\ntwo\n```\n",
                    encoding="utf-8")
    done = run_script("scripts/check_docs_code.py", str(page))
    assert done.returncode == 1 and "output differs" in done.stdout
    page.write_text("```python\nprint('two')\n```\n\n<!-- docs-code: output -->\n```text\ntwo\n```\n",
                    encoding="utf-8")
    assert run_script("scripts/check_docs_code.py", str(page)).returncode == 0


@pytest.mark.slow
def test_the_docs_code_blocks_marked_slow_run():
    done = run_script("scripts/check_docs_code.py", "--only-slow", timeout=3600)
    assert done.returncode == 0, done.stdout[-3000:]


def test_every_command_line_spells_the_player_count_num_players():
    """One spelling across the CLIs (uno-evaluate's, the examples'): ``--num-players``, with
    ``--players`` kept only as an alias of it."""
    parsers = [*ROOT.glob("uno_env/**/*.py"), *ROOT.glob("bench/*.py"), *ROOT.glob("training/*.py"),
               *ROOT.glob("examples/*.py"), *ROOT.glob("experiments/*.py")]
    offenders = [str(p.relative_to(ROOT)) for p in parsers
                 if re.search(r"add_argument\(\s*[\"']--players[\"']", p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_the_old_players_spelling_still_parses_as_num_players():
    from uno_env.tools.batched_eval import build_parser
    assert build_parser().parse_args(["--agent", "random", "--players", "4"]).players == 4
    assert build_parser().parse_args(["--agent", "random", "--num-players", "4"]).players == 4


@pytest.mark.slow
@pytest.mark.parametrize("name", ["classic-2p", "classic-4p", "house-2p", "house-4p", "tmnt-2p"])
def test_the_uniform_figures_are_what_batched_eval_prints(name):
    """The cards' `uniform` figures, replayed: the batched evaluation is deterministic for one
    seed and batch (minutes for the 4-player house agent)."""
    pytest.importorskip("numba")
    from uno_env.agents import pretrained
    from uno_env.tools.batched_eval import evaluate_batched

    u = model_cards_script().UNIFORM[name]
    agent = next(p for p in pretrained() if p.name == name)
    r = evaluate_batched(f"pretrained:{name}", "uniform", agent.rules, agent.num_players, games=u["games"],
                         batch=2000, seed=0)
    assert r["wins"] == u["wins"]
    assert [round(x, 4) for x in r["win_ci95"]] == list(u["ci95"])


def test_no_table_of_a_model_card_has_an_empty_header_row():
    for directory in shipped_checkpoints():
        lines = (directory / "README.md").read_text(encoding="utf-8").split("\n")
        for i, line in enumerate(lines[1:], start=1):
            if re.fullmatch(r"\|(-+:?\|)+|\|(:?-+:?\|)+", line.strip()):  # a header's rule: the line above is the header
                assert lines[i - 1].strip("| ").strip(), f"{directory.name}: an empty header row above line {i + 1}"


def test_the_docs_site_keeps_the_copy_button_off_the_code():
    """The theme's copy button sits at the top right of each code block: the site's stylesheet
    gives the code a gutter above its first line for it, so a long line never runs under it."""
    import yaml

    site = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert "content.code.copy" in site["theme"]["features"]
    css = "".join((ROOT / "docs" / path).read_text(encoding="utf-8") for path in site.get("extra_css", []))
    rule = re.search(r"\.md-typeset pre > code\s*\{[^}]*padding-top:\s*([\d.]+)em", css)
    assert rule and float(rule[1]) >= 2.0  # the button: 1.5em tall, 0.5em from the top
