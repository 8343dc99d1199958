"""CloudNat: outbound internet for private nodes, through a Cloud Router in the region."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from pulumi_gcp import compute

from gke_tpu.config.network.plan import NatPlan
from gke_tpu.config.network.spec import NAT_LOG_FILTER


@dataclass(frozen=True)
class CloudNatArgs:
    project: str
    """Google Cloud project id."""
    region: str
    """The cluster's region: a Cloud Router and its NAT are regional."""
    network: pulumi.Input[str]
    """The VPC's name output: the router waits for the network."""
    plan: NatPlan
    """The NAT decision of `gke-tpu:network`."""


class CloudNat(pulumi.ComponentResource):
    """A Cloud Router and a Cloud NAT gateway for every subnet range of the network. Ports are
    allocated dynamically, since TPU hosts open many connections when they pull large images;
    endpoint-independent mapping is off, as dynamic allocation requires.
    """

    router: compute.Router
    nat: compute.RouterNat

    def __init__(
        self, name: str, args: CloudNatArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gke-tpu:index:CloudNat", name, None, opts)
        plan = args.plan
        self.router = compute.Router(
            f"{name}-router",
            project=args.project,
            name=plan.router_name,
            region=args.region,
            network=args.network,
            description="Cloud NAT of a GKE TPU cluster's private nodes (managed by gke-tpu).",
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.nat = compute.RouterNat(
            f"{name}-nat",
            project=args.project,
            name=plan.name,
            region=args.region,
            router=self.router.name,
            nat_ip_allocate_option="AUTO_ONLY",
            source_subnetwork_ip_ranges_to_nat="ALL_SUBNETWORKS_ALL_IP_RANGES",
            enable_dynamic_port_allocation=True,
            enable_endpoint_independent_mapping=False,
            min_ports_per_vm=plan.min_ports_per_vm,
            max_ports_per_vm=plan.max_ports_per_vm,
            log_config=compute.RouterNatLogConfigArgs(enable=plan.logging, filter=NAT_LOG_FILTER),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.register_outputs({"router": self.router.name, "nat": self.nat.name})
