"""Key policies name who may use the key: no Allow to Principal '*' without a narrowing condition."""

from ....iam import wildcard_principal_grants
from ....refs import GDPR, HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    for sid in wildcard_principal_grants(props.get("policy")):
        yield f"{sid} allows Principal '*' with no condition: anyone may use or manage the key"


RULE = ResourceRule(
    description="KMS key policies must not allow a wildcard principal without conditions.",
    severity="critical",
    references={
        "baseline": "Checkov CKV_AWS_33",
        "hipaa": HIPAA.format("164.312(a)(2)(iv)"),
        "gdpr": GDPR.format("Art. 32(1)(a)"),
        "mlps": MLPS.format("8.1.4.2 访问控制"),
    },
    remediation="Name the account root and the roles that use the key; narrow any '*' with kms:CallerAccount "
    "or kms:ViaService conditions.",
    url="https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-overview.html",
    types=("aws:kms/key:Key",),
    check=check,
)
