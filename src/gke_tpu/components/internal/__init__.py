"""Builders the infra components share: not components, and not an API for programs.

`clusters` gives both cluster components the nodes' identity and the Kubernetes provider, and
`cluster_inputs` the inputs of a cluster of either mode, from its plan; `releases` installs pinned
controller releases; `node_pools` turns a TPU pool plan into node pools.
"""
