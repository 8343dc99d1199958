"""What a MultiHostServing decides, and the rules its arguments must pass (one bad argument is
one problem: `gke_tpu.problems.rules`). Facts: catalog.lws, catalog.pathways, catalog.jetstream,
catalog.hbm."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from gke_tpu.catalog import TPU_RUNTIME_PORTS
from gke_tpu.catalog import jetstream as js
from gke_tpu.catalog import pathways as pw
from gke_tpu.catalog.hbm import DEFAULT_HBM_HEADROOM, group_hbm_gb
from gke_tpu.catalog.lws import lws_release_problem, max_name_length
from gke_tpu.catalog.slicing import LWS_MIN_VERSION, SUB_BLOCK_CHIPS
from gke_tpu.catalog.tpu import chips_in
from gke_tpu.catalog.versions import release_at_least
from gke_tpu.contract.interruptions import check_max_unavailable
from gke_tpu.contract.workloads import (
    check_image,
    check_queue,
    check_service_type,
    check_topology,
    group_request,
    queue_labels,
    slice_shape,
    slice_workers,
    slices_at_once,
)
from gke_tpu.problems import Problem
from gke_tpu.problems.args import given
from gke_tpu.problems.rules import Rule, rule, run_rules
from gke_tpu.workloads.internal.pathways_plan import check_gcs_path, check_release
from gke_tpu.workloads.internal.vllm_plan import STARTUP_PERIOD_SECONDS, startup_failure_threshold
from gke_tpu.workloads.multi_host_args import (
    DEFAULT_MAX_UNAVAILABLE_GROUPS,
    JETSTREAM_PATHWAYS,
    GroupAutoscaling,
    MultiHostServingArgs,
)

#: Why vLLM is refused on a multi-host slice. The sources disagree, so the safe side: vLLM's TPU
#: backend marks multi-host failing (Flax) or untested (its other paths) in its own feature
#: matrix (vllm-project/tpu-inference README.md, "multi-host"); GKE's vLLM TPU tutorial says
#: multi-host is not supported; LeaderWorkerSet's example (kubernetes-sigs/lws
#: docs/examples/vllm/TPU/lws.yaml) runs vLLM over Ray from the moving `vllm/vllm-tpu:latest`.
VLLM_REFUSED = (
    "vLLM is not served across the hosts of a TPU slice here: its TPU backend marks multi-host "
    "failing or untested (vllm-project/tpu-inference README.md, feature matrix, 'multi-host'), "
    "GKE's vLLM TPU tutorial says multi-host is not supported "
    "(https://cloud.google.com/kubernetes-engine/docs/tutorials/serve-vllm-tpu), and "
    "LeaderWorkerSet's example (kubernetes-sigs/lws docs/examples/vllm/TPU) runs an unpinned "
    f"image over Ray; use engine {JETSTREAM_PATHWAYS!r} (GKE's multi-host TPU inference), or "
    "VllmServingDeployment on a single-host pool"
)
#: The leader's own ports, which `port` may not take.
TAKEN_PORTS = {
    **{p: "the TPU runtime's" for p in TPU_RUNTIME_PORTS},
    pw.LEADER_RESOURCE_MANAGER_PORT: "Pathways' resource manager's",
    pw.LEADER_PROXY_PORT: "Pathways' proxy's",
    pw.LEADER_WORKER_PORT: "a Pathways worker's",
    js.GRPC_PORT: "JetStream's gRPC",
    js.METRICS_PORT: "JetStream's metrics",
}


@dataclass(frozen=True)
class MultiHostPlan:
    """What the component registers, decided."""

    groups: int
    """The LeaderWorkerSet's replicas: fixed, or the autoscaler's minimum to start from."""
    workers: int
    """TPU workers per group: one per VM of a slice."""
    instance_type: str
    """The resource manager's `--instance_type` (`tpuv6e:4x4`)."""
    engine_args: tuple[str, ...]
    """The engine's MaxText settings, the component's after the caller's."""
    startup_failure_threshold: int
    """Startup probes that may fail, one every STARTUP_PERIOD_SECONDS, before a restart."""
    max_unavailable_pods: int | None
    """The PodDisruptionBudget's `maxUnavailable`: the Pods of the groups that may go."""
    autoscaling: GroupAutoscaling | None
    annotations: Mapping[str, str] = field(default_factory=dict[str, str])
    """Both Pod templates' annotations: the slice each group asks Kueue for, where Kueue places
    it (contract.workloads group_request)."""
    labels: Mapping[str, str] = field(default_factory=dict[str, str])
    """The LeaderWorkerSet's own labels beyond the app's: the queue that admits its groups."""
    health: tuple[str, str] | None = None
    """The node label and value both templates require: a healthy partition of a dynamic
    slice (contract.workloads group_request)."""

    @property
    def kueue_places(self) -> bool:
        """Kueue places each group in its slice; otherwise each takes a node pool of its own."""
        return bool(self.annotations)

    @property
    def group_size(self) -> int:
        """Pods per group: the leader (the Pathways head and the engine, on one of the slice's
        VMs, holding no chips) and a worker per VM, as GKE's example sizes it (`size: 5` on a
        v6e-16)."""
        return self.workers + 1

    @property
    def startup_seconds(self) -> int:
        """How long the leader may take to answer its startup probe."""
        return self.startup_failure_threshold * STARTUP_PERIOD_SECONDS


