"""Data stays in the allowed regions: providers, per-resource regions and replication targets."""

from ..props import of_type, provider_region
from ..refs import GDPR, MLPS
from ..regions import EU
from ..rule import StackRule

REPLICATION = "aws:s3/bucketReplicationConfig:BucketReplicationConfig"


def check(resources, config):
    allowed = set(config["allowedRegions"])
    providers = {r.urn for r in resources if r.resource_type.startswith("pulumi:providers:")}
    judged_providers: set[str] = set()
    for resource in resources:
        if resource.urn in providers:
            region = resource.props.get("region")
            if region is not None and region not in allowed:
                yield f"provider {resource.name} deploys to {region}", resource.urn
            continue
        own_region = resource.props.get("region")  # pulumi-aws v7 resources may override their provider
        if own_region is not None:
            if own_region not in allowed:
                yield f"{resource.resource_type} {resource.name} is placed in {own_region}", resource.urn
            continue
        provider = resource.provider
        if provider is not None and provider.urn not in providers and provider.urn not in judged_providers:
            judged_providers.add(provider.urn)  # a provider the stack list does not hold: judge it once
            region = provider_region(resource)
            if region is not None and region not in allowed:
                yield f"provider {provider.name} deploys to {region}", provider.urn
    buckets = of_type(resources, "aws:s3/bucket:Bucket")
    for replication in of_type(resources, REPLICATION):
        sources = {d.urn for d in replication.property_dependencies.get("rules", [])}
        targets = [b for b in buckets if b.urn in sources]
        if not targets:
            yield (
                f"replication {replication.name} targets a bucket outside this stack, whose region cannot be verified",
                replication.urn,
            )
        for target in targets:
            region = target.props.get("region") or provider_region(target)
            if region not in allowed:
                yield f"replication {replication.name} copies data to {region}", replication.urn


RULE = StackRule(
    description="Resources and replicas must stay in the allowed regions.",
    severity="critical",
    references={
        "gdpr": GDPR.format("Art. 44 (Chapter V transfers)"),
        "mlps": MLPS.format("8.2.1.1 基础设施位置; Cybersecurity Law of the PRC Art. 37"),
    },
    remediation="Deploy to an allowed region, or add the region to allowedRegions after a transfer assessment.",
    url="https://eur-lex.europa.eu/eli/reg/2016/679/oj",
    config={
        "allowedRegions": {
            "type": "array",
            "items": {"type": "string"},
            "default": list(EU),
            "description": "Regions data may be stored or processed in.",
        }
    },
    check=check,
)
