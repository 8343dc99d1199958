"""The rules across sections that guard no one section: node auto-provisioning's limits against
every pool, an existing network beside the network section that makes one, and names two
sections must not share (gke_tpu.problems.claims, the rule components hold each other to)."""

from __future__ import annotations

from collections.abc import Iterator

from gke_tpu.config.platform.auto_provisioning import auto_provisioning_problems
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem, show
from gke_tpu.problems.claims import Claim, clashes
from gke_tpu.problems.rules import Rule, rule


# Whether node auto-provisioning is needed is unknown while a pool's fallback did not parse.
@rule("cluster.mode", "cluster.autoProvisioning", "tpuPools.fallback")
def auto_provisioning_fits_the_pools(view: StackView) -> list[Problem]:
    return auto_provisioning_problems(
        view.cluster,
        view.plans,
        any(entry.pool.fallback for entry in view.entries),
        view.warnings,
        complete=len(view.plans) == view.entry_count,
    )


def _not_beside_the_network_section(key: str) -> Rule[StackView]:
    @rule(f"cluster.{key}")
    def existing_network_is_not_made(view: StackView) -> Iterator[Problem]:
        value = getattr(view.cluster, key)
        if value is not None and "network" in view.written:
            yield Problem(
                f"cluster.{key}",
                f"{show(value)} cannot be combined with gke-tpu:network, which creates the "
                f"cluster's network; remove cluster.{key}, or the network section to use an "
                "existing network",
            )

    return existing_network_is_not_made


@rule("modelStorage.bucket", "checkpointing.bucket")
def buckets_are_apart(view: StackView) -> list[Problem]:
    """Bucket names are global: two of one name fail halfway through `pulumi up`."""
    models = Claim("bucket", "", view.model_storage.bucket, "modelStorage.bucket")
    checkpoints = Claim("bucket", "", view.checkpointing.bucket, "checkpointing.bucket")
    return clashes([checkpoints], {models.key: models})


@rule(
    "modelStorage.namespace",
    "modelStorage.kubernetesServiceAccount",
    "modelStorage.writer",
    "checkpointing.kubernetesServiceAccount",
)
def checkpoint_writer_has_its_own_account(view: StackView) -> list[Problem]:
    """The checkpoint writer's ServiceAccount is in model storage's namespace: one of the model
    identities' names would bind one ServiceAccount to two Google identities."""
    storage = view.model_storage
    namespace = f"namespace {storage.namespace!r}"
    ksa = "Kubernetes ServiceAccount"
    made = [
        Claim(
            ksa,
            namespace,
            storage.kubernetes_service_account,
            "modelStorage.kubernetesServiceAccount",
        )
    ]
    if storage.writer.enabled:
        writer = storage.writer.kubernetes_service_account
        made.append(Claim(ksa, namespace, writer, "modelStorage.writer.kubernetesServiceAccount"))
    checkpoint = view.checkpointing.kubernetes_service_account
    claim = Claim(ksa, namespace, checkpoint, "checkpointing.kubernetesServiceAccount")
    return clashes([claim], {c.key: c for c in made})


#: In the order their problems are listed.
RULES: tuple[Rule[StackView], ...] = (
    auto_provisioning_fits_the_pools,
    _not_beside_the_network_section("network"),
    _not_beside_the_network_section("subnetwork"),
    buckets_are_apart,
    checkpoint_writer_has_its_own_account,
)
