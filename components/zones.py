"""Zones a cluster's subnets go in, fixed by what the caller pins so a data source's order never moves them."""

from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

SUBNET_COUNT = 3


class ZoneError(ValueError):
    """A pinned zone the region does not list, or one that does not sell a group's shape. `group` names the node
    group whose zone it is (None: the cluster's own zone, the file system's)."""

    def __init__(self, group: Optional[str], message: str):
        self.group = group
        super().__init__(message)


def subnet_zones(available: Sequence[str], pinned: Mapping[Optional[str], str]) -> list[str]:
    """The subnets' zones: every pinned zone (the caller's, by group; None is the cluster's), filled up to three with
    the other available zones in name order, sorted by name. The same answer whatever order the data source lists
    zones in; a pinned zone the region does not list is a ZoneError naming who pinned it."""
    listed = set(available)
    for group, zone in pinned.items():
        if zone not in listed:
            raise ZoneError(group, f"zone {zone} is not an available zone here; available: {', '.join(sorted(listed))}")
    wanted = sorted(set(pinned.values()))
    if len(wanted) > SUBNET_COUNT:
        raise ZoneError(None, f"{len(wanted)} zones pinned ({', '.join(wanted)}); the cluster has {SUBNET_COUNT}")
    rest = [z for z in sorted(listed) if z not in wanted]
    return sorted(wanted + rest[: SUBNET_COUNT - len(wanted)])


def check_offered(group: str, instance_type: str, zone: str, offered: Sequence[str]) -> None:
    """A group's zone must sell its shape: an error now, not instances that never launch."""
    if zone not in offered:
        where = ", ".join(sorted(set(offered))) or "none"
        raise ZoneError(group, f"{instance_type} is not offered in {zone}; zones that offer it: {where}")


@dataclass(frozen=True)
class ZoneChoice:
    """Where a cluster's subnets and zoned groups go: `default` (the cluster's zone, the file system's), `pinned`
    (group name -> zone, for groups pinned or on RDMA) and `subnets` (the subnets' / vSwitches' zones, in order)."""

    default: str
    pinned: Mapping[str, str]
    subnets: list[str]

    def index(self, group: Optional[str]) -> int:
        """The subnet in a group's zone (None: the cluster's zone)."""
        return self.subnets.index(self.pinned[group] if group else self.default)


def zoned_groups(groups: Sequence) -> list:
    """Groups with a zone of their own: pinned by the caller, or on RDMA (which must share one zone)."""
    return [g for g in groups if g.zone or g.rdma_interfaces]


def choose_zones(
    available: Sequence[str],
    groups: Sequence,
    sells: Mapping[str, Sequence[str]],
    zone: Optional[str],
    pin_default: bool,
) -> ZoneChoice:
    """Zones from the args (the spec), never from the order a data source lists them in. Without a zone from the
    caller, the cluster's zone is the first by name that sells every unpinned zoned group's shape (`sells`: shape ->
    zones selling it). `pin_default` keeps the cluster's zone among the subnets. A pinned zone that does not sell its
    group's shape is a ZoneError, raised before any resource depends on it."""
    zoned = zoned_groups(groups)
    default = zone or next(
        (z for z in sorted(available) if all(z in sells[g.instance_type] for g in zoned if not g.zone)),
        sorted(available)[0],
    )
    pinned = {g.name: g.zone or default for g in zoned}
    subnets = subnet_zones(available, {**pinned, **({None: default} if pin_default else {})})
    for g in zoned:
        check_offered(g.name, g.instance_type, pinned[g.name], sells[g.instance_type])
    return ZoneChoice(default, pinned, subnets)
