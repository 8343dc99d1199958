"""How the config checks scale with the length of a bad value: they must stay linear.

For every string field a user writes, a value of 6,000 and then 60,000 characters (a letter
repeated, the worst case of a backtracking pattern) is checked with `load_platform`. The table
prints the seconds of each and their ratio: at most about 10 when a check is linear (a quadratic
one would show 100); about 1 where the length is refused before any pattern runs. The last
column is the longest problem message of the run: messages echo at most 80 characters of a
value, so it stays a few hundred characters however long the value.
Run: `make bench` (or `venv/bin/python tools/bench/validation_scale.py`).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from gke_tpu.config.platform.load import load_platform
from gke_tpu.problems import ConfigError

ROOT = Path(__file__).resolve().parents[2]

CLUSTER = {"name": "tpu-dev", "region": "us-east5"}
POOL = {"name": "train", "tpu": "v5e", "topology": "4x4"}
NETWORK = {"nodesCidr": "10.0.0.0/22", "podsCidr": "10.4.0.0/16", "servicesCidr": "10.8.0.0/20"}
AUTHORIZED = {"cidrBlock": "198.51.100.0/24", "displayName": "office"}
WINDOW = {"startTime": "2026-01-03T02:00:00Z", "endTime": "2026-01-03T10:00:00Z",
          "recurrence": "FREQ=WEEKLY;BYDAY=SA,SU"}  # fmt: skip


def _fields(value: str) -> dict[str, dict[str, str]]:
    """A config for each string field, that field set to `value`."""
    configs: dict[str, dict[str, Any]] = {
        "gcp:project": {"project": value},
        **{f"cluster.{k}": {"cluster": CLUSTER | {k: value}} for k in (
            "name", "region", "minMasterVersion", "network", "subnetwork")},
        "cluster.cpuPool.machineType": {"cluster": CLUSTER | {"cpuPool": {"machineType": value}}},
        "cluster.maintenanceWindow.startTime": {
            "cluster": CLUSTER | {"maintenanceWindow": WINDOW | {"startTime": value}}},
        "cluster.maintenanceWindow.recurrence": {
            "cluster": CLUSTER | {"maintenanceWindow": WINDOW | {"recurrence": value}}},
        **{f"tpuPools[0].{k}": {"tpuPools": [POOL | {k: value}]} for k in (
            "name", "tpu", "topology", "machineType", "zone", "reservation")},
        **{f"modelStorage.{k}": {"modelStorage": {"bucket": "models-1", k: value}} for k in (
            "bucket", "location", "namespace", "kubernetesServiceAccount")},
        **{f"network.{k}": {"network": NETWORK | {k: value}} for k in (
            "nodesCidr", "podsCidr", "servicesCidr", "controlPlaneCidr")},
        **{f"network.masterAuthorizedNetworks[0].{k}": {"network": NETWORK | {
            "masterAuthorizedNetworks": [AUTHORIZED | {k: value}]}} for k in (
            "cidrBlock", "displayName")},
    }  # fmt: skip
    out: dict[str, dict[str, str]] = {}
    for field, sections in configs.items():
        config = {"gcp:project": sections.pop("project", "gke-tpu-dev")}
        sections.setdefault("cluster", CLUSTER)
        config |= {f"gke-tpu:{key}": json.dumps(section) for key, section in sections.items()}
        out[field] = config
    return out


def _check(config: dict[str, str]) -> tuple[float, int]:
    start = time.perf_counter()
    try:
        load_platform(config)
        longest = 0
    except ConfigError as error:
        longest = max(len(str(p)) for p in error.problems)
    return time.perf_counter() - start, longest


def main() -> None:
    short, long = _fields("a" * 6_000), _fields("a" * 60_000)
    print(
        f"{'field':<48} {'6,000 ch s':>11} {'60,000 ch s':>12} {'ratio':>6} {'longest message':>16}"
    )
    worst = 0.0
    for field in short:
        t_short, _ = _check(short[field])
        t_long, message = _check(long[field])
        worst = max(worst, t_long)
        ratio = t_long / t_short if t_short else float("nan")
        print(f"{field:<48} {t_short:>11.4f} {t_long:>12.4f} {ratio:>6.1f} {message:>16}")
    print(f"\nslowest check of a 60,000-character value: {worst:.3f} s")


if __name__ == "__main__":
    main()
