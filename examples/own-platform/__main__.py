"""own-platform: a platform team's own Pulumi program on gke-tpu's infra components, without
gke-tpu's stack file. Each component checks its Args by the rules gke-tpu's stack applies to
its sections, and refuses bad ones with one error naming each argument."""

import pulumi

from gke_tpu.components import (
    AutoscalingArgs,
    MultiHostTpuPool,
    MultiHostTpuPoolArgs,
    RegionalCluster,
    RegionalClusterArgs,
    StorageBucket,
    StorageBucketArgs,
    WriterArgs,
)

config = pulumi.Config()
project = config.require("project")
region = config.require("region")

cluster = RegionalCluster(
    "ml",
    RegionalClusterArgs(project=project, region=region, release_channel="REGULAR"),
)
train = MultiHostTpuPool(
    "train",
    MultiHostTpuPoolArgs(
        project=project,
        region=region,
        cluster_name="ml",
        cluster=cluster.name,
        node_service_account=cluster.node_service_account_email,
        release_channel="REGULAR",
        tpu="v5e",
        topology="2x4",
        machine_type="ct5lp-hightpu-4t",
        spot=True,
        autoscaling=AutoscalingArgs(min_nodes=0, max_nodes=2),
    ),
)
models = StorageBucket(
    "models",
    StorageBucketArgs(
        project=project,
        region=region,
        cluster_name="ml",
        workload_pool=cluster.workload_pool,
        bucket=f"{project}-models",
        writer=WriterArgs(enabled=True),
    ),
)

pulumi.export("clusterName", cluster.name)
pulumi.export("kubeconfig", cluster.kubeconfig)
pulumi.export("trainingNodePools", train.node_pool_names)
pulumi.export("trainingPool", train.pool)
pulumi.export("modelBucket", models.bucket_name)
