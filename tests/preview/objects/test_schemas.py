"""The vendored schemas: fresh from their sources (kubernetes-validate's strict OpenAPI, the CRDs
under crds/), judging objects as kubernetes-validate does, and strict as the API server is."""

from __future__ import annotations

import copy
from typing import Any

import kubernetes_validate
import pytest

from gke_tpu.catalog.gke import supported_minors
from gke_tpu.preview.objects.check import document_problems, is_object
from gke_tpu.preview.objects.schemas import NotServed, schema_of
from gke_tpu_upkeep.fixture_stacks import STACKS, app_plan, platform_plan
from gke_tpu_upkeep.kubernetes_schemas import KINDS, OPENAPI, expected_files


def test_the_compiled_schemas_are_fresh() -> None:
    """`make kube-schemas` rewrites them from the dev dependency and the vendored CRDs."""
    expected = expected_files()
    assert sorted(p.name for p in OPENAPI.glob("*.json")) == [
        f"v{minor}.json" for minor in supported_minors()
    ]
    stale = [str(path) for path, text in expected.items() if path.read_text() != text]
    assert stale == [], "run `make kube-schemas`"


def _built_in_objects() -> list[dict[str, Any]]:
    plans = [platform_plan(s) for s in STACKS] + [app_plan(s) for s in STACKS]
    objects = [r.inputs for plan in plans for r in plan.resources if is_object(r)]
    return [o for o in objects if (o["apiVersion"], o["kind"]) in KINDS]


def _broken(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Variants the schema refuses: an unknown field, a wrong type, a missing required field."""
    unknown = {**copy.deepcopy(document), "spec": {**document.get("spec", {}), "replicaz": 1}}
    wrong = {**copy.deepcopy(document), "metadata": {**document["metadata"], "labels": ["a"]}}
    missing = {k: v for k, v in document.items() if k != "metadata"}
    if document["kind"] in ("Namespace", "ServiceAccount"):  # nothing of theirs is required
        return [unknown, wrong]
    return [unknown, wrong, missing]


@pytest.mark.parametrize("minor", ["1.30", "1.33", "1.36"])
def test_the_vendored_openapi_judges_as_kubernetes_validate_does(minor: str) -> None:
    documents = _built_in_objects()
    assert {(d["apiVersion"], d["kind"]) for d in documents} == set(KINDS)
    for document in [*documents, *(b for d in documents for b in _broken(d))]:
        schema = schema_of(document["apiVersion"], document["kind"], minor)
        assert schema is not None
        try:
            kubernetes_validate.validate(document, minor, strict=True)
            agrees = schema.validator.is_valid(document)
        except kubernetes_validate.ValidationError:
            agrees = not schema.validator.is_valid(document)
        assert agrees, (minor, document)


def test_every_vendored_crd_serves_its_kinds() -> None:
    for api_version, kind in [
        ("kueue.x-k8s.io/v1beta2", "ClusterQueue"),
        ("kueue.x-k8s.io/v1beta2", "ResourceFlavor"),
        ("jobset.x-k8s.io/v1alpha2", "JobSet"),
        ("monitoring.googleapis.com/v1", "PodMonitoring"),
        ("checkpointing.gke.io/v1", "CheckpointConfiguration"),
    ]:
        assert schema_of(api_version, kind, "1.30") is not None


def test_a_version_the_crd_does_not_serve_is_named_with_those_it_does() -> None:
    with pytest.raises(NotServed) as raised:
        schema_of("jobset.x-k8s.io/v1", "JobSet", "1.30")
    assert str(raised.value) == (
        "'jobset.x-k8s.io/v1' is not served by the vendored CRD of JobSet, which serves "
        "jobset.x-k8s.io/v1alpha2"
    )
    document = {"apiVersion": "jobset.x-k8s.io/v1", "kind": "JobSet", "metadata": {"name": "j"}}
    assert document_problems(document) == [
        "apiVersion: 'jobset.x-k8s.io/v1' is not served by the vendored CRD of JobSet, which "
        "serves jobset.x-k8s.io/v1alpha2"
    ]


def test_a_kind_without_a_schema_is_none() -> None:
    assert schema_of("v1", "ConfigMap", "1.30") is None
    assert schema_of("example.com/v1", "Widget", "1.30") is None


def _checkpoint_configuration(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "checkpointing.gke.io/v1",
        "kind": "CheckpointConfiguration",
        "metadata": {"name": "c", "labels": {"app.kubernetes.io/managed-by": "gke-tpu"}},
        "spec": spec,
    }


def test_the_checkpointing_crd_is_the_controller_s_own() -> None:
    """Its real CRD: fields the hand-written schema did not know are taken, unknown ones are
    not, and the size is held to Kubernetes' quantity."""
    assert document_problems(
        _checkpoint_configuration(
            {
                "cloudStorageBucketName": "b",
                "inMemoryVolumeSize": "100G",
                "enableExternalJaxProcessIds": True,
                "csiEphemeralLimit": "30Gi",
                "tolerations": [{"key": "google.com/tpu", "operator": "Exists", "tolerationSeconds": 5}],
            }
        )
    ) == []  # fmt: skip
    assert document_problems(
        _checkpoint_configuration({"cloudStorageBucket": "b", "inMemoryVolumeSize": "lots"})
    ) == [
        "spec.cloudStorageBucket: is not a field here; did you mean 'cloudStorageBucketName'?",
        "spec.inMemoryVolumeSize: 'lots' is not a quantity: a number, or text such as '100Gi', "
        "'500m' or '1e3'",
    ]


def test_a_crd_field_that_keeps_unknown_fields_keeps_them() -> None:
    """A JobSet's embedded metadata keeps what its CRD does not list; its spec does not."""
    jobset = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "j", "anything": {"goes": 1}},
        "spec": {"replicatedJobs": [], "typo": 1},
    }
    assert document_problems(jobset) == [
        "spec.typo: is not a field here; its fields: coordinator, failurePolicy, managedBy, "
        "network, replicatedJobs, startupPolicy, successPolicy, suspend, "
        "ttlSecondsAfterFinished, volumeClaimPolicies"
    ]
