"""Stack files are turned into config exactly as the Pulumi CLI hands it to a program."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.stackfile import SECRET_PLACEHOLDER, StackFileError, read_stack_config


def test_values_are_qualified_strings_and_secure_values_are_masked(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text(
        "name: demo\nruntime: python\nconfig:\n  color: {type: string, default: blue}\n"
        "  gcp:region: {value: us-central2}\n"
    )
    (tmp_path / "Pulumi.s.yaml").write_text(
        "config:\n"
        "  gcp:project: p-123456\n"
        "  demo:size: 3\n"
        "  demo:enabled: true\n"
        "  obj: {a: [1, 2]}\n"
        "  demo:token: {secure: AAABAxyz}\n"
    )
    config = read_stack_config(tmp_path, "s")
    assert config.project == "demo"
    assert config.values == {
        "demo:color": "blue",
        "gcp:region": "us-central2",
        "gcp:project": "p-123456",
        "demo:size": "3",
        "demo:enabled": "true",
        "demo:obj": json.dumps({"a": [1, 2]}),
        "demo:token": SECRET_PLACEHOLDER,
    }
    assert config.secret_keys == ("demo:token",)


def test_a_declared_key_without_default_is_required_like_the_cli(tmp_path: Path) -> None:
    (tmp_path / "Pulumi.yaml").write_text(
        "name: demo\nruntime: python\nconfig:\n  cluster: {type: object}\n"
        "  pools: {type: array, items: {type: object}, default: []}\n"
    )
    (tmp_path / "Pulumi.s.yaml").write_text("config:\n  gcp:project: p-123456\n")
    with pytest.raises(StackFileError) as caught:
        read_stack_config(tmp_path, "s")
    assert str(caught.value) == (
        f"{tmp_path / 'Pulumi.s.yaml'}: missing configuration value(s) demo:cluster, which "
        "Pulumi.yaml declares without a default"
    )
    (tmp_path / "Pulumi.s.yaml").write_text("config:\n  demo:cluster: {name: a}\n")
    assert read_stack_config(tmp_path, "s").values == {
        "demo:pools": "[]",
        "demo:cluster": '{"name": "a"}',
    }
