"""The multi-host wing: `gke-tpu:leaderWorkerSet` (the LeaderWorkerSet install of multi-host
serving) and `gke-tpu:pathways` (the CPU node pool and JobSet Pathways needs), their specs, plan
and rules."""
