#!/usr/bin/env python3
"""Write the model card ``checkpoints/<name>/README.md`` of every shipped checkpoint from its
``card.json``, so that each figure in a card is the one the checkpoint's card holds.

    python scripts/model_cards.py            # (re)write every checkpoints/*/README.md
    python scripts/model_cards.py --check    # exit 1 naming each card that differs (CI, docs.sh)

What a card says: what the agent is, its rules, player count, observation and action layouts,
network and weights (from ``card.json``); how it was trained (the algorithm, budget and config
from ``card.json``; the commands and the story of the run from ``NOTES`` below); its evaluation
(``card.json``'s, with intervals and seeds, then any further measured evaluation in ``NOTES``,
each with the command that produced it); how exploitable it is (``docs/data/exploitability.json``,
written by ``bench/exploitability.py``: a best response's win rate against it, beside the
``heuristic`` bot's at its table); its limits and how to load it. A checkpoint without an
entry in ``NOTES`` still gets a card with every figure of its ``card.json``.

Standard library only: the card is read as JSON (at most ``MAX_CARD_BYTES``), nothing is
imported from the checkpoint or run.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKPOINTS = ROOT / "checkpoints"
MAX_CARD_BYTES = 1 << 20  # the checkpoint loader's own bound on card.json
HEADER = "<!-- written by scripts/model_cards.py from card.json: edit the script, not this file -->"

# What card.json cannot say: the story, the commands and the evaluations run outside training.
NOTES: dict[str, dict[str, str]] = {
    "classic-2p": {
        "title": "the 2-player agent for the official rules",
        "summary": (
            "The strongest trained agent shipped: MaskablePPO fine-tuning of a clone of the\n"
            "`heuristic` bot, classic rules, 2 players, observation layout 1 (with the opponents'\n"
            "public history). It beats `random` about 77% (`uniform` 99%) and `heuristic` about 57% of the\n"
            "time."),
        "recipe": (
            "Trained on a 2-core machine in one run of 245 minutes and 50.2M steps, in four parts\n"
            "joined by `--resume` (`eval.csv` and `curve.png` hold the whole curve):\n\n"
            "<!-- docs-code: skip four training runs, 245 minutes in all -->\n"
            "```bash\n"
            "R=\"training/train.py --config configs/train/sb3/classic-2p.yaml --run classic-2p\"\n"
            "python $R                                    # 1. clone + 8.06M PPO steps, 60 min\n"
            "python $R --resume --set learning_rate=3e-4 --set learning_rate_final=3e-4 \\\n"
            "    --set time_limit_min=110                 # 2. to 17.1M steps\n"
            "python $R --resume --set learning_rate=3e-4 --set learning_rate_final=3e-4 --set time_limit_min=160 \\\n"
            "    --total-steps 40000000                   # 3. to 29.2M steps (total_steps only paces ent_coef's decay)\n"
            "python $R --resume --set learning_rate=1e-4 --set learning_rate_final=1e-4 --set time_limit_min=245 \\\n"
            "    --total-steps 80000000                   # 4. to 50.2M steps\n"
            "```\n\n"
            "1. Imitation of 400,000 decisions of the heuristic (8 epochs; it then picks the heuristic's\n"
            "   move 97.1% of the time), then MaskablePPO (lr 1e-4 annealed to 3e-5, clip 0.1) against a\n"
            "   league of `heuristic` (60%), `random` (20%) and its own snapshots (20%): 72.2% / 53.1%.\n"
            "2. The same league at a constant lr 3e-4: 74.2% / 54.6% at 17.1M steps.\n"
            "3. 12M more steps at 3e-4: 75.2% / 54.4% (the agent of 0.5.1).\n"
            "4. A step down to a constant lr 1e-4 for 21M more steps: this agent. The config below is\n"
            "   part 4's (the card keeps the config of the last part).\n\n"
            "What each ingredient is worth is in the docs' research log (2 players)."),
        "evaluations": (
            "`uno-evaluate --agents checkpoint:checkpoints/classic-2p heuristic --games 10000\n"
            "--seed 20261202 --workers 2` (and the same with `random`), seed 20,261,202 used for\n"
            "nothing else: **77.5%** (76.7-78.3) against `random`, **56.7%** (55.7-57.6) against\n"
            "`heuristic`; on seed 424,242 (on which it was chosen over the 0.5.1 agent) 76.9% / 57.2%.\n"
            "Against `search:simulations=200` (400 games, seed 777): 49.8% (44.9-54.6)."),
        "limitations": (
            "- Classic rules with their defaults, 2 players only: loading it for other rules, another\n"
            "  player count or another observation layout is a `ValueError` naming the difference.\n"
            "- Observation layout 1: it plays in the scalar env, and in the batched engine's vector env\n"
            "  and `batched_eval`, which observe layout 1 too.\n"
            "- It plays even with the `search` bot (`search:simulations=200`), which spends about\n"
            "  31 ms a decision; it has not learned to read hidden hands card by card."),
    },
    "classic-4p": {
        "title": "the 4-player agent, trained with Ray RLlib",
        "summary": (
            "PPO on Ray RLlib with one policy shared by its seats, classic rules, 4 players,\n"
            "observation layout 1. It plays at the heuristic's level: 1 against 3 `random` it wins\n"
            "about 38.5% (3 `uniform`: 94%), 1 against 3 `heuristic` about 25% (par)."),
        "recipe": (
            "<!-- docs-code: skip 50 minutes of training in the RLlib virtual environment -->\n"
            "```bash\n"
            ".venvs/rllib/bin/python training/train_rllib.py --config configs/rllib/classic-4p.yaml --run classic-4p\n"
            "```\n\n"
            "A clone of the heuristic first (400k decisions of the heuristic in every seat, 8 epochs),\n"
            "then PPO at small steps (lr 1e-4 to 3e-5, clip 0.1) against a league of `heuristic` 0.6,\n"
            "`random` 0.15, itself 0.1 and its snapshots 0.15 per seat; 50 minutes on a 2-core machine\n"
            "shared with two other training runs. Every lever tried since to make it stronger is in\n"
            "the docs' research log (4 players). To train it further, start from it:\n"
            "`--set init_checkpoint=checkpoints/classic-4p --set imitate_teacher=checkpoint:checkpoints/classic-4p`\n"
            "(the RLlib state of its run is not shipped)."),
        "evaluations": (
            "The heuristic in its place wins 38.7% against 3 `random` and 25% against 3 `heuristic`;\n"
            "the targets were 40% and 30%, both missed."),
        "limitations": (
            "- Classic rules, 4 players, observation layout 1 only.\n"
            "- No better than the heuristic bot it was cloned from; a player that sees every hand wins\n"
            "  48.3% / 44.0% (`experiments/headroom.py`), so the room is in reading hidden hands."),
    },
    "tmnt-2p": {
        "title": "the 2-player agent for the TMNT edition",
        "summary": (
            "The shipped `classic-2p` trained further with MaskablePPO under the `tmnt` preset (the\n"
            "official rules plus four Team Attack wilds and their villain discards), 2 players,\n"
            "observation layout 1. It beats `random` about 80% (`uniform` 99%) and `heuristic` about 58%\n"
            "of the time."),
        "recipe": (
            "<!-- docs-code: skip 95 minutes of training -->\n"
            "```bash\n"
            "python training/train.py --config configs/train/sb3/tmnt-2p.yaml --run tmnt-2p\n"
            "```\n\n"
            "Every preset has the same observation and action layouts (the rule flags are part of the\n"
            "observation), so `classic-2p` plays TMNT as it is: 53.9% (52.3-55.4) against `heuristic`\n"
            "(4,000 games, seed 777). The run starts its actor there (`init_checkpoint:\n"
            "checkpoints/classic-2p` with `init_other_rules: true`), fits the value network alone to\n"
            "200,000 decisions of the heuristic (31 s), then runs MaskablePPO (lr 1e-4 annealed towards\n"
            "3e-5, clip 0.1) against a league of `heuristic` (60%), `random` (20%) and its own snapshots\n"
            "(20%) for 95 minutes on one core of a 2-core machine shared with development work:\n"
            "18.7M steps. `curve.png` is its learning curve (1,000 games a point; the first point is\n"
            "classic-2p under TMNT rules). An earlier run of the house agents' recipe (a clone of the\n"
            "heuristic, then PPO) had reached 55.2% only at ~9M steps, about 3 hours."),
        "evaluations": (
            "On seed 20,261,206, used for nothing else (`uno-evaluate --agents pretrained:tmnt-2p heuristic\n"
            "--rules tmnt --games 10000 --seed 20261206 --workers 2`, and the same with `random`):\n"
            "**80.3%** (79.5-81.0) against `random`, **58.4%** (57.4-59.3) against `heuristic`.\n"
            "Against `search` (its defaults; `uno-evaluate --agents pretrained:tmnt-2p search --rules tmnt\n"
            "--games 200 --seed 20261207 --workers 1`, 488 s of CPU, ~2.4 s a game): 53.0% (46.1-59.8):\n"
            "even with the search bot.\n\n"
            "One policy for two tables: its weights play the classic rules at least as well as\n"
            "`classic-2p` does (a copy of its card naming the classic rules; `uno-evaluate --paired\n"
            "checkpoint:checkpoints/classic-2p checkpoint:<that copy> --opponent heuristic --rules classic\n"
            "--num-players 2 --games 10000 --seed 20261206`, and `--opponent random`): 57.7% against\n"
            "`heuristic` where classic-2p wins 56.7% (+1.0 points, -0.0 to +2.0, game by game), 78.3%\n"
            "against `random` where it wins 77.1% (+1.3, +0.4 to +2.2). The card still names the TMNT\n"
            "rules, so `pretrained:tmnt-2p` refuses a classic table; classic-2p stays the classic agent."),
        "limitations": (
            "- TMNT rules (the `tmnt` preset with its defaults), 2 players, layout 1 only.\n"
            "- Its curve against the heuristic rose from 54.8% (classic-2p under TMNT rules) to 56-60%\n"
            "  within 5M steps and stayed there (1,000 games a point)."),
    },
    "house-2p": {
        "title": "the 2-player agent for the house rules",
        "summary": (
            "The house-rules agent of 0.5 (MaskablePPO fine-tuning of a clone of the `heuristic` bot)\n"
            "trained further with the lean PPO on the batched engine, `house` preset (stacking,\n"
            "jump-in, SEVEN slap, giving cards, FROM THE SEWERS, the 560-card deck), 2 players,\n"
            "observation layout 1. It beats `random` about 90% (`uniform` 100%) and `heuristic` about 60%\n"
            "of the time (0.5's agent: 56%)."),
        "recipe": (
            "Two runs. The first made 0.5's agent: MaskablePPO (`configs/train/sb3/house-2p.yaml`, 78\n"
            "minutes, 4.56M steps; its commands are on that agent's card, in the git history before\n"
            "this one): imitation of 400,000 heuristic decisions (96.5% agreement), then MaskablePPO (lr\n"
            "1e-4 annealed towards 3e-5, clip 0.1) against a league of `heuristic` (60%), `random` (20%)\n"
            "and its own snapshots (20%); 56.6% against `heuristic` on seed 20,261,204. The second made\n"
            "this agent: the lean PPO on the batched engine from that agent's weights, its value network\n"
            "fitted first to 200,000 of the agent's own decisions, at a constant lr 2e-4 for 32 minutes\n"
            "of wall time on one core of a 2-core machine shared with another run (15.1M steps,\n"
            "float32: the machine had no native bfloat16):\n\n"
            "<!-- docs-code: skip 32 minutes of training -->\n"
            "```bash\n"
            "python training/train.py --config configs/train/house-2p.yaml --run house-2p-c1 \\\n"
            "    --set init_checkpoint=checkpoints/house-2p --set imitate_teacher=checkpoint:checkpoints/house-2p \\\n"
            "    --set imitate_decisions=200000 --set imitate_epochs=4 --set time_limit_min=32 \\\n"
            "    --set eval_every=3000000 --set eval_workers=1 --set seed=5051 \\\n"
            "    --set learning_rate=2e-4 --set learning_rate_final=2e-4 --set 'eval_opponents=[random,heuristic]'\n"
            "```\n\n"
            "`curve.png` is this second run's curve (10,000 games a point): against `heuristic` 56.3% at\n"
            "its start (0.5's agent), then 58.7%, 58.6%, 59.8%, 60.2%, 60.4% every 3M steps."),
        "evaluations": (
            "Against 0.5's agent on the same 10,000 deals against `heuristic` (`uno-evaluate --paired\n"
            "checkpoint:<0.5's house-2p> checkpoint:checkpoints/house-2p --opponent heuristic --rules house\n"
            "--num-players 2 --games 10000 --seed S`): on seed 20,261,207 (on which it was chosen) 59.8%\n"
            "against 55.9%, +3.8 points (+2.8 to +4.9); on seed 20,261,208, used for nothing else,\n"
            "**60.1%** (59.2-61.1) against 56.5%, **+3.6 points (+2.5 to +4.7)**, game by game. 0.5's\n"
            "agent against `search` (its defaults; 20 games, ~27 s of CPU a game under house rules) won\n"
            "30.0% (14.5-51.9); this one was not measured against it."),
        "limitations": (
            "- House rules (the `house` preset with its defaults), 2 players, layout 1 only.\n"
            "- 19.6M steps in all (two runs), against `classic-2p`'s 50M; its curve was still rising\n"
            "  when the second run stopped."),
    },
    "house-4p": {
        "title": "the 4-player agent for the house rules",
        "summary": (
            "The house-rules agent of 0.5 (MaskablePPO fine-tuning of a clone of the `heuristic` bot)\n"
            "trained further with the lean PPO on the batched engine, `house` preset, 4 players (the\n"
            "learner in one seat, the league in the others), observation layout 1. 1 against 3\n"
            "`heuristic` it wins about 32.5% (par 25%; the 0.5 agent about 30.5%), 1 against 3 `random`\n"
            "about 50%."),
        "recipe": (
            "Two runs. The first made 0.5's agent: MaskablePPO (`configs/train/sb3/house-4p.yaml`,\n"
            "77 minutes, 2.85M steps; its commands are on that agent's card, in the git history before\n"
            "this one): imitation of 400,000 heuristic decisions (96.2% agreement, 24.4% against 3\n"
            "heuristic), then MaskablePPO against `heuristic` 0.6, `random` 0.2 and its snapshots 0.2 in\n"
            "each other seat; 30.2% against 3 `heuristic` on seed 20,261,204. The second made this agent:\n"
            "the lean PPO on the batched engine from that agent's weights, its value network fitted\n"
            "first to 200,000 of the agent's own decisions, at a constant lr 2e-4 for 55 minutes of wall\n"
            "time on one core of a 2-core machine shared with two other runs (15.8M steps, float32: the\n"
            "machine had no native bfloat16):\n\n"
            "<!-- docs-code: skip 55 minutes of training -->\n"
            "```bash\n"
            "python training/train.py --config configs/train/house-4p.yaml --run house-4p-c1 \\\n"
            "    --set init_checkpoint=checkpoints/house-4p --set imitate_teacher=checkpoint:checkpoints/house-4p \\\n"
            "    --set imitate_decisions=200000 --set imitate_epochs=4 --set time_limit_min=55 \\\n"
            "    --set eval_every=3000000 --set eval_workers=1 --set seed=5041 \\\n"
            "    --set learning_rate=2e-4 --set learning_rate_final=2e-4\n"
            "python training/train.py --config configs/train/house-4p.yaml --run house-4p-c1 --resume \\\n"
            "    --set 'eval_opponents=[random,heuristic]'   # the final evaluation against both bots\n"
            "```\n\n"
            "`curve.png` is this second run's curve (10,000 games a point, against 3 `heuristic`): 30.6%\n"
            "at its start (0.5's agent), 30.9%, 31.7%, 31.8%, 32.0%, 32.1% every 3M steps."),
        "evaluations": (
            "Against 0.5's agent on the same 10,000 deals against 3 `heuristic` (`uno-evaluate --paired\n"
            "checkpoint:<0.5's house-4p> checkpoint:checkpoints/house-4p --opponent heuristic --rules house\n"
            "--num-players 4 --games 10000 --seed S`): on seed 20,261,207 (on which it was chosen)\n"
            "32.5% against 30.5%, +2.1 points (+1.0 to +3.1); on seed 20,261,208, used for nothing else,\n"
            "**32.6%** (31.7-33.5) against 30.8%, **+1.8 points (+0.8 to +2.9)**, game by game. Not\n"
            "measured against `search`: three search seats under house rules cost over a minute of CPU\n"
            "a game."),
        "limitations": (
            "- House rules, 4 players, layout 1 only.\n"
            "- Its edge over the heuristic is about 7.5 points over par; its curve was still rising\n"
            "  slowly when the run stopped (18.6M steps in all, two runs)."),
    },
}


# Against the `uniform` bot (each legal action equally likely, the baseline other projects call
# a random player; the `random` bot of the card's evaluation never draws while it holds a playable
# card): wins of 10,000 games on the batched engine, the agent's seat rotated, seed 0 and batch
# 2,000, measured for 0.5.14 (house-2p and house-4p for their agents of 2026-12-07) with the command that uniform_line() prints.
UNIFORM: dict[str, dict[str, object]] = {
    "classic-2p": {"wins": 9916, "games": 10000, "ci95": (0.9896, 0.9932)},
    "classic-4p": {"wins": 9404, "games": 10000, "ci95": (0.9356, 0.9449)},
    "house-2p": {"wins": 10000, "games": 10000, "ci95": (0.9996, 1.0)},
    "house-4p": {"wins": 9947, "games": 10000, "ci95": (0.9931, 0.9959)},
    "tmnt-2p": {"wins": 9903, "games": 10000, "ci95": (0.9882, 0.9920)},
}


def uniform_line(name: str, rules: str, n: int) -> str:
    """The card's sentence on its win rate against `uniform` (from :data:`UNIFORM`)."""
    u = UNIFORM[name]
    lo, hi = u["ci95"]
    against = "`uniform`" if n == 2 else f"{n - 1} `uniform`"
    return (f"Against {against} (each legal action equally likely: what other projects call a random player;\n"
            f"the `random` bot above never draws while it holds a playable card): "
            f"**{pct(u['wins'] / u['games'])}** ({100 * lo:.1f}-{100 * hi:.1f}),\n"
            f"{u['wins']:,} wins in {u['games']:,} games on the batched engine, its seat rotated\n"
            f"(`python -m uno_env.tools.batched_eval --agent pretrained:{name} --opponent uniform --rules {rules}\n"
            f"--num-players {n} --games {u['games']} --batch 2000 --seed 0`).")


