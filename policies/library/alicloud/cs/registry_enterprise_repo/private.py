"""Container Registry repositories and namespaces are private: images are pulled with credentials.

pulumi-alicloud 4.0.0: ``repoType`` PUBLIC or PRIVATE on ``cs.RegistryEnterpriseRepo`` (Enterprise Edition) and
``cr.Repo`` (Personal Edition); ``defaultVisibility`` PUBLIC or PRIVATE on ``cs.RegistryEnterpriseNamespace`` and
``cr.Namespace`` sets the type of the repositories a push creates in it (``autoCreate``). A public repository lets
anyone pull the images, with the model code and any weights or keys baked into them.
"""

from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule

REPOS = ("alicloud:cs/registryEnterpriseRepo:RegistryEnterpriseRepo", "alicloud:cr/repo:Repo")


def check(props, config, args):
    prop = "repoType" if args.resource_type in REPOS else "defaultVisibility"
    if str(props.get(prop) or "").upper() == "PUBLIC":
        yield f"{prop} is PUBLIC: anyone may pull its images without credentials"


RULE = ResourceRule(
    description="Container Registry repositories and namespaces must be private.",
    severity="high",
    references={
        "baseline": "Alibaba Cloud Container Registry: repository type (counterpart of Checkov CKV_AWS_32)",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Set repoType: PRIVATE on repositories and defaultVisibility: PRIVATE on namespaces.",
    url="https://www.alibabacloud.com/help/doc-detail/145291.htm",
    types=(
        *REPOS,
        "alicloud:cs/registryEnterpriseNamespace:RegistryEnterpriseNamespace",
        "alicloud:cr/namespace:Namespace",
    ),
    check=check,
)
