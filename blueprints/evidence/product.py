"""The PRODUCT.yaml draft in cncf/k8s-ai-conformance's format: the checklist template for the minor
(docs/AIConformance-<minor>.yaml) with each MUST item's status, evidence (the kit's evidence file, a path relative
to PRODUCT.yaml, which the upstream scripts/validate.go accepts as a local file) and notes filled in.

validate.go (cncf/k8s-ai-conformance d45d88a, scripts/validate.go) requires every MUST item `Implemented` and every
metadata field but repoUrl filled without its template placeholder, k8sConformanceUrl included: the metadata the
kit cannot know (vendor, URLs, contact, the platform's k8s-conformance entry) stays as the template's placeholders
for the submitter, and validate.go refuses the draft until they are replaced.
"""

from __future__ import annotations

from typing import Any, Iterable

import yaml

from catalog.ai_conformance import Checklist

HEADER = """# Kubernetes AI Conformance Checklist
# Notes: This checklist is based on the Kubernetes AI Conformance document.
# Participants should fill in the 'status', 'evidence', and 'notes' fields for each requirement.

"""
# The template's metadata placeholders (docs/AIConformance-1.35.yaml), in its order; kubernetesVersion and
# platformVersion are filled from the live cluster.
PLACEHOLDERS = {
    "platformName": "[Platform Name]",
    "vendorName": "[Vendor Name]",
    "websiteUrl": "[Website URL]",
    "repoUrl": "[Repository URL]",
    "documentationUrl": "[Documentation URL]",
    "productLogoUrl": "[Documentation URL]",
    "description": "[Description]",
    "contactEmailAddress": "[Contact Email Address]",
    "k8sConformanceUrl": "[URL to k8s-conformance submission, e.g., "
    "https://github.com/cncf/k8s-conformance/tree/master/v{minor}/product-name]",
}
IMPLEMENTED, NOT_IMPLEMENTED = "Implemented", "Not Implemented"


def evidence_path(item: str) -> str:
    return f"evidence/{item}.yaml"


def draft(checklist: Checklist, server_version: str, results: dict[str, tuple[bool, str]]) -> str:
    """``results``: MUST item id -> (shown, one line of what was shown or why not)."""
    meta: dict[str, Any] = {"kubernetesVersion": f"v{checklist.minor}"}
    meta["platformName"] = PLACEHOLDERS["platformName"]
    meta["platformVersion"] = server_version
    for key, value in PLACEHOLDERS.items():
        if key != "platformName":
            meta[key] = value.format(minor=checklist.minor)
    spec: dict[str, list[dict[str, Any]]] = {}
    for item in checklist.items:
        entry: dict[str, Any] = {"id": item.id, "description": item.description, "level": item.level}
        if item.id in results:
            shown, line = results[item.id]
            entry.update(
                status=IMPLEMENTED if shown else NOT_IMPLEMENTED, evidence=[evidence_path(item.id)], notes=line
            )
        else:  # SHOULD items: the kit demonstrates none; validate.go accepts them empty
            entry.update(status="", evidence=[], notes="")
        spec.setdefault(item.area, []).append(entry)
    body = yaml.safe_dump({"metadata": meta, "spec": spec}, sort_keys=False, width=10_000, allow_unicode=True)
    return HEADER + body


def must_items(checklist: Checklist) -> Iterable[str]:
    return [i.id for i in checklist.items if i.level == "MUST"]
