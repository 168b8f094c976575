"""`pin-images`: record, at release time, the digest each image our components name directly has in its registry
(catalog/image_digests.yaml), or with `--check` say which recorded digests are missing or no longer what the
registry serves. Every image is read before anything is written, so a failure leaves the catalog as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, get_args

import yaml

from catalog import Cloud
from catalog import image_digests as catalog_digests
from catalog.fabric import default_image
from catalog.image_digests import ImageDigest

from . import clock
from .errors import BlueprintError
from .oci_registry import resolve
from .output import write_output


def named_images() -> list[str]:
    """Every image a component names itself (not the charts', which the charts pin): each passes through
    catalog.image_digests.pinned where the composition hands it to its component."""
    from components.kubernetes.acceptance import IMAGE
    from components.kubernetes.inference_gateway import EPP_IMAGE

    from .serving_spec import VLLM_IMAGE

    fabric = [default_image(cloud) for cloud in get_args(Cloud)]
    return sorted({IMAGE, EPP_IMAGE, VLLM_IMAGE, *(image for image in fabric if image)})


@dataclass(frozen=True)
class Outcome:
    ref: str
    status: str  # new, changed, unchanged, dropped (write); missing, differs, ok, unused (--check)
    recorded: str | None
    registry_digest: str | None

    def line(self) -> str:
        if self.status in ("unused", "dropped"):
            return f"{self.status}: {self.ref} is recorded but no component names it"
        if self.status in ("changed", "differs"):
            return f"{self.status}: {self.ref} {self.recorded} -> {self.registry_digest}"
        return f"{self.status}: {self.ref} {self.registry_digest}"


def pin_images(
    path: Path | None = None,
    check: bool = False,
    base_url: Optional[Callable[[str], str]] = None,
) -> tuple[list[Outcome], int]:
    """Resolve every image, then write the catalog (or, with `check`, compare only). Returns the outcomes and the
    exit code: 1 when `check` finds an entry missing, different or unused, else 0. RegistryError on the first image
    a registry cannot answer for, before anything is written. `base_url`: where an API host is asked (https://<host>
    unless a test points it at a local registry)."""
    path = path or catalog_digests.DIGESTS_FILE
    recorded = _read(path)
    answers = [resolve(ref, base_url) for ref in named_images()]
    today = clock.today()
    table: dict[str, ImageDigest] = {}
    outcomes = []
    for answer in answers:
        old = recorded.get(answer.ref)
        if old is not None and old.digest == answer.digest:  # the date it was first read stays
            table[answer.ref] = old
            status = "ok" if check else "unchanged"
        else:
            table[answer.ref] = ImageDigest(answer.digest, today, answer.registry)
            status = ("missing" if check else "new") if old is None else ("differs" if check else "changed")
        outcomes.append(Outcome(answer.ref, status, old.digest if old else None, answer.digest))
    gone = "unused" if check else "dropped"
    outcomes += [Outcome(ref, gone, old.digest, None) for ref, old in sorted(recorded.items()) if ref not in table]
    if check:
        return outcomes, int(any(o.status != "ok" for o in outcomes))
    text = render(path.read_text(encoding="utf-8"), table)
    if text != path.read_text(encoding="utf-8"):
        write_output(text, path, option=str(path))
    return outcomes, 0


def _read(path: Path) -> dict[str, ImageDigest]:
    if not path.is_file():
        raise BlueprintError(str(path), "not found: the image digest catalog (catalog/image_digests.yaml)")
    try:
        return catalog_digests.parse(yaml.safe_load(path.read_text(encoding="utf-8")), str(path))
    except yaml.YAMLError as error:
        raise BlueprintError(str(path), f"not valid YAML: {str(error).splitlines()[0]}") from None
    except ValueError as error:
        raise BlueprintError("", str(error)) from None


def render(current: str, table: dict[str, ImageDigest]) -> str:
    """The catalog file: its own leading comment kept, then the entries sorted by reference."""
    header = []
    for line in current.splitlines():
        if not line.startswith("#"):
            break
        header.append(line)
    images = {
        ref: {"digest": e.digest, "resolved": e.resolved, "registry": e.registry} for ref, e in sorted(table.items())
    }
    body = yaml.safe_dump({"images": images}, sort_keys=True, default_flow_style=False, width=120)
    return "\n".join([*header, body.rstrip("\n")]) + "\n"
