"""The observability wing: the `gke-tpu:observability` section's spec, the PromQL series and gates,
the dashboard and alert bodies, and the plan that holds them against the cluster."""
