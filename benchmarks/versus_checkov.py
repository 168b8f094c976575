"""CPU and wall time of the offline plan with its packs, beside Checkov on the same resources.

    python benchmarks/versus_checkov.py [runs] [--stack enterprise-h100] [--checkov-venv DIR] [--baseline DIR]

What is timed (each a fresh process; CPU = user + system of the process and its children; medians):

- plan+packs: `python -m blueprints plan --stack S --format json` (the program under mocks, cost,
  readiness and the stack's packs), packs hosted in the plan's process (the default);
- plan, no packs: the same with `--policy-pack none`; the packs' share is the difference;
- plan+packs, pack processes: BLUEPRINTS_PACK_PROCESSES=1 BLUEPRINTS_GC=1, one process per pack and the
  collector on (how the plan ran before issue #19);
- checkov: Checkov on the same stack's resources: the AWS resources written as a Terraform plan JSON
  (`planned_values`, types mapped from Pulumi tokens, inputs in snake_case) and the Kubernetes objects as
  manifests, `checkov -f plan.json -f manifests.yaml --framework terraform_plan kubernetes`;
- with --baseline DIR: plan+packs of another checkout of the project (e.g. `git worktree add ../base <commit>`),
  run with this interpreter in the same interleaved rounds, for a before/after from one run.

Checkov is never a project dependency: the script creates its own virtualenv (default
/tmp/checkov-venv) and pip-installs checkov there the first time. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHECKOV_VERSION = "3.3.30"


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


# Tokens whose Terraform type is not aws_<module>_<name>: Checkov knows resources only by the Terraform AWS provider's
# names (aws_lb, aws_db_instance, aws_iam_openid_connect_provider), and API Gateway's are aws_api_gateway_<name>.
TERRAFORM_TYPES = {
    "aws:lb/loadBalancer:LoadBalancer": "aws_lb",
    "aws:alb/loadBalancer:LoadBalancer": "aws_lb",
    "aws:rds/instance:Instance": "aws_db_instance",
    "aws:iam/openIdConnectProvider:OpenIdConnectProvider": "aws_iam_openid_connect_provider",
}
TERRAFORM_MODULES = {"apigateway": "api_gateway"}


def terraform_type(token: str) -> str:
    """aws:ec2/launchTemplate:LaunchTemplate -> aws_launch_template; aws:eks/nodeGroup:NodeGroup -> aws_eks_node_group
    (pulumi-aws names most resources aws_<module>_<name>, EC2's without the module; the rest are in TERRAFORM_TYPES)."""
    if token in TERRAFORM_TYPES:
        return TERRAFORM_TYPES[token]
    module, name = token.split(":")[1].split("/")
    module, name = TERRAFORM_MODULES.get(module, module), snake(name)
    if module == "ec2" or name.startswith(module):
        return f"aws_{name}"
    return f"aws_{module}_{name}"


def snake_keys(value):
    if isinstance(value, dict):
        return {snake(k): snake_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snake_keys(v) for v in value]
    return value


def write_inputs(stack: str, folder: Path) -> tuple[Path, Path, int]:
    from blueprints.offline.plan import make_plan

    plan_json, manifest_file, addresses = checkov_inputs(make_plan(stack, packs=[]).registrations, folder)
    return plan_json, manifest_file, len(addresses)


def address_name(name: str) -> str:
    return re.sub(r"[^a-z0-9_]", "_", snake(name))


def checkov_inputs(registrations, folder: Path) -> tuple[Path, Path, dict]:
    """Write ``registrations`` as Checkov reads them (plan.json, manifests.yaml in ``folder``); return both files and
    each resource by the name Checkov reports it under (``aws_s3_bucket.logs``, ``Deployment.default.web``).
    A Kubernetes object without metadata.name gets the resource's name (the provider names it after the resource)."""
    resources, manifests, addresses = [], [], {}
    for reg in registrations:
        if reg.type.startswith("aws:"):
            tf_type = terraform_type(reg.type)
            address = f"{tf_type}.{address_name(reg.name)}"
            addresses[address] = reg
            resources.append(
                {
                    "address": address,
                    "mode": "managed",
                    "type": tf_type,
                    "name": address_name(reg.name),
                    "provider_name": "registry.terraform.io/hashicorp/aws",
                    "values": snake_keys(reg.inputs),
                }
            )
        elif reg.type.startswith("kubernetes:") and "kind" in reg.inputs and not reg.type.startswith("kubernetes:helm"):
            manifest = dict(reg.inputs)
            metadata = {"name": reg.name, **(manifest.get("metadata") or {})}
            manifest["metadata"] = metadata
            addresses[f"{manifest['kind']}.{metadata.get('namespace') or 'default'}.{metadata['name']}"] = reg
            manifests.append(manifest)
    plan_json = folder / "plan.json"
    plan_json.write_text(
        json.dumps(
            {
                "format_version": "1.2",
                "terraform_version": "1.9.0",
                "planned_values": {"root_module": {"resources": resources}},
                "resource_changes": [
                    {
                        **{k: r[k] for k in ("address", "mode", "type", "name", "provider_name")},
                        "change": {"actions": ["create"], "before": None, "after": r["values"]},
                    }
                    for r in resources
                ],
            }
        )
    )
    manifest_file = folder / "manifests.yaml"
    manifest_file.write_text("\n---\n".join(json.dumps(m) for m in manifests) + "\n")
    return plan_json, manifest_file, addresses


def checkov_binary(venv: Path) -> Path:
    binary = venv / "bin" / "checkov"
    if not binary.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"checkov=={CHECKOV_VERSION}"], check=True)
    return binary


