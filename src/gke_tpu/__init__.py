"""gke-tpu: a GKE platform for Cloud TPU, as a Pulumi program and a library of components.

Two audiences import it: app repos take the workload components from `gke_tpu.workloads` and
read the platform's stack outputs with `gke_tpu.contract`; platform teams compose the infra
components of `gke_tpu.components` (or run the whole program, `gke_tpu.stacks`). The offline
plan is the `gke-tpu-plan` command (`gke_tpu.plan`). Importing this package imports nothing
else: each subpackage is imported where it is used.
"""

#: The one version source: the distribution's version (pyproject.toml reads it) and the
#: component package's (packages/gke-tpu). Semantic versions: CHANGELOG.md says what a major
#: change of the component API and of the outputs contract is.
__version__ = "1.0.0"
