"""What the cloud would answer, offline: ids and computed outputs for resources, data-source results.

Only the outputs our programs read are filled in; an invoke we have not taught the mocks
fails loudly rather than returning something made up.
"""

from __future__ import annotations

import hashlib
from typing import Any, Callable

from pulumi.runtime import mocks as pulumi_mocks

from catalog.clouds import cloud_of_package, type_of

ACCOUNT_ID = "123456789012"


def _fake_id(kind: str, name: str) -> str:
    return f"{kind}-{hashlib.sha1(name.encode()).hexdigest()[:17]}"


# Ids whose format another object's schema checks: Karpenter's EC2NodeClass wants security group ids as EC2 writes
# them (securityGroupSelectorTerms[].id pattern `sg-[0-9a-z]+`, karpenter.k8s.aws_ec2nodeclasses.yaml at v1.14.1).
_ID_KINDS = {type_of("aws", "security_group"): "sg"}


class OfflineMocks(pulumi_mocks.Mocks):
    def __init__(self, region: str):
        self.region = region
        self.partition = "aws-cn" if region.startswith("cn-") else "aws"
        self.zones = [f"{region}{suffix}" for suffix in "abcd"]
        # The zones that sell every instance type, in the order the offerings data source lists them.
        self.offered_zones = self.zones[:3]
        self.alicloud_zones = [f"{region}-{suffix}" for suffix in ("h", "i", "j")]

    # ---------------------------------------------------------------- resources
    def new_resource(self, args: pulumi_mocks.MockResourceArgs) -> tuple[str, dict]:
        state = dict(args.inputs)
        token = args.typ
        if token.startswith("pulumi:providers:"):
            return _fake_id("provider", args.name), state
        package, module, kind = (token.split(":") + ["", ""])[:3]
        resource_id = _fake_id(_ID_KINDS.get(token) or kind.lower()[:8] or "res", args.name)
        cloud = cloud_of_package(package)
        if cloud is not None and cloud.resource_arn:
            state.setdefault(
                "arn",
                cloud.resource_arn.format(
                    partition=self.partition,
                    service=module.split("/")[0],
                    region=self.region,
                    account=ACCOUNT_ID,
                    kind=kind.lower(),
                    name=args.name,
                ),
            )
        if cloud is not None and cloud.provider_tags_all:
            state.setdefault("tagsAll", state.get("tags", {}))
        for fill in _AWS_OUTPUTS.get(token, ()):
            fill(self, args, state)
        return resource_id, state

    # ---------------------------------------------------------------- data sources
    def call(self, args: pulumi_mocks.MockCallArgs) -> tuple[dict, list | None]:
        handler = _INVOKES.get(args.token)
        if handler is None:
            raise NotImplementedError(
                f"offline mocks do not answer the invoke {args.token}; teach blueprints/offline/mocks.py"
            )
        answer = handler(self, args.args)
        return answer if isinstance(answer, tuple) else (answer, [])  # (outputs, failures) as a provider says them


def _no_detector(mocks: OfflineMocks, args) -> tuple[dict, list]:
    return {}, [("", "reading this account's single GuardDuty Detector: empty result")]


def _named_bucket(mocks: OfflineMocks, args, state: dict) -> None:
    name = state.get("bucket") or f"{args.name}-{hashlib.sha1(args.name.encode()).hexdigest()[:7]}"
    state["bucket"] = name
    state["arn"] = f"arn:{mocks.partition}:s3:::{name}"


def _eks_cluster(mocks: OfflineMocks, args, state: dict) -> None:
    issuer = (
        f"https://oidc.eks.{mocks.region}.amazonaws.com/id/{hashlib.sha1(args.name.encode()).hexdigest()[:32].upper()}"
    )
    state["identities"] = [{"oidcs": [{"issuer": issuer}]}]
    state["endpoint"] = (
        f"https://{hashlib.sha1(args.name.encode()).hexdigest()[:32].upper()}.gr7.{mocks.region}.eks.amazonaws.com"
    )
    state["certificateAuthority"] = {"data": "LS0tLS1CRUdJTi1DRVJUSUZJQ0FURS0tLS0t"}
    vpc = dict(state.get("vpcConfig") or {})
    vpc["clusterSecurityGroupId"] = _fake_id("sg", args.name + "-cluster")
    state["vpcConfig"] = vpc


