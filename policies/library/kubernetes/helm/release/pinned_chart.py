"""Helm releases pin a chart version from a named repository: what is reviewed is what is installed."""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    version = str(props.get("version") or "")
    if not version or version in ("latest", "*") or any(c in version for c in "^~*x><"):
        yield f"chart {props.get('chart')} has no pinned version (got {version or 'none'})"
    repo = (props.get("repositoryOpts") or {}).get("repo", "")
    chart = str(props.get("chart") or "")
    if not repo.startswith("https://") and not chart.startswith(("oci://", "https://")):
        yield f"chart {chart} does not come from an https or OCI repository"


RULE = ResourceRule(
    description="Helm releases must pin an exact chart version from an https or OCI repository.",
    severity="medium",
    references={
        "baseline": "Helm: install a specific chart version (--version)",
        "hipaa": HIPAA.format("164.312(c)(1)"),
        "mlps": MLPS.format("8.1.4.7 数据完整性"),
    },
    remediation="Set version to an exact chart version and repositoryOpts.repo to the chart's https repository.",
    url="https://helm.sh/docs/helm/helm_install/",
    types=("kubernetes:helm.sh/v3:Release",),
    check=check,
)
