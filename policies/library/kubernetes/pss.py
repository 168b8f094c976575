"""Kubernetes Pod Security Standards: the facts each control checks, and how a control becomes a rule.

Source of the allowed values: kubernetes/pod-security-admission v0.35.0 (Kubernetes 1.35; commit
10e6c1c6e18a2981bab6b401583650caf6b10164), policy/check_*.go: the admission controller that enforces the
standards, so a rule here refuses what Pod Security Admission would refuse at that version. Control names
are those of kubernetes.io "Pod Security Standards" (docs/concepts/security/pod-security-standards).

Baseline controls are mandatory (a pod that breaks one can take over its node); node agents listed in
``pods.NODE_AGENTS`` keep their documented exemption, nothing else does, whatever its namespace.
Restricted controls are advisory: GPU images (CUDA, PyTorch) run as root by default and training
frameworks write into their image, so they say what to harden rather than failing the plan.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from ..refs import HIPAA, MLPS
from ..rule import ResourceRule
from .pods import AGENT_CONFIG, WORKLOAD_TYPES, allowed, containers, identity, pod_templates

URL = "https://kubernetes.io/docs/concepts/security/pod-security-standards/"

# check_capabilities_baseline.go capabilities_allowed_1_0 (the container runtime's default set).
BASELINE_CAPABILITIES = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)
# check_sysctls.go sysctlsAllowedV1Dot32 (the "safe" namespaced set as of 1.32).
SAFE_SYSCTLS = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_unprivileged_port_start",
        "net.ipv4.ip_local_reserved_ports",
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
        "net.ipv4.tcp_rmem",
        "net.ipv4.tcp_wmem",
    }
)
# check_seLinuxOptions.go selinuxAllowedTypes1_31 ("" = unset).
SELINUX_TYPES = frozenset({"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"})
# check_restrictedVolumes.go: the volume sources the restricted profile allows.
RESTRICTED_VOLUME_SOURCES = frozenset(
    {
        "configMap",
        "csi",
        "downwardAPI",
        "emptyDir",
        "ephemeral",
        "image",
        "persistentVolumeClaim",
        "projected",
        "secret",
    }
)
# check_seccompProfile_*.go validSeccomp, check_appArmorProfile.go allowedProfileType.
CONFINED_PROFILES = frozenset({"RuntimeDefault", "Localhost"})

# A control's check: (pod metadata, pod spec) -> what breaks the control, one message each.
PodCheck = Callable[[Mapping[str, Any], Mapping[str, Any]], Iterable[str]]


def context(container: Mapping[str, Any]) -> Mapping[str, Any]:
    return container.get("securityContext") or {}


def pod_context(pod: Mapping[str, Any]) -> Mapping[str, Any]:
    return pod.get("securityContext") or {}


def named(container: Mapping[str, Any]) -> str:
    return f"container {container.get('name', '?')}"


def control_rule(
    profile: str,
    control: str,
    pod_check: PodCheck,
    *,
    description: str,
    severity: str,
    remediation: str,
    hipaa: str = "164.312(a)(1)",
    mlps: str = "8.1.4.2 访问控制",
) -> ResourceRule:
    """The rule for one control of one profile, judging every pod template of every workload kind."""
    baseline = profile == "baseline"
    config = {"nodeAgents": AGENT_CONFIG} if baseline else {}

    def check(props, config, args):
        workload = identity(props, args.name)
        if baseline and allowed(workload, config["nodeAgents"]):
            return
        for where, metadata, pod in pod_templates(args.resource_type, props):
            for problem in pod_check(metadata, pod):
                yield f"{workload} {where}: {problem}"

    return ResourceRule(
        description=description,
        severity=severity,
        level="mandatory" if baseline else "advisory",
        references={
            "baseline": f"Kubernetes Pod Security Standards ({profile}): {control}",
            "hipaa": HIPAA.format(hipaa),
            "mlps": MLPS.format(mlps),
        },
        remediation=remediation,
        url=URL,
        config=config,
        types=WORKLOAD_TYPES,
        check=check,
    )


__all__ = ["containers", "control_rule", "context", "pod_context", "named"]
