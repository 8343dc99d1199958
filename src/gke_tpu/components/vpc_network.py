"""VpcNetwork: a VPC made for one cluster, with its subnet and the subnet's secondary ranges."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from pulumi_gcp import compute

from gke_tpu.config.network.plan import NetworkPlan


@dataclass(frozen=True)
class VpcNetworkArgs:
    project: str
    """Google Cloud project id."""
    plan: NetworkPlan
    """The decision for `gke-tpu:network`."""


class VpcNetwork(pulumi.ComponentResource):
    """A custom-mode VPC and one subnet in the cluster's region, with Private Google Access so
    nodes without external addresses reach Artifact Registry and Cloud Storage without NAT.
    """

    network: compute.Network
    subnet: compute.Subnetwork
    network_name: pulumi.Output[str]
    subnet_name: pulumi.Output[str]

    def __init__(
        self, name: str, args: VpcNetworkArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gke-tpu:index:VpcNetwork", name, None, opts)
        plan = args.plan
        self.network = compute.Network(
            f"{name}-vpc",
            project=args.project,
            name=plan.network_name,
            description="Network of a GKE TPU cluster (managed by gke-tpu).",
            auto_create_subnetworks=False,
            routing_mode="REGIONAL",
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.subnet = compute.Subnetwork(
            f"{name}-nodes",
            project=args.project,
            name=plan.subnet_name,
            region=plan.region,
            network=self.network.name,
            ip_cidr_range=plan.nodes_cidr,
            secondary_ip_ranges=[
                compute.SubnetworkSecondaryIpRangeArgs(
                    range_name=plan.pods_range_name, ip_cidr_range=plan.pods_cidr
                ),
                compute.SubnetworkSecondaryIpRangeArgs(
                    range_name=plan.services_range_name, ip_cidr_range=plan.services_cidr
                ),
            ],
            private_ip_google_access=True,
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.network_name = self.network.name
        self.subnet_name = self.subnet.name
        self.register_outputs({"network": self.network_name, "subnetwork": self.subnet_name})
