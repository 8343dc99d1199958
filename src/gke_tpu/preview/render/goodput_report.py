"""The report's Goodput section: per TPU pool, where checkpoints go, what a restarted slice
restores from, the model cache, and what is missing. Facts: GKE "Train large-scale machine
learning models on GKE with Multi-Tier Checkpointing" (restore from the node's copy, another
node's, or Cloud Storage), Cloud Storage "Anywhere Cache" (a cache serves reads of its zone).
"""

from __future__ import annotations

from typing import Any

from gke_tpu.catalog.gke import POOL_LABEL
from gke_tpu.catalog.tokens import ANYWHERE_CACHE, CHECKPOINT_CONFIGURATION, PERSISTENT_VOLUME
from gke_tpu.config.model_storage.gcsfuse import TUNING_ANNOTATION
from gke_tpu.contract.outputs import TpuPoolRef
from gke_tpu.preview.engine import Preview


def _checkpointed(plan: Preview) -> dict[str, dict[str, Any]]:
    """Each pool's CheckpointConfiguration spec, by pool name."""
    found: dict[str, dict[str, Any]] = {}
    for resource in plan.of_type(CHECKPOINT_CONFIGURATION):
        spec = resource.inputs.get("spec") or {}
        pool = (spec.get("nodeSelector") or {}).get(POOL_LABEL)
        if pool:
            found[pool] = spec
    return found


def _caches(plan: Preview) -> dict[str, str]:
    """Each cached zone's TTL."""
    return {
        str(r.inputs.get("zone")): str(r.inputs.get("ttl") or "86400s")
        for r in plan.of_type(ANYWHERE_CACHE)
    }


def _ttl(ttl: str) -> str:
    seconds = int(ttl.rstrip("s"))
    return f"{seconds // 3600} h" if seconds % 86400 else f"{seconds // 86400} d"


def goodput_section(plan: Preview) -> list[str]:
    pools = plan.outputs.get("tpuPools") or {}
    if not pools:
        return []
    checkpointed = _checkpointed(plan)
    caches = _caches(plan)
    model_bucket = plan.outputs.get("modelBucket")
    rows, missing = [], []
    for name, entry in pools.items():
        ref = TpuPoolRef.parse(name, entry)
        spec = checkpointed.get(name)
        if spec:
            bucket = spec.get("cloudStorageBucketName")
            where = (
                f"multi-tier: {spec.get('inMemoryVolumeSize')} in memory per node, a peer's "
                f"copy, backed up to gs://{bucket}"
            )
            restore = (
                f"a MultisliceJobSet that restores through Orbax: the node's memory, else a "
                f"peer node's, else gs://{bucket}; anything else: what it wrote itself"
            )
        else:
            where = "the workload's own (none kept by the platform)"
            restore = "the workload's last checkpoint it wrote itself, or the start"
            if ref.multi_host:
                missing.append(
                    f"{name}: a multi-host pool without multi-tier checkpointing: an interrupted "
                    "slice restores only what its workload wrote itself; add it to "
                    "`gke-tpu:checkpointing` (`pools`)"
                )
        if not model_bucket:
            cache = "no model bucket"
        elif ref.zone in caches:
            cache = f"Anywhere Cache in {ref.zone} (TTL {_ttl(caches[ref.zone])})"
        else:
            cache = "none: model reads go to the bucket"
        rows.append(f"| {name} | {where} | {restore} | {cache} |")
    if model_bucket and not caches:
        missing.append(
            "the model bucket has no Anywhere Cache: every Pod's model load reads the bucket; "
            "set `modelStorage.anywhereCache`"
        )
    lines = [
        "## Goodput",
        "",
        "Where checkpoints go, what an interrupted slice restarts from, and what serves model "
        "reads in each pool's zone.",
        "",
        "| TPU pool | checkpoints | restore after an interruption | model reads |",
        "|---|---|---|---|",
        *rows,
        "",
    ]
    tuning = [
        f"- `{r.inputs.get('metadata', {}).get('name')}`: "
        f"{(r.inputs.get('metadata', {}).get('annotations') or {}).get(TUNING_ANNOTATION)}"
        for r in plan.of_type(PERSISTENT_VOLUME)
        if (r.inputs.get("metadata", {}).get("annotations") or {}).get(TUNING_ANNOTATION)
    ]
    if tuning:
        lines += ["GCS FUSE volumes:", "", *tuning, ""]
    if missing:
        lines += ["> [!WARNING]", *(f"> - {m}" for m in missing), ""]
    return lines
