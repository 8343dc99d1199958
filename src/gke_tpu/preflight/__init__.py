"""Preflight: the stack's config held against what the project really has, before anything is
created. Pure: what to ask the cloud (`preflight_requests`), and the checks of its answers
(`check_preflight`); `src/gke_tpu/stacks/preflight.py` asks.

A package of its own between `config/` (whose plans it checks) and `stacks/`, importable
without Pulumi: `facts` (the questions and the cloud's answers), `reservations`, `versions`,
`quotas` (each a kind of check), and `check` (what to ask, and every check at once).

Checked: each reservation a pool names, as its capacity or in its fallback (it exists in the
pool's zone, is READY, is for the pool's machine type, and has room for every slice that
consumes it: VMs free or held by the stack's own node pools, which already consume it once the
stack is up), the GKE version the cluster gets against the minimum of everything the
pools need, and the region's quota for what the stack can hold at its largest (as the report's
quota table counts it).
"""
