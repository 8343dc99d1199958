"""ml-workloads: the product document's TPU tutorials on a gke-tpu platform, read through
its stack outputs (docs/outputs.md in the gke-tpu repository), with an open model served by
vLLM in place of BERT where the stack names one (`llm`)."""

import json

import pulumi
import pulumi_kubernetes as k8s
from app_config import AppConfig
from multihost import build_multihost, check_multihost
from pydantic import ValidationError
from workloads import Llm, build_workloads

from gke_tpu.config.base import problems_from
from gke_tpu.contract.outputs import PlatformOutputs
from gke_tpu.problems.pulumi import reject
from gke_tpu.workloads import MultisliceJobSet

raw = pulumi.Config()


def _value(key: str) -> object:
    """A config value as the stack file wrote it: objects and numbers arrive as JSON text."""
    text = raw.get(key)
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


keys = ("platformStack", "pools", "trainingQueue", "trainingTopology", "images",
        "servingTutorials", "servingReplicas", "llm", "multiHostLlm", "pathwaysTraining")  # fmt: skip
try:
    app = AppConfig.model_validate(
        {key: value for key in keys if (value := _value(key)) is not None}
    )
except ValidationError as error:
    reject(problems_from(error, "", AppConfig), subject="stack config")
    raise

platform_stack = pulumi.StackReference(app.platform_stack)
# Identified by the platform's cluster (its kubeconfig context, gke_<project>_<region>_<name>):
# pulumi-kubernetes would otherwise replace the provider, and every workload with it, when the
# platform's kubeconfig moves to another endpoint of the same cluster.
provider = k8s.Provider(
    "platform",
    kubeconfig=platform_stack.get_output("kubeconfig"),
    cluster_identifier=pulumi.Output.format(
        "gke_{0}_{1}_{2}",
        platform_stack.get_output("project"),
        platform_stack.get_output("region"),
        platform_stack.get_output("clusterName"),
    ),
)


async def main() -> dict[str, object]:
    outputs = await platform_stack.outputs.future() or {}
    platform = PlatformOutputs.parse(outputs, "platform stack")
    on_platform = pulumi.ResourceOptions(provider=provider)
    workloads = build_workloads(
        platform,
        app.pools.training,
        app.pools.serving,
        app.serving_replicas,
        app.training_queue,
        app.training_topology,
        app.images.model_dump(),
        Llm(
            image=app.llm.image,
            model=app.llm.model,
            model_size_gb=app.llm.model_size_gb,
            hf_token_secret=app.llm.hf_token_secret,
            min_replicas=app.llm.min_replicas,
            max_replicas=app.llm.max_replicas,
            queue_per_replica=app.llm.queue_per_replica,
        )
        if app.llm
        else None,
        on_platform,
        app.serving_tutorials,
        also=check_multihost(platform, app.multi_host_llm, app.pathways_training),
    )
    beyond = build_multihost(platform, app.multi_host_llm, app.pathways_training, on_platform)
    return {
        "trainingJobs": [
            workloads.diffusion.jobset_name
            if isinstance(workloads.diffusion, MultisliceJobSet)
            else workloads.diffusion.job_name,
            workloads.gpt2.job_name,
        ],
        "servingServices": {name: s.service_name for name, s in workloads.servers.items()},
        "conversionJobs": {name: c.job_name for name, c in workloads.conversions.items()},
        # Null where the stack asks for none.
        "multiHostService": beyond.server.service_name if beyond.server else None,
        "pathwaysJobSet": beyond.training.jobset_name if beyond.training else None,
    }


pulumi.run(main)
