"""Shared reading of IAM and RAM policy documents."""

from __future__ import annotations

from typing import Any, Iterator

from .props import as_list, statements

# Actions that let a principal grant itself more: Rhino Security Labs, "AWS IAM Privilege
# Escalation - Methods and Mitigation" (https://rhinosecuritylabs.com/aws/aws-privilege-escalation-methods-mitigation/),
# the list cloudsplaining also flags.
AWS_ESCALATION = frozenset(
    a.lower()
    for a in (
        "iam:CreatePolicyVersion",
        "iam:SetDefaultPolicyVersion",
        "iam:CreateAccessKey",
        "iam:CreateLoginProfile",
        "iam:UpdateLoginProfile",
        "iam:AttachUserPolicy",
        "iam:AttachGroupPolicy",
        "iam:AttachRolePolicy",
        "iam:PutUserPolicy",
        "iam:PutGroupPolicy",
        "iam:PutRolePolicy",
        "iam:AddUserToGroup",
        "iam:UpdateAssumeRolePolicy",
        "iam:PassRole",
    )
)
# The RAM equivalents: granting policies, minting keys, changing who may assume a role.
RAM_ESCALATION = frozenset(
    a.lower()
    for a in (
        "ram:AttachPolicyToUser",
        "ram:AttachPolicyToRole",
        "ram:AttachPolicyToGroup",
        "ram:CreatePolicyVersion",
        "ram:SetDefaultPolicyVersion",
        "ram:CreateAccessKey",
        "ram:CreateLoginProfile",
        "ram:UpdateLoginProfile",
        "ram:AddUserToGroup",
        "ram:UpdateRole",
        "ram:PassRole",
    )
)


def allowed_actions(document: Any) -> Iterator[tuple[str, list[str]]]:
    """(action, resources) for every Allow statement's actions."""
    for statement in statements(document):
        if statement.get("Effect") != "Allow":
            continue
        resources = [str(r) for r in as_list(statement.get("Resource"))]
        for action in as_list(statement.get("Action")):
            yield str(action), resources


def wildcard_actions(document: Any) -> list[str]:
    """Actions that are '*' or end in a wildcard service-wide ('s3:*', 'ecs:Describe*' is fine)."""
    found = []
    for action, _ in allowed_actions(document):
        if action == "*" or action.endswith(":*"):
            found.append(action)
    for statement in statements(document):
        if statement.get("Effect") == "Allow" and "NotAction" in statement:
            found.append("NotAction (allows everything not listed)")
    return found


def escalations(document: Any, dangerous: frozenset[str]) -> list[str]:
    """Dangerous actions granted on every resource ('*'), the form that allows escalation."""
    return sorted(
        {
            a
            for a, resources in allowed_actions(document)
            if a.lower() in dangerous and any(r == "*" or r.endswith(":*") for r in resources)
        }
    )


def principals(statement: Any, kind: str) -> list[str]:
    """The ``kind`` principals ("AWS", "Service", "Federated", "RAM") of a statement; "*" for a bare '*'."""
    principal = statement.get("Principal")
    if principal == "*" or principal == ["*"]:
        return ["*"]
    if isinstance(principal, dict):
        return [str(p) for p in as_list(principal.get(kind))]
    return [str(p) for p in as_list(principal)] if kind in ("AWS", "RAM") else []


def is_public(statement: Any) -> bool:
    """An Allow to everyone ('*' or {"AWS": "*"}) with no condition that narrows it."""
    if statement.get("Effect") != "Allow" or statement.get("Condition"):
        return False
    return any("*" in principals(statement, kind) for kind in ("AWS", "RAM"))


def wildcard_principal_grants(document: Any) -> list[str]:
    """Sids (or positions) of Allow statements whose principal is everyone and that no condition narrows."""
    return [str(s.get("Sid") or f"statement {i}") for i, s in enumerate(statements(document)) if is_public(s)]
