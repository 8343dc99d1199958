"""gke-tpu's program: read the stack config, check it against the project, compose the
platform, export the outputs contract. `main` is its typed entry: Pulumi runs this file, which
calls it; the offline preview loads the file and calls it too, and keeps what it returns."""

import pulumi

from stacks.config_source import read_platform_config
from stacks.platform import PlatformRun, build_platform, stack_outputs
from stacks.preflight import run_preflight


def main() -> PlatformRun:
    """The platform of this stack: its config, what preflight found, and what was built."""
    spec = read_platform_config()
    checked = run_preflight(spec)
    platform = build_platform(spec)
    for name, value in stack_outputs(platform).items():
        pulumi.export(name, value)
    return PlatformRun(spec=spec, checked=checked, platform=platform)


if __name__ == "__main__":
    main()
