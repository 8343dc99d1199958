"""The fake cloud of the offline plan: what it computes for the resources whose outputs the
program reads (a cluster's endpoint and links, a service account's email, a bucket's URL)."""

from __future__ import annotations

import pulumi
from pulumi_gcp import container, serviceaccount, storage

from gke_tpu.preview.engine import run_program
from gke_tpu.preview.fake_cloud import (
    FAKE_CA_CERTIFICATE,
    FAKE_ENDPOINT,
    FAKE_PROJECT_NUMBER,
    fake_dns_endpoint,
)


def _program() -> None:
    cluster = container.Cluster(
        "c",
        name="tpu",
        project="acme",
        location="us-east5",
        control_plane_endpoints_config={"dns_endpoint_config": {"allow_external_traffic": True}},
    )
    account = serviceaccount.Account("a", account_id="nodes", project="acme")
    bucket = storage.Bucket("b", name="acme-models", location="US-EAST5", project="acme")
    pulumi.export(
        "cluster",
        {
            "endpoint": cluster.endpoint,
            "selfLink": cluster.self_link,
            "ca": cluster.master_auth.cluster_ca_certificate,
            "dns": cluster.control_plane_endpoints_config.dns_endpoint_config.endpoint,
            "external": cluster.control_plane_endpoints_config.dns_endpoint_config.apply(
                lambda dns: dns.allow_external_traffic if dns else None
            ),
        },
    )
    pulumi.export(
        "account",
        {
            "email": account.email,
            "member": account.member,
            "name": account.name,
            "uniqueId": account.unique_id,
        },
    )
    pulumi.export(
        "bucket",
        {"url": bucket.url, "selfLink": bucket.self_link, "number": bucket.project_number},
    )


def test_each_resource_the_program_reads_gets_the_outputs_its_provider_computes() -> None:
    plan = run_program(_program, project="p", stack="dev", config={})

    assert plan.errors == []
    assert plan.outputs == {
        "cluster": {
            "endpoint": FAKE_ENDPOINT,
            "selfLink": "https://container.googleapis.com/v1/projects/acme/locations/us-east5/"
            "clusters/tpu",
            "ca": FAKE_CA_CERTIFICATE,
            "dns": fake_dns_endpoint("tpu", "us-east5"),
            # GKE keeps what the program set beside the endpoint it adds.
            "external": True,
        },
        "account": {
            "email": "nodes@acme.iam.gserviceaccount.com",
            "member": "serviceAccount:nodes@acme.iam.gserviceaccount.com",
            "name": "projects/acme/serviceAccounts/nodes@acme.iam.gserviceaccount.com",
            "uniqueId": "000000000000000000000",
        },
        "bucket": {
            "url": "gs://acme-models",
            "selfLink": "https://www.googleapis.com/storage/v1/b/acme-models",
            "number": FAKE_PROJECT_NUMBER,
        },
    }
