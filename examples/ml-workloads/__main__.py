"""ml-workloads: the product document's TPU tutorials on a gke-tpu platform, read through
its stack outputs (docs/outputs.md in the gke-tpu repository)."""

import sys
from pathlib import Path

# The gke-tpu library (components, contract) is the repository two levels up.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import pulumi
import pulumi_kubernetes as k8s
from app_config import AppConfig
from pydantic import ValidationError
from workloads import build_workloads

from components.errors import InvalidInput
from config.errors import ConfigError
from config.validation import problems_from
from contract.outputs import PlatformOutputs

raw = pulumi.Config()
try:
    app = AppConfig.model_validate(
        {
            "platformStack": raw.get("platformStack"),
            "pools": raw.get_object("pools"),
            "images": raw.get_object("images"),
        }
    )
except ValidationError as error:
    raise InvalidInput(problems_from(error, "", AppConfig)) from None

platform_stack = pulumi.StackReference(app.platform_stack)
provider = k8s.Provider("platform", kubeconfig=platform_stack.get_output("kubeconfig"))


async def main() -> dict[str, object]:
    outputs = await platform_stack.outputs.future() or {}
    try:
        workloads = build_workloads(
            PlatformOutputs.parse(outputs, "platform stack"),
            app.pools.training,
            app.pools.serving,
            {
                "diffusion": app.images.diffusion,
                "gpt2": app.images.gpt2,
                "bert_serving": app.images.bert_serving,
                "converter": app.images.converter,
            },
            pulumi.ResourceOptions(provider=provider),
        )
    except ConfigError as error:
        raise InvalidInput(error.problems) from None
    return {
        "trainingJobs": [workloads.diffusion.job.metadata.name, workloads.gpt2.job.metadata.name],
        "servingService": workloads.bert.service.metadata.name,
        "conversionJob": workloads.conversion.job.metadata.name,
    }


pulumi.run(main)