def _positive(value: object) -> bool:
    """A number above 0: the values come from apps' code, typed or not (a bool is no number)."""
    return not isinstance(value, bool) and isinstance(value, int | float) and value > 0


def _share(value: object) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and 0 <= value < 1


@rule("leader_worker_set_version", "pool")
def lws_is_installed_and_recent(args: MultiHostServingArgs) -> Iterator[Problem]:
    version, slicing = args.leader_worker_set_version, args.pool.slicing
    if version is None:
        yield Problem(
            "leader_worker_set_version",
            "is required: pass the platform's `leaderWorkerSetVersion` output; a platform "
            "without it installs no LeaderWorkerSet (turn on gke-tpu:leaderWorkerSet)",
        )
    elif problem := lws_release_problem(version):
        yield Problem("leader_worker_set_version", f"{version!r}: {problem}")
    elif slicing is not None and slicing.dynamic and not release_at_least(version, LWS_MIN_VERSION):
        yield Problem(
            "leader_worker_set_version",
            f"{version!r} is below {LWS_MIN_VERSION}, the lowest LeaderWorkerSet for dynamic "
            f"slicing (pool {args.pool.name!r}; catalog.slicing LWS_MIN_VERSION); the platform "
            f"must install {LWS_MIN_VERSION} or later",
        )


@rule("engine")
def engine_is_documented_multi_host(args: MultiHostServingArgs) -> Iterator[Problem]:
    engine = given(args.engine, JETSTREAM_PATHWAYS)
    if engine == "vllm":
        yield Problem("engine", f"'vllm': {VLLM_REFUSED}")
    elif engine != JETSTREAM_PATHWAYS:
        yield Problem("engine", f"{engine!r} is not an engine; expected {JETSTREAM_PATHWAYS!r}")


@rule("pool", refuses=("pool",))
def pool_has_multi_host_slices(args: MultiHostServingArgs) -> Iterator[Problem]:
    pool = args.pool
    if not pool.multi_host:
        yield Problem(
            "pool",
            f"{pool.name!r} is a single-host {pool.topology} pool: a group spans the VMs of a "
            "multi-host slice; choose a multi-host pool, or serve a model that fits one VM with "
            "VllmServingDeployment",
        )
    elif pool.provisioning_request_only:
        yield Problem(
            "pool",
            f"{pool.name!r} gets nodes only through a ProvisioningRequest ({pool.capacity}): "
            "they come for one batch workload and go when it ends; serve from a pool whose "
            "nodes stay",
        )


