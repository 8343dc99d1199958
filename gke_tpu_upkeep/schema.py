"""`make schema`: rewrite packages/gke-tpu/schema.json, the schema Pulumi's analyzer infers from
the public components, after reviewing a change of their API (a test fails until it is)."""

from gke_tpu.provider import schema_text
from gke_tpu_upkeep import ROOT

SCHEMA = ROOT / "packages" / "gke-tpu" / "schema.json"


def main() -> None:
    SCHEMA.write_text(schema_text())
    print(f"wrote {SCHEMA.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
