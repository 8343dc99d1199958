"""The rules of `gke-tpu:modelStorage` against the cluster and the TPU pools."""

from __future__ import annotations

from collections.abc import Iterator

from gke_tpu.catalog.gcp import STORAGE_NAMED_LOCATIONS
from gke_tpu.config.cluster.spec import region_problems
from gke_tpu.config.model_storage.anywhere_cache import PATH as CACHE
from gke_tpu.config.model_storage.anywhere_cache import anywhere_cache_problems
from gke_tpu.config.model_storage.mount_volume import mount_option_problems
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem
from gke_tpu.problems.rules import Rule, rule


@rule("modelStorage.location")
def storage_location_is_known(view: StackView) -> list[Problem]:
    location = view.model_storage.location
    if not location or location.upper() in STORAGE_NAMED_LOCATIONS:
        return []
    return region_problems(
        location,
        view.facts.allow_undocumented_region,
        view.warnings,
        path="modelStorage.location",
        override="cluster.allowUndocumentedRegion",
    )


@rule("modelStorage.writer", "modelStorage.kubernetesServiceAccount")
def writer_has_its_own_account(view: StackView) -> Iterator[Problem]:
    storage = view.model_storage
    writer = storage.writer
    if writer.enabled and writer.kubernetes_service_account == storage.kubernetes_service_account:
        yield Problem(
            "modelStorage.writer.kubernetesServiceAccount",
            f"{writer.kubernetes_service_account!r} is also the reader's ServiceAccount; the "
            "writer needs its own",
        )


@rule("modelStorage.mountOptions", "modelStorage.writer")
def mount_options_mount(view: StackView) -> list[Problem]:
    """As gcsfuse and GKE's CSI driver take them, on each volume the platform mounts."""
    storage = view.model_storage
    return mount_option_problems(storage.mount_options, storage.writer.enabled)


@rule(CACHE, "modelStorage.location", "cluster.region", "tpuPools")
def cache_is_in_the_buckets_zones(view: StackView) -> list[Problem]:
    storage = view.model_storage
    if storage.anywhere_cache is None:
        return []
    return anywhere_cache_problems(
        storage.anywhere_cache, view.cluster.region, storage.location, view.plans
    )


#: In the order their problems are listed.
RULES: tuple[Rule[StackView], ...] = (
    storage_location_is_known,
    writer_has_its_own_account,
    mount_options_mount,
    cache_is_in_the_buckets_zones,
)
