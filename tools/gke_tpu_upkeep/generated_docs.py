"""The generated parts of README.md and docs/: examples from the golden plans, lists from code.

`make docs` (python -m gke_tpu_upkeep.generated_docs) rewrites every part between its markers; `--check` (run by
the tests) fails when a part is stale. A part starts with `<!-- generated: NAME -->` and ends
with `<!-- end: NAME -->`; the text between belongs to this tool.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from gke_tpu.catalog.services import (
    MODULES,
    PREFLIGHT_READS,
    RUNTIME_APIS,
    deployer_roles,
    required_apis,
)
from gke_tpu.config.base import field_docs, innermost_model
from gke_tpu.config.platform.sections import SECTIONS
from gke_tpu.contract.outputs import OUTPUT_MEANINGS
from gke_tpu.preview.engine import SECRET
from gke_tpu.preview.render.cost_report import monthly_total
from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.fixture_stacks import STACKS
from gke_tpu_upkeep.goldens import golden_path

#: README and every page of docs/: each may hold generated parts, and a `contents` part.
FILES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
_PART = re.compile(r"(<!-- generated: ([a-z-]+) -->\n)(.*?)(<!-- end: \2 -->)", re.S)
#: The golden plan whose values the examples show.
EXAMPLE_STACK = "dev"
#: The pool of that stack shown as the example `tpuPools` entry.
EXAMPLE_POOL = "v5e-train"


def _outputs() -> dict[str, Any]:
    return json.loads(golden_path(EXAMPLE_STACK).read_text())["outputs"]


def _example(key: str, value: Any) -> str:
    if value == SECRET:
        return "secret"
    if key == "tpuPools":
        entry = next(iter(value.values()))
        return "per pool: " + ", ".join(f"`{k}`" for k in entry)
    return f"`{json.dumps(value)}`"


def outputs_table() -> str:
    outputs = _outputs()
    rows = [
        f"| `{key}` | {_example(key, outputs.get(key))} | {meaning} |"
        for key, meaning in OUTPUT_MEANINGS.items()
    ]
    return "\n".join(
        [f"| key | example (`{EXAMPLE_STACK}` stack) | meaning |", "|---|---|---|", *rows]
    )


def outputs_summary() -> str:
    outputs = _outputs()
    rows = [f"| `{key}` | {_example(key, outputs.get(key))} |" for key in OUTPUT_MEANINGS]
    return "\n".join([f"| output | example (`{EXAMPLE_STACK}` stack) |", "|---|---|", *rows])


def pool_entry() -> str:
    entry = _outputs()["tpuPools"][EXAMPLE_POOL]
    return f"```json\n{json.dumps(entry, indent=2, sort_keys=True)}\n```"


def _all_types() -> list[str]:
    """A type token of every pulumi-gcp module the program creates resources of."""
    return [f"gcp:{module}/any:Any" for module in MODULES]


def enable_apis() -> str:
    apis = required_apis(_all_types())
    apis_of = required_apis(_all_types(), preflight=False)
    lines = ["```sh", "gcloud services enable --project <project-id> \\"]
    lines += [f"    {api} \\" for api in apis[:-1]] + [f"    {apis[-1]}", "```"]
    runtime = [f"`{api}` for {why}" for api, why in RUNTIME_APIS.items()]
    reads = sorted({api for read in PREFLIGHT_READS.values() for api in read.apis} - set(apis_of))
    preflight = [f"`{api}` for preflight's reads in `pulumi preview`" for api in reads]
    return "\n".join(
        [*lines, "", "Besides the APIs the resources call: " + "; ".join(runtime + preflight) + "."]
    )


def roles() -> str:
    by_why: dict[str, list[str]] = {}
    for role, why in deployer_roles(_all_types()).items():
        by_why.setdefault(why, []).append(f"`{role}`")
    return "\n".join(f"- {', '.join(roles)}: {why}." for why, roles in by_why.items())


def _literals(annotation: Any) -> tuple[str, ...]:
    if typing.get_origin(annotation) is typing.Literal:
        return tuple(str(v) for v in typing.get_args(annotation))
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return tuple(v for arg in typing.get_args(annotation) for v in _literals(arg))
    return ()


def _default(field: FieldInfo) -> str:
    if field.is_required():
        return "(required)"
    value = field.get_default(call_default_factory=True)
    if value is None:
        return "none"
    if isinstance(value, BaseModel):
        return "see below"
    if isinstance(value, tuple | list):
        return f"`{json.dumps(list(value))}`"
    if isinstance(value, bool):
        return f"`{json.dumps(value)}`"
    return f"`{value}`"


def _rows(model: type[BaseModel], prefix: str) -> list[str]:
    rows = []
    for name, field in model.model_fields.items():
        key = f"{prefix}{field.alias or name}"
        meaning = field_docs(model).get(name, "").replace("\n", " ")
        meaning = " ".join(meaning.split())
        allowed = _literals(field.annotation)
        if allowed:
            meaning += " One of " + ", ".join(f"`{v}`" for v in allowed) + "."
        nested = innermost_model(field.annotation)
        many = nested is not None and typing.get_origin(field.annotation) in (tuple, list)
        rows.append(f"| `{key}` | {_default(field)} | {meaning} |")
        if nested is not None:
            rows += _rows(nested, f"{key}[]." if many else f"{key}.")
    return rows


def config_table(section: str) -> Callable[[], str]:
    """The reference table of a config section, from its model's fields and docstrings."""

    def render() -> str:
        model = SECTIONS[section].model
        return "\n".join(["| key | default | meaning |", "|---|---|---|", *_rows(model, "")])

    return render


