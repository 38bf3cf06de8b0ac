"""Pages made at build time by mkdocs-gen-files (mkdocs.yml runs this file).

- ``reference/``: one page per module of ``uno_env``, found by walking the package, so a module
  that moves or appears needs no edit here; ``reference/SUMMARY.md`` is its navigation
  (mkdocs-literate-nav). Each page is mkdocstrings' ``::: module`` (read statically by griffe:
  nothing is imported).
- ``models/``: the model cards, ``checkpoints/<name>/README.md`` (written by
  ``scripts/model_cards.py`` from each ``card.json``), with their learning curves.
- ``changelog.md``: ``CHANGELOG.md``.
"""
from __future__ import annotations

from pathlib import Path

import mkdocs_gen_files

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "uno_env"


def module_names() -> list[str]:
    """Every importable module of the package, dotted, parents before children."""
    names = []
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__main__":
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return sorted(set(names), key=lambda n: n.split("."))


def write_reference() -> None:
    nav = mkdocs_gen_files.Nav()
    for name in module_names():
        parts = tuple(name.split("."))
        doc = Path("reference", *parts).with_suffix(".md")
        if name != PACKAGE and (ROOT / Path(*parts)).is_dir():
            doc = Path("reference", *parts, "index.md")
        nav[parts] = doc.relative_to("reference").as_posix()
        with mkdocs_gen_files.open(doc, "w") as f:
            f.write(f"::: {name}\n")
    with mkdocs_gen_files.open("reference/SUMMARY.md", "w") as f:
        f.writelines(nav.build_literate_nav())


def write_models() -> None:
    lines = []
    for card in sorted((ROOT / "checkpoints").glob("*/README.md")):
        name = card.parent.name
        text = card.read_text(encoding="utf-8")
        curve = card.parent / "curve.png"
        if curve.is_file():  # the card links it beside itself; on the site it sits beside the page
            with mkdocs_gen_files.open(f"models/{name}-curve.png", "wb") as f:
                f.write(curve.read_bytes())
            text = text.replace("](curve.png)", f"]({name}-curve.png)")
        with mkdocs_gen_files.open(f"models/{name}.md", "w") as f:
            f.write(text)
        lines.append(f"* [{name}]({name}.md)\n")
    with mkdocs_gen_files.open("models/SUMMARY.md", "w") as f:
        f.writelines(["* [Overview](index.md)\n", *lines])


def write_changelog() -> None:
    with mkdocs_gen_files.open("changelog.md", "w") as f:
        f.write((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))


write_reference()
write_models()
write_changelog()