EXPLOITABILITY = ROOT / "docs" / "data" / "exploitability.json"  # bench/exploitability.py's result
MAX_RESULT_BYTES = 1 << 20


def read_exploitability() -> dict:
    """``bench/exploitability.py``'s result (``{}`` where none was made), read with bounds."""
    if not EXPLOITABILITY.is_file():
        return {}
    if EXPLOITABILITY.stat().st_size > MAX_RESULT_BYTES:
        raise ValueError(f"{EXPLOITABILITY}: over {MAX_RESULT_BYTES} bytes")
    data = json.loads(EXPLOITABILITY.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise ValueError(f"{EXPLOITABILITY}: not an exploitability result (no 'rows' list)")
    keys = ("target", "start", "win_rate", "ci95", "gain", "gain_ci95", "cpu_s")
    for i, row in enumerate(data["rows"]):
        if not isinstance(row, dict) or any(k not in row for k in keys):
            raise ValueError(f"{EXPLOITABILITY}: row {i} lacks one of {', '.join(keys)}")
    return data


def exploitability_lines(name: str, result: dict) -> list[str]:
    """The card's section on how exploitable the agent is, beside the heuristic at its table."""
    rows = {r.get("target"): r for r in result.get("rows", []) if isinstance(r, dict)}
    mine, bot = rows.get(f"pretrained:{name}"), rows.get(f"heuristic@{name}")
    if mine is None:
        return []

    def line(label: str, r: dict) -> str:
        lo, hi = r["ci95"]
        glo, ghi = r["gain_ci95"]
        return (f"| {label} | {r['start']} | **{pct(r['win_rate'])}** | {100 * lo:.1f}-{100 * hi:.1f} | "
                f"{100 * r['gain']:+.1f} ({100 * glo:+.1f} to {100 * ghi:+.1f}) | "
                + ("not measured whole (resumed) |" if r.get("resumed") else f"{r['cpu_s'] / 60:.1f} min |"))

    out = ["## Exploitability", "",
           f"A best response trained against it, frozen, for {result['steps']:,} learner steps (the lean PPO",
           "on the batched engine, `configs/train/best-response.yaml`), starting as a copy of its target,",
           f"then {result['games']:,} games against it, seats rotated, duplicate deals; the same for the",
           "`heuristic` bot at this table as the reference. Higher is more exploitable; a budget this size",
           "gives a lower bound.", "",
           "| target | best response starts as | its win rate | Wilson 95% | gain over its start (paired) | CPU time |",
           "|---|---|---:|---|---:|---:|", line("this agent", mine)]
    if bot is not None:
        out.append(line("`heuristic`", bot))
    notes = [f"{label}: {r['note']}." for label, r in (("This agent's run", mine), ("The heuristic's run", bot))
             if r is not None and r.get("note")]
    out += [""] + ([" ".join(notes), ""] if notes else [])
    out += [f"`{result.get('command', 'python bench/exploitability.py')}` (seed {result.get('seed')}; "
            "docs/LADDER.md has every table).", ""]
    return out


def pct(x: float) -> str:
    """A rate as a percentage with one decimal, rounded half to even from its decimal digits, as
    every table of the package prints it (``uno_env.tools.report.percent``: a rate and its
    complement sum to 100.0%; float formatting would round 0.7055's binary value, 70.5)."""
    return f"{(Decimal(str(x)) * 100).quantize(Decimal('0.1'), rounding=ROUND_HALF_EVEN)}%"


def read_card(directory: Path) -> dict:
    path = directory / "card.json"
    if path.stat().st_size > MAX_CARD_BYTES:
        raise ValueError(f"{path}: over {MAX_CARD_BYTES} bytes")
    card = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(card, dict):
        raise ValueError(f"{path}: not a JSON object")
    return card


def fmt_value(v: object) -> str:
    return json.dumps(v, separators=(", ", ": ")) if not isinstance(v, str) else v


def render(name: str, card: dict, exploitability: dict | None = None) -> str:
    notes = NOTES.get(name, {})
    rules = card.get("rules", {})
    policy = card.get("policy", {})
    obs = card.get("observation_layout", {})
    act = card.get("action_layout", {})
    n = card.get("num_players")
    sizes = policy.get("sizes", [])
    title = notes.get("title", f"a {rules.get('name', '?')} agent for {n} players")
    out = [HEADER, "", f"# {name}: {title}", ""]
    if "summary" in notes:
        out += [notes["summary"], ""]
    trained = card.get("trained_with", {})
    facts = [
        ("algorithm", card.get("algorithm", "?")),
        ("rules", f"`{rules.get('name', '?')}` (every option below)"),
        ("players", str(n)),
        ("observation", f"layout {obs.get('version')} ({obs.get('size')} entries); the policy reads "
                        f"{sizes[0] if sizes else '?'} features (`{policy.get('input', '?')}`)"),
        ("actions", f"layout {act.get('version')} ({act.get('size')} ids)"),
        ("network", " → ".join(str(s) for s in sizes) + f", {policy.get('activation', '?')}, "
                    f"{policy.get('dtype', '?')}"),
        ("weights", f"`{policy.get('weights', '?')}` (SHA-256 `{policy.get('sha256', '?')[:16]}…`)"),
        ("budget", f"{card.get('total_steps', 0):,} steps"
                   + (f" ({trained['learner_steps']:,} of them the learner's)" if "learner_steps" in trained else "")
                   + f", {card.get('wall_time_s', 0) / 60:.1f} min of wall time"),
        ("saved", f"{card.get('saved', '?')} by uno_env {card.get('uno_env_version', '?')}"),
    ]
    if trained:
        facts.append(("trained with", f"{trained.get('library', '?')} {trained.get('version', '')}, "
                                      f"`{trained.get('script', '?')}`"))
    started = card.get("started_from")
    if isinstance(started, dict):
        steps = started.get("total_steps")
        facts.append(("started from", f"`{started.get('checkpoint', '?')}`"
                                      + (f" ({steps:,} steps" if isinstance(steps, int) else " (")
                                      + (f", trained under the `{started['rules']}` rules" if "rules" in started else "")
                                      + f"; weights SHA-256 `{str(started.get('sha256', '?'))[:16]}…`)"))
    imitation = card.get("imitation")
    if imitation:
        facts.append(("imitation", f"{imitation.get('decisions', 0):,} decisions of `{imitation.get('teacher')}` "
                                   f"({imitation.get('games', 0):,} games), agreement "
                                   f"{pct(imitation.get('agreement', 0))}, {imitation.get('wall_time_s', 0):.0f} s"))
    out += ["| about | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in facts] + [""]

    out += ["## Evaluation", "",
            "The final evaluation of its training run, from `card.json`: the greedy policy in one seat,",
            "the opponent in every other, seats rotated and the same deals replayed in every rotation.", "",
            "| opponent | line-up | games | wins | win rate | Wilson 95% | seed |",
            "|---|---|---:|---:|---:|---|---:|"]
    for opp, r in card.get("evaluation", {}).items():
        lo, hi = r.get("ci95", [0, 0])
        lineup = r.get("lineup", f"1 vs {n - 1} {opp}" if isinstance(n, int) else "")
        out.append(f"| `{opp}` | {lineup} | {r.get('games', 0):,} | {r.get('wins', 0):,} | "
                   f"**{pct(r.get('win_rate', 0))}** | {100 * lo:.1f}-{100 * hi:.1f} | {r.get('seed', '?'):,} |")
    out.append("")
    if name in UNIFORM:
        out += [uniform_line(name, rules.get("name", "classic"), n), ""]
    if "evaluations" in notes:
        out += ["Further evaluations:", "", notes["evaluations"], ""]

    out += exploitability_lines(name, exploitability or {})

    out += ["## Training", ""]
    if "recipe" in notes:
        out += [notes["recipe"], ""]
    config = card.get("config")
    if config:
        out += ["The config in the card (`card.json`, `config`):", "", "| key | value |", "|---|---|"]
        out += [f"| `{k}` | `{fmt_value(v)}` |" for k, v in config.items()] + [""]
    if rules:
        out += ["Every rule option (`card.json`, `rules`): "
                + ", ".join(f"`{k}={fmt_value(v)}`" for k, v in rules.items() if k != "name") + ".", ""]
    if (CHECKPOINTS / name / "curve.png").is_file():
        out += ["The learning curve (`eval.csv`):", "", f"![learning curve of {name}](curve.png)", ""]

    out += ["## Limitations", ""]
    out += [notes.get("limitations", "- Only the rules, player count and observation layout above."), ""]

    out += ["## Use it", "",
            "Anywhere an agent spec is asked for (`uno-evaluate`, `uno-play`, `uno-serve`, the Gymnasium",
            "view's opponents, a training league):", "",
            "```bash",
            f"uno-evaluate --agents checkpoint:checkpoints/{name} heuristic"
            + ("" if n == 2 else " heuristic" * (n - 2))
            + ("" if rules.get("name", "classic") == "classic" else f" --rules {rules['name']}")
            + " --games 2000 --workers 2",
            f"uno-play --rules {rules.get('name', 'classic')} --opponents"
            + " heuristic" * (n - 2) + f" checkpoint:checkpoints/{name}",
            "```", "",
            f"or in Python: `uno_env.agents.make_agent(\"checkpoint:checkpoints/{name}\", \"{rules.get('name', 'classic')}\", {n})`",
            "(an agent with `act(observation, action_mask)`).",
            "Loading reads only `card.json` and the weights it names (checked against their SHA-256,",
            "tensor names, dtypes and shapes) and never runs code; no torch is needed to play.", ""]
    return "\n".join(out)


def shipped() -> list[Path]:
    """The checkpoint directories git tracks (the shipped ones; a run of your own in
    checkpoints/ is left alone), or every one with a card.json outside a git checkout."""
    try:
        listed = subprocess.run(["git", "ls-files", "--", "checkpoints/*/card.json"], cwd=ROOT,
                                capture_output=True, text=True, check=True, timeout=60).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return sorted(d for d in CHECKPOINTS.iterdir() if (d / "card.json").is_file())
    return sorted((ROOT / f).parent for f in listed)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if a card differs")
    args = p.parse_args(argv)
    stale = []
    exploitability = read_exploitability()
    for directory in shipped():
        text = render(directory.name, read_card(directory), exploitability)
        target = directory / "README.md"
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if current == text:
            continue
        if args.check:
            stale.append(str(target.relative_to(ROOT)))
        else:
            target.write_text(text, encoding="utf-8")
            print(f"wrote {target.relative_to(ROOT)}")
    if stale:
        print("model cards differ from their card.json (run python scripts/model_cards.py): "
              + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
