"""A plan against its baseline, resource by resource, as the engine decides it: the provider's
fields that force a replacement (the vendored table), Kubernetes' immutable fields, the
`replaceOnChanges`, `ignoreChanges` and `deleteBeforeReplace` options, aliases, unknown inputs
and replaced providers."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gke_tpu.catalog.tokens import (
    BUCKET,
    BUCKET_IAM_MEMBER,
    CLUSTER,
    NODE_POOL,
    PROJECT_IAM_MEMBER,
    SUBNETWORK,
)
from gke_tpu.preview.lifecycle import Change, Reason, plan_changes
from gke_tpu.preview.lifecycle.paths import leaf_changes, parse, show
from gke_tpu.preview.lifecycle.table import kubernetes_kind, table
from gke_tpu_upkeep import ROOT
from gke_tpu_upkeep.fixture_stacks import app_plan, platform_plan

STACK = "urn:pulumi:dev::gke-tpu::pulumi:pulumi:Stack::gke-tpu-dev"
PROVIDER = "pulumi:providers:kubernetes"
JOB = "kubernetes:batch/v1:Job"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"
FLAVOR = "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor"


def _urn(resource_type: str, name: str, parent_type: str | None = None) -> str:
    chain = f"{parent_type}${resource_type}" if parent_type else resource_type
    return f"urn:pulumi:dev::gke-tpu::{chain}::{name}"


def _resource(
    resource_type: str,
    name: str,
    inputs: dict[str, Any],
    *,
    parent_type: str | None = None,
    custom: bool = True,
    **options: Any,
) -> dict[str, Any]:
    parent = _urn(parent_type, name) if parent_type else STACK
    provider, deps = options.pop("provider", None), options.pop("deps", {})
    return {
        "urn": _urn(resource_type, name, parent_type),
        "type": resource_type,
        "name": name,
        "custom": custom,
        "parent": parent,
        "provider": provider,
        "inputs": inputs,
        "options": {
            "protect": False,
            "retainOnDelete": False,
            "deleteBeforeReplace": False,
            "ignoreChanges": [],
            "replaceOnChanges": [],
            "aliases": [],
            **options,
        },
        "propertyDependencies": deps,
    }


def _changes(base: list[dict[str, Any]], plan: list[dict[str, Any]]) -> list[Change]:
    return list(plan_changes({"resources": plan}, {"resources": base}).changes)


def _one(base: dict[str, Any], plan: dict[str, Any]) -> Change | None:
    found = _changes([base], [plan])
    assert len(found) <= 1
    return found[0] if found else None


BUCKET_INPUTS = {"name": "models", "location": "US-EAST5", "labels": {"team": "ml"}}


def test_a_field_the_provider_forces_new_on_replaces_and_an_explicit_name_deletes_first() -> None:
    old = _resource(BUCKET, "models", BUCKET_INPUTS)
    new = _resource(BUCKET, "models", {**BUCKET_INPUTS, "location": "US-WEST4"})
    change = _one(old, new)
    assert change == Change(
        new["urn"],
        BUCKET,
        "models",
        "replace",
        ("location",),
        (Reason("location", "the provider cannot change it in place"),),
        delete_first=True,
    )
    # Without a name of the program's own, the provider names the new one: created first.
    unnamed = {k: v for k, v in BUCKET_INPUTS.items() if k != "name"}
    old, new = (
        _resource(BUCKET, "m", unnamed),
        _resource(BUCKET, "m", {**unnamed, "location": "EU"}),
    )
    assert (change := _one(old, new)) is not None and change.delete_first is False


def test_other_fields_update_in_place_and_equal_inputs_are_no_change() -> None:
    old = _resource(BUCKET, "models", BUCKET_INPUTS)
    new = _resource(BUCKET, "models", {**BUCKET_INPUTS, "labels": {"team": "ml", "env": "dev"}})
    assert _one(old, new) == Change(new["urn"], BUCKET, "models", "update", ("labels.env",))
    assert _one(old, copy.deepcopy(old)) is None
    # The wire has only floats: 3 and 3.0 are one value. True is not 1.
    counted = _resource(NODE_POOL, "p", {"nodeCount": 3})
    assert _one(counted, _resource(NODE_POOL, "p", {"nodeCount": 3.0})) is None
    flagged = _resource(BUCKET, "b", {"forceDestroy": 1})
    assert _one(flagged, _resource(BUCKET, "b", {"forceDestroy": True})) is not None


def test_a_field_the_cloud_fills_in_left_out_is_no_change() -> None:
    """`project` is Optional+Computed and ForceNew: leaving it out keeps the bucket's."""
    old = _resource(BUCKET, "models", {**BUCKET_INPUTS, "project": "p"})
    assert _one(old, _resource(BUCKET, "models", BUCKET_INPUTS)) is None
    moved = _one(old, _resource(BUCKET, "models", {**BUCKET_INPUTS, "project": "q"}))
    assert moved is not None and moved.op == "replace"


