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
from pathlib import Path
from typing import Any

from gke_tpu.preview.engine import Preview
from gke_tpu.preview.esc import read_esc_values
from gke_tpu.preview.json_file import UnreadableJson, read_json
from gke_tpu.preview.outputs import Output, OutputError, output_problems, write_text
from gke_tpu.preview.render.text import plan_json, plan_text
from gke_tpu.preview.snapshot.read import (
    SnapshotError,
    read_snapshot,
)
from gke_tpu.preview.stack import failed_plan, plan_checked, read_stack_references
from gke_tpu.preview.stack_config import (
    StackFileError,
)

EXIT_INVALID_CONFIG = 2
#: Problems printed at the most: the rest are in the --json document.
MOST_PRINTED = 50
#: Options of one stack's plan that a fleet plan does not take, and why.
SINGLE_STACK_ONLY = {
    "config_file": "--config-file names one stack's file",
    "manifests": "--manifests writes one stack's objects",
}


def read_baseline(path: Path, stack: str) -> dict[str, Any]:
    """The plan document of `stack` to compare with (the base branch's); StackFileError saying
    what keeps it from being compared: one line for another stack's or format's document."""
    # The report's modules, only for a plan compared with a baseline.
    from gke_tpu.preview.render.cost_report import baseline_mismatch, baseline_problems

    try:
        document = read_json(path)
    except UnreadableJson as error:
        raise StackFileError(f"--baseline: {path}: {error}") from None
    mismatch = baseline_mismatch(document, stack)
    if mismatch:
        raise StackFileError(f"--baseline: {path} {mismatch}")
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


def fleet_problems(args: argparse.Namespace) -> list[str]:
    """Options that do not go with --fleet, or --fleet's own that came without it."""
    if not args.fleet:
        return [
            f"{option} {what} of --fleet: add --fleet"
            for option, what, given in (
                ("--stacks", "chooses the stacks", args.stacks),
                ("--changed-files", "names the stacks a change touches", args.changed_files),
            )
            if given
        ]
    return [
        f"{why}: it does not go with --fleet"
        for option, why in SINGLE_STACK_ONLY.items()
        if getattr(args, option)
    ]


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
        help="the base branch's plan document (with --fleet, its fleet document): the report "
        "says what the change replaces, deletes, creates and updates, and what it does to cost "
        "and quota; the plan document lists each change under `changes`",
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
    if args.baseline and not (markdown_out or (json_out and not args.fleet)):
        problems.append(
            "--baseline compares in the report or the plan document: add --markdown PATH"
            + ("" if args.fleet else " or --json PATH")
        )
    if problems:
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        return EXIT_INVALID_CONFIG
    try:
        if args.fleet:
            # The fleet's modules (its checks, its report), only for a fleet plan.
            from gke_tpu.preview.fleet_cli import run_fleet

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
        baseline = read_baseline(args.baseline, args.stack) if args.baseline else None
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
    if baseline is not None and not plan.errors and not baseline.get("errors"):
        from gke_tpu.preview.lifecycle import plan_changes  # only against a baseline

        plan.changes = [c.as_dict() for c in plan_changes(plan.as_dict(), baseline).changes]
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
        from gke_tpu.preview.render.report import plan_markdown  # the report's many sections

        write_text(markdown_out, plan_markdown(plan, preflight, baseline), sys.stdout)
    if manifests_out:
        _write_manifests(plan, manifests_out)
    return 0


def _write_manifests(plan: Preview, manifests_out: Output) -> None:
    from gke_tpu.preview.render.manifests import manifests_stream, write_manifests  # --manifests

    if manifests_out.to_stdout:
        sys.stdout.write(manifests_stream(plan))
        return
    try:
        written = write_manifests(plan, manifests_out.path)
    except OSError as error:
        raise manifests_out.failed(error) from None
    print(f"\nWrote {len(written)} Kubernetes manifests to {manifests_out.path}")
