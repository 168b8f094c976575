"""Images are pinned by digest, so what runs is what was reviewed (a tag can be moved to another image).

Advisory: a digest has to come from the registry at release time, and many charts and catalogs pin
tags; the finding says which images still float.
"""

from ...refs import MLPS
from ...rule import ResourceRule
from ..pods import WORKLOAD_TYPES, containers, identity, pod_specs


def check(props, config, args):
    workload = identity(props, args.name)
    for where, pod in pod_specs(args.resource_type, props):
        for container in containers(pod):
            image = str(container.get("image") or "")
            if "@sha256:" not in image:
                name = container.get("name", "?")
                yield f"{workload} {where}: container {name} image {image or '(none)'} is not pinned by digest"


RULE = ResourceRule(
    description="Container images should be pinned by digest.",
    severity="medium",
    level="advisory",
    references={
        "baseline": "Kubernetes documentation, Images: image pull by digest",
        "mlps": MLPS.format("8.1.4.6 可信验证"),
    },
    remediation="Reference images as registry/name@sha256:<digest> (resolve the digest when you release).",
    url="https://kubernetes.io/docs/concepts/containers/images/#image-names",
    types=WORKLOAD_TYPES,
    check=check,
)
