"""Google Cloud facts the config is checked against: regions, Cloud Storage locations, project
ids. Pure data; region lists change, so callers let users name an undocumented region."""

from __future__ import annotations

import re

# Compute Engine regions, where GKE runs, as listed in 2026 (cross-checked against several
# published lists); us-central2 hosts TPU v4 only.
REGIONS = frozenset(
    {
        # Americas
        "us-central1", "us-central2", "us-east1", "us-east4", "us-east5", "us-south1",
        "us-west1", "us-west2", "us-west3", "us-west4",
        "northamerica-northeast1", "northamerica-northeast2", "northamerica-south1",
        "southamerica-east1", "southamerica-west1",
        # Europe
        "europe-central2", "europe-north1", "europe-north2", "europe-southwest1",
        "europe-west1", "europe-west2", "europe-west3", "europe-west4", "europe-west6",
        "europe-west8", "europe-west9", "europe-west10", "europe-west12",
        # Asia Pacific
        "asia-east1", "asia-east2", "asia-northeast1", "asia-northeast2", "asia-northeast3",
        "asia-south1", "asia-south2", "asia-southeast1", "asia-southeast2", "asia-southeast3",
        "australia-southeast1", "australia-southeast2",
        # Middle East and Africa
        "me-central1", "me-central2", "me-west1", "africa-south1",
    }
)  # fmt: skip

# Cloud Storage locations besides regions (storage/docs/locations): multi-regions and the
# predefined dual-regions.
STORAGE_MULTI_REGIONS = frozenset({"US", "EU", "ASIA"})
STORAGE_DUAL_REGIONS = frozenset({"ASIA1", "EUR4", "EUR5", "EUR7", "EUR8", "NAM4"})
STORAGE_NAMED_LOCATIONS = STORAGE_MULTI_REGIONS | STORAGE_DUAL_REGIONS

#: A Compute Engine resource name (RFC 1035): a reservation, a network, a policy.
RESOURCE_NAME = r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?"

#: The shape of a region name (`us-central1`, `europe-west10`) and of a zone (`us-central1-a`).
REGION_SHAPE = re.compile(r"[a-z]{2,20}(-[a-z]{2,20}){1,2}[0-9]{1,2}", re.ASCII)
ZONE_SHAPE = re.compile(r"(?P<region>[a-z]{2,20}(-[a-z]{2,20}){1,2}[0-9]{1,2})-[a-z]", re.ASCII)

# Project ids (resource-manager/docs/creating-managing-projects): "Cannot contain restricted
# strings such as google and ssl. We recommend not using strings undefined and null". Older
# projects may be domain-scoped: `example.com:my-project`.
PROJECT_ID = re.compile(r"[a-z][a-z0-9-]{4,28}[a-z0-9]", re.ASCII)
PROJECT_DOMAIN = re.compile(r"[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63}){1,10}", re.ASCII)
PROJECT_ID_RESTRICTED = ("google", "ssl")
PROJECT_ID_DISCOURAGED = ("null", "undefined")


#: Longer strings are no region or zone name (the longest are about 25 characters).
LONGEST_LOCATION_NAME = 40


def zone_region(zone: str) -> str | None:
    """`us-central2-b` -> `us-central2`; None when `zone` is not shaped like a zone."""
    match = ZONE_SHAPE.fullmatch(zone) if len(zone) <= LONGEST_LOCATION_NAME else None
    return match.group("region") if match else None


def is_region_name(region: str) -> bool:
    """Shaped like a region name (`us-central1`), whether or not the catalog knows it."""
    return len(region) <= LONGEST_LOCATION_NAME and bool(REGION_SHAPE.fullmatch(region))


def project_id_problem(project: str) -> str | None:
    """Why Google Cloud would reject `project` as a project id, or None."""
    domain, colon, name = project.rpartition(":")
    if colon and not PROJECT_DOMAIN.fullmatch(domain):
        return "has a domain part (before ':') that is not a domain name, such as 'example.com'"
    if not 6 <= len(name) <= 30:
        return f"is {len(name)} characters long; project ids are 6 to 30 characters"
    if not PROJECT_ID.fullmatch(name):
        return (
            "must start with a lowercase letter, contain only lowercase letters, digits and "
            "hyphens, and not end with a hyphen"
        )
    restricted = [word for word in PROJECT_ID_RESTRICTED if word in name]
    if restricted:
        return f"contains {restricted[0]!r}; project ids cannot contain google or ssl"
    return None


def project_id_warning(project: str) -> str | None:
    """What Google Cloud advises against in a project id it accepts, or None."""
    discouraged = [word for word in PROJECT_ID_DISCOURAGED if word in project]
    if discouraged:
        return (
            f"contains {discouraged[0]!r}, which Google Cloud advises against in project ids "
            "(tools may read it as a missing value); it is used as it is"
        )
    return None
