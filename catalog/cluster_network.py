"""Network, tag and naming facts the plan judges clusters by (cluster_network.yaml), kept as data with sources."""

from functools import lru_cache
from pathlib import Path
from typing import Any

from .yamlfile import load_yaml

NETWORK_FILE = Path(__file__).with_name("cluster_network.yaml")


@lru_cache(maxsize=1)
def network_facts() -> dict[str, Any]:
    return load_yaml(NETWORK_FILE)
