"""The offline plan: runs the program on Pulumi's mock runtime against a fake cloud
(`gke-tpu-plan --stack dev`, `make plan`). Nothing here imports `gke_tpu_upkeep`.
"""
