"""`{stack}` in the names a stack must not share with another of its project: the stack's name,
made a valid part of a name. Review stacks need it: Pulumi Deployments copies the template
stack's config into every review stack it creates (https://www.pulumi.com/docs/deployments/
concepts/review-stacks/), so a template that fixes the cluster's and the buckets' names would
have every review stack fail on names that already exist. Pure."""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import Any, cast

from gke_tpu.problems import Problem

PLACEHOLDER = "{stack}"
#: The keys that may hold it: the cluster's name (every other name of the stack's project and
#: cluster derives from it) and the buckets' (unique everywhere).
STACK_NAME_KEYS = (("cluster", "name"), ("modelStorage", "bucket"), ("checkpointing", "bucket"))
# Stack names take letters, digits, `-`, `_` and `.` (https://www.pulumi.com/docs/iac/concepts/
# stacks/); cluster names lowercase letters, digits and `-`.
_OTHER = re.compile(r"[^a-z0-9-]+", re.ASCII)


def stack_slug(stack: str) -> str:
    """The stack's name as a part of a cluster or bucket name: lower-cased, every run of other
    characters a `-`, no `-` at either end (`PR_42` -> `pr-42`)."""
    return _OTHER.sub("-", stack.lower()).strip("-")


def expand_stack_names(values: MutableMapping[str, Any], stack: str | None) -> list[Problem]:
    """Replace `{stack}` in the keys that take it, in place; a problem where the stack's name
    is unknown or makes no name."""
    problems: list[Problem] = []
    for section, key in STACK_NAME_KEYS:
        entry = values.get(section)
        if not isinstance(entry, dict):
            continue
        fields = cast("dict[str, Any]", entry)
        value = fields.get(key)
        if not isinstance(value, str) or PLACEHOLDER not in value:
            continue
        slug = stack_slug(stack) if stack is not None else ""
        if not slug:
            problems.append(
                Problem(
                    f"{section}.{key}",
                    f"{value!r}: {PLACEHOLDER} stands for the stack's name, and "
                    + (
                        "there is none here"
                        if stack is None
                        else f"{stack!r} has no letter or digit"
                    ),
                )
            )
            continue
        fields[key] = value.replace(PLACEHOLDER, slug)
    return problems
