"""What to edit for a finding: the stack-file field when one of our components made the resource.

Policy rules judge any Pulumi program, so they speak in resource inputs ("retentionInDays") and
know nothing of stack files (the library imports nothing of ours). A reviewer of this project's
pull requests edits a stack file, not a resource, so the offline plan adds the field that fixes
each finding here, keyed by rule name: rules other engineers add need no edit to be reported, and
are simply shown with their remediation until a line is added below.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

# Type tokens of this project's components in a URN: the component packages' (gpu-blueprints-aws:index:...) and,
# in plans made before they were renamed, the old ones (gpu-blueprints:aws:...).
COMPONENT_PREFIXES = (
    "gpu-blueprints-aws:",
    "gpu-blueprints-alicloud:",
    "gpu-blueprints-kubernetes:",
    "gpu-blueprints:",
)


@dataclass(frozen=True)
class Fix:
    stack_field: Optional[str]  # written as in the stack file; {group} is the node group's name
    resource_input: Optional[str] = None  # what to set when the resource is not from our components


FIXES: dict[str, Fix] = {
    "aws-cloudwatch-log-group-retention": Fix("logging.retentionDays: 365", "retentionInDays"),
    "alicloud-log-store-retention": Fix("logging.retentionDays: 365", "retentionPeriod"),
    "aws-eks-cluster-private-endpoint": Fix(
        "networking.publicApi: false (or networking.publicApiCidrs: [<your CIDRs>])",
        "vpcConfig.endpointPublicAccess / vpcConfig.publicAccessCidrs",
    ),
    "alicloud-cs-managed-kubernetes-private-endpoint": Fix("networking.publicApi: false", "slbInternetEnabled"),
    "stack-budget-alerts": Fix(
        "budget.contacts: [<e-mail>] (with budget.monthlyLimitUsd)",
        "an aws.budgets.Budget with notification subscribers",
    ),
    "stack-max-hourly-cost": Fix(
        "nodeGroups.<group>.desiredNodes (lower), or budget.monthlyLimitUsd (raise, with its owner)",
        "the rule's maxUsdPerHour config",
    ),
    "stack-expected-cost-within-budget": Fix(
        "nodeGroups.<group>.desiredNodes or capacity (spot, reservation), or budget.monthlyLimitUsd (raise, with its "
        "owner)",
        "the rule's monthlyBudgetUsd config",
    ),
    "stack-gpu-scale-to-zero": Fix("nodeGroups.{group}.minNodes: 0", "scalingConfig.minSize"),
    "stack-spot-checkpoint-store": Fix(
        "storage.objectStorage.enabled: true (or nodeGroups.{group}.capacity: on-demand)", None
    ),
    "stack-data-residency": Fix(
        "region (one of compliance.allowedRegions), or compliance.allowedRegions", "the provider's region"
    ),
    "aws-s3-bucket-lifecycle": Fix(
        "storage.objectStorage.noncurrentVersionDays: 90", "an aws.s3.BucketLifecycleConfiguration"
    ),
    "alicloud-oss-bucket-lifecycle": Fix("storage.objectStorage.noncurrentVersionDays: 90", "lifecycleRules"),
}


def _from_our_components(finding: Mapping[str, Any]) -> bool:
    """Stack-wide findings come from our program (the offline plan runs nothing else)."""
    urn = finding.get("urn") or ""
    if not urn or urn.split("::")[2:3] == ["pulumi:pulumi:Stack"]:
        return True
    return any(prefix in urn.split("::")[2] for prefix in COMPONENT_PREFIXES)


def _group(finding: Mapping[str, Any], stack: str) -> str:
    name = finding.get("resourceName") or ""
    return name[len(stack) + 1 :] if name.startswith(stack + "-") else "<group>"


def fix_for(finding: Mapping[str, Any], stack: str, source: str) -> Optional[dict[str, str]]:
    """{"field": what to edit, "in": "stack file" | "resource input"}, or None where no edit is known."""
    fix = FIXES.get(finding["policy"])
    if fix is None:
        return None
    if fix.stack_field and _from_our_components(finding):
        return {"field": fix.stack_field.format(group=_group(finding, stack)), "in": source}
    if fix.resource_input:
        return {"field": fix.resource_input, "in": f"resource input of {finding.get('resourceType') or 'the stack'}"}
    return None


def controls(framework: Mapping[str, str]) -> str:
    """ "GDPR Art. 44", not "GDPR GDPR Art. 44": references that already name their framework stand alone."""
    name, reference = framework.get("name", ""), framework.get("reference", "")
    if not name or reference.lower().startswith(name.lower()):
        return reference or name
    return f"{name} {reference}".strip()