def stack_costs() -> str:
    """What each shipped stack costs a month, idle and at its most, from its golden plan (the
    plan of its fixture copy, tests/stacks/)."""
    rows = []
    for stack in STACKS:
        cost = json.loads(golden_path(stack).read_text())["cost"]
        items, monthly = cost["items"], cost["monthly"]
        tpu = [i for i in items if i["kind"] == "tpu"]
        # A pool without a price may be billed idle too: named so.
        idle = [
            i["name"] if i["monthlyMin"] is not None else f"{i['name']} (no price)"
            for i in tpu
            if i["monthlyMin"] or i["monthlyMin"] is None
        ]
        rows.append(
            f"| `{stack}` | {monthly_total(monthly['min'], items, 'monthlyMin')} | "
            f"{monthly_total(monthly['max'], items, 'monthlyMax')} | "
            + (f"TPU pools billed idle: {', '.join(idle)}" if idle else "no TPU cost idle")
            + " |"
        )
    return "\n".join(
        [
            "| stack | a month idle | a month at its most | idle |",
            "|---|---|---|---|",
            *rows,
        ]
    )


PARTS: dict[str, Callable[[], str]] = {
    **{f"config-{key.lower()}": config_table(key) for key in SECTIONS},
    "outputs-table": outputs_table,
    "outputs-summary": outputs_summary,
    "pool-entry": pool_entry,
    "enable-apis": enable_apis,
    "deployer-roles": roles,
    "stack-costs": stack_costs,
}


#: The part that lists a page's own sections; it is written last, from the rewritten page.
CONTENTS = "contents"
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_HEADING = re.compile(r"^(##|###) (.+)$", re.M)


def anchor(heading: str, seen: dict[str, int] | None = None) -> str:
    """GitHub's anchor of a heading: lowercase, punctuation but `-` and `_` dropped, spaces as
    hyphens, and `-1`, `-2` after the first of equal ones (counted in `seen`)."""
    slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
    if seen is None:
        return slug
    count = seen.get(slug, 0)
    seen[slug] = count + 1
    return slug if count == 0 else f"{slug}-{count}"


def anchors(text: str) -> set[str]:
    """Every heading's anchor in a Markdown page (headings inside code blocks are none)."""
    seen: dict[str, int] = {}
    bare = _FENCE.sub("", text)
    return {anchor(h, seen) for h in re.findall(r"^#{1,6} (.+)$", bare, re.M)}


def contents(text: str) -> str:
    """The page's sections (##) and their subsections (###) after the contents part, linked."""
    seen: dict[str, int] = {}
    bare = _FENCE.sub("", text)
    for h in re.findall(r"^#{1,6} (.+)$", bare.split(f"<!-- end: {CONTENTS} -->", 1)[0], re.M):
        anchor(h, seen)  # headings above the contents count for the suffixes
    after = bare.split(f"<!-- end: {CONTENTS} -->", 1)[-1]
    lines = []
    for level, heading in _HEADING.findall(after):
        indent = "" if level == "##" else "  "
        lines.append(f"{indent}- [{heading}](#{anchor(heading, seen)})")
    return "\n".join(lines)


def regenerate(text: str) -> str:
    """`text` with every generated part rewritten, the contents last. KeyError for an unknown
    part."""
    text = _PART.sub(lambda m: m[0] if m[2] == CONTENTS else f"{m[1]}{PARTS[m[2]]()}\n{m[4]}", text)
    return _PART.sub(
        lambda m: f"{m[1]}{contents(text)}\n{m[4]}" if m[2] == CONTENTS else m[0], text
    )


def stale_files() -> list[Path]:
    return [path for path in FILES if regenerate(path.read_text()) != path.read_text()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gke_tpu_upkeep.generated_docs", description=__doc__
    )
    parser.add_argument("--check", action="store_true", help="fail if a part is stale")
    args = parser.parse_args(argv)
    stale = stale_files()
    if args.check:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is stale: run `make docs`", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        path.write_text(regenerate(path.read_text()))
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
