"""Readiness: every service that uses the stack's KMS key is granted it in the key policy.

A launch template that encrypts node volumes with a key makes Auto Scaling use it (instances fail to start without
the grant); a Lustre data repository association on a bucket encrypted with a key makes FSx use it through S3 (lazy
load and export fail). The services and actions, with sources, are in catalog/key_users.py.
"""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from typing import Any, Iterable

from catalog.clouds import type_of
from catalog.key_users import AUTOSCALING, FSX_LINKED_BUCKET, KeyUser

from .engine import Registration
from .readiness import BLOCKING, WARNING, Finding

KEY = type_of("aws", "key")
LAUNCH_TEMPLATE = type_of("aws", "launch_template")
SSE = type_of("aws", "bucket_encryption")
ASSOCIATION = type_of("aws", "file_system_association")
SERVICE_LINKED_ROLE = type_of("aws", "service_linked_role")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _grants(policy: str, user: KeyUser) -> bool:
    """Whether an Allow statement naming the service's role (principal or aws:PrincipalArn) covers every action."""
    try:
        statements = json.loads(policy).get("Statement", [])
    except (TypeError, ValueError):
        return True  # an unknown policy (computed at `pulumi up`) cannot be judged here
    allowed: list[str] = []
    for st in statements if isinstance(statements, list) else [statements]:
        names = _strings(st.get("Principal")) + _strings((st.get("Condition") or {}).get("ArnLike", {}))
        if st.get("Effect") == "Allow" and any(user.role_marker in n for n in names):
            allowed += _strings(st.get("Action"))
    return all(any(fnmatchcase(action, a) for a in allowed) for action in user.actions)


def check(regs: Iterable[Registration]) -> list[Finding]:
    regs = list(regs)
    keys = {r.urn: r for r in regs if r.type == KEY}
    users: dict[str, dict[str, KeyUser]] = {}  # key URN -> why -> user
    for r in regs:
        if r.type == LAUNCH_TEMPLATE:
            for urn in r.property_dependencies.get("blockDeviceMappings", []):
                users.setdefault(urn, {})[f"node volumes of {r.name}"] = AUTOSCALING
    encrypted_by = {
        b: r.property_dependencies.get("rules", [])
        for r in regs
        if r.type == SSE
        for b in r.property_dependencies.get("bucket", [])
    }
    for r in regs:
        if r.type == ASSOCIATION:
            for bucket in r.property_dependencies.get("dataRepositoryPath", []):
                for urn in encrypted_by.get(bucket, []):
                    users.setdefault(urn, {})[f"the bucket {r.name} links"] = FSX_LINKED_BUCKET
    findings = _missing_roles(regs, keys)
    for urn, needs in users.items():
        key = keys.get(urn)
        if key is None:
            continue
        for why, user in sorted(needs.items(), key=lambda item: item[0]):
            if not _grants(key.inputs.get("policy"), user):
                findings.append(
                    Finding(
                        "key-policy-missing-service",
                        BLOCKING,
                        key.name,
                        f"{user.service} uses this key for {why}, but the key policy does not grant its role "
                        f"{', '.join(user.actions)} ({user.source})",
                        f"add a key policy statement for {user.role_marker}* with those actions, as the source gives",
                    )
                )
    return findings


def _missing_roles(regs: list[Registration], keys: dict[str, Registration]) -> list[Finding]:
    """KMS refuses a key policy naming a role that does not exist; the offline account is a new one, where Auto
    Scaling's service-linked role exists only if the plan creates it."""
    created = {str(r.inputs.get("awsServiceName")) for r in regs if r.type == SERVICE_LINKED_ROLE}
    if "autoscaling.amazonaws.com" in created:
        return []
    return [
        Finding(
            "key-policy-role-missing",
            WARNING,
            key.name,
            "the key policy names Auto Scaling's service-linked role and nothing in the plan creates it: in "
            "an account that never had an Auto Scaling group, creating the key fails (MalformedPolicyDocument)",
            "declare aws.iam.ServiceLinkedRole for autoscaling.amazonaws.com where the account lacks it, or "
            "create it once: aws iam create-service-linked-role --aws-service-name autoscaling.amazonaws.com",
        )
        for key in keys.values()
        if AUTOSCALING.role_marker in str(key.inputs.get("policy"))
    ]
