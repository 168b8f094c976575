"""Write Checkov's checks by resource type (id and name) to benchmarks/data/, for docs/policies.md's coverage table.

    <checkov venv>/bin/python benchmarks/checkov_checks.py

Run with the Python of the virtualenv versus_checkov.py creates (Checkov is never a project dependency): it reads
the AWS and Alibaba Cloud Terraform and the Kubernetes check registries of the installed Checkov and writes
benchmarks/data/checkov-<version>-checks.json, so the table names Checkov's checks as that version ships them.
"""

from __future__ import annotations

import json
from pathlib import Path

import checkov.kubernetes.checks.resource.k8s  # noqa: F401 (checks register on import)
import checkov.terraform.checks.resource.alicloud  # noqa: F401
import checkov.terraform.checks.resource.aws  # noqa: F401
from checkov.kubernetes.checks.resource.registry import registry as kubernetes_registry
from checkov.terraform.checks.resource.registry import resource_registry as terraform_registry
from checkov.version import version

OUT = Path(__file__).resolve().parent / "data" / f"checkov-{version}-checks.json"


def main() -> None:
    checks: dict[str, dict[str, list[list[str]]]] = {}
    for framework, registry in (("terraform", terraform_registry), ("kubernetes", kubernetes_registry)):
        for resource_type, found in sorted(registry.checks.items()):
            if framework == "terraform" and not resource_type.startswith(("aws_", "alicloud_")):
                continue  # the table covers AWS, Alibaba Cloud and Kubernetes
            rows = sorted({(c.id, c.name) for c in found})
            checks.setdefault(framework, {})[resource_type] = [list(r) for r in rows]
    OUT.write_text(json.dumps({"checkov": version, "checks": checks}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT.name}: {sum(len(v) for f in checks.values() for v in f.values())} (type, check) pairs")


if __name__ == "__main__":
    main()
