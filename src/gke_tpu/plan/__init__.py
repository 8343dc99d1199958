"""The offline plan: runs the program on Pulumi's mock runtime against a fake cloud.

`gke-tpu-plan --stack dev` (`make plan`). The engine and its fake cloud, the stack-file
reader that reads YAML as the Pulumi CLI does (`go_yaml`, `stack_config`), cloud snapshots
(`snapshot/`: record with gcloud, read, shape check) and rendering (`render/`: text and the JSON
document, Kubernetes manifests, the Markdown report). Nothing here imports `gke_tpu_upkeep`.
"""
