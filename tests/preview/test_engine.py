"""The offline engine records what a program registers, with options, parents and secrets masked."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import threading

import pulumi
import pytest
from pulumi.runtime import rpc
from pulumi_gcp import storage

from gke_tpu.preview import engine
from gke_tpu.preview.engine import SECRET, mask_secrets, run_program
from gke_tpu.preview.render.text import plan_json


def _program() -> None:
    parent = pulumi.ComponentResource("test:index:Box", "box")
    bucket = storage.Bucket(
        "models",
        name="models-bucket",
        location="US",
        labels={"token": pulumi.Output.secret("s3cr3t")},
        opts=pulumi.ResourceOptions(
            parent=parent,
            protect=True,
            retain_on_delete=True,
            delete_before_replace=True,
            ignore_changes=["labels", "cors"],
            replace_on_changes=["location"],
            aliases=[pulumi.Alias(name="old-models")],
            custom_timeouts=pulumi.CustomTimeouts(create="30m"),
        ),
    )
    storage.BucketObject(
        "readme",
        bucket=bucket.name,
        content="hello",
        opts=pulumi.ResourceOptions(parent=parent),
    )
    pulumi.export("bucketUrl", bucket.url)
    pulumi.export("password", pulumi.Output.secret("hunter2"))
    pulumi.export("count", 3)


def test_records_inputs_options_parents_and_dependencies() -> None:
    plan = run_program(_program, project="t", stack="s", config={})
    assert [r.urn for r in plan.resources] == sorted(r.urn for r in plan.resources)
    box = plan.one("test:index:Box")
    bucket = plan.one("gcp:storage/bucket:Bucket")
    obj = plan.one("gcp:storage/bucketObject:BucketObject")
    assert box.custom is False and bucket.custom is True
    assert box.parent == plan.stack_urn
    assert bucket.parent == box.urn
    assert bucket.urn == "urn:pulumi:s::t::test:index:Box$gcp:storage/bucket:Bucket::models"
    assert bucket.inputs == {"name": "models-bucket", "location": "US", "labels": SECRET}
    assert bucket.options == {
        "protect": True,
        "retainOnDelete": True,
        "deleteBeforeReplace": True,
        "ignoreChanges": ["cors", "labels"],
        "replaceOnChanges": ["location"],
        "aliases": [{"spec": {"name": "old-models", "parentUrn": ""}}],
        "customTimeouts": {"create": "30m"},
    }
    # The object reads the bucket's name output, so it depends on the bucket.
    assert obj.dependencies == (bucket.urn,)
    assert obj.inputs["bucket"] == "models-bucket"


def test_outputs_are_resolved_and_secrets_masked() -> None:
    plan = run_program(_program, project="t", stack="s", config={})
    assert plan.outputs == {
        "bucketUrl": "gs://models-bucket",
        "password": SECRET,
        "count": 3,
    }


def test_plain_exports_are_taken_as_they_are_and_the_others_resolved() -> None:
    def program() -> None:
        bucket = storage.Bucket("models", name="models-bucket", location="US")
        pulumi.export("plain", {"pools": [{"name": "a", "chips": 4.0}], "zone": None, "on": True})
        pulumi.export("mixed", {"url": bucket.url, "names": ["a", bucket.name]})
        pulumi.export("hidden", {"token": pulumi.Output.secret("s3cr3t")})

    plan = run_program(program, project="t", stack="s", config={})
    assert plan.outputs == {
        "plain": {"pools": [{"name": "a", "chips": 4}], "zone": None, "on": True},
        "mixed": {"url": "gs://models-bucket", "names": ["a", "models-bucket"]},
        "hidden": SECRET,
    }


def test_an_output_that_fails_fails_the_plan_with_its_own_error() -> None:
    def check(name: str) -> str:
        raise ValueError(f"bad bucket name {name}")

    def program() -> None:
        bucket = storage.Bucket("models", name="models-bucket", location="US")
        storage.Bucket("logs", location="US")
        bucket.name.apply(check)

    with pytest.raises(ValueError, match="bad bucket name models-bucket"):
        run_program(program, project="t", stack="s", config={})


def test_component_outputs_are_recorded_but_stay_out_of_the_plan_document() -> None:
    def program() -> None:
        box = pulumi.ComponentResource("test:index:Box", "box")
        bucket = storage.Bucket(
            "models", name="models-bucket", location="US", opts=pulumi.ResourceOptions(parent=box)
        )
        box.register_outputs(
            {
                "count": 3,
                "names": ["a", "b"],
                "settings": {"zone": "us-central2-b", "chips": 4.0},
                "url": bucket.url,
                "token": pulumi.Output.secret("s3cr3t"),
                "bucket": bucket,
            }
        )
        pulumi.ComponentResource("test:index:Quiet", "quiet")  # registers no outputs
        pulumi.export("count", 3)

    plan = run_program(program, project="t", stack="s", config={})
    box = plan.one("test:index:Box")
    bucket = plan.one("gcp:storage/bucket:Bucket")
    assert plan.component_outputs == {
        box.urn: {
            "count": 3,
            "names": ["a", "b"],
            "settings": {"zone": "us-central2-b", "chips": 4},
            "url": "gs://models-bucket",
            "token": SECRET,
            "bucket": bucket.urn,
        }
    }
    assert plan.outputs == {"count": 3}  # the stack's outputs are the plan's, not a component's
    assert "component_outputs" not in plan.as_dict()
    assert "s3cr3t" not in repr(plan)


def test_provider_calls_are_refused_so_the_plan_never_reads_the_cloud() -> None:
    def reads_cloud() -> None:
        from pulumi_gcp import organizations

        pulumi.export("p", organizations.get_client_config().project)

    try:
        run_program(reads_cloud, project="t", stack="s", config={})
    except NotImplementedError as error:
        assert (
            "answers provider calls (gcp:organizations/getClientConfig:getClientConfig) only from a cloud snapshot"
            in str(error)
        )
    else:
        raise AssertionError("a provider call must fail the plan")


def test_each_run_starts_from_a_fresh_runtime() -> None:
    first = run_program(_program, project="t", stack="a", config={})
    second = run_program(_program, project="t", stack="b", config={})
    assert len(first.resources) == len(second.resources) == 3
    assert all(r.urn.startswith("urn:pulumi:b::") for r in second.resources)


def test_duplicate_urns_are_reported() -> None:
    def twice() -> None:
        storage.Bucket("same", location="US")
        storage.Bucket("same", location="EU")

    plan = run_program(twice, project="t", stack="s", config={})
    assert plan.errors == [
        "duplicate resource URN urn:pulumi:s::t::gcp:storage/bucket:Bucket::same: the program "
        "registers Bucket 'same' twice, and Pulumi refuses the second; give each its own name"
    ]
    assert (plan.resources, plan.outputs) == ([], {})


def test_mask_secrets_turns_wire_floats_back_into_whole_numbers() -> None:
    assert mask_secrets({"a": [1.0, 2.5], "b": {"c": 3.0}}) == {"a": [1, 2.5], "b": {"c": 3}}


def _resources_alive() -> int:
    return sum(isinstance(o, pulumi.Resource) for o in gc.get_objects())


def test_the_collector_is_off_while_a_program_runs_and_on_again_after() -> None:
    during: list[bool] = []

    def program() -> None:
        during.append(gc.isenabled())
        _program()

    before = _resources_alive()
    run_program(program, project="t", stack="s", config={})
    assert during == [False]
    assert gc.isenabled()
    # The run's objects were collected on the way out, cycles and all.
    assert _resources_alive() <= before


def test_a_caller_that_turned_the_collector_off_finds_it_off() -> None:
    gc.disable()
    try:
        run_program(_program, project="t", stack="s", config={})
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_monitor_answers_on_the_programs_own_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    threads: set[int] = set()
    new_resource = engine.FakeCloud.new_resource

    def recording_thread(self: engine.FakeCloud, args: pulumi.runtime.MockResourceArgs) -> tuple:
        threads.add(threading.get_ident())
        return new_resource(self, args)

    monkeypatch.setattr(engine.FakeCloud, "new_resource", recording_thread)
    plan = run_program(_program, project="t", stack="s", config={})
    assert len(plan.resources) == 3
    assert threads == {threading.get_ident()}


def test_a_resource_passed_as_an_input_fails_the_plan_instead_of_hanging_it() -> None:
    def program() -> None:
        bucket = storage.Bucket("models", location="US")
        storage.BucketObject("readme", bucket=bucket, content="hello")  # type: ignore[arg-type]

    # The input arrives as a resource reference, which the fake cloud hands back in the state.
    with pytest.raises(TypeError, match="must be awaited"):
        run_program(program, project="t", stack="s", config={})


def test_warnings_are_the_plans_own_and_leave_no_logger_behind(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def program() -> None:
        pulumi.log.debug("checking")
        pulumi.log.info("planned")
        pulumi.log.warn("tpu7x needs 1.34")

    caplog.set_level(logging.DEBUG)
    loggers = len(logging.root.manager.loggerDict)
    plans = [run_program(program, project="t", stack="s", config={}) for _ in range(3)]
    assert [plan.warnings for plan in plans] == [["tpu7x needs 1.34"]] * 3
    assert len(logging.root.manager.loggerDict) == loggers
    # Nothing the program logs reaches the caller's logging (asyncio logs its own).
    assert [r.getMessage() for r in caplog.records if r.name != "asyncio"] == []


def test_a_failed_program_is_reported_once(monkeypatch: pytest.MonkeyPatch) -> None:
    loops: list[asyncio.AbstractEventLoop] = []
    new_loop = asyncio.new_event_loop

    def recorded_loop() -> asyncio.AbstractEventLoop:
        loops.append(new_loop())
        return loops[-1]

    def program() -> None:
        bucket = storage.Bucket("models", location="US")
        storage.BucketObject("readme", bucket=bucket, content="hello")  # type: ignore[arg-type]

    monkeypatch.setattr(engine.asyncio, "new_event_loop", recorded_loop)
    run_program(lambda: None, project="t", stack="s", config={})
    with pytest.raises(TypeError, match="must be awaited"):
        run_program(program, project="t", stack="s", config={})
    # The outputs the failure left unread do not report it again when they are collected...
    assert [loop.get_exception_handler() for loop in loops] == [
        None,
        engine._unread_failures_dropped,
    ]
    reported: list[dict[str, object]] = []
    monkeypatch.setattr(loops[1], "default_exception_handler", reported.append)
    for message in ("Future exception was never retrieved", "Task exception was never retrieved"):
        engine._unread_failures_dropped(loops[1], {"message": message, "exception": TypeError()})
    assert reported == []
    # ...and anything else the loop reports is reported as asyncio would.
    engine._unread_failures_dropped(loops[1], {"message": "Task was destroyed but it is pending!"})
    assert reported == [{"message": "Task was destroyed but it is pending!"}]


def test_a_run_error_is_the_plan_s_error_as_pulumi_prints_it_without_a_traceback() -> None:
    def failing() -> None:
        raise pulumi.RunError("the one line pulumi up prints")

    plan = run_program(failing, project="t", stack="s", config={})

    assert plan.errors == ["the one line pulumi up prints"]
    assert plan.resources == []


def test_an_app_s_pool_typo_is_one_clean_error_without_any_wrapper() -> None:
    """The contract raises the RunError Pulumi prints whole: the app needs no `reported()`."""
    from gke_tpu.contract import PlatformOutputs

    outputs = {"outputsVersion": 1, "project": "p", "region": "r", "clusterName": "c"}

    def app() -> None:
        PlatformOutputs.parse(outputs).pool("v5e-trian")

    plan = run_program(app, project="app", stack="s", config={})

    assert plan.errors == ["pool: 'v5e-trian' is not a TPU pool of cluster 'c'. Pools: none"]


def test_assets_and_archives_are_recorded_as_data() -> None:
    """The SDK hands assets over as objects: the plan keeps what they hold or where they are
    from, so that the plan document is JSON (an ESC environment's definition is a StringAsset)."""

    def program() -> None:
        storage.BucketObject(
            "objects",
            bucket="b",
            source=pulumi.AssetArchive(
                {
                    "text": pulumi.StringAsset("values: {}\n"),
                    "file": pulumi.FileAsset("model.bin"),
                    "remote": pulumi.RemoteAsset("https://example.com/a"),
                    "folder": pulumi.FileArchive("weights"),
                    "tarball": pulumi.RemoteArchive("https://example.com/w.tgz"),
                }
            ),
        )

    plan = run_program(program, project="t", stack="s", config={})
    assert plan.one("gcp:storage/bucketObject:BucketObject").inputs["source"] == {
        "archive": {
            "assets": {
                "text": {"asset": {"text": "values: {}\n"}},
                "file": {"asset": {"path": "model.bin"}},
                "remote": {"asset": {"uri": "https://example.com/a"}},
                "folder": {"archive": {"path": "weights"}},
                "tarball": {"archive": {"uri": "https://example.com/w.tgz"}},
            }
        }
    }
    assert json.loads(plan_json(plan))["resources"][0]["inputs"]["source"]["archive"]


def test_config_in_the_environment_does_not_reach_the_program_and_is_put_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Pulumi SDK reads a key the stack does not set from PULUMI_CONFIG and
    PULUMI_CONFIG_<KEY>: an offline plan is the stack file's config alone."""
    monkeypatch.setenv("PULUMI_CONFIG", json.dumps({"proj:region": "from-the-bag"}))
    monkeypatch.setenv("PULUMI_CONFIG_PROJ_ZONE", "from-the-variable")

    def program() -> None:
        config = pulumi.Config("proj")
        pulumi.export("read", [config.get("region"), config.get("zone"), config.get("name")])

    plan = run_program(program, project="proj", stack="dev", config={"proj:name": "n"})

    assert plan.outputs == {"read": [None, None, "n"]}
    assert os.environ["PULUMI_CONFIG_PROJ_ZONE"] == "from-the-variable"
    assert json.loads(os.environ["PULUMI_CONFIG"]) == {"proj:region": "from-the-bag"}


def test_a_signed_value_that_is_neither_secret_nor_resource_keeps_its_fields() -> None:
    signed = {rpc._special_sig_key: "an-asset-signature", "path": "a.txt", "size": 2.0}
    assert mask_secrets(signed) == {"path": "a.txt", "size": 2}
