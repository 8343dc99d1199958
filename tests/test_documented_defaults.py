"""Every default a field's docstring states is the field's default.

The docstrings of the components' Args and the config sections' models are the API and config
references (docs/api.md, docs/configuration.md), so "default `/models`" is a promise to users.
Fields whose default is None are left out: their docstring says what None stands for (the
channel's version, the component's name), which the components' own tests pin.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import BaseModel

import gke_tpu.components.jobset_install
import gke_tpu.components.kueue_install
import gke_tpu.components.leader_worker_set_install
import gke_tpu.config.checkpointing.spec
import gke_tpu.config.cluster.spec
import gke_tpu.config.kueue.spec
import gke_tpu.config.model_storage.anywhere_cache
import gke_tpu.config.model_storage.spec
import gke_tpu.config.multihost.spec
import gke_tpu.config.network.spec
import gke_tpu.config.observability.spec
import gke_tpu.config.platform.spec
import gke_tpu.config.pools.slicing
import gke_tpu.config.pools.spec
import gke_tpu.workloads.args
import gke_tpu.workloads.model_conversion_job
import gke_tpu.workloads.multi_host_args
import gke_tpu.workloads.multislice_jobset
import gke_tpu.workloads.pathways_args
import gke_tpu.workloads.tpu_serving_deployment
import gke_tpu.workloads.vllm_args

PACKAGE = Path(gke_tpu.__file__).resolve().parent
#: The modules whose fields document a default (a test below keeps the list whole), imported
#: by name above so that the mutation pass runs this file for each of them.
MODULES: tuple[ModuleType, ...] = (
    gke_tpu.components.jobset_install,
    gke_tpu.components.kueue_install,
    gke_tpu.components.leader_worker_set_install,
    gke_tpu.config.checkpointing.spec,
    gke_tpu.config.cluster.spec,
    gke_tpu.config.kueue.spec,
    gke_tpu.config.network.spec,
    gke_tpu.config.observability.spec,
    gke_tpu.config.platform.spec,
    gke_tpu.config.pools.slicing,
    gke_tpu.config.pools.spec,
    gke_tpu.config.model_storage.anywhere_cache,
    gke_tpu.config.model_storage.spec,
    gke_tpu.config.multihost.spec,
    gke_tpu.workloads.args,
    gke_tpu.workloads.model_conversion_job,
    gke_tpu.workloads.multi_host_args,
    gke_tpu.workloads.multislice_jobset,
    gke_tpu.workloads.pathways_args,
    gke_tpu.workloads.tpu_serving_deployment,
    gke_tpu.workloads.vllm_args,
)
#: "default `X`", "Default: `X`", "default true", "default 1800", "default 86,400", "default 1-127",
#: "default v0.19.2".
_STATED = re.compile(
    r"\bdefault:?\s+(?:`([^`]+)`|(v\d+(?:\.\d+)+)|(true|false)\b|(\d[\d,_]*(?:\.\d+)?(?:-\d+)?)\b)",
    re.IGNORECASE,
)


@dataclasses.dataclass(frozen=True)
class Documented:
    where: str
    field: str
    stated: str
    parsed: Any


def _stated(docstring: str) -> Any:
    """The default a docstring states, or None when it states it in words or not at all."""
    match = _STATED.search(" ".join(docstring.split()))
    if match is None:
        return None
    text, version, boolean, number = match.groups()
    if version:
        return version
    if boolean:
        return boolean == "true"
    if number:
        digits = number.replace(",", "").replace("_", "")
        if "-" in digits:
            low, high = digits.split("-")
            return tuple(range(int(low), int(high) + 1))
        return float(digits) if "." in digits else int(digits)
    return text


def _documented(module: ModuleType) -> Iterator[tuple[type, str, str]]:
    """(class, field, docstring) of each field with a docstring and a default in the source."""
    tree = ast.parse(inspect.getsource(module))
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for field, doc in zip(node.body, node.body[1:], strict=False):
            if (
                isinstance(field, ast.AnnAssign)
                and isinstance(field.target, ast.Name)
                and field.value is not None
                and isinstance(doc, ast.Expr)
                and isinstance(doc.value, ast.Constant)
                and isinstance(doc.value.value, str)
            ):
                yield getattr(module, node.name), field.target.id, doc.value.value


def _default(cls: type, name: str) -> Any:
    if isinstance(cls, type) and issubclass(cls, BaseModel):
        return cls.model_fields[name].get_default(call_default_factory=True, validated_data={})
    field = {f.name: f for f in dataclasses.fields(cls)}[name]
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


def _same(stated: Any, default: Any) -> bool:
    if isinstance(default, tuple | list | frozenset) and len(default) == 1:
        (default,) = default
    if isinstance(stated, tuple):
        return stated == tuple(default)
    if isinstance(stated, bool) or isinstance(default, bool):
        return stated is default
    if isinstance(stated, int | float) and isinstance(default, int | float):
        return stated == default
    return str(stated) == str(getattr(default, "value", default))


def documented_defaults() -> list[tuple[Documented, Any]]:
    found: list[tuple[Documented, Any]] = []
    for module in MODULES:
        for cls, name, doc in _documented(module):
            stated = _stated(doc)
            default = _default(cls, name)
            if stated is not None and default is not None:
                where = f"{module.__name__}.{cls.__name__}"
                found.append((Documented(where, name, doc, stated), default))
    return found


def test_every_default_a_docstring_states_is_the_field_s_default() -> None:
    found = documented_defaults()

    wrong = [
        f"{d.where}.{d.field}: states {d.parsed!r}, is {default!r}"
        for d, default in found
        if not _same(d.parsed, default)
    ]
    assert wrong == []
    # The components' Args and every config section are read: a parse that found few would pass.
    assert len(found) >= 60
    assert {d.where.rsplit(".", 1)[0] for d, _ in found} == {m.__name__ for m in MODULES}


def test_the_comparison_tells_a_changed_default_from_its_statement() -> None:
    assert _stated("Where to mount; default `/models`.") == "/models"
    assert _stated("Mount it read-only; default true (a job mounts...).") is True
    assert _stated("Seconds; default 86,400 (a day).") == 86400
    assert _stated("Default: `RAPID`.") == "RAPID"
    assert _stated("The release; default v0.19.2.") == "v0.19.2"
    assert _stated("Exit codes; default 1-127.") == tuple(range(1, 128))
    assert _stated("The zones; default GKE's zones of the region.") is None
    assert _same("/models", "/models") and not _same("/models", "/modelsX")
    assert _same(True, True) and not _same(True, 1) and not _same(1, True)
    assert _same(5, 5) and not _same(5, 4) and not _same("5", 4)
    assert _same("default", ("default",)) and not _same("default", ("default", "x"))
    assert _same((1, 2), (1, 2)) and not _same((1, 2), (1, 2, 3))


def test_every_module_with_a_documented_default_is_read() -> None:
    stating: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
            for field, doc in zip(cls.body, cls.body[1:], strict=False):
                if (
                    isinstance(field, ast.AnnAssign)
                    and field.value is not None
                    and not (isinstance(field.value, ast.Constant) and field.value.value is None)
                    and isinstance(doc, ast.Expr)
                    and isinstance(doc.value, ast.Constant)
                    and isinstance(doc.value.value, str)
                    and _stated(doc.value.value) is not None
                ):
                    relative = path.relative_to(PACKAGE.parent).with_suffix("")
                    stating.add(".".join(relative.parts))
    assert stating <= {m.__name__ for m in MODULES}
