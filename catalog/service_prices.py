"""Managed-service rates the plan's cost adds beside the instances (control plane, storage, logging, NAT), each with
its source in service_prices.yaml."""

from functools import lru_cache
from pathlib import Path
from typing import Any

from .yamlfile import load_yaml

SERVICE_PRICES_FILE = Path(__file__).with_name("service_prices.yaml")


@lru_cache(maxsize=1)
def service_prices() -> dict[str, Any]:
    return load_yaml(SERVICE_PRICES_FILE)
