"""Readiness: Kueue's ProvisioningRequest admission does not work with Karpenter.

Kueue's provisioning admission check (an AdmissionCheck with controllerName kueue.x-k8s.io/provisioning-request)
admits a workload only once a ProvisioningRequest for all its pods succeeds; the Cluster Autoscaler serves those
(with --enable-provisioning-requests), Karpenter does not: kubernetes-sigs/kueue #5133 ("Kueue and Karpenter
Support", open; Karpenter's side: kubernetes-sigs/karpenter #742). With Karpenter, workloads behind such a check wait
for a ProvisioningRequest nobody fulfils. Kueue's maintainers' mitigation there: admit by quota alone and let
Karpenter scale on the pending pods (what the platform's ClusterQueues do: queueing.py).
"""

from __future__ import annotations

from typing import Iterable

from .engine import Registration
from .readiness import HELM_RELEASE, KARPENTER_NODE_POOL, WARNING, Finding

ADMISSION_CHECK = "kubernetes:kueue.x-k8s.io/v1beta2:AdmissionCheck"
PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
SOURCE = "https://github.com/kubernetes-sigs/kueue/issues/5133"


def check(regs: Iterable[Registration]) -> list[Finding]:
    regs = list(regs)
    karpenter = any(
        r.type == KARPENTER_NODE_POOL or (r.type == HELM_RELEASE and r.inputs.get("name") == "karpenter") for r in regs
    )
    if not karpenter:
        return []
    return [
        Finding(
            "provisioning-request-with-karpenter",
            WARNING,
            r.name,
            f"AdmissionCheck {(r.inputs.get('metadata') or {}).get('name', r.name)} admits workloads through "
            "ProvisioningRequests, which Karpenter does not serve: workloads behind it are never admitted "
            f"({SOURCE})",
            "drop the check from the ClusterQueues (Kueue admits by quota and Karpenter scales on the pending pods), "
            "or set autoscaling.engine: cluster-autoscaler",
        )
        for r in regs
        if r.type == ADMISSION_CHECK and (r.inputs.get("spec") or {}).get("controllerName") == PROVISIONING_CONTROLLER
    ]
