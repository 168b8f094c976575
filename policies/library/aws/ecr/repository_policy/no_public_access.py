"""ECR repository policies grant nothing to everyone: Principal "*" could pull the model images, or push over them.

No FSBP control judges the repository policy (ECR.1-ECR.3 judge the repository); Checkov's CKV_AWS_32 does.
"""

from ....iam import wildcard_principal_grants
from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    for sid in wildcard_principal_grants(props.get("policy")):
        yield f"{sid} allows Principal '*' with no condition: anyone can use the repository"


RULE = ResourceRule(
    description="ECR repository policies must not allow access to everyone.",
    severity="critical",
    references={
        "baseline": "Amazon ECR User Guide: private repository policies; Checkov CKV_AWS_32",
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "gdpr": GDPR.format("Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Name the principals (accounts, roles) or narrow with aws:PrincipalOrgID; publish public images in "
    "ECR Public instead.",
    url="https://docs.aws.amazon.com/AmazonECR/latest/userguide/repository-policies.html",
    types=("aws:ecr/repositoryPolicy:RepositoryPolicy",),
    check=check,
)
