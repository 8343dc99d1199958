"""The component package's entry: Pulumi runs it to host gke-tpu's components (see
`gke_tpu.provider`), at the installed package's version."""

from pulumi.provider.experimental import component_provider_host

from gke_tpu import __version__
from gke_tpu.provider import COMPONENTS, PACKAGE

if __name__ == "__main__":
    component_provider_host(COMPONENTS, name=PACKAGE, version=__version__)
