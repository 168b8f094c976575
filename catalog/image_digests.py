"""Digests of the images our components name directly (image_digests.yaml, issue #30), and the one function every
such image passes through: a tag can be moved to another image, a digest cannot, so what runs is what was released.

Entries are written only by `python -m blueprints pin-images`, from the registry itself; a reference without one is
returned unchanged (deployed by its tag).
"""

from __future__ import annotations

import datetime as dt
import re
import stat
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

import yaml

from .yamlfile import SafeLoader

DIGESTS_FILE = Path(__file__).with_name("image_digests.yaml")
DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
# name:tag as a pod spec names it, no digest: lowercase path components (an optional host[:port] first), a tag of
# at most 128 word characters, dots and dashes (OCI distribution spec, "Pulling manifests").
REFERENCE = re.compile(
    r"^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]{1,5})?(/[a-z0-9]+([._-]+[a-z0-9]+)*)*:[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$"
)
HOST = re.compile(r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?$")
# One entry is ~150 bytes; the components name a few dozen images.
MAX_BYTES = 1024 * 1024


class DigestCatalogError(ValueError):
    """The digest catalog cannot be read or is not what pin-images writes; the message names the file (issue #36).

    Every plan reads the catalog, so the CLI reports this as bad input in one line, never as a crash."""


@dataclass(frozen=True)
class ImageDigest:
    digest: str  # sha256:<64 hex>, the manifest (or index) digest the registry gave for the tag
    resolved: dt.date  # when pin-images read it
    registry: str  # the host it was read from


def parse(raw: object, where: str) -> dict[str, ImageDigest]:
    """The file's entries; ValueError naming the entry and what is allowed (the CLI reports it in one line)."""
    images = raw.get("images") if isinstance(raw, dict) else None
    if not isinstance(images, dict) or set(raw) != {"images"}:
        raise ValueError(f"{where}: expected one mapping `images:` of reference -> {{digest, resolved, registry}}")
    out = {}
    for ref, entry in images.items():
        if not isinstance(ref, str) or not REFERENCE.match(ref):
            raise ValueError(f"{where}: images: {ref!r} is not an image reference name:tag without a digest")
        if not isinstance(entry, dict) or set(entry) != {"digest", "resolved", "registry"}:
            raise ValueError(f"{where}: images.{ref}: expected exactly digest, resolved and registry")
        digest, resolved, registry = entry["digest"], entry["resolved"], entry["registry"]
        if not isinstance(digest, str) or not DIGEST.match(digest):
            raise ValueError(f"{where}: images.{ref}.digest: expected sha256: and 64 lowercase hex digits")
        if not isinstance(resolved, dt.date) or isinstance(resolved, dt.datetime):
            raise ValueError(f"{where}: images.{ref}.resolved: expected a date, YYYY-MM-DD")
        if not isinstance(registry, str) or not HOST.match(registry):
            raise ValueError(f"{where}: images.{ref}.registry: expected a registry host name")
        out[ref] = ImageDigest(digest, resolved, registry)
    return out


@lru_cache(maxsize=4)
def _load(path: Path, version: tuple[int, int]) -> dict[str, ImageDigest]:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise DigestCatalogError(f"{path}: more than {MAX_BYTES} bytes; pin-images writes the digest catalog")
        raw = yaml.load(data.decode("utf-8"), Loader=SafeLoader)  # noqa: S506 - a safe loader
    except OSError as error:
        raise DigestCatalogError(f"{path}: cannot read it: {error.strerror}") from None
    except (UnicodeDecodeError, yaml.YAMLError) as error:
        raise DigestCatalogError(f"{path}: not YAML ({str(error).splitlines()[0]}); run pin-images to rewrite it")
    try:
        return parse(raw, str(path))
    except DigestCatalogError:
        raise
    except ValueError as error:
        raise DigestCatalogError(str(error)) from None


def digests(path: Optional[Path] = None) -> dict[str, ImageDigest]:
    """Reference -> its recorded digest (DIGESTS_FILE unless told otherwise); read again once pin-images rewrote it.

    DigestCatalogError when the file cannot be read, is not a regular file of at most MAX_BYTES, or is malformed."""
    path = path or DIGESTS_FILE
    try:
        info = path.stat()
    except OSError as error:
        raise DigestCatalogError(f"{path}: cannot read it: {error.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise DigestCatalogError(f"{path}: not a regular file; the digest catalog is a YAML file pin-images writes")
    if info.st_size > MAX_BYTES:
        raise DigestCatalogError(f"{path}: {info.st_size} bytes; the digest catalog may have at most {MAX_BYTES}")
    return dict(_load(path, (info.st_mtime_ns, info.st_size)))


def pinned(ref: str, path: Optional[Path] = None) -> str:
    """`ref@sha256:...` where the catalog records a digest for `ref`, else `ref` unchanged (already pinned too).

    The tag stays in the reference for people; a runtime pulls by the digest alone. A registry mirror keeps it
    (components/kubernetes/mirror.py rewrites only the host), since mirrors copy whole indexes (README)."""
    entry = None if "@" in ref else digests(path).get(ref)
    return f"{ref}@{entry.digest}" if entry else ref
