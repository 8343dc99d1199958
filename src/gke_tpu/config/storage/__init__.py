"""The storage wing: the `gke-tpu:storage` section's spec and plan (the model bucket, its service
account and the Workload Identity binding)."""
