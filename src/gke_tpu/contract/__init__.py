"""The platform's outputs contract: what the platform stack exports and app programs read with
`StackReference` (docs/outputs.md), written and read by the same code. Pure Python."""

from gke_tpu.contract.outputs import (
    OUTPUTS_VERSION,
    ModelStorageOutputs,
    ModelWriterOutputs,
    PlatformOutputs,
    QueueRef,
    TpuPoolRef,
)

__all__ = [
    "OUTPUTS_VERSION",
    "ModelStorageOutputs",
    "ModelWriterOutputs",
    "PlatformOutputs",
    "QueueRef",
    "TpuPoolRef",
]
