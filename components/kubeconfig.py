"""A kubeconfig for a GKE cluster that authenticates with `gke-gcloud-auth-plugin` (no static keys)."""

from __future__ import annotations

import json


def gke_kubeconfig(context: str, endpoint: str, ca_certificate: str) -> str:
    """The kubeconfig document (JSON, which is valid YAML) for one cluster endpoint."""
    document = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": context,
                "cluster": {
                    "server": f"https://{endpoint}",
                    "certificate-authority-data": ca_certificate,
                },
            }
        ],
        "contexts": [{"name": context, "context": {"cluster": context, "user": context}}],
        "current-context": context,
        "users": [
            {
                "name": context,
                "user": {
                    "exec": {
                        "apiVersion": "client.authentication.k8s.io/v1beta1",
                        "command": "gke-gcloud-auth-plugin",
                        "installHint": "Install gke-gcloud-auth-plugin: "
                        "https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl",
                        "provideClusterInfo": True,
                        "interactiveMode": "Never",
                    }
                },
            }
        ],
    }
    return json.dumps(document, indent=2, sort_keys=True)
