"""Rules run on a view of some sections alone, as config.rules runs them on the whole stack."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gke_tpu.config.platform.sections import view_of
from gke_tpu.config.rules import check
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem
from gke_tpu.problems.rules import Rule


def view_of_sections(**sections: Any) -> tuple[StackView, list[Problem], list[str]]:
    """The view of these sections (by config key), what parsing found, and the warnings."""
    warnings: list[str] = []
    view, problems = view_of(sections, project=None, written=set(sections), warnings=warnings)
    return view, problems, warnings


def run_rules_of(
    rules: Sequence[Rule[StackView]], **sections: Any
) -> tuple[list[Problem], list[str]]:
    """What `rules` find in a view of these sections alone, and the warnings."""
    view, _, warnings = view_of_sections(**sections)
    return check(view, rules), warnings
