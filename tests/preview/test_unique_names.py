"""Names that must be unique, held to it over the whole program: each clash once, naming both
owners, and a refused program plans nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s
import pytest
from pulumi_gcp import storage

from gke_tpu.components import StorageBucket, StorageBucketArgs
from gke_tpu.preview.cli import main
from gke_tpu.preview.engine import run_program


def _box(name: str) -> pulumi.ComponentResource:
    return pulumi.ComponentResource("acme:index:Box", name)


def test_one_bucket_name_made_twice_is_one_problem_naming_both_owners() -> None:
    def program() -> None:
        storage.Bucket(
            "models",
            name="acme-models",
            location="US",
            opts=pulumi.ResourceOptions(parent=_box("a")),
        )
        storage.Bucket(
            "checkpoints",
            name="acme-models",
            location="US",
            opts=pulumi.ResourceOptions(parent=_box("b")),
        )
        storage.Bucket("logs", name="acme-logs", location="US")

    plan = run_program(program, project="t", stack="s", config={})
    assert plan.errors == [
        "Box b > Bucket checkpoints (name): 'acme-models' is also Box a > Bucket models (name)'s "
        "bucket: a bucket name is unique everywhere, so one would fail to be created; rename one"
    ]
    assert (plan.resources, plan.outputs) == ([], {})


def _job(name: str, namespace: str) -> k8s.meta.v1.ObjectMetaArgs:
    return k8s.meta.v1.ObjectMetaArgs(name=name, namespace=namespace)


def test_kubernetes_names_clash_within_a_kind_and_namespace_only() -> None:
    def program() -> None:
        provider = k8s.Provider("k8s", kubeconfig="{}")
        opts = pulumi.ResourceOptions(provider=provider)
        spec = k8s.batch.v1.JobSpecArgs(template=k8s.core.v1.PodTemplateSpecArgs())
        k8s.batch.v1.Job("a", metadata=_job("train", "w"), spec=spec, opts=opts)
        k8s.batch.v1.Job("b", metadata=_job("train", "w"), spec=spec, opts=opts)
        k8s.batch.v1.Job("c", metadata=_job("train", "other"), spec=spec, opts=opts)
        k8s.core.v1.ConfigMap("d", metadata=_job("train", "w"), opts=opts)

    plan = run_program(program, project="t", stack="s", config={})
    assert plan.errors == [
        "Job b (metadata.name): 'train' is also Job a (metadata.name)'s Kubernetes Job (batch) "
        "in namespace w of the cluster of provider k8s: a Kubernetes Job (batch) name is unique "
        "in namespace w of the cluster of provider k8s, so one would fail to be created; rename "
        "one"
    ]


def _bucket(name: str) -> StorageBucket:
    return StorageBucket(
        name,
        StorageBucketArgs(
            project="acme-ml",
            region="us-east5",
            cluster_name="ml",
            workload_pool="acme-ml.svc.id.goog",
            bucket="acme-models",
        ),
    )


def test_a_component_made_twice_under_one_name_is_one_error_and_plans_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its children clash too; the clash is said once, and the plan document holds no
    resources (docs/offline-plan.md)."""
    (tmp_path / "Pulumi.yaml").write_text("name: twice\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    (tmp_path / "__main__.py").write_text(
        "from gke_tpu.components import StorageBucket, StorageBucketArgs\n"
        "for _ in range(2):\n"
        "    StorageBucket('models', StorageBucketArgs(project='acme-ml', region='us-east5', "
        "cluster_name='ml', workload_pool='acme-ml.svc.id.goog', bucket='acme-models'))\n"
    )
    out = tmp_path / "plan.json"
    assert main(["--stack", "dev", "--project-dir", str(tmp_path), "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("StorageBucket 'models'") == 1 and "Traceback" not in err
    document = json.loads(out.read_text())
    assert document["resources"] == [] and len(document["errors"]) == 1
    assert document["errors"][0].startswith(
        "duplicate resource URN urn:pulumi:dev::twice::gke-tpu:index:StorageBucket::models: the "
        "program registers StorageBucket 'models' twice"
    )


def test_two_components_with_one_bucket_name_are_refused_at_their_arguments() -> None:
    """The components claim their names before they register anything: the clash is theirs,
    at the argument path, before the whole-program rule would see it."""

    def program() -> None:
        _bucket("models")
        _bucket("checkpoints")

    plan = run_program(program, project="t", stack="s", config={})
    # The bucket, and the identities both would make of one name.
    assert [e.split(":")[0] for e in plan.errors] == [
        "StorageBucket 'checkpoints'.bucket",
        "StorageBucket 'checkpoints'.cluster_name",
        "StorageBucket 'checkpoints'.kubernetes_service_account",
    ]
    assert plan.errors[0].startswith(
        "StorageBucket 'checkpoints'.bucket: 'acme-models' is also StorageBucket 'models'.bucket's "
        "bucket"
    )
    assert plan.resources == []
