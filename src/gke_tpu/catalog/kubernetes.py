"""Kubernetes' own value rules that its OpenAPI schemas do not carry, as the API server applies
them: names, label keys and values, ports, environment variable names, quantities and 32-bit
integers. Each `*_problem` says why a value is refused, or returns None. Pure.

The rules and their words are the API server's (kubernetes/kubernetes, in
staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go: IsDNS1123Label,
IsDNS1123Subdomain, IsDNS1035Label, IsValidPortNum, IsValidPortName, IsEnvVarName,
IsRelaxedEnvVarName, IsConfigMapKey; staging/src/k8s.io/apimachinery/pkg/api/validate/content:
IsLabelKey, IsLabelValue; staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go:
ParseQuantity), and pkg/apis/core/validation/validation.go says where each applies.
"""

from __future__ import annotations

import math
import re

from gke_tpu.catalog.quantity import parse_quantity
from gke_tpu.catalog.versions import version_key

DNS_LABEL_MAX = 63
DNS_SUBDOMAIN_MAX = 253
LABEL_VALUE_MAX = 63
#: IANA_SVC_NAME: a port's name (RFC 6335, lowercase only).
PORT_NAME_MAX = 15
PORTS = range(1, 65536)
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
#: KEP-4369 (RelaxedEnvironmentVariableValidation): alpha in 1.30, beta and on by default in
#: 1.32, GA in 1.34 (https://www.kubernetes.dev/resources/keps/4369/). Before it, an
#: environment variable's name is C_IDENTIFIER-like.
RELAXED_ENV_NAMES_FROM = "1.32"

_DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_LABEL_RE = re.compile(_DNS_LABEL)
_DNS_SUBDOMAIN_RE = re.compile(rf"{_DNS_LABEL}(\.{_DNS_LABEL})*")
_DNS1035_LABEL_RE = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_QUALIFIED_NAME_RE = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_LABEL_VALUE_RE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_ENV_NAME_RE = re.compile(r"[-._a-zA-Z][-._a-zA-Z0-9]*")
_CONFIG_KEY_RE = re.compile(r"[-._a-zA-Z0-9]+")
_PORT_NAME_RE = re.compile(r"[-a-z0-9]+")


def _text(value: object) -> str | None:
    return None if isinstance(value, str) else "is not text (a string)"


def dns_label_problem(value: object) -> str | None:
    """An RFC 1123 label: a namespace's, a container's or a volume's name."""
    if not isinstance(value, str):
        return _text(value)
    if len(value) > DNS_LABEL_MAX:
        return f"is {len(value)} characters long; at most {DNS_LABEL_MAX} are allowed"
    if not _DNS_LABEL_RE.fullmatch(value):
        return (
            "is not a lowercase RFC 1123 label: lowercase letters, digits and '-', starting and "
            "ending with a letter or digit (such as 'my-name')"
        )
    return None


def dns_subdomain_problem(value: object) -> str | None:
    """An RFC 1123 subdomain: most objects' names (a ServiceAccount's, a claim's, a Secret's)."""
    if not isinstance(value, str):
        return _text(value)
    if len(value) > DNS_SUBDOMAIN_MAX:
        return f"is {len(value)} characters long; at most {DNS_SUBDOMAIN_MAX} are allowed"
    if not _DNS_SUBDOMAIN_RE.fullmatch(value):
        return (
            "is not a lowercase RFC 1123 subdomain: lowercase letters, digits, '-' and '.', "
            "starting and ending with a letter or digit (such as 'example.com')"
        )
    return None


def dns1035_label_problem(value: object) -> str | None:
    """An RFC 1035 label: a Service's name."""
    if not isinstance(value, str):
        return _text(value)
    if len(value) > DNS_LABEL_MAX:
        return f"is {len(value)} characters long; at most {DNS_LABEL_MAX} are allowed"
    if not _DNS1035_LABEL_RE.fullmatch(value):
        return (
            "is not an RFC 1035 label: lowercase letters, digits and '-', starting with a letter "
            "and ending with a letter or digit (such as 'my-name')"
        )
    return None


def label_key_problem(value: object) -> str | None:
    """A label's or an annotation's key: a name of at most 63 characters, optionally after a
    DNS subdomain prefix and '/' (`app.kubernetes.io/name`)."""
    if not isinstance(value, str):
        return _text(value)
    prefix, slash, name = value.rpartition("/")
    if slash and (not prefix or "/" in prefix or dns_subdomain_problem(prefix)):
        return (
            f"has the prefix {prefix!r}, which is not a DNS subdomain of at most "
            f"{DNS_SUBDOMAIN_MAX} characters (such as 'example.com/')"
        )
    if not name:
        return "has an empty name: a key is a name, optionally after a prefix and '/'"
    if len(name) > LABEL_VALUE_MAX:
        return f"has a name of {len(name)} characters; at most {LABEL_VALUE_MAX} are allowed"
    if not _QUALIFIED_NAME_RE.fullmatch(name):
        return (
            "is not a qualified name: letters, digits, '-', '_' and '.', starting and ending "
            "with a letter or digit, optionally after a DNS subdomain and '/' (such as "
            "'example.com/MyName')"
        )
    return None


