"""What EKS requires of a managed node group on an EC2 Capacity Block for ML, and what it schedules itself.

Source: Amazon EKS User Guide, "Create a managed node group with Capacity Blocks for ML"
(https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html, read 2026-11-24): the launch template's
LaunchTemplateData must carry InstanceMarketOptions.MarketType "capacity-block", CapacityReservationSpecification
.CapacityReservationTarget.CapacityReservationId and InstanceType, or the create request is rejected; EKS scales the
group to zero 40 minutes before the reservation ends with its own scheduled action ("Amazon EKS Node Group Capacity
Scaledown Before Reservation End"; do not edit or delete it); with desiredSize 0 at create, scale up when the block
becomes active, e.g. with a scheduled action at its start. Auto Scaling rejects two scheduled actions at one time
(https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-scheduled-scaling.html).
"""

SOURCE = "https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html (read 2026-11-24)"
EKS_SCALEDOWN_MINUTES_BEFORE_END = 40
EKS_SCALEDOWN_ACTION = "Amazon EKS Node Group Capacity Scaledown Before Reservation End"
# Launch template inputs (Pulumi's camelCase) a capacity-block group needs, as paths, with what each must hold.
LAUNCH_TEMPLATE_FIELDS = (
    (("instanceMarketOptions", "marketType"), "capacity-block"),
    (("capacityReservationSpecification", "capacityReservationTarget", "capacityReservationId"), None),
    (("instanceType",), None),
)
