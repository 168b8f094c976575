"""Kubeconfigs for the clusters' Kubernetes providers: EKS through `aws eks get-token`."""

from __future__ import annotations

import json

import pulumi


def eks_kubeconfig(
    cluster_name: pulumi.Input[str], endpoint: pulumi.Input[str], ca_data: pulumi.Input[str], region: str
) -> pulumi.Output[str]:
    """A kubeconfig that authenticates with short-lived tokens from the AWS CLI (no static credentials)."""

    def build(values: list[str]) -> str:
        name, server, ca = values
        return json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": name,
                "clusters": [{"name": name, "cluster": {"server": server, "certificate-authority-data": ca}}],
                "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
                "users": [
                    {
                        "name": name,
                        "user": {
                            "exec": {
                                "apiVersion": "client.authentication.k8s.io/v1beta1",
                                "command": "aws",
                                "args": ["eks", "get-token", "--cluster-name", name, "--region", region],
                                "interactiveMode": "Never",
                            }
                        },
                    }
                ],
            }
        )

    return pulumi.Output.all(cluster_name, endpoint, ca_data).apply(build)
