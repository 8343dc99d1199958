"""The rules across the fields of `gke-tpu:cluster` that no single field can check
(config.rules runs them)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from gke_tpu.catalog.cpu_machines import check_machine_type, default_cpu_machine_type
from gke_tpu.catalog.gcp import zone_region
from gke_tpu.catalog.gke import MAX_NO_UPGRADES_EXCLUSIONS, NO_UPGRADES_LONGEST_DAYS
from gke_tpu.config.cluster.maintenance import availability_problem, parse_utc
from gke_tpu.config.cluster.spec import MaintenanceExclusion, region_problems
from gke_tpu.config.view import StackView
from gke_tpu.problems import Problem, show
from gke_tpu.problems.rules import Rule, rule


@rule("cluster.mode")
def autopilot_has_no_cpu_pool(view: StackView) -> Iterator[Problem]:
    if view.cluster.mode == "autopilot" and "cpuPool" in view.keys("cluster"):
        yield Problem(
            "cluster.cpuPool",
            "not allowed with mode: autopilot: an Autopilot cluster has no node pools of "
            "ours, and GKE runs system pods and CPU workloads on nodes it creates; remove "
            "cpuPool or use mode: standard",
        )


@rule("cluster.mode")
def autopilot_has_no_auto_provisioning(view: StackView) -> Iterator[Problem]:
    if view.cluster.mode == "autopilot" and "autoProvisioning" in view.keys("cluster"):
        yield Problem(
            "cluster.autoProvisioning",
            "not allowed with mode: autopilot: GKE provisions an Autopilot cluster's nodes "
            "without limits of ours; remove autoProvisioning",
        )


@rule("cluster.mode", "cluster.releaseChannel")
def autopilot_is_in_a_channel(view: StackView) -> Iterator[Problem]:
    if view.cluster.mode == "autopilot" and view.cluster.release_channel == "NONE":
        yield Problem(
            "cluster.releaseChannel",
            "'NONE' is not allowed with mode: autopilot: an Autopilot cluster is always in "
            "a release channel; choose RAPID, REGULAR, STABLE or EXTENDED",
        )


@rule("cluster.region", "cluster.allowUndocumentedRegion")
def region_is_known(view: StackView) -> list[Problem]:
    spec = view.cluster
    return region_problems(spec.region, spec.allow_undocumented_region, view.warnings)


@rule("cluster.region", "cluster.cpuPool")
def cpu_zones_are_in_the_region(view: StackView) -> Iterator[Problem]:
    region = view.cluster.region
    for i, zone in enumerate(view.cluster.cpu_pool.zones or ()):
        if zone_region(zone) != region:
            yield Problem(
                f"cluster.cpuPool.zones[{i}]",
                f"{zone!r} is not in the cluster's region {region!r}; use zones such as "
                f"'{region}-a'",
            )


@rule("cluster.mode", "cluster.region", "cluster.cpuPool")
def cpu_machine_type_exists(view: StackView) -> Iterator[Problem]:
    """The CPU pool's machine type against the catalog of series and sizes, and of what the
    region lacks (catalog.cpu_machines); a series the catalog does not know is a warning."""
    if view.cluster.mode == "autopilot":
        return
    pool, region = view.cluster.cpu_pool, view.cluster.region
    # A cluster section with a bad field is built without its validators: the default is the
    # region's here too.
    given = "machine_type" in pool.model_fields_set
    checked = check_machine_type(
        pool.machine_type if given else default_cpu_machine_type(region), region
    )
    if checked.problem:
        yield Problem("cluster.cpuPool.machineType", checked.problem)
    if checked.warning:
        view.warnings.append(f"cluster.cpuPool.machineType: {checked.warning}")


@rule("cluster.cpuPool")
def cpu_zones_are_named_once(view: StackView) -> Iterator[Problem]:
    seen: set[str] = set()
    for i, zone in enumerate(view.cluster.cpu_pool.zones or ()):
        if zone in seen:
            yield Problem(
                f"cluster.cpuPool.zones[{i}]", f"{zone!r} is listed twice; name each zone once"
            )
        seen.add(zone)


@rule("cluster.maintenanceWindow")
def window_is_long_enough(view: StackView) -> Iterator[Problem]:
    window = view.cluster.maintenance_window
    if window is None:
        return
    start, end = parse_utc(window.start_time), parse_utc(window.end_time)
    if end <= start:
        yield Problem(
            "cluster.maintenanceWindow.endTime",
            f"{window.end_time!r} must be after startTime {window.start_time!r}",
        )
    elif problem := availability_problem(start, end, window.recurrence):
        yield Problem("cluster.maintenanceWindow", problem)


@rule("cluster.maintenanceExclusions")
def exclusions_fit_gke(view: StackView) -> Iterator[Problem]:
    """At most 3 NO_UPGRADES exclusions, each with its end, under a name of its own."""
    names: set[str] = set()
    no_upgrades = 0
    for i, exclusion in enumerate(view.cluster.maintenance_exclusions):
        path = f"cluster.maintenanceExclusions[{i}]"
        if exclusion.scope == "NO_UPGRADES":
            no_upgrades += 1
            if no_upgrades == MAX_NO_UPGRADES_EXCLUSIONS + 1:
                yield Problem(
                    f"{path}.scope",
                    f"a {MAX_NO_UPGRADES_EXCLUSIONS + 1}th NO_UPGRADES exclusion; GKE allows "
                    f"at most {MAX_NO_UPGRADES_EXCLUSIONS}",
                )
        yield from _exclusion_end_problems(path, exclusion)
        if exclusion.name in names:
            yield Problem(
                f"{path}.name",
                f"{show(exclusion.name)} is used twice; exclusion names must be unique",
            )
        names.add(exclusion.name)


@rule("cluster.maintenanceExclusions", "cluster.releaseChannel")
def exclusion_scopes_need_a_channel(view: StackView) -> Iterator[Problem]:
    if view.cluster.release_channel != "NONE":
        return
    for i, exclusion in enumerate(view.cluster.maintenance_exclusions):
        if exclusion.scope != "NO_UPGRADES":
            yield Problem(
                f"cluster.maintenanceExclusions[{i}].scope",
                f"{exclusion.scope!r} needs a release channel; with releaseChannel NONE "
                "only NO_UPGRADES is allowed",
            )


@rule("cluster.maintenanceExclusions", "cluster.maintenanceWindow")
def exclusions_need_a_window(view: StackView) -> Iterator[Problem]:
    # The provider's maintenance_policy takes exactly one of a daily or a recurring window
    # (ExactlyOneOf in google_container_cluster), so exclusions alone fail there.
    if view.cluster.maintenance_exclusions and view.cluster.maintenance_window is None:
        yield Problem(
            "cluster.maintenanceExclusions",
            "need a maintenanceWindow: the provider refuses a maintenance policy without "
            "one; add one, such as a weekly 8-hour window "
            "(FREQ=WEEKLY;BYDAY=SA,SU from 02:00 to 10:00 UTC)",
        )


def _exclusion_end_problems(path: str, exclusion: MaintenanceExclusion) -> Iterator[Problem]:
    if exclusion.until_end_of_support:
        if exclusion.end_time is not None:
            yield Problem(
                f"{path}.endTime",
                f"{exclusion.end_time!r} cannot be combined with untilEndOfSupport: the "
                "exclusion ends either at endTime or at the end of support; remove one",
            )
        elif exclusion.scope == "NO_UPGRADES":
            yield Problem(
                f"{path}.untilEndOfSupport",
                f"true with scope NO_UPGRADES, which lasts at most {NO_UPGRADES_LONGEST_DAYS} "
                "days; use NO_MINOR_UPGRADES or NO_MINOR_OR_NODE_UPGRADES, or an endTime",
            )
        return
    if exclusion.end_time is None:
        yield Problem(
            f"{path}.endTime",
            "required: set endTime, or untilEndOfSupport: true to end with the version's support",
        )
        return
    start, end = parse_utc(exclusion.start_time), parse_utc(exclusion.end_time)
    if end <= start:
        yield Problem(
            f"{path}.endTime",
            f"{exclusion.end_time!r} must be after startTime {exclusion.start_time!r}",
        )
        return
    duration = end - start
    if (
        exclusion.scope == "NO_UPGRADES"
        and duration.total_seconds() > NO_UPGRADES_LONGEST_DAYS * 86400
    ):
        length = f"{duration.days} days" if duration.seconds == 0 else str(duration)
        yield Problem(
            f"{path}.endTime",
            f"{exclusion.end_time!r} makes a NO_UPGRADES exclusion of {length}; GKE "
            f"allows at most {NO_UPGRADES_LONGEST_DAYS} days",
        )


@rule("cluster.subnetwork", "cluster.region")
def subnetwork_is_in_the_region(view: StackView) -> Iterator[Problem]:
    cluster = view.cluster
    region = re.search(r"/regions/([^/]+)/", cluster.subnetwork or "")
    if region and region.group(1) != cluster.region:
        yield Problem(
            "cluster.subnetwork",
            f"{show(cluster.subnetwork)} is in region {region.group(1)!r}, not in the "
            f"cluster's region {cluster.region!r}; a cluster's subnetwork is in its region",
        )


#: In the order their problems are listed.
RULES: tuple[Rule[StackView], ...] = (
    autopilot_has_no_cpu_pool,
    autopilot_has_no_auto_provisioning,
    autopilot_is_in_a_channel,
    region_is_known,
    cpu_zones_are_in_the_region,
    cpu_zones_are_named_once,
    cpu_machine_type_exists,
    window_is_long_enough,
    exclusions_fit_gke,
    exclusion_scopes_need_a_channel,
    exclusions_need_a_window,
    subnetwork_is_in_the_region,
)
