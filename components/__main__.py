"""The component package's entry: Pulumi runs it to host gke-tpu's components (see
`gke_tpu.provider`), at the installed package's version. It serves the package's own provider
(`gke_tpu.provider.Provider`), as `component_provider_host` serves the analyzer's."""

import sys

import pulumi.provider

from gke_tpu.provider import provider

if __name__ == "__main__":
    pulumi.provider.main(provider(), sys.argv[1:])
