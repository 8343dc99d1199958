"""One stack's offline plan, as the command line and the fleet both run it: the stack file
read, the program run on the mock runtime (the platform's by its typed entry), and the report's
figures from what the program planned. Neither imports the other: both import this module."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from gke_tpu.catalog.gke import CHANNEL_FLOORS
from gke_tpu.catalog.tokens import PLATFORM_PROJECT
from gke_tpu.preview.engine import Preview, program_entry, run_program
from gke_tpu.preview.esc import EscValues
from gke_tpu.preview.fake_cloud import ANY_STACK
from gke_tpu.preview.json_file import UnreadableJson, read_json
from gke_tpu.preview.objects.check import check_objects, checked_minors
from gke_tpu.preview.quota_list import quota_list
from gke_tpu.preview.snapshot.read import CloudSnapshot, SnapshotError, snapshot_age
from gke_tpu.preview.stack_config import (
    StackFileError,
    offline_config,
    read_stack_config,
    snapshot_mismatch,
)
from gke_tpu.problems import show

if TYPE_CHECKING:
    from gke_tpu.config.platform.spec import PlatformSpec
    from gke_tpu.preflight.check import Checked
    from gke_tpu.preview.render.preflight_report import PreflightReport


def utc_now() -> datetime:
    """The time a snapshot's age is counted to (tests pin it)."""
    return datetime.now(UTC)


def plan_stack(
    stack: str,
    project_dir: Path = Path(),
    config_file: Path | None = None,
    stack_references: Mapping[str, Mapping[str, Any]] | None = None,
    cloud_snapshot: CloudSnapshot | None = None,
    esc: EscValues | None = None,
) -> Preview:
    """The plan of one stack. StackFileError when a project or stack file cannot be read,
    SnapshotError when the snapshot is another project's or region's."""
    return plan_checked(stack, project_dir, config_file, stack_references, cloud_snapshot, esc)[0]


def plan_checked(
    stack: str,
    project_dir: Path = Path(),
    config_file: Path | None = None,
    stack_references: Mapping[str, Mapping[str, Any]] | None = None,
    cloud_snapshot: CloudSnapshot | None = None,
    esc: EscValues | None = None,
    now: datetime | None = None,
) -> tuple[Preview, PreflightReport | None]:
    """The plan of one stack and, when a cloud snapshot answered the platform's preflight, what
    the program's preflight found, with the pools' capacity checked against the snapshot.
    StackFileError when a project or stack file cannot be read, SnapshotError when the snapshot
    is another project's or region's. `now`: the time a snapshot's age is counted to."""
    config = read_stack_config(project_dir, stack, config_file, esc)
    mismatch = cloud_snapshot and snapshot_mismatch(cloud_snapshot, config.values)
    if mismatch:
        raise SnapshotError(mismatch)
    offline = offline_config(config.project, config.values, cloud_snapshot)
    main = project_dir / "__main__.py"
    run = partial(
        run_program,
        # The platform's program is called by its typed entry; any other runs as a script.
        program_entry(main) if config.project == PLATFORM_PROJECT else main,
        project=config.project,
        stack=stack,
        config=offline.values,
        secret_keys=config.secret_keys,
        stack_references=stack_references,
        cloud_snapshot=cloud_snapshot,
    )
    plan = run()
    spec, checked = program_results(plan)
    if not plan.errors:
        objects = check_objects(plan.resources, checked_minors(version_floor(spec)))
        plan.errors, plan.warnings = objects.errors, [*plan.warnings, *objects.warnings]
    preflight = None
    if checked is not None and cloud_snapshot is not None and spec is not None:
        # Preflight's own modules, only for a plan that a cloud snapshot answered.
        from gke_tpu.preview.render.preflight_report import preflight_report

        preflight = preflight_report(checked, cloud_snapshot, spec, capacity=offline.capacity)
        said = set(checked.found.warnings)
        plan.warnings += [w for w in preflight.found.warnings if w not in said]
        old = snapshot_age(cloud_snapshot, now or utc_now())
        plan.warnings += [old] if old else []
    plan.cost = spec.cost.as_dict() if spec is not None and spec.cost is not None else None
    plan.demand = spec.demand if spec is not None else ()
    plan.quota = quota_list(spec) if spec is not None and not plan.errors else []
    # Preflight is skipped for a stack that plans; one that does not would not reach it.
    skipped = [] if plan.errors else list(offline.warnings)
    plan.warnings = [*config.warnings, *skipped, *plan.warnings]
    # As the CLI requires; checked after the program ran, so its problems come in the same run.
    missing = [
        f"{key}: required: Pulumi.yaml declares it without a default; set it in the stack file"
        for key in config.missing
        if not any(e.startswith((f"{key}:", f"{key.split(':', 1)[1]}:")) for e in plan.errors)
    ]
    if missing:
        plan.errors = [*missing, *plan.errors]
    if plan.errors:  # a refused plan has nothing to apply
        plan.resources, plan.outputs, plan.cost, plan.quota = [], {}, None, []
    if config.unopened and plan.errors:
        # Never planned as if the environments were not there: what they set may be the cause.
        plan.errors = [*plan.errors, config.unopened_error()]
    return plan, None if plan.errors else preflight