def _kms_key(mocks: OfflineMocks, args, state: dict) -> None:
    key_id = hashlib.sha1(args.name.encode()).hexdigest()[:32]
    state["keyId"] = key_id
    state["arn"] = f"arn:{mocks.partition}:kms:{mocks.region}:{ACCOUNT_ID}:key/{key_id}"


def _log_group(mocks: OfflineMocks, args, state: dict) -> None:
    name = state.get("name") or f"{args.name}-{hashlib.sha1(args.name.encode()).hexdigest()[:7]}"
    state["name"] = name
    state["arn"] = f"arn:{mocks.partition}:logs:{mocks.region}:{ACCOUNT_ID}:log-group:{name}"


def _iam_role(mocks: OfflineMocks, args, state: dict) -> None:
    """A role's ARN holds its path: arn:aws:iam::<account>:role/<path>/<name> (IAM User Guide, IAM identifiers:
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html), which policies matching roles by
    path (aws:PrincipalArn) rely on."""
    name = state.get("name") or f"{args.name}-{hashlib.sha1(args.name.encode()).hexdigest()[:7]}"
    state["name"] = name
    state["arn"] = f"arn:{mocks.partition}:iam::{ACCOUNT_ID}:role{state.get('path') or '/'}{name}"


def _sns_topic(mocks: OfflineMocks, args, state: dict) -> None:
    """A topic's ARN is arn:aws:sns:<region>:<account>:<name>, no resource kind before the name (SNS API reference,
    CreateTopic: https://docs.aws.amazon.com/sns/latest/api/API_CreateTopic.html)."""
    name = state.get("name") or f"{args.name}-{hashlib.sha1(args.name.encode()).hexdigest()[:7]}"
    state["name"] = name
    state["arn"] = f"arn:{mocks.partition}:sns:{mocks.region}:{ACCOUNT_ID}:{name}"


def _node_group(mocks: OfflineMocks, args, state: dict) -> None:
    """EKS names the group's Auto Scaling group eks-<node group>-<uuid>."""
    name = state.setdefault("nodeGroupName", args.name)
    uuid = hashlib.sha1(args.name.encode()).hexdigest()
    state["resources"] = [
        {
            "autoscalingGroups": [{"name": f"eks-{name}-{uuid[:8]}-{uuid[8:12]}-{uuid[12:16]}"}],
            "remoteAccessSecurityGroupId": "",
        }
    ]


_AWS_OUTPUTS: dict[str, tuple[Callable[[OfflineMocks, Any, dict], None], ...]] = {
    type_of("aws", "bucket"): (_named_bucket,),
    type_of("aws", "cluster"): (_eks_cluster,),
    type_of("aws", "key"): (_kms_key,),
    type_of("aws", "log_sink"): (_log_group,),
    type_of("aws", "role"): (_iam_role,),
    type_of("aws", "alert_topic"): (_sns_topic,),
    type_of("aws", "launch_template"): (lambda m, a, s: s.setdefault("latestVersion", 1),),
    type_of("aws", "placement_group"): (lambda m, a, s: s.setdefault("name", a.name),),
    type_of("aws", "file_system"): (
        lambda m, a, s: s.setdefault(
            "dnsName", f"fs-{hashlib.sha1(a.name.encode()).hexdigest()[:17]}.fsx.{m.region}.amazonaws.com"
        ),
        lambda m, a, s: s.setdefault("mountName", hashlib.sha1(a.name.encode()).hexdigest()[:8]),
    ),
    type_of("aws", "node_group"): (_node_group,),
    type_of("aws", "budget"): (lambda m, a, s: s.setdefault("name", a.name),),
    type_of("alicloud", "nat_gateway"): (lambda m, a, s: s.setdefault("snatTableIds", _fake_id("stb", a.name)),),
    type_of("alicloud", "file_system_fileset"): (lambda m, a, s: s.setdefault("filesetId", _fake_id("fset", a.name)),),
    # A stand-in of the asked length, never a real credential (the provider generates it at `pulumi up`).
    "random:index/randomPassword:RandomPassword": (
        lambda m, a, s: s.setdefault("result", "x" * int(s.get("length", 16))),
    ),
    type_of("alicloud", "eip_address"): (lambda m, a, s: s.setdefault("ipAddress", "47.96.0.10"),),
    type_of("alicloud", "role"): (
        lambda m, a, s: s.setdefault("arn", f"acs:ram::1234567890123456:role/{s.get('roleName', a.name)}"),
    ),
}