def test_adding_or_removing_a_block_replaces_only_where_the_provider_says() -> None:
    pool = {"name": "p", "nodeConfig": {"machineType": "ct5lp-hightpu-4t"}}
    old = _resource(NODE_POOL, "p", pool)
    placed = _resource(NODE_POOL, "p", {**pool, "placementPolicy": {"type": "COMPACT"}})
    change = _one(old, placed)
    assert change is not None and change.op == "replace"
    assert change.reasons == (
        Reason("placementPolicy", "added: the provider cannot add or remove it in place"),
    )
    taken_off = _one(placed, old)
    assert taken_off is not None and taken_off.reasons == (
        Reason("placementPolicy", "removed: the provider cannot add or remove it in place"),
    )
    # Inside the block, type and tpuTopology update in place (the provider does not force new
    # on them): only replaceOnChanges makes a reshape replace the pool.
    reshaped = copy.deepcopy(placed)
    reshaped["inputs"]["placementPolicy"]["tpuTopology"] = "4x4"
    change = _one(placed, reshaped)
    assert change == Change(
        placed["urn"], NODE_POOL, "p", "update", ("placementPolicy.tpuTopology",)
    )
    guarded = copy.deepcopy(reshaped)
    guarded["options"]["replaceOnChanges"] = ["placementPolicy.tpuTopology"]
    guarded["options"]["deleteBeforeReplace"] = True
    old_guarded = copy.deepcopy(placed)
    old_guarded["options"] = guarded["options"]
    assert _one(old_guarded, guarded) == Change(
        placed["urn"],
        NODE_POOL,
        "p",
        "replace",
        ("placementPolicy.tpuTopology",),
        (Reason("placementPolicy.tpuTopology", "its replaceOnChanges option"),),
        delete_first=True,
    )


def test_ignored_changes_are_dropped_before_anything_is_decided() -> None:
    old = _resource(NODE_POOL, "p", {"name": "p", "initialNodeCount": 4, "nodeCount": 4})
    new = _resource(NODE_POOL, "p", {"name": "p", "initialNodeCount": 2, "nodeCount": 2})
    new["options"]["ignoreChanges"] = ["initialNodeCount", "nodeCount"]
    assert _one(old, new) is None
    new["options"]["ignoreChanges"] = ["nodeCount"]
    change = _one(old, new)
    assert change is not None and change.reasons == (
        Reason("initialNodeCount", "the provider cannot change it in place"),
    )


def test_replace_on_changes_matches_any_index_with_a_star() -> None:
    old = _resource(NODE_POOL, "p", {"nodeLocations": ["us-east5-a"]})
    new = _resource(NODE_POOL, "p", {"nodeLocations": ["us-east5-b"]})
    assert (change := _one(old, new)) is not None and change.op == "update"
    new["options"]["replaceOnChanges"] = ["nodeLocations[*]"]
    assert (change := _one(old, new)) is not None and change.reasons == (
        Reason("nodeLocations[0]", "its replaceOnChanges option"),
    )