@rule("pool", "topology", refuses=("topology",))
def group_shape_is_formed(args: MultiHostServingArgs) -> Iterator[Problem]:
    """The shape of each group's slice: one the pool forms (contract.workloads check_topology),
    and on dynamic slices one a LeaderWorkerSet group may take (PoolSlicing.group_shapes)."""
    pool, topology, slicing = args.pool, args.topology, args.pool.slicing
    if slicing is None or not slicing.dynamic:
        yield from check_topology("topology", pool, topology)
        return
    groups = ", ".join(slicing.group_shapes)
    if topology is None:
        yield Problem(
            "topology",
            f"is required: pool {pool.name!r} forms each group's slice from its sub-blocks "
            f"(dynamic slicing); ask for one of {groups}",
        )
    elif topology in slicing.group_shapes:
        return
    elif topology in slicing.shapes:
        yield Problem(
            "topology",
            f"{topology!r} spans {chips_in(topology) // SUB_BLOCK_CHIPS} sub-blocks of pool "
            f"{pool.name!r}: the Kueue slice controller keeps a LeaderWorkerSet group in one "
            "partition of its shape, and a sub-block is the largest (tpu-slice-controller "
            "internal/webhooks, LeaderWorkerSetWebhook), so such a group would never be "
            f"admitted; a group takes one of {groups}",
        )
    else:
        yield Problem(
            "topology",
            f"{topology!r} is not a slice pool {pool.name!r} forms for a group; a group takes "
            f"one of {groups}",
        )


@rule("pool", "namespace", "queue")
def queue_covers_the_pool(args: MultiHostServingArgs) -> list[Problem]:
    return check_queue(args.pool, args.namespace, args.queue)


def _shape(args: MultiHostServingArgs) -> str:
    return slice_shape(args.pool, args.topology)


def _workers(args: MultiHostServingArgs) -> int:
    """TPU workers per group: one per VM of its slice."""
    return slice_workers(args.pool, args.topology)


def most_groups(args: MultiHostServingArgs) -> int | None:
    """Groups the pool holds at once, a slice each; None where GKE creates VMs per workload."""
    return None if args.pool.per_workload else slices_at_once(args.pool, args.topology)


@rule("pool", "topology", "workers")
def workers_are_the_slices_vms(args: MultiHostServingArgs) -> Iterator[Problem]:
    workers, pool, nodes = args.workers, args.pool, _workers(args)
    if workers is not None and workers != nodes:
        yield Problem(
            "workers",
            f"{workers} workers do not fit pool {pool.name!r}: a {_shape(args)} slice has "
            f"{nodes} VM{'s' if nodes != 1 else ''} and a group runs one worker on each (and "
            "its leader beside one of them)",
        )


def _too_many(args: MultiHostServingArgs, groups: int) -> str | None:
    most = most_groups(args)
    if most is None or groups <= most:
        return None
    return (
        f"{groups} groups do not fit pool {args.pool.name!r}: a group holds one {_shape(args)} "
        f"slice and the pool holds {most} at once; add slices to the pool or lower this"
    )


@rule("pool", "topology", "groups")
def groups_fit_the_slices(args: MultiHostServingArgs) -> Iterator[Problem]:
    groups = args.groups
    if groups is None:
        return
    if type(groups) is not int or groups < 1:
        yield Problem("groups", f"{groups!r}: at least 1")
    elif too_many := _too_many(args, groups):
        yield Problem("groups", too_many)


@rule("pool", "topology", "groups", "autoscaling")
def autoscaling_fits_the_slices(args: MultiHostServingArgs) -> Iterator[Problem]:
    scaling = args.autoscaling
    if scaling is None:
        return
    if args.groups is not None:
        yield Problem(
            "groups",
            f"{args.groups}: the autoscaler sets the groups between autoscaling.min_groups and "
            "autoscaling.max_groups; drop groups",
        )
    low, high = scaling.min_groups, scaling.max_groups
    if type(low) is not int or low < 1:
        yield Problem("autoscaling.min_groups", f"{low!r}: at least 1 (an HPA does not scale to 0)")
    elif type(high) is int and low > high:
        yield Problem("autoscaling.min_groups", f"{low} is above autoscaling.max_groups ({high})")
    if type(high) is not int or high < 1:
        yield Problem("autoscaling.max_groups", f"{high!r}: at least 1")
    elif too_many := _too_many(args, high):
        yield Problem("autoscaling.max_groups", too_many)
    if not _positive(scaling.target_per_group):
        yield Problem("autoscaling.target_per_group", f"{scaling.target_per_group!r}: above 0")
    metric = given(scaling.metric, "")
    if metric not in js.SCALING_METRICS:
        yield Problem(
            "autoscaling.metric",
            f"{metric!r} is not a JetStream gauge to scale on; expected one of "
            + ", ".join(f"{m} ({what})" for m, what in js.SCALING_METRICS.items()),
        )


