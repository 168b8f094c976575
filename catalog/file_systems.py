"""File-system facts (file_systems.yaml): the CPFS scale-out step per region, and which types take a customer key."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from .yamlfile import load_yaml

FILE_SYSTEMS_FILE = Path(__file__).with_name("file_systems.yaml")


@lru_cache(maxsize=1)
def _facts() -> dict[str, Any]:
    return load_yaml(FILE_SYSTEMS_FILE)


def cpfs_scale_out_step_gib(region: str) -> int:
    steps = _facts()["cpfs"]["scale_out_step_gib"]
    return int(steps.get(region, steps["default"]))


def cpfs_source() -> str:
    facts = _facts()
    return f"{facts['sources'][facts['cpfs']['source']]} (read {facts['cpfs']['as_of']})"


def customer_key_types() -> tuple[str, ...]:
    """NAS file system types (`fileSystemType`) that CreateFileSystem encrypts with a customer KMS key."""
    return tuple(_facts()["encryption"]["customer_key_types"])


def encryption_source() -> str:
    facts = _facts()
    return f"{facts['sources'][facts['encryption']['source']]} (read {facts['encryption']['as_of']})"
