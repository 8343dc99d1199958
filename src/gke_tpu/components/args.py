"""What the stack's composition gives its components besides their plans: the network the
program makes for the cluster. (The public components' Args are generated: `inputs.py`.)"""

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi

from gke_tpu.config.network.plan import NetworkPlan


@dataclass(frozen=True)
class ClusterNetworkArgs:
    """The VPC the program creates for the cluster (`gke-tpu:network`)."""

    network: pulumi.Input[str]
    """The VPC's name output: the cluster waits for it."""
    subnetwork: pulumi.Input[str]
    """The subnet's name output."""
    plan: NetworkPlan
    """Ranges, private nodes and authorized networks."""
    ready: Sequence[pulumi.Resource] = ()
    """What must exist before the cluster's nodes: the Cloud NAT of private nodes."""
