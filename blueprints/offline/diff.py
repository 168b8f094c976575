"""Compare two offline plans (base and head of a pull request): resources, replacements, cost, findings.

Without provider plugins the diff cannot ask a provider which changes force a replacement; it uses
the properties the provider schemas document as forcing replacement ("forces a new resource") for the
types that hold data. The real `pulumi preview` in the PR workflow remains the authority.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from ..errors import BlueprintError

COMMENT_MARKER = "<!-- gpu-cluster-blueprints:plan-diff -->"

# Data-holding types and the inputs whose change replaces them (pulumi-aws / pulumi-alicloud resource
# docs, properties marked as forcing replacement); replacing these destroys the data they hold.
DATA_STORES: dict[str, frozenset[str]] = {
    "aws:fsx/lustreFileSystem:LustreFileSystem": frozenset({
        "deploymentType", "storageType", "subnetIds", "kmsKeyId", "fileSystemTypeVersion", "securityGroupIds",
        "importPath", "exportPath", "driveCacheType"}),
    "aws:s3/bucket:Bucket": frozenset({"bucket", "bucketPrefix", "objectLockEnabled"}),
    "aws:ebs/volume:Volume": frozenset({"availabilityZone", "encrypted", "kmsKeyId", "snapshotId", "outpostArn"}),
    "aws:efs/fileSystem:FileSystem": frozenset({"encrypted", "kmsKeyId", "performanceMode", "creationToken",
                                                "availabilityZoneName"}),
    "aws:kms/key:Key": frozenset({"customerMasterKeySpec", "keySpec", "keyUsage", "multiRegion"}),
    "aws:cloudwatch/logGroup:LogGroup": frozenset({"name", "namePrefix"}),
    "alicloud:oss/bucket:Bucket": frozenset({"bucket", "redundancyType"}),
    "alicloud:nas/fileSystem:FileSystem": frozenset({"fileSystemType", "protocolType", "storageType", "encryptType",
                                                     "kmsKeyId", "zoneId", "vpcId", "vswitchId"}),
    "alicloud:log/store:Store": frozenset({"projectName", "logstoreName", "name"}),
}
# FSx for Lustre and CPFS can grow in place but never shrink: a smaller size is a new file system.
SHRINK_REPLACES = {"aws:fsx/lustreFileSystem:LustreFileSystem": "storageCapacity",
                   "alicloud:nas/fileSystem:FileSystem": "capacity"}


@dataclass
class Change:
    urn: str
    type: str
    name: str
    inputs: list[tuple[str, Any, Any]]  # (path, before, after)
    replaces: list[str] = field(default_factory=list)  # inputs that force a replacement of a data store
    protected: bool = False

    @property
    def destroys_data(self) -> bool:
        return bool(self.replaces)


@dataclass
class StackDiff:
    stack: str
    status: str  # changed | unchanged | added | removed
    added: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)
    changed: list[Change] = field(default_factory=list)
    hourly_before: float = 0.0
    hourly_after: float = 0.0
    hours_per_month: int = 730
    findings: list[dict[str, Any]] = field(default_factory=list)  # head's findings
    new_findings: list[dict[str, Any]] = field(default_factory=list)
    resolved_findings: list[dict[str, Any]] = field(default_factory=list)
    exit_code: int = 0

    @property
    def hourly_delta(self) -> float:
        return round(self.hourly_after - self.hourly_before, 4)

    @property
    def monthly_delta(self) -> float:
        return round(self.hourly_delta * self.hours_per_month, 2)

    @property
    def data_loss(self) -> list[str]:
        """Why data would be destroyed: replaced or removed data stores, worst first."""
        reasons = [f"{c.type} {c.name} would be REPLACED ({', '.join(c.replaces)} changed)"
                   + ("; it is protected, so `pulumi up` will stop" if c.protected else "")
                   for c in self.changed if c.destroys_data]
        reasons += [f"{r['type']} {r['name']} would be DELETED" for r in self.removed if r["type"] in DATA_STORES]
        return reasons


def load_plans(path: Path) -> dict[str, dict[str, Any]]:
    """A plan JSON file, or a bundle from `plan --all-stacks`: stack name -> plan."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BlueprintError(str(path), "no such file; pass plan JSON from `python -m blueprints plan --format json`")
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BlueprintError(str(path), f"not plan JSON ({error})")
    plans = data.get("plans", [data]) if isinstance(data, dict) else None
    if not isinstance(plans, list) or not all(isinstance(p, dict) and "stack" in p and "resources" in p for p in plans):
        raise BlueprintError(str(path), "not plan JSON: expected a plan (stack, resources...) or {plans: [...]}")
    return {p["stack"]: p for p in plans}


