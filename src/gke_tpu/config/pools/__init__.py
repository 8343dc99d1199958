"""The TPU pools wing: a `tpuPools` entry's spec, its capacities, fallback chain, upgrades and
GKE versions, its rules, and the pool plan they decide (planner.py), with its ComputeClass body."""