@rule("model_size_gb", refuses=("model_size_gb",))
def model_size_is_a_size(args: MultiHostServingArgs) -> Iterator[Problem]:
    if not _positive(args.model_size_gb):
        yield Problem("model_size_gb", f"{args.model_size_gb!r} is not a size: a number above 0")


@rule("load_gb_per_minute")
def load_rate_is_a_rate(args: MultiHostServingArgs) -> Iterator[Problem]:
    rate = given(args.load_gb_per_minute, js.DEFAULT_LOAD_GB_PER_MINUTE)
    if not _positive(rate):
        yield Problem("load_gb_per_minute", f"{rate!r} is not a rate: a number above 0")


@rule("hbm_headroom", refuses=("hbm_headroom",))
def headroom_is_a_share(args: MultiHostServingArgs) -> Iterator[Problem]:
    headroom = given(args.hbm_headroom, DEFAULT_HBM_HEADROOM)
    if not _share(headroom):
        yield Problem("hbm_headroom", f"{headroom!r} is not a share: 0 or more, below 1")


def _group_chips(args: MultiHostServingArgs) -> int:
    return _workers(args) * args.pool.chips_per_node


def group_hbm(args: MultiHostServingArgs) -> float:
    return group_hbm_gb(args.pool.generation, _group_chips(args))


@rule("pool", "topology", "model_size_gb", "hbm_headroom")
def model_fits_the_group(args: MultiHostServingArgs) -> Iterator[Problem]:
    """The weights against the group's HBM with the stated headroom left free."""
    pool, size = args.pool, args.model_size_gb
    headroom = given(args.hbm_headroom, DEFAULT_HBM_HEADROOM)
    hbm = group_hbm(args)
    room = hbm * (1 - headroom)
    if size > room:
        chips = _group_chips(args)
        yield Problem(
            "model_size_gb",
            f"{size:g} GB of weights do not fit a group of pool {pool.name!r}: its {chips} "
            f"{pool.generation} chips hold {hbm:.0f} GB of HBM, and {headroom:.0%} of it stays "
            f"free for the KV cache and the runtime ({room:.0f} GB for weights); choose a pool of "
            "larger slices, quantize the model, or lower hbm_headroom",
        )


@rule("image", "http_image", "pathways_version")
def images_are_pinned(args: MultiHostServingArgs) -> Iterator[Problem]:
    found = check_image("image", args.image)
    yield from found
    if not found:
        name = args.image.partition("@")[0].rsplit("/", 1)[-1].partition(":")[0]
        if name != js.ENGINE_IMAGE_NAME:
            yield Problem(
                "image",
                f"{args.image!r} is not JetStream's Pathways image: use "
                f"us-docker.pkg.dev/cloud-tpu-images/inference/{js.ENGINE_IMAGE_NAME}, or a "
                "mirror of it that keeps the name",
            )
    yield from check_image("http_image", given(args.http_image, js.HTTP_IMAGE))
    yield from check_release("pathways_version", args.pathways_version)


@rule("scratch_location", "model_checkpoint")
def locations_are_buckets(args: MultiHostServingArgs) -> Iterator[Problem]:
    yield from check_gcs_path("scratch_location", args.scratch_location)
    yield from check_gcs_path("model_checkpoint", args.model_checkpoint, "the MaxText checkpoint")


@rule("server_args")
def server_args_leave_own_settings(args: MultiHostServingArgs) -> Iterator[Problem]:
    keys = {a.split("=", 1)[0].lstrip("-") for a in args.server_args or ()}
    taken = [key for key in js.OWN_SETTINGS if key in keys]
    if taken:
        yield Problem(
            "server_args",
            f"{', '.join(taken)} {'is' if len(taken) == 1 else 'are'} the component's: "
            "model_checkpoint sets load_parameters_path, Pathways needs the single controller "
            "and the PodMonitoring scrapes the metrics port",
        )


@rule("port")
def port_is_free(args: MultiHostServingArgs) -> Iterator[Problem]:
    port = given(args.port, js.HTTP_PORT)
    if type(port) is not int or not 1 <= port <= 65535:
        yield Problem("port", f"{port!r} is not a port: 1 to 65535")
    elif port in TAKEN_PORTS:
        yield Problem(
            "port", f"{port} is {TAKEN_PORTS[port]} port in the leader; use 8000 or another"
        )


