"""The rules across sections that guard no one section: node auto-provisioning's limits against
every pool, and an existing network beside the network section that makes one."""

from __future__ import annotations

from collections.abc import Iterator

from gke_tpu.config.platform.auto_provisioning import auto_provisioning_problems
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem, show
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


#: In the order their problems are listed.
RULES: tuple[Rule[StackView], ...] = (
    auto_provisioning_fits_the_pools,
    _not_beside_the_network_section("network"),
    _not_beside_the_network_section("subnetwork"),
)
