"""A deterministic stand-in for Google Cloud and Kubernetes: fills the outputs the program reads,
with obviously fake values so nobody mistakes a plan for a deployment.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

import pulumi

from gke_tpu.catalog.tokens import BUCKET, CLUSTER, SERVICE_ACCOUNT, STACK_REFERENCE
from gke_tpu.preview.snapshot.read import CloudSnapshot, NotInCloud

FAKE_ENDPOINT = "203.0.113.10"
FAKE_CA_CERTIFICATE = base64.b64encode(b"FAKE CA CERTIFICATE (offline plan)").decode()


def fake_dns_endpoint(cluster: str, location: str) -> str:
    """A cluster's DNS endpoint in GKE's form, `<id>.<location>.gke.goog`, with an id that says
    it is fake (the API's example: `uid.us-central1.gke.goog`, ControlPlaneEndpointsConfig.
    DNSEndpointConfig.endpoint)."""
    return f"gke-fake-{cluster}.{location}.gke.goog"


def _cluster(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    # GKE gives every cluster a DNS endpoint, whether user traffic may use it or not.
    endpoints = inputs.get("controlPlaneEndpointsConfig") or {}
    dns = endpoints.get("dnsEndpointConfig") or {}
    dns_endpoint = fake_dns_endpoint(name, str(inputs.get("location")))
    return {
        "endpoint": FAKE_ENDPOINT,
        "controlPlaneEndpointsConfig": {
            **endpoints,
            "dnsEndpointConfig": {**dns, "endpoint": dns_endpoint},
        },
        "masterAuth": {**inputs.get("masterAuth", {}), "clusterCaCertificate": FAKE_CA_CERTIFICATE},
        "selfLink": f"https://container.googleapis.com/v1/projects/{inputs.get('project')}"
        f"/locations/{inputs.get('location')}/clusters/{name}",
    }


def _service_account(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    email = f"{inputs.get('accountId', name)}@{inputs.get('project')}.iam.gserviceaccount.com"
    return {
        "email": email,
        "member": f"serviceAccount:{email}",
        "name": f"projects/{inputs.get('project')}/serviceAccounts/{email}",
        "uniqueId": "000000000000000000000",
    }


#: The project number a bucket reports: all zeros, no project's.
FAKE_PROJECT_NUMBER = 0


def _bucket(name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    return {
        "url": f"gs://{name}",
        "selfLink": f"https://www.googleapis.com/storage/v1/b/{name}",
        "projectNumber": FAKE_PROJECT_NUMBER,
    }


# Computed outputs by type token; the resource's `name` is always filled.
_COMPUTED = {
    CLUSTER: _cluster,
    SERVICE_ACCOUNT: _service_account,
    BUCKET: _bucket,
}


#: The key of the outputs given for whichever stack the program reads without its own entry.
ANY_STACK = "*"


class FakeCloud(pulumi.runtime.Mocks):
    """Answers registrations with fake computed outputs, stack references with the outputs
    given, and provider functions from a cloud snapshot (without one, a call fails)."""

    def __init__(
        self,
        stack_references: Mapping[str, Mapping[str, Any]] | None = None,
        snapshot: CloudSnapshot | None = None,
    ) -> None:
        self.stack_references = dict(stack_references or {})
        self.snapshot = snapshot
        self.missing_references: list[str] = []
        """Stacks the program read without outputs given for them: its plan means nothing."""

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict]:
        inputs = dict(args.inputs)
        if args.typ == STACK_REFERENCE:
            if args.name not in self.stack_references and ANY_STACK not in self.stack_references:
                # Answered with no outputs, so the program ends on its own terms; the engine
                # reports the missing reference instead of whatever the program made of it.
                self.missing_references.append(args.name)
            given = self.stack_references.get(args.name, self.stack_references.get(ANY_STACK, {}))
            outputs = dict(given)
            return args.name, {"name": args.name, "outputs": outputs}
        if args.typ.startswith("pulumi:providers:"):
            return "fake-provider-id", inputs
        if args.typ.startswith("gcp:"):
            inputs.setdefault("name", args.name)
        name = str(inputs.get("name", args.name))
        compute = _COMPUTED.get(args.typ)
        if compute is not None:
            inputs.update(compute(name, inputs))
        return f"fake-{args.name}", inputs

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict, list | None]:
        if self.snapshot is None:
            raise NotImplementedError(
                f"the offline plan answers provider calls ({args.token}) only from a cloud "
                "snapshot (--cloud-snapshot)"
            )
        try:
            return self.snapshot.answer(args.token, args.args), []
        except NotInCloud as error:
            # As the engine reports a provider's error, so the caller can catch it; raising here
            # would fail the monitor, and the program, regardless.
            return {}, [(error.argument, str(error))]
