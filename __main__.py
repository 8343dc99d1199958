"""gke-tpu: read the stack config, check it against the project, compose the platform, export
the outputs contract."""

import pulumi

from gke_tpu.stacks.config_source import read_platform_config
from gke_tpu.stacks.platform import build_platform, stack_outputs
from gke_tpu.stacks.preflight import run_preflight

spec = read_platform_config()
checked = run_preflight(spec)
platform = build_platform(spec)

for name, value in stack_outputs(platform).items():
    pulumi.export(name, value)
