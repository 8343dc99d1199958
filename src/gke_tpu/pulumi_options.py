"""Resource options both the infra and the workload components give their children."""

import pulumi


def child(
    parent: pulumi.Resource, opts: pulumi.ResourceOptions | None = None
) -> pulumi.ResourceOptions:
    """Children take the component's provider from their parent."""
    return pulumi.ResourceOptions.merge(pulumi.ResourceOptions(parent=parent), opts)


def waits_of(opts: pulumi.ResourceOptions | None) -> list[pulumi.Resource]:
    """The resources a caller's options make a component wait for (an install: its CRD), for
    the child that needs them: a component's dependencies do not hold back its children's
    registration."""
    given = opts.depends_on if opts is not None else None
    if isinstance(given, pulumi.Resource):
        return [given]
    return [r for r in given if isinstance(r, pulumi.Resource)] if isinstance(given, list) else []
