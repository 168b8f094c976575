"""JSON schema of a stack file's config, for editors (yaml-language-server) and CI."""

from __future__ import annotations

from typing import Any

from .spec import ClusterSpec
from .stackconfig import FULL_CONFIG_KEY


def stack_config_schema() -> dict[str, Any]:
    cluster = ClusterSpec.model_json_schema(by_alias=True)
    defs = cluster.pop("$defs", {})
    # A preset supplies required fields, so a stack file itself may leave any of them out;
    # the loader still checks the merged result.
    for model in (cluster, *defs.values()):
        model.pop("required", None)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "gpu-cluster-blueprints stack file",
        "type": "object",
        "properties": {
            "config": {
                "type": "object",
                "properties": {FULL_CONFIG_KEY: cluster},
                "required": [FULL_CONFIG_KEY],
            },
            "secretsprovider": {"type": "string"},
            "encryptedkey": {"type": "string"},
            "encryptionsalt": {"type": "string"},
        },
        "required": ["config"],
        "$defs": defs,
    }
