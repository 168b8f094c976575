"""Spotting credentials written into user data and environment variables.

User data and Lambda environment variables are readable by anyone who may describe the instance or
function (ec2:DescribeInstanceAttribute, lambda:GetFunctionConfiguration) and are kept in plain text,
so a secret there leaks (Checkov CKV_AWS_45 and CKV_AWS_46 flag the same). We look for well-known key
formats and for assignments to names that mean a secret; a reference to a secret store is fine.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Iterator, Mapping

# Key formats with fixed prefixes: AWS access key ids (AWS IAM user guide, "Understanding unique ID
# prefixes": AKIA long-term, ASIA temporary), PEM private keys, GitHub tokens (ghp_/gho_/ghs_/ghu_/ghr_),
# Slack tokens (xox?-), Alibaba Cloud AccessKey ids (LTAI).
KEY_PATTERNS = {
    "an AWS access key id": re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),
    "a private key": re.compile(r"-----BEGIN (RSA |EC |OPENSSH |DSA )?PRIVATE KEY-----"),
    "a GitHub token": re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    "a Slack token": re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    "an Alibaba Cloud AccessKey id": re.compile(r"\bLTAI[0-9A-Za-z]{12,20}\b"),
}
SECRET_NAME = re.compile(
    r"(password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential)", re.IGNORECASE
)
ASSIGNMENT = re.compile(r"""(?P<name>[A-Za-z_][A-Za-z0-9_\-]*)\s*[=:]\s*["']?(?P<value>[^\s"'$`]{8,})""")
# Values that point at a secret store rather than hold the secret.
REFERENCE = re.compile(r"^(arn:|acs:|\{\{resolve:|ssm:|secretsmanager:|kms:|/)", re.IGNORECASE)


def decoded(text: Any, base64_encoded: bool = False) -> str:
    """User data as text; launch templates carry it base64-encoded."""
    if not isinstance(text, str):
        return ""
    if base64_encoded:
        try:
            return base64.b64decode(text, validate=True).decode("utf-8", errors="replace")
        except (binascii.Error, ValueError):
            return text
    return text


def in_text(text: str) -> Iterator[str]:
    """What kind of secret ``text`` seems to hold, once per kind."""
    for kind, pattern in KEY_PATTERNS.items():
        if pattern.search(text):
            yield kind
    for match in ASSIGNMENT.finditer(text):
        if SECRET_NAME.search(match["name"]) and not REFERENCE.match(match["value"]):
            yield f"a value assigned to {match['name']}"
            break


def in_variables(variables: Mapping[str, Any]) -> Iterator[str]:
    """Environment variables whose name means a secret and whose value is a literal, or whose value is a key."""
    for name, value in sorted(variables.items()):
        value = value if isinstance(value, str) else ""
        if any(p.search(value) for p in KEY_PATTERNS.values()):
            yield name
        elif SECRET_NAME.search(name) and len(value) >= 8 and not REFERENCE.match(value):
            yield name


def user_data_secrets(props: Mapping[str, Any]) -> Iterator[str]:
    """A message per secret in an instance's or launch configuration's user data (plain `userData` or
    `userDataBase64`); launch templates carry only base64 `userData`, so they pass it to ``in_text`` themselves."""
    text = decoded(props.get("userData")) + "\n" + decoded(props.get("userDataBase64"), base64_encoded=True)
    for kind in in_text(text):
        yield f"user data holds {kind}; fetch it at boot from Secrets Manager or SSM Parameter Store"
