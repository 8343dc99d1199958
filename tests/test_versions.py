"""One version, said the same everywhere: `gke_tpu.__version__`, CHANGELOG.md's top heading, the
examples' pins; and no doc pins a tag of another version, or one of an unreleased version
as if it existed."""

from __future__ import annotations

import re

import gke_tpu
from gke_tpu_upkeep import ROOT

VERSION = gke_tpu.__version__
DOCS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted(ROOT.glob("examples/*/README.md")),
    *sorted(ROOT.glob("examples/*/requirements.txt")),
    ROOT / "platform-ops" / "requirements.txt",
]


def _top_heading() -> re.Match[str]:
    found = re.search(
        r"^## (\S+)( \(unreleased\)| \(\d{4}-\d{2}-\d{2}\))?$",
        (ROOT / "CHANGELOG.md").read_text(),
        re.M,
    )
    assert found is not None
    return found


def test_the_changelog_s_top_heading_is_the_version() -> None:
    assert _top_heading()[1] == VERSION


def test_the_examples_pin_the_version() -> None:
    for requirements in [
        *ROOT.glob("examples/*/requirements.txt"),
        ROOT / "platform-ops" / "requirements.txt",
    ]:
        assert f"gke-tpu=={VERSION}\n" in requirements.read_text(), requirements


def test_no_doc_pins_a_tag_that_does_not_exist() -> None:
    unreleased = _top_heading()[2] == " (unreleased)"
    for doc in DOCS:
        for paragraph in re.split(r"\n\s*\n", doc.read_text()):
            for tag in re.findall(r"@v(\d+\.\d+\.\d+)", paragraph):
                assert tag == VERSION, f"{doc.name}: {paragraph}"
                # An unreleased version's tag is named only as the pin for once it is tagged.
                assert not unreleased or "once" in paragraph.lower(), f"{doc.name}: {paragraph}"