def _zones(mocks: OfflineMocks, _args: dict) -> dict:
    return {"id": mocks.region, "names": mocks.zones, "zoneIds": [f"use1-az{i}" for i in range(1, 5)]}


def _offerings(mocks: OfflineMocks, args: dict) -> dict:
    types = [v for f in args.get("filters", []) if f.get("name") == "instance-type" for v in f.get("values", [])]
    locations = list(mocks.offered_zones)
    return {
        "id": mocks.region,
        "locations": locations * len(types),
        "locationTypes": ["availability-zone"] * len(locations) * len(types),
        "instanceTypes": [t for t in types for _ in locations],
    }


def _ssm_parameter(mocks: OfflineMocks, args: dict) -> dict:
    name = args["name"]
    value = "1.35.0-20261110" if name.endswith("release_version") else "ami-0abcdef1234567890"
    return {
        "id": name,
        "name": name,
        "type": "String",
        "value": value,
        "insecureValue": value,
        "arn": f"arn:{mocks.partition}:ssm:{mocks.region}::parameter{name}",
        "version": 1,
        "withDecryption": True,
    }


def _ali_zones(mocks: OfflineMocks, args: dict) -> dict:
    zones = list(mocks.alicloud_zones)
    return {"id": mocks.region, "ids": zones, "zones": [{"id": z, "localName": z} for z in zones]}


_INVOKES: dict[str, Callable[[OfflineMocks, dict], dict]] = {
    "alicloud:index/getAccount:getAccount": lambda m, a: {"id": "1234567890123456"},
    "alicloud:index/getZones:getZones": _ali_zones,
    # Offline placeholders in ACK's version format; the real data source lists what the region offers.
    "alicloud:cs/getKubernetesVersion:getKubernetesVersion": lambda m, a: {
        "metadatas": [
            {"version": v, "runtimes": [{"name": "containerd", "version": "1.6.38"}]}
            for v in ("1.33.3-aliyun.1", "1.34.1-aliyun.1", "1.35.1-aliyun.1", "1.35.2-aliyun.1", "1.36.1-aliyun.1")
        ]
    },
    "alicloud:cs/getClusterCredential:getClusterCredential": lambda m, a: {
        "clusterId": a.get("clusterId"),
        "kubeConfig": "apiVersion: v1\nkind: Config\n# offline placeholder\n",
    },
    "aws:index/getCallerIdentity:getCallerIdentity": lambda m, a: {
        "id": ACCOUNT_ID,
        "accountId": ACCOUNT_ID,
        "userId": "AIDAEXAMPLE",
        "arn": f"arn:{m.partition}:iam::{ACCOUNT_ID}:user/offline-plan",
    },
    "aws:index/getPartition:getPartition": lambda m, a: {
        "id": m.partition,
        "partition": m.partition,
        "dnsSuffix": "amazonaws.com",
        "reverseDnsPrefix": "com.amazonaws",
    },
    "aws:index/getAvailabilityZones:getAvailabilityZones": _zones,
    "aws:ec2/getInstanceTypeOfferings:getInstanceTypeOfferings": _offerings,
    "aws:ssm/getParameter:getParameter": _ssm_parameter,
    # The offline account is a new one: no GuardDuty detector (the data source fails, as it does in AWS) and no
    # Auto Scaling service-linked role, so the plan shows everything a stack may create there.
    "aws:guardduty/getDetector:getDetector": _no_detector,
    # Nor a Security Center instance (the data source answers an empty list), so the plan shows the one it creates.
    "alicloud:threatdetection/getInstances:getInstances": lambda m, a: {"id": "none", "ids": [], "instances": []},
    "aws:iam/getRoles:getRoles": lambda m, a: {"id": m.region, "arns": [], "names": []},
}
