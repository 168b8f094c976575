"""Zones a cluster's subnets go in, fixed by what the caller pins so a data source's order never moves them."""

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
    return sorted(wanted + rest[:SUBNET_COUNT - len(wanted)])


def check_offered(group: str, instance_type: str, zone: str, offered: Sequence[str]) -> None:
    """A group's zone must sell its shape: an error now, not instances that never launch."""
    if zone not in offered:
        where = ", ".join(sorted(set(offered))) or "none"
        raise ZoneError(group, f"{instance_type} is not offered in {zone}; zones that offer it: {where}")
