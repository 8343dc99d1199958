"""The cluster wing: the `gke-tpu:cluster` section's spec, its maintenance windows as GKE checks
them, and the rules across its fields. The cluster's plan reads the pools' plans and is at the
stack level (config.stack.cluster_plan)."""
