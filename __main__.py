"""gke-tpu: read the stack config, compose the platform, export the outputs contract."""

import pulumi

from stacks.config_source import read_platform_config
from stacks.platform import build_platform

spec = read_platform_config()
platform = build_platform(spec)

pulumi.export("project", spec.project)
pulumi.export("region", spec.cluster.region)
pulumi.export("clusterName", platform.cluster.name)
pulumi.export("clusterEndpoint", platform.cluster.endpoint)
pulumi.export("workloadPool", platform.cluster.workload_pool)
pulumi.export("kubeconfig", platform.cluster.kubeconfig)
pulumi.export("tpuPools", platform.tpu_pool_outputs)
