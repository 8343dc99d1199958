"""Builders the workload components share: not components, and not an API for programs."""
