"""LeaderWorkerSet (kubernetes-sigs/lws): the release the platform installs, its API and the
labels, annotations and environment its controller gives a group's Pods. Pure data; each fact
with the file it was read from at tag v0.10.0 (commit 2161f38ff333f9e24d3c44adef7cd5d9787cac00).
"""

from __future__ import annotations

from gke_tpu.catalog.versions import is_release_tag, release_at_least

#: The release the platform installs; pinned, never `latest`. The tests check rendered
#: LeaderWorkerSets against this release's CRD (tools/third_party/lws).
DEFAULT_LWS_VERSION = "v0.10.0"
#: The oldest release a multi-host server is held to. GKE's multi-host TPU inference pages install
#: v0.4.0 and v0.6.1
#: (https://cloud.google.com/ai-hypercomputer/docs/workloads/pathways-on-cloud/multihost-inference,
#: https://cloud.google.com/kubernetes-engine/docs/tutorials/serve-multihost-tpu-jetstream): the
#: older of the two. What the servers use is older still (the `v1` API, the exclusive-topology
#: annotation, the leaders-only HPA selector and the TPU environment of a leader without chips,
#: commit 964dd6c, are all in v0.2.0), so the floor is the release Google serves with, not a guess.
MIN_LWS_VERSION = "v0.4.0"

#: The release's manifest (site/content/en/docs/installation/_index.md): the controller in
#: `lws-system`, its webhooks and the CRDs, applied server-side.
MANIFEST_URL = "https://github.com/kubernetes-sigs/lws/releases/download/{version}/manifests.yaml"
NAMESPACE = "lws-system"

#: api/leaderworkerset/v1/groupversion_info.go: the only version, served and stored.
LWS_API = "leaderworkerset.x-k8s.io/v1"
LWS_KIND = "LeaderWorkerSet"

# api/leaderworkerset/v1/leaderworkerset_types.go.
#: Set on the LeaderWorkerSet: each group alone in one domain of this node label (one node pool,
#: so one slice), as GKE's multi-host example sets it.
EXCLUSIVE_TOPOLOGY = "leaderworkerset.sigs.k8s.io/exclusive-topology"
#: The leader's DNS name (`<lws>-<group>.<lws>.<namespace>`), in every Pod's environment.
LEADER_ADDRESS_ENV = "LWS_LEADER_ADDRESS"
#: A Pod of a group that restarts takes the whole group down with it, and the group is created
#: again: the default, and what a multi-host slice needs (it cannot run with a host missing).
RECREATE_GROUP = "RecreateGroupOnPodRestart"
#: The workers' Pods are created with the leader's, not once it is ready: a Pathways leader is
#: ready only once its workers have joined (LeaderReady would wait for ever).
LEADER_CREATED = "LeaderCreated"


def lws_release_problem(version: str) -> str | None:
    """Why `version` cannot be the LeaderWorkerSet release a server runs on, or None."""
    if not is_release_tag(version):
        return f"not a pinned release: pin one such as {DEFAULT_LWS_VERSION!r}"
    if not release_at_least(version, MIN_LWS_VERSION):
        return (
            f"below {MIN_LWS_VERSION}, the oldest LeaderWorkerSet GKE serves multi-host TPU "
            f"groups with; pin {MIN_LWS_VERSION} or later, such as {DEFAULT_LWS_VERSION!r}"
        )
    return None


#: A LeaderWorkerSet's name is at most 51 characters, one fewer for each ten groups: its workers'
#: StatefulSet names its Pods' revision label, at most 63 characters with a 10-character hash
#: (site/content/en/docs/troubleshooting/_index.md, "Unable to Create LWS Object with a Name
#: Exceeding 51 Characters").
MAX_NAME_LENGTH = 51
#: Under Kueue, 39: Kueue's page says it keeps each group's pod-group name, the set's name and a
#: group suffix, in a label (kubernetes-sigs/kueue site/content/en/docs/tasks/run/
#: leaderworkerset.md, "Long LeaderWorkerSet names", v0.19.2). The sources disagree: the code
#: truncates workload names to fit (pkg/controller/jobframework/workload_names.go), and from
#: v0.18 its WorkloadIdentifierAnnotations gate (beta, on by default) keeps the identifiers in
#: annotations. A platform may pin an older Kueue or turn the gate off: the page's bound is kept,
#: the safe choice.
MAX_QUEUED_NAME_LENGTH = 39


def max_name_length(groups: int, queued: bool) -> int:
    """The longest name a LeaderWorkerSet of `groups` groups (at the most) may take."""
    most = MAX_NAME_LENGTH - groups // 10
    return min(most, MAX_QUEUED_NAME_LENGTH) if queued else most
