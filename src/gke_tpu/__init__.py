"""gke-tpu: a GKE platform for Cloud TPU, as a Pulumi program and a library of components
(`gke_tpu.workloads` and `gke_tpu.contract` for app repos, `gke_tpu.components` for platform
teams, `gke_tpu.preview` for the offline preview). The program itself (`__main__.py`, `stacks/`)
is not part of the distribution. Importing it imports nothing else.
"""

#: The one version source (pyproject.toml, the component package in components/); CHANGELOG.md
#: says what is major.
__version__ = "2.0.0"
