#!/usr/bin/env bash
# Run the recipes of examples/ as tests (pytest marker `examples`), each library in the virtual
# environment it is tested with:
#   main      examples/cleanrl_ppo.py, examples/sb3_maskable_ppo.py, examples/minari_bc.py  in .venv (scripts/setup.sh)
#   tianshou  examples/tianshou_dqn.py   in .venvs/tianshou: tianshou==2.0.1
#   torchrl   examples/torchrl_ppo.py    in .venvs/torchrl:  torchrl==0.14.1, tensordict==0.14.3
# Every venv gets `pip install -e .` and torch==2.13.0 (the CPU build). A venv is created once and
# reused; pip only checks it on later runs.
#   bash scripts/test_recipes.sh                  # all of them
#   bash scripts/test_recipes.sh tianshou torchrl # some
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A PACKAGES=(
  [tianshou]="tianshou==2.0.1"
  [torchrl]="torchrl==0.14.1 tensordict==0.14.3"
)
PIP=(-m pip install -q --disable-pip-version-check)

names=("$@")
[ ${#names[@]} -gt 0 ] || names=(main tianshou torchrl)
for name in "${names[@]}"; do
  start=$SECONDS
  if [ "$name" = main ]; then
    bash scripts/setup.sh
    python=.venv/bin/python
    tests=tests/examples/test_examples.py
  elif [ -n "${PACKAGES[$name]:-}" ]; then
    venv=.venvs/$name
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    # shellcheck disable=SC2086  # the package list splits on purpose
    "$venv/bin/python" "${PIP[@]}" -e . "torch==2.13.0" ${PACKAGES[$name]} "pytest>=8"
    python=$venv/bin/python
    tests=tests/examples/test_$name.py
  else
    echo "test_recipes.sh: unknown recipe '$name' (known: main ${!PACKAGES[*]})" >&2
    exit 2
  fi
  echo "== recipes: $name ($python, set up in $((SECONDS - start)) s)"
  "$python" -m pytest -q -m examples -p no:cacheprovider "$tests"
  echo "== recipes: $name done in $((SECONDS - start)) s"
done
