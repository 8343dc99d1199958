"""The TPU pools wing: a `tpuPools` entry's spec, its capacities, fallback chain, upgrades and
GKE versions, what it works out (derive.py), its rules, and the pool plan (plan.py), with its
ComputeClass body."""
