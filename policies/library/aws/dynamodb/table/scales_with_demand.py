"""DynamoDB tables scale their capacity with demand (Security Hub DynamoDB.1, severity Medium).

The control passes a table in on-demand mode or in provisioned mode with auto scaling. pulumi-aws 7.51.1 defaults
billingMode to PROVISIONED; auto scaling is an aws:appautoscaling/target whose resourceId is "table/<name>". A stack
rule pairs each provisioned table with a scalable target computed from it (resourceId) or naming it. Advisory: it
guards availability (throttling), not data.
"""

from ....props import attached, of_type
from ....refs import MLPS, SECURITY_HUB
from ....rule import StackRule

TABLE = "aws:dynamodb/table:Table"
TARGET = "aws:appautoscaling/target:Target"


def check(resources, config):
    targets = [t for t in of_type(resources, TARGET) if t.props.get("serviceNamespace") == "dynamodb"]
    named = {str(t.props.get("resourceId")) for t in targets}
    for table in of_type(resources, TABLE):
        if (table.props.get("billingMode") or "PROVISIONED") != "PROVISIONED":
            continue
        if not attached(table, targets, "resourceId") and f"table/{table.props.get('name')}" not in named:
            yield (
                f"DynamoDB table {table.props.get('name') or table.name} is provisioned with no auto scaling target",
                table.urn,
            )


RULE = StackRule(
    description="DynamoDB tables should scale capacity with demand (on-demand, or provisioned with auto scaling).",
    severity="medium",
    level="advisory",
    references={
        "baseline": "AWS Security Hub DynamoDB.1",
        "mlps": MLPS.format("8.1.4.9 数据备份恢复"),
    },
    remediation='Set billingMode: "PAY_PER_REQUEST", or add aws.appautoscaling.Target (service_namespace="dynamodb", '
    'resource_id=f"table/{name}") and a target-tracking Policy for reads and writes.',
    url=SECURITY_HUB.format("dynamodb"),
    types=(TABLE, TARGET),
    check=check,
)
