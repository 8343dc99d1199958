"""Kueue and GKE queued provisioning: the API, labels and names the platform and its workloads
use. Pure data."""

from __future__ import annotations

#: The storage version of Kueue's API in v0.19 (v1beta1 is still served).
KUEUE_API = "kueue.x-k8s.io/v1beta2"
#: The label that sends a Job, JobSet or Deployment to a LocalQueue of its namespace.
QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
#: Kueue's admission check that creates a ProvisioningRequest per workload.
PROVISIONING_REQUEST_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
#: GKE's ProvisioningRequest class for queued provisioning (also with flex-start):
#: https://cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest
QUEUED_PROVISIONING_CLASS = "queued-provisioning.gke.io"
#: Kueue copies this node label into admitted Pods' selectors, so they run on exactly the nodes
#: brought up for them (as xpk does: src/xpk/templates/kueue_config.yaml.j2).
PROVISIONING_REQUEST_NODE_LABEL = "autoscaling.gke.io/provisioning-request"
RESIZE_REQUEST_DETAIL = "ResizeRequestName"
#: Resources besides chips: Kueue never admits a workload requesting an uncovered resource, so
#: these get a quota no workload reaches, as GKE's Kueue examples do.
UNBOUNDED_QUOTAS = {
    "cpu": "1000000000",
    "memory": "1000000000Gi",
    "ephemeral-storage": "1000000000Gi",
}
#: The first Kueue release serving v1beta2
#: (https://github.com/kubernetes-sigs/kueue/releases/tag/v0.15.0; AI-Hypercomputer/xpk#991).
KUEUE_V1BETA2_SINCE = "v0.15.0"
#: The CRD's `maxItems` on `spec.resourceGroups[].flavors`
#: (gke_tpu/preview/objects/crds/kueue/kueue.x-k8s.io_clusterqueues.yaml, from kubernetes-sigs/kueue
#: apis/kueue/v1beta2/clusterqueue_types.go). Kueue's webhook lets `google.com/tpu` be in one
#: resource group only, so a queue's pools cannot be split over groups.
KUEUE_MAX_FLAVORS = 64
#: A LocalQueue's name is a label value (63, Kubernetes "Labels and Selectors"); a cohort's is a
#: DNS subdomain (253, the CRD's `cohortName`).
QUEUE_NAME_MAX_LENGTH = 63
COHORT_NAME_MAX_LENGTH = 253
