"""The checkpointing wing: the `gke-tpu:checkpointing` section's spec and plan (GKE's multi-tier
checkpointing of the training pools) and its rules against the cluster and the pools."""
