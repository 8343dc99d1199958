"""The `gke-tpu:cluster` section. Its plan reads the pools' plans, so it is at the stack level
(config.platform.cluster_plan)."""