@pytest.mark.parametrize(
    ("resource_type", "field", "before", "after", "op"),
    [
        (CLUSTER, "enableL4IlbSubsetting", True, False, "replace"),
        (CLUSTER, "enableL4IlbSubsetting", False, True, "update"),
        (SUBNETWORK, "ipCidrRange", "10.0.0.0/20", "10.0.0.0/16", "update"),
        (SUBNETWORK, "ipCidrRange", "10.0.0.0/16", "10.0.0.0/20", "replace"),
        (SUBNETWORK, "ipCidrRange", "10.0.0.0/20", "10.1.0.0/20", "replace"),
        (BUCKET, "retentionPolicy.isLocked", True, False, "replace"),
    ],
    ids=["turned-off", "turned-on", "grown", "shrunk", "moved", "unlocked"],
)
def test_conditional_fields_replace_only_on_the_change_the_provider_refuses(
    resource_type: str, field: str, before: Any, after: Any, op: str
) -> None:
    def inputs(value: Any) -> dict[str, Any]:
        head, _, leaf = field.rpartition(".")
        return {head: {leaf: value}} if head else {leaf: value}

    change = _one(
        _resource(resource_type, "r", inputs(before)), _resource(resource_type, "r", inputs(after))
    )
    assert change is not None and change.op == op


def _job(name: str, image: str, parallelism: int = 4) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "w"},
        "spec": {
            "parallelism": parallelism,
            "template": {"spec": {"containers": [{"image": image}]}},
        },
    }


def test_kubernetes_replaces_on_the_fields_the_api_keeps() -> None:
    old = _resource(JOB, "train", _job("train", "a:1"))
    change = _one(old, _resource(JOB, "train", _job("train", "a:2")))
    assert change is not None and change.op == "replace" and change.delete_first
    assert change.reasons == (
        Reason(
            "spec.template.spec.containers[0].image",
            "Kubernetes cannot change it on a live object",
        ),
    )
    renamed = _one(old, _resource(JOB, "train", _job("train-2", "a:1")))
    assert renamed is not None and renamed.op == "replace" and not renamed.delete_first
    deployment = _resource(DEPLOYMENT, "d", {"spec": {"replicas": 1, "selector": {"a": "b"}}})
    scaled = _resource(DEPLOYMENT, "d", {"spec": {"replicas": 2, "selector": {"a": "b"}}})
    assert (change := _one(deployment, scaled)) is not None and change.op == "update"
    # A custom resource updates in place but for its name and namespace.
    flavor = _resource(FLAVOR, "f", {"metadata": {"name": "f"}, "spec": {"nodeLabels": {"a": "b"}}})
    relabelled = _resource(
        FLAVOR, "f", {"metadata": {"name": "f"}, "spec": {"nodeLabels": {"a": "c"}}}
    )
    assert (change := _one(flavor, relabelled)) is not None and change.op == "update"


def test_a_replaced_provider_replaces_every_object_it_manages() -> None:
    provider = _resource(
        PROVIDER, "k8s", {"clusterIdentifier": "gke_p_us-east5_c", "kubeconfig": "[secret]"}
    )
    job = _resource(JOB, "train", _job("train", "a:1"), provider=provider["urn"])
    moved = copy.deepcopy(provider)
    moved["inputs"]["clusterIdentifier"] = "gke_p_us-west4_c"
    changes = {c.name: c for c in _changes([provider, job], [moved, copy.deepcopy(job)])}
    assert changes["k8s"].reasons == (
        Reason(
            "clusterIdentifier", "another cluster: every object this provider manages is replaced"
        ),
    )
    assert changes["train"].reasons == (Reason("provider", "its provider k8s is replaced"),)
    # An identifier taken off is another cluster too (the provider then goes by its kubeconfig).
    unnamed = copy.deepcopy(provider)
    del unnamed["inputs"]["clusterIdentifier"]
    assert [c.reasons for c in _changes([provider], [unnamed])] == [
        (
            Reason(
                "clusterIdentifier",
                "another cluster: every object this provider manages is replaced",
            ),
        )
    ]
    # Another kubeconfig for the same cluster identifier is an update: nothing is replaced.
    refreshed = copy.deepcopy(provider)
    refreshed["inputs"]["kubeconfig"] = "other"
    assert [c.op for c in _changes([provider, job], [refreshed, job])] == ["update"]
    # Without an identifier, another kubeconfig is taken as another cluster (the safe choice).
    plain = _resource(PROVIDER, "k8s", {"kubeconfig": "a"})
    plain_job = _resource(JOB, "train", _job("train", "a:1"), provider=plain["urn"])
    other = copy.deepcopy(plain)
    other["inputs"]["kubeconfig"] = "b"
    changes = {c.name: c for c in _changes([plain, plain_job], [other, copy.deepcopy(plain_job)])}
    assert changes["k8s"].reasons == (
        Reason("kubeconfig", "another cluster: every object this provider manages is replaced"),
    )
    assert changes["train"].reasons == (Reason("provider", "its provider k8s is replaced"),)


