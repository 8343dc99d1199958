"""gke-tpu: a GKE platform for Cloud TPU, as a Pulumi program and a library of components
(`gke_tpu.workloads` and `gke_tpu.contract` for app repos, `gke_tpu.components` and
`gke_tpu.stacks` for platform teams, `gke_tpu.preview` for the offline plan). Importing it imports
nothing else.
"""

#: The one version source (pyproject.toml, packages/gke-tpu); CHANGELOG.md says what is major.
__version__ = "1.0.0"
