"""The Kueue wing: the `gke-tpu:kueue` section's spec and plan, its rules, and the bodies of the
Kueue objects its queues become."""
