"""`make catalog`: the table of gcsfuse's options (src/gke_tpu/catalog/gcsfuse_params.csv), written
from gcsfuse's own definitions, vendored unchanged in tools/third_party/gcsfuse/params.yaml
(GoogleCloudPlatform/gcsfuse cfg/params.yaml at the tag the README there names). A row per
option: its key in a GKE mount option (`file-cache:max-size-mb`, the config path with `:`), its
command-line flag, its type, its default as gcsfuse writes it, and whether the flag is hidden or
deprecated. The program reads the table, never the YAML."""

from __future__ import annotations

import csv
import io
from typing import Any

import yaml

from gke_tpu.catalog.gcsfuse import PARAMS_COLUMNS, PARAMS_FILE
from gke_tpu_upkeep import ROOT

SOURCE = ROOT / "tools" / "third_party" / "gcsfuse" / "params.yaml"


def _default(value: Any) -> str:
    """A default as gcsfuse's table writes it: booleans lower-case, missing as empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def params_table() -> str:
    """The CSV text, rows in the order params.yaml keeps them."""
    document = yaml.safe_load(SOURCE.read_text())
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(PARAMS_COLUMNS)
    for param in document["params"]:
        writer.writerow(
            [
                str(param.get("config-path", "")).replace(".", ":"),
                param["flag-name"],
                param["type"],
                _default(param.get("default")),
                "true" if param.get("hide-flag") else "false",
                "true" if param.get("deprecated") else "false",
            ]
        )
    return out.getvalue()


def main() -> None:
    PARAMS_FILE.write_text(params_table())
    print(f"wrote {PARAMS_FILE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
