"""The offline plan: `python -m tools.plan --stack dev [--config-file PATH] [--json PATH]`.

Runs the real program on Pulumi's mock runtime against a fake cloud and prints what it would
create. Exit codes: 0 planned, 2 invalid config (every problem on stderr), 1 anything else.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tools.engine import Plan, run_program
from tools.render import plan_json, plan_text
from tools.stackfile import StackFileError, read_stack_config

ROOT = Path(__file__).resolve().parent.parent
EXIT_INVALID_CONFIG = 2


def plan_stack(stack: str, project_dir: Path = ROOT, config_file: Path | None = None) -> Plan:
    config = read_stack_config(project_dir, stack, config_file)
    return run_program(
        project_dir / "__main__.py",
        project=config.project,
        stack=stack,
        config=config.values,
        secret_keys=config.secret_keys,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.plan", description=__doc__)
    parser.add_argument("--stack", required=True, help="stack name; reads Pulumi.<stack>.yaml")
    parser.add_argument("--config-file", type=Path, help="a stack file to read instead")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the plan document here")
    args = parser.parse_args(argv)

    try:
        plan = plan_stack(args.stack, ROOT, args.config_file)
    except StackFileError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INVALID_CONFIG
    if args.json:
        args.json.write_text(plan_json(plan))
    if plan.errors:
        print(f"error: the {args.stack!r} stack cannot be planned:", file=sys.stderr)
        for problem in plan.errors:
            print(f"  - {problem}", file=sys.stderr)
        for warning in plan.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        return EXIT_INVALID_CONFIG
    sys.stdout.write(plan_text(plan))
    return 0


if __name__ == "__main__":
    sys.exit(main())
