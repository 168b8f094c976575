"""The Amazon SNS topic Alertmanager publishes alerts to: encrypted with the stack key, TLS only, one publisher.

Anything SNS delivers to (e-mail, SQS, Lambda, a chat bot) can subscribe to it. An e-mail subscription receives
nothing until its owner confirms it from the mail SNS sends, with a token valid three days (SNS API reference,
Subscribe: https://docs.aws.amazon.com/sns/latest/api/API_Subscribe.html, read 2026-11-27).
"""

from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

import pulumi
import pulumi_aws as aws

from ..base import AWS, Args, Component, as_args
from ..policy_document import Statement, policy_json

# What a publisher to a topic encrypted with a customer-managed key needs ("Allow a user to send messages to a topic
# with SSE"): https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html (awsdocs/amazon-sns-developer-guide
# doc_source/sns-key-management.md, read 2026-11-27).
SNS_PUBLISH_ACTIONS = ("kms:GenerateDataKey", "kms:Decrypt")
# The encryption context SNS sends KMS for a topic's messages, which a policy can bind the key's use to (AWS's own
# key policy for a service publishing to an SSE topic conditions on it: Amazon GameLift FlexMatch guide, "Set up an
# SNS topic with server-side encryption", https://docs.aws.amazon.com/gamelift/latest/flexmatchguide/
# queue-notification-sns-sse.html, read 2026-11-27).
SNS_TOPIC_CONTEXT = "kms:EncryptionContext:aws:sns:topicArn"


@dataclass(frozen=True)
class SnsAlertTopicArgs(Args):
    """The alert topic."""

    kms_key_arn: pulumi.Input[str]
    """The customer-managed key messages are kept encrypted with (server-side encryption); its key policy must let
    IAM policies grant its use (the stack key's does: AccountAdministersKey), so the publisher's role policy is
    enough (grant_publish)."""
    publisher_role_arn: pulumi.Input[str]
    """The one role the topic policy allows to publish (Alertmanager's)."""
    subscribe_emails: Optional[Sequence[str]] = ()
    """Addresses subscribed by e-mail; each must confirm from the mail SNS sends. None by default."""
    tags: Optional[Mapping[str, str]] = field(default_factory=dict)
    """Tags on the topic; none by default."""


class SnsAlertTopic(Component):
    """An SNS topic for alerts, encrypted with the stack key, that only its publisher role may publish to (over
    TLS), with optional e-mail subscriptions."""

    PACKAGE = AWS
    LEGACY_TYPE = "gpu-blueprints:aws:SnsAlertTopic"  # the tokens' convention (tests/test_component_package.py)
    arn: pulumi.Output[str]
    """The topic's ARN: subscribe to it, or give it to Alertmanager's sns_configs."""

    def __init__(self, name: str, args: SnsAlertTopicArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(name, opts)
        args = as_args(SnsAlertTopicArgs, args)
        child = pulumi.ResourceOptions(parent=self)
        self.kms_key_arn = args.kms_key_arn
        self.topic = aws.sns.Topic(name, kms_master_key_id=args.kms_key_arn, tags=dict(args.tags), opts=child)
        self.policy = aws.sns.TopicPolicy(
            name, arn=self.topic.arn, policy=topic_policy(self.topic.arn, args.publisher_role_arn), opts=child
        )
        self.subscriptions = [
            aws.sns.TopicSubscription(f"{name}-{i}", topic=self.topic.arn, protocol="email", endpoint=email, opts=child)
            for i, email in enumerate(args.subscribe_emails or ())
        ]
        self.arn = self.topic.arn
        self.register_outputs({"arn": self.arn})

    def grant_publish(self, sid: str = "PublishAlerts") -> list[Statement]:
        """What a publisher needs (SNS developer guide, "Allow a user to send messages to a topic with SSE"):
        sns:Publish on this topic, and the data-key actions on the key that encrypts it, only for this topic's
        messages (its encryption context), so the role cannot use the stack key for anything else.
        https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html"""
        return [
            Statement(sid=sid, actions=["sns:Publish"], resources=[self.arn]),
            Statement(
                sid=f"{sid}Encrypted",
                actions=SNS_PUBLISH_ACTIONS,
                resources=[self.kms_key_arn],
                conditions={"StringEquals": {SNS_TOPIC_CONTEXT: self.arn}},
            ),
        ]


def topic_policy(topic_arn: pulumi.Input[str], publisher_role_arn: pulumi.Input[str]) -> pulumi.Output[str]:
    """Publishing over TLS only (SNS security best practices, "Enforce encryption of data in transit",
    https://docs.aws.amazon.com/sns/latest/dg/sns-security-best-practices.html), and by the publisher role. It
    replaces SNS's default policy; a principal of the account given sns:Publish on the topic by its own IAM policy
    still may publish (within one account an identity policy's allow is enough)."""
    return policy_json(
        [
            Statement(
                sid="AllowPublishThroughSSLOnly",
                effect="Deny",
                actions=["sns:Publish"],
                resources=[topic_arn],
                principals={"AWS": "*"},
                conditions={"Bool": {"aws:SecureTransport": "false"}},
            ),
            Statement(
                sid="AlertmanagerPublishes",
                actions=["sns:Publish"],
                resources=[topic_arn],
                principals={"AWS": publisher_role_arn},
            ),
        ]
    )
