"""ActionTrail records read and write events in every region, delivered to SLS."""

from ....refs import HIPAA, MLPS
from ....rule import ResourceRule


def check(props, config, args):
    if props.get("trailRegion", "All") != "All":
        yield f"trailRegion is {props.get('trailRegion')}: other regions go unrecorded"
    if props.get("eventRw", "Write") != "All":
        yield f"eventRw is {props.get('eventRw', 'Write')}: read events go unrecorded"
    if not props.get("slsProjectArn"):
        yield "slsProjectArn is unset: events are not kept in a log store"
    if props.get("status", "Enable") != "Enable":
        yield "status is not Enable"


RULE = ResourceRule(
    description="ActionTrail trails must cover all regions and all events and deliver to SLS.",
    severity="high",
    references={
        "mlps": MLPS.format("8.1.4.3 安全审计 a) b)"),
        "hipaa": HIPAA.format("164.312(b)"),
        "baseline": "Alibaba Cloud ActionTrail: create a single-account trail",
    },
    remediation="Set trailRegion: All, eventRw: All and slsProjectArn.",
    url="https://www.alibabacloud.com/help/en/actiontrail/user-guide/create-a-single-account-trail",
    types=("alicloud:actiontrail/trail:Trail",),
    check=check,
)
