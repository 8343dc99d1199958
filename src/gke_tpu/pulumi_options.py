"""Resource options both the infra and the workload components give their children."""

import pulumi


def child(
    parent: pulumi.Resource, opts: pulumi.ResourceOptions | None = None
) -> pulumi.ResourceOptions:
    """Children take the component's provider from their parent."""
    return pulumi.ResourceOptions.merge(pulumi.ResourceOptions(parent=parent), opts)
