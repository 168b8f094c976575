"""What OpenSearch domains publish to CloudWatch Logs: each log type's entry in logPublishingOptions."""

from ....props import items


def publishes(props, log_type: str) -> bool:
    """Whether logPublishingOptions sends ``log_type`` to a log group (pulumi-aws 7.51.1: ``enabled`` defaults to
    true, ``cloudwatchLogGroupArn`` is required)."""
    return any(
        option.get("logType") == log_type and option.get("enabled") is not False and option.get("cloudwatchLogGroupArn")
        for option in items(props.get("logPublishingOptions"))
    )