def version_floor(spec: PlatformSpec | None) -> str | None:
    """The oldest version a platform's cluster may run (`minMasterVersion`, else its release
    channel's oldest default); None for another project's plan."""
    if spec is None:
        return None
    return spec.cluster.min_master_version or CHANNEL_FLOORS[spec.cluster.release_channel]


class ProgramRun(Protocol):
    """What a platform program's entry returns (`PlatformRun` of its `stacks/platform.py`), as
    far as the preview reads it."""

    spec: PlatformSpec
    checked: Checked | None


def program_results(plan: Preview) -> tuple[PlatformSpec | None, Checked | None]:
    """The config the program planned and what its preflight found, from what its entry
    returned: the preview's cost and quota are the program's, not a second parse's. None where
    the program is no platform's, or did not get that far."""
    # The platform's own types, imported only for a plan of the platform.
    from gke_tpu.config.platform.spec import PlatformSpec
    from gke_tpu.preflight.check import Checked

    run = cast("ProgramRun | None", plan.returned)
    spec = getattr(run, "spec", None)
    checked = getattr(run, "checked", None)
    return (
        spec if isinstance(spec, PlatformSpec) else None,
        checked if isinstance(checked, Checked) else None,
    )


def failed_plan(stack: str, error: Exception) -> Preview:
    """The plan document of a stack whose files cannot be read: its error and no resources."""
    return Preview(project="", stack=stack, errors=[str(error)])


def read_stack_references(pairs: list[str]) -> dict[str, dict[str, Any]]:
    """`NAME=PLAN.json` pairs, or one bare `PLAN.json` for whichever stack the program reads:
    the outputs each referenced stack's plan document holds."""
    references = {}
    for pair in pairs:
        name, sep, path = pair.partition("=") if "=" in pair else (ANY_STACK, "=", pair)
        if not sep or not name or not path or name in references:
            raise StackFileError(
                f"--stack-reference {pair!r}: expected NAME=PLAN.json, or one PLAN.json for "
                "any stack the program reads"
            )
        try:
            document = read_json(Path(path))
        except UnreadableJson as error:  # not there, not UTF-8, not JSON
            raise StackFileError(f"--stack-reference {name}: {path}: {error}") from None
        if not isinstance(document, dict):
            raise StackFileError(
                f"--stack-reference {name}: {path} is {show(document)}, not a plan document "
                "(an object with `outputs`, as gke-tpu-plan --json writes it)"
            )
        outputs = document.get("outputs", {})
        if not isinstance(outputs, dict):
            raise StackFileError(
                f"--stack-reference {name}: {path}: `outputs` is {show(outputs)}, not an object "
                "of the stack's outputs by name"
            )
        if document.get("errors"):
            raise StackFileError(
                f"--stack-reference {name}: {path} is the plan of an invalid stack"
            )
        references[name] = outputs
    return references
