"""A kubeconfig for a GKE cluster that authenticates with `gke-gcloud-auth-plugin` (no static keys)."""

from __future__ import annotations

import json


def gke_kubeconfig(context: str, endpoint: str, ca_certificate: str | None) -> str:
    """The kubeconfig (JSON, valid YAML) for one cluster endpoint. `ca_certificate`: None for the
    DNS endpoint, whose certificate is publicly trusted, as gcloud writes it (google-cloud-sdk,
    lib/googlecloudsdk/api_lib/container/kubeconfig.py, `Cluster`, `has_dns_endpoint`)."""
    cluster: dict[str, str] = {"server": f"https://{endpoint}"}
    if ca_certificate is not None:
        cluster["certificate-authority-data"] = ca_certificate
    document = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": context, "cluster": cluster}],
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
