"""Restated from somabc/kubernetes-nginx __main__.py (see annotations.yaml) with its config isMinikube false (the
Service is then a LoadBalancer)."""

from pulumi_kubernetes.apps.v1 import Deployment
from pulumi_kubernetes.core.v1 import Service

labels = {"app": "nginx"}
deployment = Deployment(
    "nginx",
    spec={
        "selector": {"match_labels": labels},
        "replicas": 1,
        "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}},
    },
)
Service(
    "nginx",
    metadata={"labels": deployment.spec["template"]["metadata"]["labels"]},
    spec={"type": "LoadBalancer", "ports": [{"port": 80, "target_port": 80, "protocol": "TCP"}], "selector": labels},
)
