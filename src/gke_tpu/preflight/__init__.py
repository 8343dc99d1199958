"""Preflight: the stack's config held against what the project really has, before anything is
created. Pure, importable without Pulumi: what to ask the cloud (`preflight_requests`) and the
checks of its answers (`check_preflight`); `stacks/preflight.py` asks. It checks
the pools' reservations, the cluster's GKE version and the region's quota.
"""
