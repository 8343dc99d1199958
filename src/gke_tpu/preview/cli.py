"""The offline plan: `gke-tpu-plan --stack dev [--config-file PATH] [--json PATH]`.

Runs the real program on Pulumi's mock runtime against a fake cloud and prints what it would
create. `--project-dir` plans another Pulumi project (an app repo), `--stack-reference
NAME=PLAN.json` answers its StackReference from a plan document (a bare PLAN.json answers any),
`--manifests DIR` writes its Kubernetes objects. `--cloud-snapshot PATH` answers the provider
functions from a snapshot (`make snapshot`); without one, preflight is skipped with a warning.
`--fleet [--stacks a,b]` plans every stack in one run (`fleet_cli.py`).
Exit codes: 0 planned, 2 invalid config (every problem on stderr), 1 anything else.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gke_tpu.catalog.tokens import PLATFORM_PROJECT
from gke_tpu.preview.engine import Preview, run_program
from gke_tpu.preview.esc import EscValues, read_esc_values
from gke_tpu.preview.fake_cloud import ANY_STACK
from gke_tpu.preview.json_file import UnreadableJson, read_json
from gke_tpu.preview.outputs import Output, OutputError, output_problems, write_text
from gke_tpu.preview.quota_list import quota_list
from gke_tpu.preview.render.cost_report import baseline_problems
from gke_tpu.preview.render.manifests import manifests_stream, write_manifests
from gke_tpu.preview.render.preflight_report import PreflightReport, preflight_report
from gke_tpu.preview.render.report import plan_markdown
from gke_tpu.preview.render.text import plan_json, plan_text
from gke_tpu.preview.snapshot.read import (
    CloudSnapshot,
    SnapshotError,
    read_snapshot,
)
from gke_tpu.preview.stack_config import (
    StackFileError,
    offline_config,
    read_stack_config,
    snapshot_mismatch,
)
from gke_tpu.problems import show

if TYPE_CHECKING:
    from gke_tpu.config.platform.spec import PlatformSpec
    from gke_tpu.stacks.preflight import Checked

EXIT_INVALID_CONFIG = 2
#: Problems printed at the most: the rest are in the --json document.
MOST_PRINTED = 50


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
) -> tuple[Preview, PreflightReport | None]:
    """The plan of one stack and, when a cloud snapshot answered the platform's preflight, what
    the program's preflight found. StackFileError when a project or stack file cannot be read,
    SnapshotError when the snapshot is another project's or region's."""
    config = read_stack_config(project_dir, stack, config_file, esc)
    mismatch = cloud_snapshot and snapshot_mismatch(cloud_snapshot, config.values)
    if mismatch:
        raise SnapshotError(mismatch)
    values, skipped = offline_config(config.project, config.values, cloud_snapshot)
    run = partial(
        run_program,
        project_dir / "__main__.py",
        project=config.project,
        stack=stack,
        config=values,
        secret_keys=config.secret_keys,
        stack_references=stack_references,
        cloud_snapshot=cloud_snapshot,
    )
    plan = run()
    spec, checked = program_results(plan) if config.project == PLATFORM_PROJECT else (None, None)
    preflight = None
    if checked is not None and cloud_snapshot is not None:
        preflight = preflight_report(checked, cloud_snapshot)
    plan.cost = spec.cost.as_dict() if spec is not None and spec.cost is not None else None
    plan.demand = spec.demand if spec is not None else ()
    plan.quota = quota_list(spec) if spec is not None and not plan.errors else []
    # Preflight is skipped for a stack that plans; one that does not would not reach it.
    plan.warnings = [*config.warnings, *([] if plan.errors else skipped), *plan.warnings]
    # As the CLI requires; checked after the program ran, so its problems come in the same run.
    missing = [
        f"{key}: required: Pulumi.yaml declares it without a default; set it in the stack file"
        for key in config.missing
        if not any(e.startswith((f"{key}:", f"{key.split(':', 1)[1]}:")) for e in plan.errors)
    ]
    if missing:
        plan.errors = [*missing, *plan.errors]
        plan.resources, plan.outputs, plan.cost, plan.quota = [], {}, None, []
    if config.unopened and plan.errors:
        # Never planned as if the environments were not there: what they set may be the cause.
        plan.errors = [*plan.errors, config.unopened_error()]
    return plan, None if plan.errors else preflight


def program_results(plan: Preview) -> tuple[PlatformSpec | None, Checked | None]:
    """The config the program parsed (`spec`) and its preflight (`checked`), read from its
    globals so cost and quota are the program's, not a second parse's. None where it did not
    get that far."""
    # The program's own modules, imported only for a plan of the platform.
    from gke_tpu.config.platform.spec import PlatformSpec
    from gke_tpu.stacks.preflight import Checked

    spec = plan.program_globals.get("spec")
    checked = plan.program_globals.get("checked")
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


def read_baseline(path: Path) -> dict[str, Any]:
    """The plan document to compare with (the base branch's); StackFileError saying what keeps
    it from being compared."""
    try:
        document = read_json(path)
    except UnreadableJson as error:
        raise StackFileError(f"--baseline: {path}: {error}") from None
    problems = baseline_problems(document)
    if problems:
        count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        raise StackFileError(
            "\n".join(
                [
                    f"--baseline: {path} is not a plan document as `gke-tpu-plan "
                    f"--json` writes it ({count}):",
                    *(f"  - {p}" for p in problems),
                ]
            )
        )
    return document


def reference_hint(name: str) -> str:
    """How to give the plan the outputs of a stack the program reads."""
    stack = name.rsplit("/", 1)[-1]
    return (
        f"hint: plan the stack {name} first and pass its plan document:\n"
        f"  gke-tpu-plan --stack {stack} --json build/plans/{stack}.json\n"
        f"  gke-tpu-plan ... --stack-reference {name}=build/plans/{stack}.json\n"
        "(`make plan-workloads STACK=<stack>` does both for examples/ml-workloads, whatever "
        "org platformStack names)"
    )


def main(argv: list[str] | None = None) -> int:
    # The fleet's modules plan with this one's functions: imported when the command runs.
    from gke_tpu.preview.fleet_cli import fleet_problems, run_fleet

    parser = argparse.ArgumentParser(prog="gke-tpu-plan", description=__doc__)
    parser.add_argument("--stack", help="stack name; reads Pulumi.<stack>.yaml")
    parser.add_argument(
        "--fleet",
        action="store_true",
        help="plan every stack of the project (or --stacks) in one run: one document",
    )
    parser.add_argument(
        "--stacks", metavar="A,B,...", help="with --fleet: the stacks to plan (default: all)"
    )
    parser.add_argument(
        "--changed-files",
        type=Path,
        metavar="FILE",
        help="with --fleet: the paths a change touches, one a line (git diff --name-only): "
        "the document's `touched` names the stacks they touch",
    )
    parser.add_argument("--config-file", type=Path, help="a stack file to read instead")
    parser.add_argument(
        "--json",
        type=Path,
        metavar="PATH",
        help="write the plan document here (-: standard output)",
    )
    parser.add_argument(
        "--project-dir",
        type=Path,
        default=Path(),
        help="the Pulumi project to plan (default: the current directory)",
    )
    parser.add_argument(
        "--stack-reference",
        action="append",
        default=[],
        metavar="[NAME=]PLAN.json",
        help="outputs of a referenced stack, from its plan document (repeatable); without "
        "NAME, for any stack the program reads",
    )
    parser.add_argument(
        "--manifests",
        type=Path,
        metavar="DIR",
        help="write Kubernetes manifests, one file each (-: one YAML stream on standard output)",
    )
    parser.add_argument(
        "--markdown",
        type=Path,
        metavar="PATH",
        help="write a report for a pull-request comment (-: standard output)",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="PLAN.json",
        help="with --markdown: the base branch's plan document (with --fleet, its fleet "
        "document), to report what the change does to resources, cost and quota",
    )
    parser.add_argument(
        "--esc-values",
        action="append",
        default=[],
        metavar="[ENV=]FILE",
        help="what `esc env open <org>/<project>/<env>` printed for an ESC environment the "
        "stack imports (repeatable; without ENV=, for any environment): its pulumiConfig "
        "becomes config, below the stack file's own",
    )
    parser.add_argument(
        "--cloud-snapshot",
        type=Path,
        action="append",
        default=[],
        metavar="PATH",
        help="answer preflight's questions from this snapshot of the project (make snapshot); "
        "with --fleet, repeatable: each stack takes its own project's and region's",
    )
    args = parser.parse_args(argv)
    json_out, markdown_out, manifests_out = (
        Output("--json", args.json) if args.json else None,
        Output("--markdown", args.markdown) if args.markdown else None,
        Output("--manifests", args.manifests, directory=True) if args.manifests else None,
    )
    outputs = [o for o in (json_out, markdown_out, manifests_out) if o is not None]
    problems = output_problems(outputs) + fleet_problems(args)
    if bool(args.stack) == args.fleet:
        problems.append("give one of --stack NAME (one stack) and --fleet (every stack)")
    elif args.stack and len(args.cloud_snapshot) > 1:
        problems.append("--stack takes one --cloud-snapshot: the stack's project's")
    if args.baseline and not markdown_out:
        problems.append("--baseline compares in the report: add --markdown PATH")
    if problems:
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        return EXIT_INVALID_CONFIG
    try:
        if args.fleet:
            return run_fleet(args, json_out, markdown_out)
        return _plan_and_write(args, json_out, markdown_out, manifests_out)
    except OutputError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INVALID_CONFIG


def _print_errors(stack: str, plan: Preview, in_json: bool) -> None:
    """A stack that cannot be planned: its first problems, hints and warnings, on stderr."""
    print(f"error: the {stack!r} stack cannot be planned:", file=sys.stderr)
    for problem in plan.errors[:MOST_PRINTED]:
        print(f"  - {problem}", file=sys.stderr)
    if len(plan.errors) > MOST_PRINTED:
        more = len(plan.errors) - MOST_PRINTED
        print(
            f"  ... and {more} more ({'in --json' if in_json else 'all with --json'})",
            file=sys.stderr,
        )
    for name in plan.missing_references:
        print(reference_hint(name), file=sys.stderr)
    for warning in plan.warnings:
        print(f"warning: {warning}", file=sys.stderr)


def _plan_and_write(
    args: argparse.Namespace,
    json_out: Output | None,
    markdown_out: Output | None,
    manifests_out: Output | None,
) -> int:
    try:
        references = read_stack_references(args.stack_reference)
        baseline = read_baseline(args.baseline) if args.baseline else None
        snapshot = read_snapshot(args.cloud_snapshot[0]) if args.cloud_snapshot else None
        esc = read_esc_values(args.esc_values)
        plan, preflight = plan_checked(
            args.stack, args.project_dir.resolve(), args.config_file, references, snapshot, esc
        )
    except (StackFileError, SnapshotError) as error:
        print(f"error: {error}", file=sys.stderr)
        if json_out:  # never leave an older plan at that path
            write_text(json_out, plan_json(failed_plan(args.stack, error)), sys.stdout)
        return EXIT_INVALID_CONFIG
    if json_out:
        write_text(json_out, plan_json(plan), sys.stdout)
    if plan.errors:
        _print_errors(args.stack, plan, json_out is not None)
        return EXIT_INVALID_CONFIG
    # An output on standard output takes it whole: the tree would corrupt the document.
    on_stdout = any(o.to_stdout for o in (json_out, markdown_out, manifests_out) if o)
    if not on_stdout:
        sys.stdout.write(plan_text(plan))
    if markdown_out:
        write_text(markdown_out, plan_markdown(plan, preflight, baseline), sys.stdout)
    if manifests_out and manifests_out.to_stdout:
        sys.stdout.write(manifests_stream(plan))
    elif manifests_out:
        try:
            written = write_manifests(plan, manifests_out.path)
        except OSError as error:
            raise manifests_out.failed(error) from None
        print(f"\nWrote {len(written)} Kubernetes manifests to {manifests_out.path}")
    return 0
