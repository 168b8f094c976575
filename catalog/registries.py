"""Which registries a cluster in a region can pull images and charts from (registries.yaml), as typed rows and one
lookup, so the readiness check warns before `pulumi up` stalls on an image pull (issue #30)."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path
from typing import Literal, Optional

from .yamlfile import load_yaml

REGISTRIES_FILE = Path(__file__).with_name("registries.yaml")
Status = Literal["reachable", "unreliable", "unreachable"]
# A mirror: a registry host (a dotted name, an optional port) and an optional path of lowercase components, as the
# OCI distribution spec spells repository names; no scheme, no tag, no trailing slash.
MIRROR = re.compile(
    r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+(:[0-9]{1,5})?(/[a-z0-9]+([._-][a-z0-9]+)*)*$"
)


# Addresses that answer on every node and are never a registry: a mirror there would send the platform's pulls (and
# the registry credentials kubelet attaches) to the instance metadata service.
# - AWS IMDS: 169.254.169.254 and fd00:ec2::254, "link-local addresses ... valid only from the instance"
#   (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html).
# - Alibaba Cloud ECS metadata: 100.100.100.200 (https://www.alibabacloud.com/help/en/ecs/user-guide/view-instance-metadata).
METADATA_ADDRESSES = {
    "169.254.169.254": "the AWS instance metadata service",
    "fd00:ec2::254": "the AWS instance metadata service",
    "100.100.100.200": "the Alibaba Cloud instance metadata service",
}


def not_a_registry(host: str) -> Optional[str]:
    """Why ``host`` (an IP literal) cannot be a registry mirror: metadata, link-local, loopback or unspecified."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None  # a name: resolved where the nodes run, not here
    if str(address) in METADATA_ADDRESSES:
        return f"{host} is {METADATA_ADDRESSES[str(address)]}"
    if address.is_link_local:
        return f"{host} is link-local (169.254.0.0/16): it answers on the node itself, never a registry"
    if address.is_loopback:
        return f"{host} is loopback: inside a node it is the node, not a registry"
    if address.is_unspecified:
        return f"{host} is the unspecified address"
    return None


@dataclass(frozen=True)
class Reach:
    pattern: str
    origin: str  # a region group, same-region or any
    status: Status
    source: str  # the source's text, not its key
    certainty: Literal["recorded", "uncertain"] = "recorded"


@lru_cache(maxsize=1)
def _facts() -> dict:
    return load_yaml(REGISTRIES_FILE)


def rows() -> list[Reach]:
    facts = _facts()
    return [
        Reach(r["pattern"], r["from"], r["status"], facts["sources"][r["source"]], r.get("certainty", "recorded"))
        for r in facts["hosts"]
    ]


def in_group(group: str, cloud: str, region: str) -> bool:
    rule = _facts()["regions"][group].get(cloud)
    return bool(rule) and fnmatchcase(region, rule["match"]) and region not in rule["except"]


def reach(host: str, cloud: str, region: str) -> Optional[Reach]:
    """What the catalog records about pulling from `host` in `region`; None when it records nothing."""
    for row in rows():
        pattern = row.pattern.replace("{region}", region)
        if not fnmatchcase(host, pattern):
            continue
        if row.origin in ("same-region", "any") or in_group(row.origin, cloud, region):
            return row
    return None
