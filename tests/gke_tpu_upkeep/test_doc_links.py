"""Every link between the project's Markdown pages lands: the file exists and, for a link to a
section, the section does (GitHub's anchors). Pages move and sections are renamed; a reader
following the walk-through should never hit a dead link."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.generated_docs import anchor, anchors, contents, regenerate

PAGES = sorted(
    [
        ROOT / "README.md",
        *(ROOT / "docs").glob("*.md"),
        ROOT / "policy" / "README.md",
        ROOT / ".github" / "workflows" / "README.md",
        ROOT / "examples" / "ml-workloads" / "README.md",
        ROOT / "tools" / "third_party" / "README.md",
    ]
)
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def _links(page: Path) -> list[str]:
    text = _FENCE.sub("", page.read_text())
    return [t for t in _LINK.findall(text) if not re.match(r"[a-z]+:", t)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_lands(page: Path) -> None:
    dead = []
    for target in _links(page):
        path, _, section = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            dead.append(f"{target}: no such file")
        elif section and file.suffix == ".md" and section not in anchors(file.read_text()):
            dead.append(f"{target}: no such section in {file.relative_to(ROOT)}")
    assert dead == []


def test_anchors_are_githubs() -> None:
    assert anchor("`gke-tpu:cluster`") == "gke-tpucluster"
    assert anchor("Deploy (the checklist)") == "deploy-the-checklist"
    assert anchor("Upgrades and host maintenance (`upgrade`, `hostMaintenance`)") == (
        "upgrades-and-host-maintenance-upgrade-hostmaintenance"
    )
    assert anchors("# A\n## B\n## B\n```\n## C\n```\n") == {"a", "b", "b-1"}


def test_a_contents_part_lists_the_sections_after_it() -> None:
    page = (
        "# Title\n\n## Contents\n\n<!-- generated: contents -->\n<!-- end: contents -->\n\n"
        "## What it is\n\n### `gke-tpu:cluster`\n\n```sh\n## not a heading\n```\n\n## Contents\n"
    )
    assert contents(page) == (
        "- [What it is](#what-it-is)\n  - [`gke-tpu:cluster`](#gke-tpucluster)\n"
        "- [Contents](#contents-1)"
    )
    assert "<!-- generated: contents -->\n- [What it is](#what-it-is)\n" in regenerate(page)
