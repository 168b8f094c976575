"""Pods that use the namespace's default service account do not mount its API token.

A pod that needs the API gets its own service account (and RBAC); every other pod keeps no token, so a
compromised container cannot talk to the API server (CIS Kubernetes Benchmark 5.1.5, 5.1.6).
"""

from ...refs import HIPAA, MLPS
from ...rule import ResourceRule
from ..pods import WORKLOAD_TYPES, identity, pod_specs


def check(props, config, args):
    workload = identity(props, args.name)
    for where, pod in pod_specs(args.resource_type, props):
        account = pod.get("serviceAccountName") or pod.get("serviceAccount") or "default"
        if account == "default" and pod.get("automountServiceAccountToken") is not False:
            yield (
                f"{workload} {where}: runs as the default service account with its token mounted; set "
                "automountServiceAccountToken: false or give it its own service account"
            )


RULE = ResourceRule(
    description="Pods on the default service account must not mount its token.",
    severity="medium",
    references={
        "baseline": "CIS Kubernetes Benchmark 5.1.5, 5.1.6",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Set automountServiceAccountToken: false in the pod spec, or name a dedicated serviceAccountName.",
    url="https://kubernetes.io/docs/tasks/configure-pod-container/configure-service-account/",
    types=WORKLOAD_TYPES,
    check=check,
)
