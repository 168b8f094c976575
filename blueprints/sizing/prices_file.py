"""`size --prices FILE`: the account's own rates, in the stack file's `prices:` form, for the advisor and the stack.

Why the stack's form: `--write-stack` copies the mapping into the stack it writes, so the plan prices the nodes
exactly as the advisor did (an Alibaba stack's system shape has no sourced list price: without the account's rate
its plan cannot judge the budget and exits 1). The file is either the mapping itself or `prices: {...}`; the rules
for each value are the spec's own (ClusterSpec.prices); an instance type the catalog does not know is refused, since
a typo would otherwise be silently unused.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Optional

import yaml
from pydantic import TypeAdapter, ValidationError

from catalog import load_catalog
from catalog.prices import Overrides, Quote, overridden_price
from catalog.system_shapes import load_system_shapes

from .. import safeyaml
from ..errors import BlueprintError

SOURCE = "your rate (--prices)"


def load_prices_file(path: Path) -> dict[str, Any]:
    """The overrides in ``path``, or BlueprintError naming the file and the field (one line, exit 2)."""
    where = str(path)
    if not path.is_file():
        raise BlueprintError(where, "not a readable file; allowed: a YAML file with prices: {instanceType: USD/hour}")
    if os.path.getsize(path) > safeyaml.MAX_BYTES:  # refuse before reading it into memory
        raise BlueprintError(where, f"larger than {safeyaml.MAX_BYTES} bytes; a prices file is a short YAML mapping")
    try:
        document, duplicates = safeyaml.load(path.read_bytes().decode("utf-8"))
    except (safeyaml.YamlLimitError, yaml.YAMLError, UnicodeDecodeError) as exc:
        raise BlueprintError(where, f"not a YAML prices file ({str(exc).splitlines()[0]})") from None
    if duplicates:
        raise BlueprintError(where, f"{duplicates[0]}")
    prices = document.get("prices", document) if isinstance(document, dict) else document
    if not isinstance(prices, dict) or not prices:
        raise BlueprintError(
            f"{where}: prices", "allowed: a mapping of instance type to USD/hour, or to {on-demand: X, spot: Y}"
        )
    return validate_prices(where, prices)


def validate_prices(where: str, prices: Mapping[str, Any]) -> dict[str, Any]:
    """The spec's rules for `prices:` values, and every instance type known to the catalog (GPU or system)."""
    from ..spec import ClusterSpec

    known_gpu, known_system = load_catalog(), load_system_shapes()
    for instance_type in prices:
        if known_gpu.get(str(instance_type)) is None and known_system.get(str(instance_type)) is None:
            raise BlueprintError(
                f"{where}: prices.{instance_type}",
                "not an instance type in the catalog (catalog/shapes.yaml, catalog/system_shapes.yaml); allowed: a "
                "GPU or system shape the catalog lists",
            )
    try:
        ClusterSpec._prices(dict(prices))  # the spec's one message per bad value
        return TypeAdapter(ClusterSpec.model_fields["prices"].annotation).validate_python(dict(prices))
    except (ValueError, ValidationError) as exc:
        message = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        raise BlueprintError(f"{where}: prices", message) from None


def your_quote(prices: Optional[Overrides], instance_type: str, region: str, option: str) -> Optional[Quote]:
    """The account's rate for ``instance_type`` bought as ``option``, as a quote the advisor ranks like any other."""
    rate = overridden_price(prices, instance_type, option)
    if rate is None:
        return None
    return Quote(usd_per_hour=rate, region=region, option=option, source=SOURCE, as_of="given", exact=True)
