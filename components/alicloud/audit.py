"""Audit on Alibaba Cloud: an SLS project and logstores, ActionTrail over all regions, Security Center."""

from __future__ import annotations

import pulumi
import pulumi_alicloud as alicloud


class AuditLogs(pulumi.ComponentResource):
    """SLS project for audit, flow and control-plane logs; every logstore kept `retention_days`."""

    def __init__(self, name: str, *, region: str, account_id: pulumi.Input[str], retention_days: int,
                 kms_key_id: pulumi.Input[str], tags: dict[str, str], opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-blueprints:alicloud:AuditLogs", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.project = alicloud.log.Project(name, project_name=name, description="GPU cluster audit and flow logs",
                                            tags=tags, opts=child)
        encrypt = {"enable": True, "encrypt_type": "default",
                   "user_cmk_info": {"cmk_key_id": kms_key_id, "arn": pulumi.Output.concat(
                       "acs:ram::", account_id, ":role/aliyunlogdefaultrole"), "region_id": region}}
        # ActionTrail writes to the logstore named actiontrail_<trail>; creating it here sets its retention.
        self.stores = {
            kind: alicloud.log.Store(f"{name}-{kind}", project_name=self.project.project_name, logstore_name=store,
                                     retention_period=retention_days, shard_count=2, auto_split=True,
                                     max_split_shard_count=8, encrypt_conf=encrypt, opts=child)
            for kind, store in (("actiontrail", f"actiontrail_{name}"), ("flowlog", "flowlog"))
        }
        # ActionTrail: every region, reads and writes, delivered to the SLS project above.
        self.trail = alicloud.actiontrail.Trail(
            name, trail_name=name, trail_region="All", event_rw="All", status="Enable",
            sls_project_arn=pulumi.Output.concat("acs:log:", region, ":", account_id, ":project/",
                                                 self.project.project_name),
            opts=pulumi.ResourceOptions(parent=self, depends_on=list(self.stores.values())))
        self.register_outputs({"project": self.project.project_name})


class SecurityCenter(pulumi.ComponentResource):
    """Security Center (threat detection) for the account, pay-as-you-go."""

    def __init__(self, name: str, *, opts: pulumi.ResourceOptions | None = None):
        super().__init__("gpu-blueprints:alicloud:SecurityCenter", name, None, opts)
        self.instance = alicloud.threatdetection.Instance(
            name, payment_type="PayAsYouGo", post_paid_flag=1, threat_analysis_switch1=True,
            opts=pulumi.ResourceOptions(parent=self))
        self.register_outputs({})
