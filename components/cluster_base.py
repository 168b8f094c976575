"""What both clouds' GPU clusters share: the outputs a user reads on either cloud, and running the cluster's stages
in its order. Each cloud's `GpuCluster` names its stages (the same names on both clouds) and adds its own outputs."""

from typing import Mapping, Optional

import pulumi

from .base import Component


class GpuClusterBase(Component):
    """The outputs common to both clouds' GPU clusters."""

    kubeconfig: pulumi.Output[str]
    """A kubeconfig (secret): on EKS through `aws eks get-token`; on ACK, one hour of the caller of `pulumi up`."""
    grafana_admin_password: pulumi.Output[Optional[str]]
    """Grafana's `admin` password (secret); absent without monitoring."""
    vpc_id: pulumi.Output[str]
    """The VPC."""
    trainer_role_arn: pulumi.Output[str]
    """The workload role (IRSA on EKS, RRSA on ACK) of the `trainer` ServiceAccount in the trainer namespace."""
    trainer_role_arns: pulumi.Output[Mapping[str, str]]
    """Namespace -> workload role of its `trainer` ServiceAccount (the trainer namespace and every team's)."""
    data_bucket: pulumi.Output[Optional[str]]
    """The data bucket's name, with object storage."""
    checkpoints_uri: pulumi.Output[Optional[str]]
    """Where jobs write checkpoints (`s3://` or `oss://<bucket>/checkpoints/`), with object storage."""

    STAGES = ()
    """The cluster's stages (method names), in the order its resources depend on each other."""

    def _run_stages(self) -> None:
        for stage in self.STAGES:
            getattr(self, stage)()
        self.publish(self._outputs)