def test_a_resource_moved_to_another_provider_is_replaced_unless_it_is_the_same_one() -> None:
    job = _resource(JOB, "train", _job("train", "a:1"))
    provider = _resource(PROVIDER, "k8s", {"clusterIdentifier": "c"})
    explicit = _resource(JOB, "train", _job("train", "a:1"), provider=provider["urn"])
    moved = {c.name: c for c in _changes([job], [provider, explicit])}
    assert moved["train"].reasons == (
        Reason("provider", "its provider changes (the default to provider k8s)"),
    )
    # The same provider under a new name (an alias) is no change to what it manages.
    old = copy.deepcopy(explicit)
    renamed = _resource(PROVIDER, "k8s-2", {"clusterIdentifier": "c"})
    renamed["options"]["aliases"] = [{"urn": provider["urn"]}]
    kept = _resource(JOB, "train", _job("train", "a:1"), provider=renamed["urn"])
    assert _changes([provider, old], [renamed, kept]) == []


def test_an_input_read_from_a_replaced_or_created_resource_is_unknown_at_preview() -> None:
    bucket = _resource(BUCKET, "models", BUCKET_INPUTS)
    grant = _resource(
        BUCKET_IAM_MEMBER,
        "reader",
        {"bucket": "models", "role": "roles/storage.objectViewer", "member": "serviceAccount:a"},
        deps={"bucket": [bucket["urn"]]},
    )
    moved = _resource(BUCKET, "models", {**BUCKET_INPUTS, "location": "EU"})
    changes = {c.name: c for c in _changes([bucket, grant], [moved, grant])}
    assert changes["reader"] == Change(
        grant["urn"],
        BUCKET_IAM_MEMBER,
        "reader",
        "replace",
        ("bucket",),
        (
            Reason(
                "bucket",
                "reads Bucket models, which is replaced (unknown until then), and the provider "
                "cannot change it in place",
            ),
        ),
    )
    # A bucket created in its place (renamed without an alias) does the same.
    renamed = _resource(BUCKET, "models-2", BUCKET_INPUTS)
    regrant = copy.deepcopy(grant)
    regrant["propertyDependencies"] = {"bucket": [renamed["urn"]]}
    ops = {(c.name, c.op) for c in _changes([bucket, grant], [renamed, regrant])}
    assert ops == {("models-2", "create"), ("models", "delete"), ("reader", "replace")}


def test_a_resource_is_matched_by_its_aliases_and_its_parents() -> None:
    old_pool = _resource(NODE_POOL, "train-0", {"name": "train"})
    new_pool = _resource(NODE_POOL, "train", {"name": "train"})
    new_pool["options"]["aliases"] = [{"spec": {"name": "train-0", "parentUrn": ""}}]
    assert _changes([old_pool], [new_pool]) == []
    # A child keeps its identity when its parent component's type changed with an alias: the
    # engine gives the child its parent's aliases.
    old_box, box = "gke-tpu:index:OldBox", "gke-tpu:index:Box"
    old_parent = _resource(old_box, "b", {}, custom=False)
    old_child = _resource(BUCKET, "b", BUCKET_INPUTS, parent_type=old_box)
    new_parent = _resource(box, "b", {}, custom=False)
    new_parent["options"]["aliases"] = [{"spec": {"type": old_box, "parentUrn": ""}}]
    new_child = _resource(BUCKET, "b", BUCKET_INPUTS, parent_type=box)
    assert new_child["urn"] != old_child["urn"] and new_child["parent"] == new_parent["urn"]
    assert _changes([old_parent, old_child], [new_parent, new_child]) == []
    # Without the alias, both are created anew and the old ones deleted.
    new_parent["options"]["aliases"] = []
    ops = sorted(c.op for c in _changes([old_parent, old_child], [new_parent, new_child]))
    assert ops == ["create", "create", "delete", "delete"]


