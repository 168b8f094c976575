"""Administration ports (SSH, RDP, the Kubernetes API and kubelet, etcd) never open to the internet."""

from ....props import ADMIN_PORTS, AWS_INGRESS_TYPES, WORLD, aws_ingress
from ....refs import HIPAA, MLPS, SECURITY_HUB
from ....rule import ResourceRule


def check(props, config, args):
    for low, high, protocol, cidrs in aws_ingress(args.resource_type, props):
        if not any(c in WORLD for c in cidrs):
            continue
        everything = protocol in ("-1", "all")
        for port, what in ADMIN_PORTS.items():
            if everything or low <= int(port) <= high:
                yield f"{what} (port {port}) is open to the internet"


RULE = ResourceRule(
    description="Security groups must not open administration ports to the internet.",
    severity="critical",
    references={
        "mlps": MLPS.format("8.1.3.2 访问控制, 8.1.4.1 身份鉴别 d)"),
        "hipaa": HIPAA.format("164.312(a)(1)"),
        "baseline": "AWS Security Hub EC2.19",
    },
    remediation="Remove 0.0.0.0/0 and ::/0 from rules that cover 22, 3389, 6443, 10250 or 2379; "
    "administer through SSM Session Manager or a bastion inside the VPC.",
    url=SECURITY_HUB.format("ec2"),
    types=AWS_INGRESS_TYPES,
    check=check,
)
