"""Strings a cloud accepts: checked in the plan, so a PR fails there and not at `pulumi up`.

Every string of a stack's cluster object (keys too) is refused when it holds control characters
(newlines, NUL, escapes) or Unicode bidirectional controls, which can make a reviewed value read
differently from what is deployed ("Trojan Source", CVE-2021-42574). Tags, which this project puts
on every resource, get the cloud's own rules:

- AWS: key 1-128 characters, value 0-256; letters, digits, spaces and ``_ . : / = + - @``; no ``aws:``
  prefix in any case. https://docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html
  ("Tag naming limits and requirements").
- Alibaba Cloud: tags also land on the OSS bucket, whose rules are the strictest: key 1-64 bytes,
  value 0-128 bytes; a key may not start with ``aliyun``, ``acs:``, ``http://`` or ``https://``.
  https://www.alibabacloud.com/help/en/oss/user-guide/0010-00000207 (and 0010-00000219).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Callable, Iterator

MAX_STRING = 1024  # no field of the spec needs more; tag values are far shorter
# Bidirectional formatting characters (Unicode UAX #9): embeddings, overrides, isolates, marks.
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
AWS_TAG_CHARS = re.compile(r"^[\w\s.:/=+\-@]*$")  # \w: Unicode letters and digits (and _)


def _bad_character(text: str) -> str | None:
    for ch in text:
        if ch in BIDI:
            return f"a bidirectional control character (U+{ord(ch):04X})"
        category = unicodedata.category(ch)
        if category == "Cc":
            return f"a control character ({ch!r})"
        if category == "Cs":
            return "an unpaired surrogate"
    return None


def text_problems(value: Any, path: str = "cluster") -> Iterator[str]:
    """``"<field>: <problem>; <what is allowed>"`` for every unacceptable string under ``value``."""
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}"
            if isinstance(key, str):
                bad = _bad_character(key)
                if bad:
                    yield f"{path}: key {key!r} contains {bad}; keys are printable text on one line"
                    continue
            yield from text_problems(item, where)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from text_problems(item, f"{path}[{index}]")
    elif isinstance(value, str):
        bad = _bad_character(value)
        if bad:
            yield f"{path}: contains {bad}; values are printable text on one line"
        elif len(value) > MAX_STRING:
            yield f"{path}: {len(value)} characters; at most {MAX_STRING}"


def tag_problems(cloud: Any, tags: Any) -> Iterator[str]:
    """What the cloud would reject in ``tags`` (a mapping of strings; other shapes are pydantic's).

    Too many tags is the one problem reported then: 10,000 tags would otherwise be 10,000 lines (and a plan that
    carries them onto every resource runs for minutes)."""
    rules = _TAG_RULES.get(cloud) if isinstance(cloud, str) else None
    if not isinstance(tags, dict) or rules is None:
        return
    limit, per, added = _TAG_COUNTS[cloud]
    total = len(set(tags) | set(added))
    if total > limit:
        yield (
            f"cluster.tags: {len(tags)} tags; with the ones the blueprint adds to some resources "
            f"({', '.join(added)}) a resource would carry {total}, and {_CLOUD_NAMES[cloud]} allows {limit} per "
            f"{per}: at most {limit - len(added)} tags of your own"
        )
        return
    for key, value in tags.items():
        if not isinstance(key, str) or not isinstance(value, str) or _bad_character(key + value):
            continue  # reported elsewhere
        yield from rules(f"cluster.tags.{key}", key, value)


def _aws_tag(where: str, key: str, value: str) -> Iterator[str]:
    if not 1 <= len(key) <= 128:
        yield f"{where}: tag key has {len(key)} characters; AWS allows 1-128"
    if len(value) > 256:
        yield f"{where}: tag value has {len(value)} characters; AWS allows at most 256"
    for text, what in ((key, "key"), (value, "value")):
        if not AWS_TAG_CHARS.match(text):
            yield (
                f"{where}: tag {what} {text[:40]!r} has characters AWS refuses; allowed: letters, "
                "digits, spaces and _ . : / = + - @"
            )
        if text.lower().startswith("aws:"):
            yield f"{where}: tag {what} starts with 'aws:', which AWS reserves"


def _alicloud_tag(where: str, key: str, value: str) -> Iterator[str]:
    if not 1 <= len(key.encode()) <= 64:
        yield f"{where}: tag key is {len(key.encode())} bytes; Alibaba Cloud (OSS) allows 1-64"
    if len(value.encode()) > 128:
        yield f"{where}: tag value is {len(value.encode())} bytes; Alibaba Cloud (OSS) allows at most 128"
    if key.lower().startswith(("aliyun", "acs:", "http://", "https://")):
        yield f"{where}: tag key may not start with aliyun, acs:, http:// or https:// on Alibaba Cloud"


# Tags per resource, and the keys the blueprint adds to the stack's own on the resource that carries the most:
# every resource gets `environment` and `managed-by` (ClusterSpec.project_tags) and, from the cluster component,
# `gpu-cluster` (components/aws/cluster.py, components/alicloud/cluster.py); AWS subnets add `Name` and one
# `kubernetes.io/role/...` (components/aws/network.py); an OSS bucket a CPFS data flow reads adds `cpfs-dataflow`
# (components/alicloud/storage.py). tests/test_cli_crashes.py plans a stack at each limit and checks the count.
# - AWS: "Maximum number of tags per resource – 50" (aws:-prefixed ones, refused above, do not count),
#   https://docs.aws.amazon.com/batch/latest/userguide/tag-restrictions.html (the shared tagging rules).
# - Alibaba Cloud: "Each bucket supports up to 20 tags" (OSS PutBucketTags, the strictest of the services tagged),
#   https://www.alibabacloud.com/help/en/oss/developer-reference/putbuckettags.
_TAG_COUNTS: dict[str, tuple[int, str, tuple[str, ...]]] = {
    "aws": (50, "resource", ("environment", "managed-by", "gpu-cluster", "Name", "kubernetes.io/role/internal-elb")),
    "alicloud": (20, "OSS bucket", ("environment", "managed-by", "gpu-cluster", "cpfs-dataflow")),
}
_CLOUD_NAMES = {"aws": "AWS", "alicloud": "Alibaba Cloud"}

# Each cloud's tag rules differ in kind (characters and a character set on AWS, bytes and reserved prefixes on
# Alibaba Cloud), so each is a function; a cloud without an entry has its tags checked by the provider only.
_TAG_RULES: dict[str, Callable[[str, str, str], Iterator[str]]] = {"aws": _aws_tag, "alicloud": _alicloud_tag}
