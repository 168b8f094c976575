"""Pods use only core volume types (PSS restricted "Volume Types"); other storage comes through PersistentVolumes.

pod-security-admission check_restrictedVolumes.go: each volume is configMap, csi, downwardAPI, emptyDir,
ephemeral, image, persistentVolumeClaim, projected or secret (hostPath, nfs, awsElasticBlockStore, ... refused).
"""

from ....props import items
from ...pss import RESTRICTED_VOLUME_SOURCES, control_rule


def check(metadata, pod):
    for volume in items(pod.get("volumes")):
        sources = sorted(k for k in volume if k != "name")
        if not any(s in RESTRICTED_VOLUME_SOURCES for s in sources):
            yield f"volume {volume.get('name')} uses {', '.join(sources) or 'no source'}, not a core volume type"


RULE = control_rule(
    "restricted",
    "Volume Types",
    check,
    description="Pods should use only core volume types.",
    severity="medium",
    remediation="Mount storage through a PersistentVolumeClaim (FSx, EFS, NFS as a PersistentVolume) or a CSI "
    "ephemeral volume instead of an inline nfs/hostPath volume.",
)
