"""The storage wing: the `gke-tpu:modelStorage` section's spec and plan (the model bucket, its service
account and the Workload Identity binding)."""
