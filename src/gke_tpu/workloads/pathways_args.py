"""What a PathwaysTrainingJob takes: a TPU job's arguments, the platform's Pathways, the Pathways
release and its scratch location, and how the run rides out the loss of a slice."""

from collections.abc import Sequence
from dataclasses import dataclass, field

from gke_tpu.contract.interruptions import DEFAULT_APPLICATION_EXIT_CODES, DEFAULT_MAX_RESTARTS
from gke_tpu.contract.outputs import PathwaysRef
from gke_tpu.workloads.args import TpuJobArgs

#: MaxText's elastic training guide restarts a slice's workers up to ten times
#: (AI-Hypercomputer/maxtext docs/run_maxtext/run_maxtext_elastic_training.md,
#: `--max-slice-restarts=10`, beside MaxText's own `elastic_max_retries: 10`).
DEFAULT_MAX_SLICE_RESTARTS = 10


@dataclass(frozen=True)
class PathwaysTrainingJobArgs(TpuJobArgs):
    """The pool is a multi-host pool; `container` is the JAX program (MaxText), which runs in the
    Pathways head on the platform's CPU pool and drives every slice through the proxy."""

    pathways_version: str = field(kw_only=True)
    """Required: the Pathways release, the images' tag for the program's JAX (`jax-0.5.3`); never
    `latest`."""
    scratch_location: str = field(kw_only=True)
    """Required: a `gs://` path Pathways keeps temporary files in (its compilation cache), which
    the Pods' service account writes."""
    pathways: PathwaysRef | None = None
    """The platform's `pathways` output: the heads' CPU pool and the JobSet release; required (a
    platform without `gke-tpu:pathways` has no pool for the head)."""
    slices: int | None = None
    """Slices to use; default: all of the pool's."""
    elastic_slices: int | None = 0
    """Slices the run may lose at once and go on, in the same process, from its last checkpoint
    (Pathways' `--num_elastic_slices`; the program sets MaxText's `elastic_enabled=true`);
    fewer than `slices`. Default 0: the loss of a slice restarts the run."""
    max_slice_restarts: int | None = DEFAULT_MAX_SLICE_RESTARTS
    """Restarts of a slice's workers while the run goes on (the worker Job's backoffLimit is this
    times the slice's VMs, as xpk sets it); keep MaxText's `elastic_max_retries` equal; default
    10. Without elastic slices, four per VM, as xpk."""
    max_restarts: int | None = DEFAULT_MAX_RESTARTS
    """Restarts of the whole JobSet (head and every slice) after a slice's workers ran out of
    restarts; default 5. An application error of the program fails it at once."""
    application_exit_codes: Sequence[int] | None = DEFAULT_APPLICATION_EXIT_CODES
    """Exit codes of the program that mean it failed: they fail the JobSet at once; default
    1-127."""
    colocated_python_image: str | None = None
    """The Colocated Python sidecar of each worker, required with `checkpoint`: MaxText's
    multi-tier checkpointing on Pathways writes worker-local checkpoints through it; the same
    MaxText, Orbax and JAX as `container`'s image."""
