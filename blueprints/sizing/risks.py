"""Risk notes a user can act on, each with the source of its statement (issue #37 item 6).

Why these two: the advisor ranks by price, and spot is often the cheapest option; what that price buys differs.
- One serving replica on spot: a reclaimed node takes the only replica, and the endpoint answers nothing until a new
  node starts and loads the weights. AWS gives a two-minute notice before it stops or terminates a Spot Instance;
  Alibaba Cloud releases a preemptible instance five minutes after the interruption.
- A multi-node training gang on spot in one zone and placement group: a synchronous step (an all-reduce every step)
  waits for every node, so one reclaimed node stops the whole job until it is replaced and the job resumes from its
  last checkpoint; and a cluster placement group lives in a single Availability Zone, where capacity for all the
  nodes together must exist at once (AWS advises launching them in one request).
"""

from __future__ import annotations

from dataclasses import dataclass

from .candidates import Candidate

SOURCES = {
    "aws-spot-notice": "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-instance-termination-notices.html "
    "(a warning two minutes before Amazon EC2 stops or terminates a Spot Instance; read 2026-11-27)",
    "ali-preemptible": "https://www.alibabacloud.com/help/en/ecs/user-guide/what-is-a-spot-instance (an interrupted "
    "preemptible instance is released 5 minutes later; not suitable for stateful or high-stability business; read "
    "2026-11-27)",
    "aws-placement": "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-strategies.html (a cluster "
    "placement group is in a single Availability Zone; launch its instances in one request to lower the chance of an "
    "insufficient capacity error; read 2026-11-27)",
}
SPOT_SOURCE = {"aws": "aws-spot-notice", "alicloud": "ali-preemptible"}


@dataclass(frozen=True)
class Risk:
    text: str
    source: str

    def line(self) -> str:
        return f"{self.text} (source: {SOURCES[self.source]})"


def _on_spot(c: Candidate) -> bool:
    best = c.best()
    return best is not None and best.option == "spot"


def serving_risks(c: Candidate, replicas: int) -> list[Risk]:
    """A service whose only replica runs on spot."""
    if not _on_spot(c) or replicas > 1:
        return []
    return [
        Risk(
            f"{c.shape.instance_type} in {c.region}: a single serving replica on spot; a reclaimed node takes the "
            "endpoint down until a new node starts and loads the weights. Keep --spare-replicas 1, or buy on-demand",
            SPOT_SOURCE[c.shape.cloud],
        )
    ]


def training_risks(c: Candidate) -> list[Risk]:
    """A multi-node training gang on spot, in one zone and (with a fabric) one placement group."""
    if not _on_spot(c) or c.nodes < 2:
        return []
    out = [
        Risk(
            f"{c.nodes} x {c.shape.instance_type} in {c.region}: a training gang on spot; one reclaimed node stops "
            "every synchronous step until it is replaced and the job resumes from its last checkpoint. Checkpoint "
            "often, or buy on-demand or a capacity block",
            SPOT_SOURCE[c.shape.cloud],
        )
    ]
    if c.shape.rdma.kind == "efa":  # EFA nodes share one zone and one cluster placement group (DESIGN.md)
        out.append(
            Risk(
                f"{c.nodes} x {c.shape.instance_type}: one zone and one cluster placement group (EFA), so spot "
                "capacity for all the nodes must exist there at once",
                "aws-placement",
            )
        )
    return out
