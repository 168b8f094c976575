"""Which stacks a change touches, and the packs each declares: the matrix the workflows run."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from .errors import BlueprintError
from .stackconfig import STACKS_DIR, available_stacks, cluster_config, parse_cluster, read_stack_config, stack_source

# Where `python -m blueprints policy-config` writes a stack's --policy-pack-config files in CI.
PACK_CONFIG_DIR = "policy-config"
# Paths whose changes cannot alter what any stack deploys: tests, docs and the developer toolchain
# (deploy.yml installs requirements.txt only). deploy.yml's paths-ignore lists the same.
INERT = (".github/", "docs/", "tests/", "benchmarks/", ".ci/")
INERT_FILES = frozenset(
    {"requirements-dev.txt", "Makefile", ".gitignore", "pytest.ini", "package.json", "package-lock.json"}
)


def touched_stacks(changed_files: Optional[Sequence[str]], stacks_dir: Path = STACKS_DIR) -> list[str]:
    """Every stack, unless the change only edits stack files (then those) or inert files (then none)."""
    stacks = available_stacks(stacks_dir)
    if changed_files is None:
        return stacks
    by_file = {f"stacks/Pulumi.{s}.yaml": s for s in stacks}
    relevant = [
        f for f in changed_files if f and not f.startswith(INERT) and f not in INERT_FILES and not f.endswith(".md")
    ]
    if any(f not in by_file for f in relevant):
        return stacks  # program, components, presets, catalog or packs: every stack may change
    return sorted({by_file[f] for f in relevant})


def matrix(stacks: Sequence[str], stacks_dir: Path = STACKS_DIR) -> list[dict[str, str]]:
    """[{stack, cloud, packs, packConfigs, privateApi}]: packs and their config files as pulumi/actions'
    policyPacks and policyPackConfigs inputs want them (one path a line, in the same order); privateApi
    "true" when the platform layer talks to a private API, which a hosted runner cannot reach."""
    known = available_stacks(stacks_dir)
    rows = []
    for stack in stacks:
        if stack not in known:
            raise BlueprintError("--stacks", f"no stack named {stack}; stacks: {', '.join(known)}")
        source = stack_source(stack, stacks_dir)
        spec = parse_cluster(cluster_config(read_stack_config(stack, stacks_dir), source), source)
        rows.append(
            {
                "stack": stack,
                "cloud": spec.cloud,
                "packs": "\n".join(f"policies/{p}" for p in spec.compliance.frameworks),
                "packConfigs": "\n".join(f"{PACK_CONFIG_DIR}/{stack}/{p}.json" for p in spec.compliance.frameworks),
                "privateApi": str(spec.kubernetes.enabled and not spec.networking.public_api).lower(),
            }
        )
    return rows