@rule("service_type")
def service_type_is_known(args: MultiHostServingArgs) -> list[Problem]:
    return check_service_type("service_type", given(args.service_type, "ClusterIP"))


@rule("max_unavailable_groups")
def budget_lets_a_group_go(args: MultiHostServingArgs) -> list[Problem]:
    value = args.max_unavailable_groups
    if isinstance(value, str):
        return [Problem("max_unavailable_groups", f"{value!r}: a number of groups, 1 or more")]
    return check_max_unavailable("max_unavailable_groups", value)


RULES: tuple[Rule[MultiHostServingArgs], ...] = (
    lws_is_installed_and_recent,
    engine_is_documented_multi_host,
    pool_has_multi_host_slices,
    group_shape_is_formed,
    queue_covers_the_pool,
    workers_are_the_slices_vms,
    groups_fit_the_slices,
    autoscaling_fits_the_slices,
    model_size_is_a_size,
    load_rate_is_a_rate,
    headroom_is_a_share,
    model_fits_the_group,
    images_are_pinned,
    locations_are_buckets,
    server_args_leave_own_settings,
    port_is_free,
    service_type_is_known,
    budget_lets_a_group_go,
)


def multi_host_problems(args: MultiHostServingArgs) -> list[Problem]:
    """Every problem of the arguments, at their paths."""
    return run_rules(RULES, args, ())


def name_problems(name: str, args: MultiHostServingArgs, counted: bool = True) -> list[Problem]:
    """The LeaderWorkerSet's name against the longest LeaderWorkerSet and, with a queue, Kueue
    allow for its groups at the most (catalog.lws max_name_length). Not `counted` (the
    arguments have problems, so the groups are unknown): against one group's, the loosest bound,
    so that a name too long for any count is said with the other problems."""
    groups = 1
    if counted:
        groups = args.autoscaling.max_groups if args.autoscaling else plan_groups(args)
    queued = args.queue is not None
    longest = max_name_length(groups, queued)
    if len(name) <= longest:
        return []
    by = (
        "Kueue (which names each group's Workload after it) and LeaderWorkerSet allow"
        if queued
        else "LeaderWorkerSet (its workers' StatefulSet labels their Pods with it) allows"
    )
    return [
        Problem(
            "name",
            f"{name!r} is {len(name)} characters: {by} at most {longest} for a LeaderWorkerSet "
            f"of {groups} group{'s' if groups != 1 else ''}; choose a shorter name",
        )
    ]


def plan_groups(args: MultiHostServingArgs) -> int:
    """The groups to start with: fixed, the autoscaler's minimum, or by default a slice each
    (one where GKE creates VMs per workload, and on dynamic slices, which are asked for)."""
    if args.autoscaling:
        return args.autoscaling.min_groups
    if args.groups:
        return args.groups
    pool = args.pool
    if pool.per_workload or (pool.slicing is not None and pool.slicing.dynamic):
        return 1
    return slices_at_once(pool, args.topology)


def plan_multi_host(args: MultiHostServingArgs) -> MultiHostPlan:
    """The decision for arguments `multi_host_problems` found nothing wrong with."""
    pool, scaling = args.pool, args.autoscaling
    workers = _workers(args)
    budget = given(args.max_unavailable_groups, DEFAULT_MAX_UNAVAILABLE_GROUPS)
    annotations, health = group_request(pool, args.topology, args.queue)
    return MultiHostPlan(
        groups=plan_groups(args),
        workers=workers,
        instance_type=f"{pw.INSTANCE_TYPE_PREFIX[pool.generation]}:{_shape(args)}",
        engine_args=(
            *(args.server_args or ()),
            f"load_parameters_path={args.model_checkpoint}",
            "enable_single_controller=true",
            f"prometheus_port={js.METRICS_PORT}",
        ),
        startup_failure_threshold=startup_failure_threshold(
            args.model_size_gb, given(args.load_gb_per_minute, js.DEFAULT_LOAD_GB_PER_MINUTE)
        ),
        max_unavailable_pods=budget * (workers + 1) if args.max_unavailable_groups else None,
        autoscaling=scaling,
        annotations=annotations,
        labels=queue_labels(args.queue),
        health=health,
    )
