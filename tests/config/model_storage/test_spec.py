"""`gke-tpu:modelStorage`: defaults, bucket naming rules, roles and keys, with clear errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gke_tpu.config.model_storage.spec import DEFAULT_MOUNT_OPTIONS, bucket_name_problem
from gke_tpu.config.platform.load import load_platform
from gke_tpu.preview.cli import main
from gke_tpu.problems import ConfigError

CLUSTER = {"name": "tpu-dev", "region": "us-east5"}

UNKNOWN_REGION_HINT = (
    "such as africa-south1, asia-east1, asia-east2, asia-northeast1, asia-northeast2, "
    "asia-northeast3, ... Set cluster.allowUndocumentedRegion: true for a region newer than the "
    "catalog"
)


def _config(**storage: Any) -> dict[str, str]:
    return {
        "gcp:project": "gke-tpu-dev",
        "gke-tpu:cluster": json.dumps(CLUSTER),
        "gke-tpu:modelStorage": json.dumps(storage),
    }


def _problems(**storage: Any) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_platform(_config(**storage))
    return [str(p) for p in caught.value.problems]


def test_defaults() -> None:
    storage = load_platform(_config(bucket="models-1")).storage
    assert storage is not None
    assert (storage.bucket, storage.location, storage.storage_class) == (
        "models-1",
        "US-EAST5",
        "STANDARD",
    )
    assert (storage.namespace, storage.create_namespace) == ("tpu-workloads", True)
    assert storage.mount_options == DEFAULT_MOUNT_OPTIONS
    reader = storage.reader
    assert (reader.account_id, reader.role, reader.kubernetes_service_account) == (
        "tpu-dev-models",
        "roles/storage.objectViewer",
        "model-reader",
    )
    assert (reader.access_mode, reader.claim, reader.volume) == (
        "ReadOnlyMany",
        "models",
        "tpu-workloads-models",
    )
    assert storage.writer is None


def test_account_ids_fit_30_characters_for_the_longest_cluster_names() -> None:
    config = _config(bucket="models-1", writer={"enabled": True}) | {
        "gke-tpu:cluster": json.dumps({"name": "c" * 40, "region": "us-east5"})
    }
    storage = load_platform(config).storage
    assert storage is not None
    assert [len(i.account_id) for i in storage.identities] == [30, 30]


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("ab", "is 2 characters long; bucket names are 3 to 63 characters"),
        ("a" * 64, "is 64 characters long; bucket names are 3 to 63 characters"),
        ("Models", "must use lowercase letters, digits, '-', '_' and '.', and start and end with a letter or digit"),
        ("-models", "must use lowercase letters, digits, '-', '_' and '.', and start and end with a letter or digit"),
        ("models-", "must use lowercase letters, digits, '-', '_' and '.', and start and end with a letter or digit"),
        ("my models", "must use lowercase letters, digits, '-', '_' and '.', and start and end with a letter or digit"),
        ("a..b", "must not contain '..', '.-' or '-.'"),
        ("my.bucket..x", "must not contain '..', '.-' or '-.'"),
        ("a.-b", "must not contain '..', '.-' or '-.'"),
        ("192.168.5.4", "must not be an IP address"),
        ("goog-models", "must not start with 'goog' or contain 'google' or a misspelling of it"),
        ("my-google-models", "must not start with 'goog' or contain 'google' or a misspelling of it"),
        ("my-g00gle-models", "must not start with 'goog' or contain 'google' or a misspelling of it"),
        (f"{'a' * 64}.com", "with dots, must be at most 222 characters, each dot-separated part 1 to 63"),
    ],
)  # fmt: skip
def test_bucket_naming_rules(name: str, problem: str) -> None:
    assert bucket_name_problem(name) == problem
    assert _problems(bucket=name) == [f"modelStorage.bucket: {name!r}: {problem}"]


@pytest.mark.parametrize(
    "name", ["abc", "a" * 63, "models_1", "models.example.com", "a-b.c_d", "g0ogl3-x", "goo-gle"]
)
def test_valid_bucket_names(name: str) -> None:
    assert bucket_name_problem(name) is None


def test_unknown_role_and_unknown_key_are_rejected_together() -> None:
    assert _problems(bucket="models-1", readerRole="roles/storage.admin", namespce="ml") == [
        "modelStorage.readerRole: 'roles/storage.admin' is not allowed; expected one of "
        "roles/storage.objectViewer, roles/storage.objectUser, roles/storage.objectCreator, "
        "roles/storage.objectAdmin; did you mean 'roles/storage.objectAdmin'?",
        "modelStorage.namespce: unknown key; did you mean 'namespace'? Allowed keys: bucket, "
        "location, storageClass, readerRole, namespace, createNamespace, "
        "kubernetesServiceAccount, createKubernetesServiceAccount, mountOptions, anywhereCache, writer, forceDestroy",
    ]


def test_writer_needs_its_own_service_account() -> None:
    assert _problems(
        bucket="models-1", writer={"enabled": True, "kubernetesServiceAccount": "model-reader"}
    ) == [
        "modelStorage.writer.kubernetesServiceAccount: 'model-reader' is also the reader's "
        "ServiceAccount; the writer needs its own"
    ]


def test_bad_kubernetes_names() -> None:
    assert _problems(bucket="models-1", namespace="ML_Team") == [
        "modelStorage.namespace: 'ML_Team': is not a Kubernetes name: lowercase letters, digits "
        "and '-', starting and ending with a letter or digit, at most 63 characters"
    ]


def test_plan_exits_2_on_a_bad_bucket_with_nothing_registered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = tmp_path / "Pulumi.bad.yaml"
    stack.write_text(
        "config:\n  gcp:project: gke-tpu-dev\n"
        "  gke-tpu:cluster: {name: tpu-dev, region: us-east5}\n"
        "  gke-tpu:modelStorage: {bucket: My_Models, readerRole: owner}\n"
    )
    out = tmp_path / "plan.json"
    assert main(["--stack", "bad", "--config-file", str(stack), "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert "  - modelStorage.bucket: 'My_Models': must use lowercase letters" in err
    assert "  - modelStorage.readerRole: 'owner' is not allowed; expected one of" in err
    assert json.loads(out.read_text())["resources"] == []


@pytest.mark.parametrize(
    ("location", "stored"),
    [("us-east5", "US-EAST5"), ("US", "US"), ("eu", "EU"), ("nam4", "NAM4"), ("EUR4", "EUR4")],
)
def test_bucket_locations_cloud_storage_has(location: str, stored: str) -> None:
    storage = load_platform(_config(bucket="models-1", location=location)).storage
    assert storage is not None and storage.location == stored


@pytest.mark.parametrize(
    ("location", "problem"),
    [
        (
            "us-east9",
            "modelStorage.location: 'us-east9' is not a Google Cloud region the catalog knows; "
            f"{UNKNOWN_REGION_HINT}",
        ),
        (
            "Iowa",
            "modelStorage.location: 'Iowa': is not a Cloud Storage location: a region such as "
            "'us-east5', a dual-region (ASIA1, EUR4, EUR5, EUR7, EUR8, NAM4) or a multi-region "
            "(US, EU, ASIA)",
        ),
        ("us-east5\n", "modelStorage.location: 'us-east5\\n': is not a Cloud Storage location"),
        ("a" * 60_000, "modelStorage.location: 'aaaa"),
    ],
)
def test_bucket_locations_cloud_storage_refuses(location: str, problem: str) -> None:
    (found,) = _problems(bucket="models-1", location=location)
    assert found.startswith(problem)
    assert len(found) < 300


def test_an_undocumented_bucket_region_is_allowed_with_the_cluster_s_override() -> None:
    config = _config(bucket="models-1", location="us-east9") | {
        "gke-tpu:cluster": json.dumps(CLUSTER | {"allowUndocumentedRegion": True})
    }
    spec = load_platform(config)
    assert spec.storage is not None and spec.storage.location == "US-EAST9"
    assert (
        "modelStorage.location: 'us-east9' is not a Google Cloud region the catalog knows; "
        "used because cluster.allowUndocumentedRegion is true"
    ) in spec.warnings


@pytest.mark.parametrize("name", ["models-1\n", "mödels", "models\u00a0x", "x" * 223, "a.-b"])
def test_bucket_names_are_whole_ascii_names(name: str) -> None:
    assert bucket_name_problem(name) is not None


@pytest.mark.parametrize("storage_class", ["STANDARD", "NEARLINE", "COLDLINE", "ARCHIVE"])
def test_every_storage_class(storage_class: str) -> None:
    storage = load_platform(_config(bucket="models-1", storageClass=storage_class)).storage
    assert storage is not None and storage.storage_class == storage_class


def test_the_writer_identity() -> None:
    storage = load_platform(_config(bucket="models-1", writer={"enabled": True})).storage
    assert storage is not None
    assert storage.reader.kind == "reader" and storage.reader.read_only is True
    assert storage.reader.create_kubernetes_service_account is True
    writer = storage.writer
    assert writer is not None
    assert (
        writer.kind, writer.account_id, writer.role, writer.kubernetes_service_account,
        writer.create_kubernetes_service_account, writer.access_mode, writer.claim, writer.volume,
        writer.read_only,
    ) == (
        "writer", "tpu-dev-models-rw", "roles/storage.objectAdmin", "model-writer", True,
        "ReadWriteMany", "models-rw", "tpu-workloads-models-rw", False,
    )  # fmt: skip


def test_the_default_mount_options_and_none_at_all() -> None:
    storage = load_platform(_config(bucket="models-1")).storage
    assert storage is not None and storage.mount_options == (
        "implicit-dirs",
        "metadata-cache:ttl-secs:-1",
        "metadata-cache:stat-cache-max-size-mb:-1",
        "metadata-cache:type-cache-max-size-mb:-1",
    )
    bare = load_platform(_config(bucket="models-1", mountOptions=[])).storage
    assert bare is not None and bare.mount_options == ()


def test_bucket_name_length_bounds() -> None:
    longest = ".".join(["a" * 63] * 3) + "." + "b" * 30
    assert len(longest) == 222 and bucket_name_problem(longest) is None
    assert bucket_name_problem(longest + "b") == (
        "is 223 characters long; bucket names are at most 222 characters"
    )
    assert bucket_name_problem("a" * 63 + ".com") is None
    assert bucket_name_problem("a" * 40 + "." + "b" * 40) is None  # long, but short parts
    assert bucket_name_problem("a" * 64 + ".com") == (
        "with dots, must be at most 222 characters, each dot-separated part 1 to 63"
    )
    assert bucket_name_problem("a-.b") == "must not contain '..', '.-' or '-.'"


@pytest.mark.parametrize(("name", "ok"), [("a" * 63, True), ("a" * 64, False)])
def test_kubernetes_name_length_bound(name: str, ok: bool) -> None:
    if ok:
        storage = load_platform(_config(bucket="models-1", namespace=name)).storage
        assert storage is not None and storage.namespace == name
    else:
        assert _problems(bucket="models-1", namespace=name)[0].startswith(
            f"modelStorage.namespace: {name!r}: is not a Kubernetes name"
        )


def test_bucket_location_length_bound_and_multi_regions() -> None:
    region_40 = "a" * 20 + "-" + "b" * 17 + "12"
    assert _problems(bucket="models-1", location=region_40) == [
        f"modelStorage.location: {region_40!r} is not a Google Cloud region the catalog knows; "
        f"{UNKNOWN_REGION_HINT}"
    ]
    assert _problems(bucket="models-1", location=region_40 + "x")[0].startswith(
        f"modelStorage.location: {region_40 + 'x'!r}: is not a Cloud Storage location"
    )
    for location in ("asia", "ASIA", "eur5", "eur7", "eur8", "asia1"):
        storage = load_platform(_config(bucket="models-1", location=location)).storage
        assert storage is not None and storage.location == location.upper()
