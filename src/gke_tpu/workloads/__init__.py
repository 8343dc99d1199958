"""The workload components app repos use on a gke-tpu platform. They read the platform through
its outputs contract (`gke_tpu.contract.PlatformOutputs`), never its config.
"""

from gke_tpu.workloads.args import CheckpointArgs, ContainerSpec, ModelMount, TpuJobArgs
from gke_tpu.workloads.internal.vllm_plan import vllm_problems
from gke_tpu.workloads.model_conversion_job import ModelConversionJob, ModelConversionJobArgs
from gke_tpu.workloads.multi_host_args import GroupAutoscaling, MultiHostServingArgs
from gke_tpu.workloads.multi_host_serving import MultiHostServing
from gke_tpu.workloads.multislice_jobset import MultisliceJobSet, MultisliceJobSetArgs
from gke_tpu.workloads.pathways_args import PathwaysTrainingJobArgs
from gke_tpu.workloads.pathways_training_job import PathwaysTrainingJob
from gke_tpu.workloads.tpu_serving_deployment import (
    TpuServingDeployment,
    TpuServingDeploymentArgs,
)
from gke_tpu.workloads.tpu_training_job import TpuTrainingJob, TpuTrainingJobArgs
from gke_tpu.workloads.vllm_args import ServingAutoscaling, VllmServingDeploymentArgs
from gke_tpu.workloads.vllm_serving_deployment import VllmServingDeployment

__all__ = [
    "CheckpointArgs",
    "ContainerSpec",
    "GroupAutoscaling",
    "ModelConversionJob",
    "ModelConversionJobArgs",
    "ModelMount",
    "MultiHostServing",
    "MultiHostServingArgs",
    "MultisliceJobSet",
    "MultisliceJobSetArgs",
    "PathwaysTrainingJob",
    "PathwaysTrainingJobArgs",
    "ServingAutoscaling",
    "TpuJobArgs",
    "TpuServingDeployment",
    "TpuServingDeploymentArgs",
    "TpuTrainingJob",
    "TpuTrainingJobArgs",
    "VllmServingDeployment",
    "VllmServingDeploymentArgs",
    "vllm_problems",
]
