"""Audit on Alibaba Cloud: an SLS project and logstores, ActionTrail over all regions, Security Center."""

from dataclasses import dataclass, field
from typing import Mapping, Optional

import pulumi
import pulumi_alicloud as alicloud

from ..base import ALICLOUD, Args, Component, as_args


@dataclass(frozen=True)
class AuditTrailArgs(Args):
    """Where audit logs go and how long they stay."""

    region: str
    """The SLS project's region."""
    account_id: pulumi.Input[str]
    """The account whose calls ActionTrail records."""
    kms_key_id: pulumi.Input[str]
    """Encrypts every logstore (BYOK through the SLS default role)."""
    retention_days: Optional[int] = 365
    """How long every logstore keeps logs; a year by default (MLPS level 3 asks at least 180 days)."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on the project; none by default."""
    project_name: Optional[pulumi.Input[str]] = None
    """The SLS project's name, unique across every Alibaba Cloud account; None (default) uses the resource name,
    which must then be unique."""
    create_trail: Optional[bool] = True
    """Declare ActionTrail over every region into the project; off when the account already has one (an
    organisation trail). The project still keeps flow and control-plane logs."""


class AuditTrail(Component):
    """SLS project for audit, flow and control-plane logs, and ActionTrail over every region into it."""

    PACKAGE = ALICLOUD
    LEGACY_TYPE = "gpu-blueprints:alicloud:AuditLogs"
    project_name: pulumi.Output[str]
    """The SLS project, where flow logs and the control plane's logs go too."""
    flow_log_store: pulumi.Output[str]
    """The logstore for VPC flow logs."""

    def __init__(self, name: str, args: AuditTrailArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(AuditTrailArgs, args)
        region, account_id, retention_days = args.region, args.account_id, args.retention_days
        kms_key_id, tags = args.kms_key_id, dict(args.tags)
        child = pulumi.ResourceOptions(parent=self)
        self.project = alicloud.log.Project(
            name,
            project_name=args.project_name if args.project_name is not None else name,
            description="GPU cluster audit and flow logs",
            tags=tags,
            opts=child,
        )
        encrypt = {
            "enable": True,
            "encrypt_type": "default",
            "user_cmk_info": {
                "cmk_key_id": kms_key_id,
                "arn": pulumi.Output.concat("acs:ram::", account_id, ":role/aliyunlogdefaultrole"),
                "region_id": region,
            },
        }
        # ActionTrail writes to the logstore named actiontrail_<trail>; creating it here sets its retention.
        self.stores = {
            kind: alicloud.log.Store(
                f"{name}-{kind}",
                project_name=self.project.project_name,
                logstore_name=store,
                retention_period=retention_days,
                shard_count=2,
                auto_split=True,
                max_split_shard_count=8,
                encrypt_conf=encrypt,
                opts=child,
            )
            for kind, store in (("actiontrail", f"actiontrail_{name}"), ("flowlog", "flowlog"))
            if kind != "actiontrail" or args.create_trail
        }
        # ActionTrail: every region, reads and writes, delivered to the SLS project above.
        self.trail = (
            None
            if not args.create_trail
            else alicloud.actiontrail.Trail(
                name,
                trail_name=name,
                trail_region="All",
                event_rw="All",
                status="Enable",
                sls_project_arn=pulumi.Output.concat(
                    "acs:log:", region, ":", account_id, ":project/", self.project.project_name
                ),
                opts=pulumi.ResourceOptions(parent=self, depends_on=list(self.stores.values())),
            )
        )
        self.project_name = self.project.project_name
        self.flow_log_store = self.stores["flowlog"].logstore_name
        self.register_outputs({"project_name": self.project_name, "flow_log_store": self.flow_log_store})


@dataclass(frozen=True)
class ThreatDetectionArgs(Args):
    """Security Center takes no settings here: the pay-as-you-go edition with threat analysis and response."""


# Pay-as-you-go modules switched on (ModifyPostPayModuleSwitch, which the provider calls after creating a PayAsYouGo
# instance): the basic service, host and container security (intrusion detection on the nodes, MLPS 8.1.4.4) and
# threat analysis and response (CTDR). No Subscription module quantities: `threat_analysis_switch1` needs
# `threat_analysis_flow` as well ("After ThreatAnalysisSwitch1 is selected, it must be selected",
# terraform-provider-alicloud v1.289.0 alicloud/resource_alicloud_threat_detection_instance.go line 257), a purchased
# log-traffic quantity; the provider's own PayAsYouGo acceptance test switches these modules instead
# (alicloud/resource_alicloud_threat_detection_instance_test.go lines 1036-1089: ctdr, post_host, basic_service).
# Kept in tests/data/alicloud/threat-detection-instance.yaml.
POST_PAY_MODULES = {"basic_service": 1, "post_host": 1, "ctdr": 1}


class ThreatDetection(Component):
    """Security Center (threat detection) for the account, pay-as-you-go.

    An account has one Security Center instance. At `pulumi up` the account's instances are looked up
    (`alicloud.threatdetection.get_instances`: BSS QueryAvailableInstances for product `sas`); where one exists it is
    adopted: its id is the output and nothing is created or changed on it. Where none exists one is declared. The
    provider never deletes an instance (its Delete only forgets it, v1.289.0), so a later `pulumi up` of the stack that
    created it finds it and adopts it as well: the instance leaves the stack's state and stays in the account.
    `accountServices.threatDetection: existing` declares none without looking (and tells the pack's rule)."""

    PACKAGE = ALICLOUD
    LEGACY_TYPE = "gpu-blueprints:alicloud:SecurityCenter"
    instance_id: pulumi.Output[str]
    """The Security Center instance (created, or the account's existing one)."""

    def __init__(self, name: str, args: ThreatDetectionArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        existing = existing_instance(pulumi.InvokeOptions(parent=self))
        self.adopted = existing is not None
        if existing is not None:
            self.instance = None
            self.instance_id = pulumi.Output.from_input(existing)
            self.register_outputs({"instance_id": self.instance_id})
            return
        self.instance = alicloud.threatdetection.Instance(
            name,
            payment_type="PayAsYouGo",
            post_paid_flag=1,
            post_pay_module_switch_obj=POST_PAY_MODULES,
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.instance_id = self.instance.id
        self.register_outputs({"instance_id": self.instance_id})


def existing_instance(opts: pulumi.InvokeOptions) -> Optional[str]:
    """The id of the account's Security Center instance, or None when it has none (the data source answers an empty
    list: terraform-provider-alicloud alicloud/data_source_alicloud_threat_detection_instances.go)."""
    found = alicloud.threatdetection.get_instances(opts=opts)
    return found.ids[0] if found.ids else None