def test_a_baseline_resource_nothing_matches_is_deleted_with_its_protection_said() -> None:
    kept = _resource(BUCKET, "models", BUCKET_INPUTS, protect=True, retainOnDelete=True)
    assert _changes([kept], []) == [
        Change(kept["urn"], BUCKET, "models", "delete", protected=True, retained=True)
    ]


def test_changes_come_replacements_first_then_deletions_creations_and_updates() -> None:
    # Named so that the URNs alone would sort them the other way.
    bucket, gone = _resource(BUCKET, "m", BUCKET_INPUTS), _resource(BUCKET, "a", BUCKET_INPUTS)
    pool = _resource(BUCKET, "b", BUCKET_INPUTS)
    plan = [
        _resource(BUCKET, "m", {**BUCKET_INPUTS, "location": "EU"}),
        _resource(BUCKET, "b", {**BUCKET_INPUTS, "labels": {}}),
        _resource(BUCKET, "c", BUCKET_INPUTS),
    ]
    changes = _changes([bucket, gone, pool], plan)
    assert [(c.op, c.name) for c in changes] == [
        ("replace", "m"),
        ("delete", "a"),
        ("create", "c"),
        ("update", "b"),
    ]
    assert [c.destroys for c in changes] == [True, True, False, False]


def test_project_grants_are_deleted_first_and_components_only_update() -> None:
    grant = _resource(PROJECT_IAM_MEMBER, "g", {"project": "p", "role": "r", "member": "m"})
    change = _one(
        grant, _resource(PROJECT_IAM_MEMBER, "g", {"project": "p", "role": "r2", "member": "m"})
    )
    assert change is not None and change.delete_first
    box = _resource("gke-tpu:index:Box", "b", {"size": 1}, custom=False)
    change = _one(box, _resource("gke-tpu:index:Box", "b", {"size": 2}, custom=False))
    assert change is not None and (change.op, change.fields) == ("update", ("size",))


def test_paths_read_and_print_as_pulumi_writes_them() -> None:
    assert parse('a.b[0].c["x.y"][*]') == ("a", "b", 0, "c", "x.y", "*")
    assert show(("a", "b", 0, "c", "x.y")) == 'a.b[0].c["x.y"]'
    assert list(
        leaf_changes({"a": [1, 2], "b": {"c": 1}}, {"a": [1], "b": {"c": 1, "d": {"e": 2}}})
    ) == [
        ("a", 1),
        ("b", "d", "e"),
    ]


def _registered_types() -> set[str]:
    """Every resource type the shipped stacks, the fixture stacks and the examples register."""
    from gke_tpu.preview.stack import plan_stack

    plans = [platform_plan(s) for s in ("dev", "prod", "autopilot")]
    plans += [app_plan(s) for s in ("dev", "prod")]
    plans.append(plan_stack("dev", project_dir=ROOT / "examples" / "own-platform"))
    return {r.type for plan in plans for r in plan.resources if r.custom}


def test_the_table_names_every_type_the_program_registers() -> None:
    """A new Google resource type needs its row (the fields its provider forces new on, from
    the provider's source); a Kubernetes kind is the provider's by its group, version, kind."""
    types = _registered_types()
    google = {t for t in types if t.startswith("gcp:")}
    assert google <= table().google.keys(), sorted(google - table().google.keys())
    others = types - google
    assert {t for t in others if kubernetes_kind(t) is None} == {PROVIDER}
    assert kubernetes_kind("kubernetes:core/v1:Secret") == "v1/Secret"
    assert kubernetes_kind("kubernetes:yaml/v2:ConfigFile") is None
    assert table().kubernetes_kinds["batch/v1/Job"][:1] == ("spec.completions",)