def label_value_problem(value: object) -> str | None:
    """A label's value (also a node selector's and a label selector's)."""
    if not isinstance(value, str):
        return _text(value)
    if len(value) > LABEL_VALUE_MAX:
        return f"is {len(value)} characters long; a label value is at most {LABEL_VALUE_MAX}"
    if not _LABEL_VALUE_RE.fullmatch(value):
        return (
            "is not a label value: empty, or letters, digits, '-', '_' and '.', starting and "
            "ending with a letter or digit"
        )
    return None


def port_problem(value: object) -> str | None:
    """A port number: a container's, a Service's, a probe's."""
    if type(value) is not int:
        return "is not a port number: a whole number from 1 to 65535"
    if value not in PORTS:
        return "is not a port number: 1 to 65535"
    return None


def port_name_problem(value: object) -> str | None:
    """A port's name (IANA_SVC_NAME): what a Service's target port or a probe may name."""
    if not isinstance(value, str):
        return _text(value)
    if (
        len(value) > PORT_NAME_MAX
        or not _PORT_NAME_RE.fullmatch(value)
        or not re.search("[a-z]", value)
        or "--" in value
        or value.startswith("-")
        or value.endswith("-")
    ):
        return (
            f"is not a port name: at most {PORT_NAME_MAX} lowercase letters, digits and '-', "
            "with a letter, no '--', neither starting nor ending with '-'"
        )
    return None


def port_or_name_problem(value: object) -> str | None:
    """A port given as a number or by name (an IntOrString port)."""
    return port_name_problem(value) if isinstance(value, str) else port_problem(value)


def relaxed_env_names(minor: str | None) -> bool:
    """Whether a cluster of `minor` takes any printable ASCII name but '=' (KEP-4369); None is
    a cluster of any supported minor, so the strict rule."""
    return minor is not None and version_key(minor) >= version_key(RELAXED_ENV_NAMES_FROM)


def env_name_problem(value: object, minor: str | None = None) -> str | None:
    """An environment variable's name, as a cluster of `minor` takes it."""
    if not isinstance(value, str):
        return _text(value)
    if relaxed_env_names(minor):
        if not value or any(not " " <= c <= "~" or c == "=" for c in value):
            return (
                "is not an environment variable name: printable ASCII characters other than "
                "'=', at least one"
            )
        return None
    if not _ENV_NAME_RE.fullmatch(value):
        return (
            "is not an environment variable name: letters, digits, '_', '-' and '.', not "
            f"starting with a digit (clusters before {RELAXED_ENV_NAMES_FROM} take no more)"
        )
    return _dot_prefix_problem(value)


def _dot_prefix_problem(value: str) -> str | None:
    if value in (".", "..") or value.startswith(".."):
        return "must not be '.' or '..', nor start with '..'"
    return None


def config_key_problem(value: object) -> str | None:
    """A key of a Secret or a ConfigMap."""
    if not isinstance(value, str):
        return _text(value)
    if len(value) > DNS_SUBDOMAIN_MAX or not _CONFIG_KEY_RE.fullmatch(value):
        return (
            f"is not a Secret key: letters, digits, '-', '_' and '.', at most "
            f"{DNS_SUBDOMAIN_MAX} characters"
        )
    return _dot_prefix_problem(value)


def quantity_problem(value: object) -> str | None:
    """A resource quantity: a number, or text such as `100Gi`, `500m` or `1e3`."""
    if isinstance(value, bool):
        return "is not a quantity: a number, or text such as '100Gi', '500m' or '1e3'"
    if isinstance(value, int | float):
        return None if math.isfinite(value) else "is not a finite number"
    if not isinstance(value, str) or parse_quantity(value) is None:
        return "is not a quantity: a number, or text such as '100Gi', '500m' or '1e3'"
    return None


def int32_problem(value: object) -> str | None:
    """A field the API holds in 32 bits (replicas, backoffLimit, a probe's thresholds)."""
    if type(value) is int and not INT32_MIN <= value <= INT32_MAX:
        return f"is out of range of a 32-bit integer: {INT32_MIN} to {INT32_MAX}"
    return None


def int64_problem(value: object) -> str | None:
    """A field the API holds in 64 bits (terminationGracePeriodSeconds)."""
    if type(value) is int and not INT64_MIN <= value <= INT64_MAX:
        return f"is out of range of a 64-bit integer: {INT64_MIN} to {INT64_MAX}"
    return None
