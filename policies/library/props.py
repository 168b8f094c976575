"""Reading properties the way providers send them (booleans as strings, JSON documents as text)."""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator, Mapping, Optional, Sequence

from pulumi_policy import PolicyResource

WORLD = ("0.0.0.0/0", "::/0")


def truthy(value: Any) -> bool:
    """pulumi-aws sends some booleans as strings (launch-template ``encrypted``, ``associatePublicIpAddress``)."""
    return value is True or (isinstance(value, str) and value.lower() == "true")


def items(value: Any) -> list[Any]:
    """A list-valued property, or an empty list when it is absent."""
    return list(value) if isinstance(value, Sequence) and not isinstance(value, str) else []


def document(value: Any) -> dict[str, Any]:
    """An IAM/RAM policy document given as JSON text or as an object."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return dict(value) if isinstance(value, Mapping) else {}


def statements(value: Any) -> list[Mapping[str, Any]]:
    stmts = document(value).get("Statement", [])
    return [stmts] if isinstance(stmts, Mapping) else [s for s in items(stmts) if isinstance(s, Mapping)]


def as_list(value: Any) -> list[Any]:
    return [value] if isinstance(value, str) else items(value)


def merged_tags(props: Mapping[str, Any], provider: Any) -> dict[str, str]:
    """The resource's tags plus its AWS provider's default tags (what the cloud will hold)."""
    tags: dict[str, str] = {}
    if provider is not None:
        default_tags = provider.props.get("defaultTags")
        default_tags = document(default_tags) if isinstance(default_tags, str) else (default_tags or {})
        tags.update(default_tags.get("tags") or {})
    raw = props.get("tags")
    if isinstance(raw, Mapping):
        tags.update(raw)
    return tags


def provider_region(resource_or_args: Any) -> Optional[str]:
    provider = getattr(resource_or_args, "provider", None)
    if provider is None:
        return None
    region = provider.props.get("region")
    return region if isinstance(region, str) else None


def of_type(resources: Iterable[PolicyResource], *types: str) -> list[PolicyResource]:
    return [r for r in resources if r.resource_type in types]


def attached(resource: PolicyResource, candidates: Iterable[PolicyResource], prop: str) -> list[PolicyResource]:
    """Candidates whose ``prop`` was computed from ``resource`` (bucket -> its encryption config...)."""
    return [c for c in candidates if any(d.urn == resource.urn for d in c.property_dependencies.get(prop, []))]


def aws_ingress(resource_type: str, props: Mapping[str, Any]) -> Iterator[tuple[int, int, str, list[str]]]:
    """(from port, to port, protocol, CIDRs) of every ingress an AWS security-group resource declares."""
    if resource_type == "aws:ec2/securityGroup:SecurityGroup":
        for rule in items(props.get("ingress")):
            yield (
                int(rule.get("fromPort", 0)),
                int(rule.get("toPort", 0)),
                str(rule.get("protocol", "-1")),
                as_list(rule.get("cidrBlocks")) + as_list(rule.get("ipv6CidrBlocks")),
            )
    elif resource_type == "aws:ec2/securityGroupRule:SecurityGroupRule" and props.get("type") == "ingress":
        yield (
            int(props.get("fromPort", 0)),
            int(props.get("toPort", 0)),
            str(props.get("protocol", "-1")),
            as_list(props.get("cidrBlocks")) + as_list(props.get("ipv6CidrBlocks")),
        )
    elif resource_type == "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule":
        cidrs = [c for c in (props.get("cidrIpv4"), props.get("cidrIpv6")) if c]
        yield (
            int(props.get("fromPort", 0) or 0),
            int(props.get("toPort", 65535) or 65535),
            str(props.get("ipProtocol", "-1")),
            cidrs,
        )


def alicloud_ingress(props: Mapping[str, Any]) -> Iterator[tuple[int, int, str, list[str]]]:
    """Ingress of an Alibaba Cloud security-group rule; ``portRange`` is "from/to", "-1/-1" for all."""
    if props.get("type") != "ingress" or props.get("policy", "accept") != "accept":
        return
    low, _, high = str(props.get("portRange", "-1/-1")).partition("/")
    low_port, high_port = (0, 65535) if low == "-1" else (int(low), int(high or low))
    cidrs = [c for c in (props.get("cidrIp"), props.get("ipv6CidrIp")) if c]
    yield low_port, high_port, str(props.get("ipProtocol", "all")), cidrs


AWS_INGRESS_TYPES = (
    "aws:ec2/securityGroup:SecurityGroup",
    "aws:ec2/securityGroupRule:SecurityGroupRule",
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
)

# Ports that administer a machine or a cluster; never open to the internet.
ADMIN_PORTS = {"22": "SSH", "3389": "RDP", "6443": "Kubernetes API", "10250": "kubelet", "2379": "etcd"}


def without(
    resources: Sequence[PolicyResource], owner_type: str, attached_type: str, prop: str
) -> list[PolicyResource]:
    """Resources of ``owner_type`` that no ``attached_type`` resource points at through ``prop``."""
    candidates = of_type(resources, attached_type)
    return [r for r in of_type(resources, owner_type) if not attached(r, candidates, prop)]
