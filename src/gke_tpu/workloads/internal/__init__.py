"""Builders the workload components share: not components, and not an API for programs.

`pods` builds the containers and Pod templates of TPU workloads; `jobs` builds the Jobs of
training workloads from them.
"""
