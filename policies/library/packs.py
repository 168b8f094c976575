"""The five packs: which rules each holds, under which framework, with which defaults."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from pulumi_policy import (
    EnforcementLevel,
    PolicyComplianceFramework,
    PolicyConfigSchema,
    ResourceValidationPolicy,
    Severity,
    StackValidationPolicy,
)

from .regions import MAINLAND_CHINA
from .registry import all_rules
from .rule import ResourceRule, Rule

MLPS_MIN_LOG_DAYS = 180  # Cybersecurity Law of the PRC Art. 21(3): network logs kept at least six months


@dataclass(frozen=True)
class Pack:
    name: str
    description: str
    framework: PolicyComplianceFramework
    includes: tuple[str, ...]
    initial_config: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def rules(self) -> list[Rule]:
        return [r for r in all_rules() if any(f in r.references for f in self.includes)]

    def reference(self, rule: Rule) -> str:
        return next(rule.references[f] for f in reversed(self.includes) if f in rule.references)


PACKS = {
    "baseline": Pack(
        "baseline",
        "Security baseline for GPU clusters: encryption with customer keys, IMDSv2, private nodes "
        "and endpoints, least-privilege IAM/RAM, control-plane audit logs.",
        PolicyComplianceFramework(
            "gpu-cluster-blueprints baseline",
            "1",
            specification="AWS Foundational Security Best Practices and Alibaba Cloud guides",
        ),
        ("baseline",),
    ),
    "hipaa": Pack(
        "hipaa",
        "HIPAA Security Rule technical safeguards (45 CFR 164.308, 164.312), on top of the baseline.",
        PolicyComplianceFramework(
            "HIPAA",
            "45 CFR Part 164 Subpart C",
            specification="https://www.ecfr.gov/current/title-45/subtitle-A/subchapter-C/part-164/subpart-C",
        ),
        ("baseline", "hipaa"),
    ),
    "gdpr": Pack(
        "gdpr",
        "GDPR Art. 5, 30, 32, 33 and Chapter V for GPU clusters, on top of the baseline.",
        PolicyComplianceFramework(
            "GDPR", "Regulation (EU) 2016/679", specification="https://eur-lex.europa.eu/eli/reg/2016/679/oj"
        ),
        ("baseline", "gdpr"),
    ),
    "mlps": Pack(
        "mlps",
        "MLPS 2.0 level 3 (GB/T 22239-2019 clause 8, 等保2.0 三级), on top of the baseline.",
        PolicyComplianceFramework(
            "MLPS 2.0",
            "GB/T 22239-2019 level 3",
            specification="https://openstd.samr.gov.cn/bzgk/gb/newGbInfo?hcno=BAFB47E8874764186BDB7865E8344DAF",
        ),
        ("baseline", "mlps"),
        initial_config={
            "stack-data-residency": {"allowedRegions": list(MAINLAND_CHINA)},
            "aws-cloudwatch-log-group-retention": {"minimumDays": MLPS_MIN_LOG_DAYS},
            "alicloud-log-store-retention": {"minimumDays": MLPS_MIN_LOG_DAYS},
        },
    ),
    "cost": Pack(
        "cost",
        "Cost guardrails for GPU clusters: an hourly ceiling, scale-to-zero, budgets, safe spot use.",
        PolicyComplianceFramework(
            "gpu-cluster-blueprints cost guardrails",
            "1",
            specification="AWS Well-Architected Framework, Cost Optimization pillar",
        ),
        ("cost",),
    ),
}

SEVERITY = {s.value: s for s in Severity}


def _config_schema(rule: Rule) -> PolicyConfigSchema | None:
    return PolicyConfigSchema(properties={k: dict(v) for k, v in rule.config.items()}) if rule.config else None


def _report_all(found, report) -> None:
    """Checks yield messages (resource rules) or (message, urn) pairs (stack rules)."""
    for item in found:
        message, urn = (item, None) if isinstance(item, str) else item
        report(message, urn)


def to_policy(rule: Rule, pack: Pack):
    """The SDK policy object for ``rule`` as ``pack`` presents it."""
    framework = PolicyComplianceFramework(
        pack.framework.name, pack.framework.version, pack.reference(rule), pack.framework.specification
    )
    level = EnforcementLevel.ADVISORY if rule.level == "advisory" else EnforcementLevel.MANDATORY
    common = dict(
        name=rule.name,
        description=rule.description,
        enforcement_level=level,
        config_schema=_config_schema(rule),
        severity=SEVERITY[rule.severity],
        framework=framework,
        tags=[f"{f}: {ref}" for f, ref in sorted(rule.references.items())],
        remediation_steps=rule.remediation,
        url=rule.url,
    )
    if isinstance(rule, ResourceRule):
        types = frozenset(rule.types)

        def validate(args, report):
            if args.resource_type in types:
                _report_all(rule.check(args.props, rule.settings(args.get_config()), args), report)

        return ResourceValidationPolicy(validate=validate, **common)

    def validate_stack(args, report):
        _report_all(rule.check(args.resources, rule.settings(args.get_config())), report)

    return StackValidationPolicy(validate=validate_stack, **common)


def policies(pack_name: str) -> list:
    pack = PACKS[pack_name]
    return [to_policy(rule, pack) for rule in pack.rules()]


def pack_arguments(pack_name: str) -> dict[str, Any]:
    """The SDK PolicyPack's arguments for ``pack_name``: one source for the CLI's pack and the offline one."""
    pack = PACKS[pack_name]
    return dict(
        name=f"gpu-blueprints-{pack.name}",
        policies=policies(pack_name),
        enforcement_level=EnforcementLevel.MANDATORY,
        initial_config={k: dict(v) for k, v in pack.initial_config.items()} or None,
        description=pack.description,
        display_name=f"GPU cluster blueprints: {pack.name}",
        provider="aws, alicloud",
        repository="gpu-cluster-blueprints",
    )


def serve(pack_name: str) -> None:
    """What each pack's __main__.py does: start the analyzer the Pulumi CLI talks to (hosting.serve: the SDK's
    servicer, Analyze routed by resource type)."""
    from .hosting import serve as serve_routed

    serve_routed(pack_name)
