"""`make schema`: rewrite components/schema.json, the schema Pulumi's analyzer infers from
the public components, and docs/api.md, the API reference generated from it, after reviewing a
change of their API (a test fails until both are rewritten)."""

import json
from typing import Any

from gke_tpu.provider import schema_text
from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.generated_docs import regenerate

SCHEMA = ROOT / "components" / "schema.json"
API = ROOT / "docs" / "api.md"
INFRA = ("RegionalCluster", "MultiHostTpuPool", "SingleHostTpuPool", "StorageBucket")

HEAD = """# API reference

Generated from the component package's schema (`make schema`; `components/schema.json`,
which Pulumi's analyzer infers from the components' Args and outputs): do not edit by hand.

In Python, import the components and their Args from `gke_tpu.components` (infra) and
`gke_tpu.workloads` (workloads); an Args class takes the inputs below by their Python names
(`machine_type` for `machineType`). Other languages use the same names as the schema, through
the SDK `pulumi package add` generates (docs/package.md). Every
component checks its inputs before it registers anything: one error lists every problem at its
input's path (`MultiHostTpuPool 'train'.machine_type: ...`). Infra components apply the rules of
the stack file's sections (docs/configuration.md).

## Contents

<!-- generated: contents -->
<!-- end: contents -->
"""


def _type(prop: dict[str, Any]) -> str:
    if "$ref" in prop:
        return prop["$ref"].rsplit(":", 1)[-1]
    kind = prop.get("type", "any")
    if kind == "array":
        return f"list of {_type(prop.get('items', {}))}"
    if kind == "object" and "additionalProperties" in prop:
        return f"map of {_type(prop['additionalProperties'])}"
    return kind


def _cell(text: str | None) -> str:
    return " ".join((text or "").split()).replace("|", "\\|")


def _table(props: dict[str, Any], required: list[str], what: str) -> list[str]:
    rows = [f"| {what} | type | required | description |", "|---|---|---|---|"]
    for name in sorted(props):
        prop = props[name]
        needed = "yes" if name in required else ""
        rows.append(f"| `{name}` | {_type(prop)} | {needed} | {_cell(prop.get('description'))} |")
    return rows


def api_markdown(schema: dict[str, Any]) -> str:
    lines = [HEAD]
    resources = schema["resources"]
    for title, names in (
        ("Infra components (`gke_tpu.components`)", INFRA),
        (
            "Workload components (`gke_tpu.workloads`)",
            [r.rsplit(":", 1)[-1] for r in sorted(resources) if r.rsplit(":", 1)[-1] not in INFRA],
        ),
    ):
        lines += [f"## {title}", ""]
        for name in names:
            resource = resources[f"gke-tpu:index:{name}"]
            lines += [f"### {name}", "", _cell(resource.get("description")), ""]
            inputs = resource.get("inputProperties", {})
            required = resource.get("requiredInputs", [])
            lines += [*_table(inputs, required, "input"), ""]
            lines += ["Outputs:", ""]
            lines += [*_table(resource.get("properties", {}), [], "output"), ""]
    lines += ["## Types", ""]
    for token, kind in sorted(schema["types"].items()):
        name = token.rsplit(":", 1)[-1]
        lines += [f"### {name}", "", _cell(kind.get("description")), ""]
        lines += [*_table(kind.get("properties", {}), kind.get("required", []), "field"), ""]
    return regenerate("\n".join(lines).rstrip() + "\n")


def main() -> None:
    text = schema_text()
    SCHEMA.write_text(text)
    API.write_text(api_markdown(json.loads(text)))
    print(f"wrote {SCHEMA.relative_to(ROOT)} and {API.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