def timed(command: list[str], env: dict | None = None, cwd: Path = ROOT) -> tuple[float, float]:
    """(CPU seconds of the process tree, wall seconds) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        command,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=5)
    parser.add_argument("--stack", default="enterprise-h100")
    parser.add_argument("--checkov-venv", type=Path, default=Path(tempfile.gettempdir()) / "checkov-venv")
    parser.add_argument("--baseline", type=Path, help="another checkout: its plan+packs timed in the same rounds")
    args = parser.parse_args()

    checkov = checkov_binary(args.checkov_venv)
    work = Path(tempfile.mkdtemp(prefix="versus-checkov-"))
    plan_json, manifests, count = write_inputs(args.stack, work)
    plan = [sys.executable, "-m", "blueprints", "plan", "--stack", args.stack, "--format", "json"]
    variants = {
        "plan+packs": (plan, None),
        **({"plan+packs, baseline": (plan, None)} if args.baseline else {}),
        "plan, no packs": (plan + ["--policy-pack", "none"], None),
        "plan+packs, pack processes": (plan, {"BLUEPRINTS_PACK_PROCESSES": "1", "BLUEPRINTS_GC": "1"}),
        "checkov": (
            [
                str(checkov),
                "-f",
                str(plan_json),
                "-f",
                str(manifests),
                "--framework",
                "terraform_plan",
                "kubernetes",
                "--quiet",
                "--compact",
                "-o",
                "json",
                "--skip-download",
            ],
            None,
        ),
    }
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
    load = os.getloadavg()
    for _ in range(args.runs):  # interleaved, so machine load falls on every variant alike
        for name, (command, env) in variants.items():
            samples[name].append(timed(command, env, args.baseline if name.endswith("baseline") else ROOT))
    cpu = {name: statistics.median(c for c, _ in runs) for name, runs in samples.items()}
    wall = {name: statistics.median(w for _, w in runs) for name, runs in samples.items()}
    print(
        f"stack {args.stack}: {count} resources given to Checkov; medians of {args.runs} runs; "
        f"checkov {CHECKOV_VERSION}"
    )
    print(f"load average (1 min) before the runs: {load[0]:.1f}; after: {os.getloadavg()[0]:.1f}")
    print(f"{'what':<30} {'CPU s':>7} {'wall s':>7} {'CPU / checkov':>14}")
    for name in variants:
        print(f"{name:<30} {cpu[name]:>7.2f} {wall[name]:>7.2f} {cpu[name] / cpu['checkov']:>14.2f}")
    print(
        f"{'packs share (hosted)':<30} {cpu['plan+packs'] - cpu['plan, no packs']:>7.2f} "
        f"{wall['plan+packs'] - wall['plan, no packs']:>7.2f}"
    )
    print(
        f"{'packs share (processes, gc on)':<30} {cpu['plan+packs, pack processes'] - cpu['plan, no packs']:>7.2f} "
        f"{wall['plan+packs, pack processes'] - wall['plan, no packs']:>7.2f}  (vs the no-packs plan with gc off)"
    )


if __name__ == "__main__":
    main()