def _parsed(value: Any) -> Any:
    """Providers take policies and tag maps as JSON text; compare what the text means, not its key order."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _leaf_changes(before: Any, after: Any, path: str) -> Iterator[tuple[str, Any, Any]]:
    before, after = _parsed(before), _parsed(after)
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        for key in sorted(set(before) | set(after)):
            yield from _leaf_changes(before.get(key), after.get(key), f"{path}.{key}" if path else key)
    elif before != after:
        yield path, before, after


def _replacing(type_: str, before: Mapping[str, Any], after: Mapping[str, Any], changed: list) -> list[str]:
    keys = {path.split(".")[0] for path, _, _ in changed}
    forced = sorted(keys & DATA_STORES.get(type_, frozenset()))
    size_key = SHRINK_REPLACES.get(type_)
    if size_key and isinstance(before.get(size_key), (int, float)) and isinstance(after.get(size_key), (int, float)) \
            and after[size_key] < before[size_key]:
        forced.append(f"{size_key} shrinks")
    return forced


def _finding_key(finding: Mapping[str, Any]) -> tuple:
    return finding["policy"], finding.get("urn"), finding["message"]


def diff_stack(stack: str, base: Mapping[str, Any] | None, head: Mapping[str, Any] | None) -> StackDiff:
    if head is None:
        return StackDiff(stack, "removed", removed=list(base["resources"]),
                         hourly_before=base["cost"]["hourlyUsd"], hours_per_month=base["cost"]["hoursPerMonth"])
    before = {r["urn"]: r for r in (base or {}).get("resources", [])}
    after = {r["urn"]: r for r in head["resources"]}
    result = StackDiff(stack, "added" if base is None else "unchanged",
                       hourly_before=base["cost"]["hourlyUsd"] if base else 0.0, hourly_after=head["cost"]["hourlyUsd"],
                       hours_per_month=head["cost"]["hoursPerMonth"], findings=list(head["findings"]),
                       exit_code=head["exitCode"])
    result.added = [after[u] for u in after if u not in before]
    result.removed = [before[u] for u in before if u not in after]
    for urn in after.keys() & before.keys():
        old, new = before[urn], after[urn]
        changed = list(_leaf_changes(old["inputs"], new["inputs"], ""))
        if changed:
            result.changed.append(Change(urn, new["type"], new["name"], changed,
                                         _replacing(new["type"], old["inputs"], new["inputs"], changed),
                                         protected=bool(old.get("protect"))))
    result.changed.sort(key=lambda c: (not c.destroys_data, c.type, c.name))
    old_findings = {_finding_key(f) for f in (base or {}).get("findings", [])}
    new_findings = {_finding_key(f) for f in head["findings"]}
    result.new_findings = [f for f in head["findings"] if _finding_key(f) not in old_findings]
    result.resolved_findings = [f for f in (base or {}).get("findings", []) if _finding_key(f) not in new_findings]
    if base is not None and (result.added or result.removed or result.changed or result.hourly_delta
                             or result.new_findings or result.resolved_findings):
        result.status = "changed"
    return result


def diff_plans(base: Mapping[str, Mapping[str, Any]], head: Mapping[str, Mapping[str, Any]]) -> list[StackDiff]:
    return [diff_stack(s, base.get(s), head.get(s)) for s in sorted(set(base) | set(head))]
