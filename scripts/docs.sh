#!/usr/bin/env bash
# Build the documentation site into site/ strictly (any warning is an error), with the pinned
# tools of docs/requirements.txt in a virtual environment of their own (.venvs/docs, created if
# missing; the site reads the package's sources, it does not import them). Then check that the
# model cards are what scripts/model_cards.py writes from each card.json.
# Extra arguments go to `mkdocs build` (e.g. --site-dir /tmp/site).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venvs/docs/bin/mkdocs ] || ! cmp -s docs/requirements.txt .venvs/docs/requirements.txt; then
  python3 -m venv .venvs/docs
  .venvs/docs/bin/python -m pip install -q --disable-pip-version-check -r docs/requirements.txt
  cp docs/requirements.txt .venvs/docs/requirements.txt
fi
python3 scripts/model_cards.py --check
# The theme's and a plugin's notices about MkDocs 2 are banners, not warnings about this site.
export NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true
exec .venvs/docs/bin/mkdocs build --strict "$@"
