"""The gke-tpu guardrails: a Pulumi CrossGuard policy pack (see README.md).

`policy.pack.POLICIES` holds the policies; only `__main__.py` builds the pack, because
building one starts the analyzer's gRPC server and blocks.
"""
