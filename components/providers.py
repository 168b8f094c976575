"""The provider a caller passed for a package, so a component uses it instead of making its own."""

from __future__ import annotations

from typing import Mapping, Optional

import pulumi


def caller_provider(opts: Optional[pulumi.ResourceOptions], package: str) -> Optional[pulumi.ProviderResource]:
    """`opts.provider` or the `opts.providers` entry for `package` (e.g. "aws"), else None."""
    if opts is None:
        return None
    if opts.provider is not None and opts.provider.package == package:
        return opts.provider
    providers = opts.providers
    if isinstance(providers, Mapping):
        return providers.get(package)
    return next((p for p in providers or () if p.package == package), None)
