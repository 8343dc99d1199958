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
