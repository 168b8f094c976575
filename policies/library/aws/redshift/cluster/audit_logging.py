"""Every Redshift cluster has audit logging: connections and user activity recorded to S3 or CloudWatch Logs.

pulumi-aws 7.51.1 has no ``logging`` argument on the cluster; audit logging is its own resource,
aws:redshift/logging:Logging, naming the cluster in ``clusterIdentifier``. A stack rule therefore pairs them: a
Logging resource whose clusterIdentifier was computed from the cluster, or names its identifier.
"""

from ....props import attached, of_type
from ....refs import GDPR, HIPAA, MLPS, SECURITY_HUB
from ....rule import StackRule

CLUSTER = "aws:redshift/cluster:Cluster"
LOGGING = "aws:redshift/logging:Logging"


def check(resources, config):
    loggings = of_type(resources, LOGGING)
    named = {str(r.props.get("clusterIdentifier")) for r in loggings if r.props.get("clusterIdentifier")}
    for cluster in of_type(resources, CLUSTER):
        identifier = cluster.props.get("clusterIdentifier")
        if not attached(cluster, loggings, "clusterIdentifier") and str(identifier) not in named:
            yield (
                f"Redshift cluster {identifier or cluster.name} has no aws.redshift.Logging: no audit log",
                cluster.urn,
            )


RULE = StackRule(
    description="Redshift clusters must have audit logging enabled.",
    severity="medium",
    references={
        "baseline": "AWS Security Hub Redshift.4",
        "hipaa": HIPAA.format("164.312(b)"),
        "gdpr": GDPR.format("Art. 33(3)(a), Art. 32(1)(b)"),
        "mlps": MLPS.format("8.1.4.3 安全审计"),
    },
    remediation="Add aws.redshift.Logging(cluster_identifier=cluster.cluster_identifier, log_destination_type="
    '"cloudwatch", log_exports=["connectionlog", "userlog", "useractivitylog"]).',
    url=SECURITY_HUB.format("redshift"),
    types=(CLUSTER, LOGGING),
    check=check,
)
