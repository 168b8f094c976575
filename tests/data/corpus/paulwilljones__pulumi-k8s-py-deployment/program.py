"""Restated from paulwilljones/pulumi-k8s-py-deployment __main__.py (see annotations.yaml)."""

from pulumi_kubernetes.apps.v1 import Deployment
from pulumi_kubernetes.core.v1 import Service

labels = {"app": "nginx"}
Deployment(
    "nginx",
    spec={
        "selector": {"match_labels": labels},
        "replicas": 1,
        "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}},
    },
)
Service(
    "nginx",
    spec={"type": "LoadBalancer", "ports": [{"port": 80, "target_port": 80, "protocol": "TCP"}], "selector": labels},
)
