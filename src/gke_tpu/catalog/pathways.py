"""Pathways on GKE: its images, ports, the TPU instance types its resource manager names, the CPU
pool its head needs and the JobSet it runs as. Pure data. Sources, read where named:

- [GKE-PW] "Create a GKE cluster with Pathways"
  (https://cloud.google.com/ai-hypercomputer/docs/workloads/pathways-on-cloud/create-gke-cluster).
- [XPK] AI-Hypercomputer/xpk at 367c8382: src/xpk/templates/pathways_workload_create.yaml.j2,
  src/xpk/commands/workload.py (`_generate_pathways_workload_yaml`), src/xpk/core/pathways.py
  (`get_pathways_machine_types`), src/xpk/core/system_characteristics.py
  (`pathways_tpu_version`), src/xpk/core/nodepool.py (the `cpu-np` pool).
- [PWU] AI-Hypercomputer/pathways-utils at 8950a34f: pathwaysutils/experimental/gke/jobset.py.
- [PWJ] google/pathways-job at c0cc7594: README.md, internal/controller/pathwaysjob_controller.go.
- [MHI] "Perform multihost inference using Pathways"
  (https://cloud.google.com/ai-hypercomputer/docs/workloads/pathways-on-cloud/multihost-inference)
  and its manifest, GoogleCloudPlatform/kubernetes-engine-samples
  ai-ml/llm-serving-tpus-jetstream/pathways/jetstream-pathways-llama-3-1-405b-4x4.yaml.

The PathwaysJob controller [PWJ] is not installed: xpk stopped installing it and writes the
JobSet itself (xpk pull request 1108), pathways-utils does the same, and the controller's
repository has had no release since v0.1.4 (October 2025). The JobSet below is theirs.
"""

from __future__ import annotations

#: [PWU][XPK][MHI]: the resource manager's and workers' image, and the proxy's. The tag is the
#: Pathways release, `jax-<version>` of the client's JAX (MHI's sample: `jax-0.5.3`); `latest`
#: is refused.
SERVER_IMAGE = "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server"
PROXY_IMAGE = "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/proxy_server"

#: [PWU] PATHWAYS_PROXY_PORT, PATHWAYS_RM_PORT, PATHWAYS_WORKER_PORT; [XPK] the same.
PROXY_PORT = 29000
RESOURCE_MANAGER_PORT = 29001
WORKER_PORT = 29005
#: [XPK][PWU]: the resource manager's second port and the worker's others (8471: the TPU
#: runtime's traffic between a slice's VMs).
RESOURCE_MANAGER_PORTS = (RESOURCE_MANAGER_PORT, 29002)
WORKER_PORTS = (WORKER_PORT, 29006, 8471, 8080)

#: [XPK] `pathways_tpu_version` (the `--instance_type` prefix, `<prefix>:<topology>`); [PWU]
#: MACHINE_TYPE_TO_TPU_VERSION_MAP agrees for the 4-chip VMs multi-host slices are made of.
INSTANCE_TYPE_PREFIX = {
    "v4": "tpuv4",
    "v5e": "tpuv5e",
    "v5p": "tpuv5",
    "v6e": "tpuv6e",
    "tpu7x": "tpu7x",
}

#: [XPK][PWU]: the head's containers' limits: the resource manager 8 CPUs and 32 GB, the proxy 16
#: CPUs and 100 GB.
RESOURCE_MANAGER_LIMITS = {"cpu": "8", "memory": "32G"}
PROXY_LIMITS = {"cpu": "16", "memory": "100G"}

#: The CPU pool of the head. [GKE-PW] names it `cpu-np` of `n2-standard-64` (the xpk path) or
#: `n4-standard-64` (the Cluster Toolkit path, `enable_pathways_for_tpus`). N2 is the default
#: here: N4 boots from Hyperdisk only, and the platform's pools boot from persistent disks.
DEFAULT_CPU_MACHINE_TYPE = "n2-standard-64"
#: [XPK] get_pathways_machine_types: the machine types it lets the head's pool use have at least
#: 49 vCPUs and 233 GiB of memory (the head's containers and GKE's system Pods).
MIN_CPU_POOL_VCPUS = 49
MIN_CPU_POOL_MEMORY_GB = 233
#: Each head is alone on its node ([XPK][PWU]: `exclusive-topology: kubernetes.io/hostname`), so
#: the pool holds one node per Pathways job or server running at once.
HEAD_EXCLUSIVE_TOPOLOGY = "kubernetes.io/hostname"

#: [PWJ] README: "JobSet version v0.8.0+" (the JobSet `coordinator` the head's address comes from).
MIN_JOBSET_VERSION = "v0.8.0"
#: The JobSet's head and its workers ([XPK] `pathways-head` and `worker`).
HEAD_JOB = "pathways-head"
WORKER_JOB = "worker"
#: Labels JobSet sets on its Pods: the coordinator's address, a Job's index, a replicated job's
#: replicas ([XPK][PWU] read them into the environment).
COORDINATOR_LABEL = "jobset.sigs.k8s.io/coordinator"
JOB_INDEX_LABEL = "jobset.sigs.k8s.io/job-index"
REPLICAS_LABEL = "jobset.sigs.k8s.io/replicatedjob-replicas"
JOBSET_NAME_ANNOTATION = "jobset.sigs.k8s.io/jobset-name"
REPLICATED_JOB_ANNOTATION = "jobset.sigs.k8s.io/replicatedjob-name"

#: [XPK] `_generate_pathways_workload_yaml`: the JAX client reaches the proxy by these.
CLIENT_ENV = {"JAX_PLATFORMS": "proxy", "XCLOUD_ENVIRONMENT": "GCP"}
#: [XPK][PWU] the workers' environment besides JobSet's labels.
WORKER_ENV = {
    "TPU_MIN_LOG_LEVEL": "0",
    "TF_CPP_MIN_LOG_LEVEL": "0",
    "XCLOUD_ENVIRONMENT": "GCP",
    "MEGASCALE_GRPC_ENABLE_XOR_TRACER": "false",
}
#: [XPK]: a worker's restarts without elastic slices: four per VM of the slice.
RESTARTS_PER_VM = 4

#: xpk pull request 1182 (commit fb6b99f2): the colocated Python sidecar of each worker, which
#: MaxText's multi-tier checkpointing on Pathways runs worker-local checkpoints through
#: (AI-Hypercomputer/maxtext docs/guides/checkpointing_solutions/multi_tier_checkpointing.md,
#: "Deploying MTC on Pathways").
COLOCATED_PYTHON_PORT = 50051
COLOCATED_PYTHON_ENV = {"GRPC_SERVER_ADDRESS": f"0.0.0.0:{COLOCATED_PYTHON_PORT}"}

#: [MHI]: the Pathways head in a serving group's leader, beside the model server. Its ports are
#: the sample's; the workers' resource manager is the leader.
LEADER_RESOURCE_MANAGER_PORT = 38677
LEADER_PROXY_PORT = 38681
LEADER_WORKER_PORT = 38679
