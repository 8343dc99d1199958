"""The network wing: the `gke-tpu:network` section's spec, the sizing of its ranges, and its rules."""
