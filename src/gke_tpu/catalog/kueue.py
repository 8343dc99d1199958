"""Kueue and GKE queued provisioning: the API, labels and names the platform and its workloads
use. Pure data."""

from __future__ import annotations

#: The storage version of Kueue's API in v0.19 (v1beta1 is still served).
KUEUE_API = "kueue.x-k8s.io/v1beta2"
#: The label that sends a Job, JobSet or Deployment to a LocalQueue of its namespace.
QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
#: Kueue's built-in admission check controller that creates a ProvisioningRequest for each
#: workload and admits it once the nodes are there.
PROVISIONING_REQUEST_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
#: GKE's ProvisioningRequest class for queued provisioning (Dynamic Workload Scheduler), also
#: used for flex-start with queued provisioning:
#: https://cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest
QUEUED_PROVISIONING_CLASS = "queued-provisioning.gke.io"
#: GKE labels the nodes it brings up for a ProvisioningRequest with the request's resize
#: request; Kueue copies it into the admitted Pods' node selector, so they run on exactly
#: those nodes (as xpk configures it: src/xpk/templates/kueue_config.yaml.j2).
PROVISIONING_REQUEST_NODE_LABEL = "autoscaling.gke.io/provisioning-request"
RESIZE_REQUEST_DETAIL = "ResizeRequestName"
#: Resources a TPU queue covers besides chips. Kueue leaves a workload that requests a resource
#: its queue does not cover unadmitted, and chips are what the queues share: the others get a
#: quota no workload reaches, as GKE's Kueue examples do (their "infinite" quota).
UNBOUNDED_QUOTAS = {
    "cpu": "1000000000",
    "memory": "1000000000Gi",
    "ephemeral-storage": "1000000000Gi",
}
#: The first Kueue release that serves `kueue.x-k8s.io/v1beta2`, the API of every Kueue object the
#: platform renders (https://github.com/kubernetes-sigs/kueue/releases/tag/v0.15.0, "V1beta2:
#: Graduate ... API to v1beta2"; xpk moved to it for the same release, AI-Hypercomputer/xpk#991).
KUEUE_V1BETA2_SINCE = "v0.15.0"
#: Flavors in one resource group of a ClusterQueue: the CRD's `maxItems` on
#: `spec.resourceGroups[].flavors` (third_party/kueue/kueue.x-k8s.io_clusterqueues.yaml, from
#: kubernetes-sigs/kueue apis/kueue/v1beta2/clusterqueue_types.go). A queue's pools cannot be
#: split over several groups, since Kueue's webhook lets a resource (`google.com/tpu`) be
#: covered by one resource group only.
KUEUE_MAX_FLAVORS = 64
#: A LocalQueue's name is the value of the `kueue.x-k8s.io/queue-name` label of each workload,
#: and a label value has at most 63 characters (Kubernetes "Labels and Selectors"); a cohort's
#: name is a DNS subdomain of up to 253 (the CRD's `cohortName`).
QUEUE_NAME_MAX_LENGTH = 63
COHORT_NAME_MAX_LENGTH = 253
