"""Type tokens of the resources the program registers and the tools read, each defined once, so
the program, report, fake cloud and guardrails match resources alike."""

from __future__ import annotations

#: The platform's Pulumi project: its config namespace (`gke-tpu:cluster`) and component package.
PLATFORM_PROJECT = "gke-tpu"

CLUSTER = "gcp:container/cluster:Cluster"
NODE_POOL = "gcp:container/nodePool:NodePool"
RESOURCE_POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
NETWORK = "gcp:compute/network:Network"
SUBNETWORK = "gcp:compute/subnetwork:Subnetwork"
ROUTER = "gcp:compute/router:Router"
ROUTER_NAT = "gcp:compute/routerNat:RouterNat"
SERVICE_ACCOUNT = "gcp:serviceaccount/account:Account"
SERVICE_ACCOUNT_IAM_MEMBER = "gcp:serviceaccount/iAMMember:IAMMember"
PROJECT_IAM_MEMBER = "gcp:projects/iAMMember:IAMMember"
PROJECT_IAM_BINDING = "gcp:projects/iAMBinding:IAMBinding"
PROJECT_IAM_POLICY = "gcp:projects/iAMPolicy:IAMPolicy"
BUCKET = "gcp:storage/bucket:Bucket"
BUCKET_IAM_MEMBER = "gcp:storage/bucketIAMMember:BucketIAMMember"
ANYWHERE_CACHE = "gcp:storage/anywhereCache:AnywhereCache"
CHECKPOINT_CONFIGURATION = "kubernetes:checkpointing.gke.io/v1:CheckpointConfiguration"
PERSISTENT_VOLUME = "kubernetes:core/v1:PersistentVolume"
DASHBOARD = "gcp:monitoring/dashboard:Dashboard"
ALERT_POLICY = "gcp:monitoring/alertPolicy:AlertPolicy"
NOTIFICATION_CHANNEL = "gcp:monitoring/notificationChannel:NotificationChannel"
KUBERNETES_PROVIDER = "pulumi:providers:kubernetes"
JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
LEADER_WORKER_SET = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
HORIZONTAL_POD_AUTOSCALER = "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"
POD_DISRUPTION_BUDGET = "kubernetes:policy/v1:PodDisruptionBudget"
COMPUTE_CLASS = "kubernetes:cloud.google.com/v1:ComputeClass"
STACK = "pulumi:pulumi:Stack"
STACK_REFERENCE = "pulumi:pulumi:StackReference"

# Provider functions (invokes) preflight calls.
GET_RESERVATION = "gcp:compute/getReservation:getReservation"
GET_ENGINE_VERSIONS = "gcp:container/getEngineVersions:getEngineVersions"
GET_CLUSTER = "gcp:container/getCluster:getCluster"
GET_QUOTA_INFO = "gcp:cloudquota/getSQuotaInfo:getSQuotaInfo"
GET_MACHINE_TYPES = "gcp:compute/getMachineTypes:getMachineTypes"
