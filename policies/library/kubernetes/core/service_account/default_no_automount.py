"""A default service account the program declares does not mount its token into pods.

CIS Kubernetes Benchmark 5.1.5 and 5.1.6: the default service account should set
automountServiceAccountToken: false, so pods that name no account get no API credential.
"""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule
from ...rbac_objects import cis


def check(props, config, args):
    metadata = props.get("metadata") or {}
    if metadata.get("name") == "default" and props.get("automountServiceAccountToken") is not False:
        yield f"{metadata.get('namespace') or 'default'}/default mounts its token into every pod that names no account"


RULE = ResourceRule(
    description="Default service accounts must set automountServiceAccountToken: false.",
    severity="medium",
    references={
        "baseline": cis("5.1.5, 5.1.6", "4.1.5, 4.1.6"),
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Set automountServiceAccountToken: false on the default ServiceAccount.",
    url="https://kubernetes.io/docs/tasks/configure-pod-container/configure-service-account/",
    types=("kubernetes:core/v1:ServiceAccount",),
    check=check,
)
