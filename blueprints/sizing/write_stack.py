"""`size --write-stack NAME`: the cheapest candidate as stacks/Pulumi.NAME.yaml, a preset plus overrides.

Why it plans the stack before writing it: the file must be one `pulumi up` can take as is, so it is planned
offline (with its policy packs) in a temporary folder first, the budget is set from that plan's estimate plus a
margin, the resolver must pick the advisor's shape, and only a stack that plans with exit 0 is renamed into
place. Nothing half-written is ever left in the stacks folder.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

import yaml

from catalog import Shape
from catalog.clouds import profile

from ..errors import BlueprintError
from ..stackconfig import FULL_CONFIG_KEY, PRESETS_DIR
from .candidates import Advice, Candidate
from .memory import OPTIMIZER_BYTES, TRAIN_BYTES
from .risks import Risk, serving_risks, training_risks
from .workload import SERVED_PRECISIONS

STACK_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
# Which preset a GPU model starts from: small inference/fine-tuning GPUs, A100-class training, H100-class.
PRESET_BY_GPU = {
    "T4": "startup",
    "A10": "startup",
    "A10G": "startup",
    "L4": "startup",
    "L20": "startup",
    "L40S": "startup",
    "A100-40GB": "research",
    "A100-80GB": "research",
    "H20": "research",
    "H100": "enterprise",
    "H200": "enterprise",
}
# How the nodes are bought: commitments are billing, not capacity (the nodes run on-demand under them);
# capacity blocks need a reservation id only a purchase gives.
CAPACITY_BY_OPTION = {
    "on-demand": "on-demand",
    "spot": "spot",
    "commit-1y": "on-demand",
    "commit-3y": "on-demand",
    "capacity-block": "on-demand",
}
GIB = 2**30
# Where alerts go on a cloud Alertmanager has no notifier for (clouds.yaml alert_topic null: Alibaba): e-mail to the
# budget contacts through an SMTP relay, as the shipped Alibaba stacks write it (stacks/Pulumi.enterprise-aliyun.yaml:
# DirectMail's SMTP endpoint, port 465 with TLS since ECS closes 25; the password in a Kubernetes Secret). The sender
# is an example the header asks to replace, like the budget contact; without a receiver the plan blocks.
EXAMPLE_SMTP = {
    "smarthost": "smtpdm.aliyun.com:465",
    "sender": "gpu-alerts@mail.example.com",
    "username": "gpu-alerts@mail.example.com",
    "passwordSecret": "alertmanager-smtp",
}


def _fs_size(fs_type: str, gib: float) -> int:
    """The smallest size the service allows at or above ``gib`` (FSx for Lustre: 1200 or n x 2400; CPFS:
    3600 and up in steps of 1200; see blueprints/spec.py)."""
    if fs_type == "lustre":
        return 1200 if gib <= 1200 else math.ceil(gib / 2400) * 2400
    return max(3600, math.ceil(gib / 1200) * 1200)


def checkpoint_bytes(advice: Advice) -> float:
    """One full training checkpoint: weights plus optimizer states (what resuming needs)."""
    w = advice.workload
    if w.mode != "training":
        return 0.0
    return w.params * (TRAIN_BYTES[w.precision] + OPTIMIZER_BYTES[(w.optimizer, w.precision != "fp32")])


def _cluster(advice: Advice, pick: Candidate, budget: int, contact: str) -> dict[str, Any]:
    shape: Shape = pick.shape
    preset = PRESET_BY_GPU.get(shape.gpu.model, "research")
    base = yaml.safe_load((PRESETS_DIR / f"{preset}.yaml").read_text())
    best = pick.best()
    group: dict[str, Any] = {
        "gpuModel": shape.gpu.model,
        "gpusPerNode": shape.gpu.count,
        "minVcpus": shape.vcpus,
        "minMemoryGib": shape.memory_gib,
        "minNodes": 0,
        "desiredNodes": pick.nodes,
        "maxNodes": pick.nodes,
        "capacity": CAPACITY_BY_OPTION[best.option if best else "on-demand"],
    }
    data_gb = advice.workload.dataset_tb * 1000 + checkpoint_bytes(advice) * advice.workload.checkpoints_kept / 1e9
    cluster: dict[str, Any] = {
        "preset": preset,
        "cloud": shape.cloud,
        "region": pick.region,
        "nodeGroups": {"gpu": group},
        # Training over nodes needs the fabric. Serving replicas live within one node each (serving.py), but a node
        # with RDMA devices still offers them to the queues (readiness_queues.node_devices), whose quotas count them
        # only with rdma on: a full-node pod would otherwise never be admitted.
        "networking": {
            "rdma": shape.rdma.kind != "none"
            and ((advice.workload.mode == "training" and pick.nodes > 1) or advice.workload.serving)
        },
        "storage": {"objectStorage": {"expectedSizeTb": round(max(data_gb / 1000, 0.1), 2)}},
        "budget": {"monthlyLimitUsd": budget, "contacts": [contact]},
        "tags": {"sized-by": "blueprints-size"},
    }
    if data_gb > 0:
        # The schema allows none/lustre/cpfs/nas ("default" failed `python -m blueprints schema`): each cloud's
        # parallel file system, sized to the service's steps.
        fs_type = profile(shape.cloud).default_file_system
        cluster["storage"]["parallelFs"] = {"type": fs_type, "sizeGib": _fs_size(fs_type, data_gb * 1e9 / GIB)}
    team = next(iter((base.get("kubernetes") or {}).get("teams") or {"training": {}}))
    cluster["kubernetes"] = {"teams": {team: {"gpus": pick.gpus, "maxGpusPerPod": shape.gpu.count}}}
    if profile(shape.cloud).alert_topic is None:
        cluster["kubernetes"]["monitoring"] = {"alerts": {"smtp": dict(EXAMPLE_SMTP)}}
    if advice.workload.serving:
        cluster["serving"] = {"models": served_models(advice, pick)}
        # Weights load from the stack's bucket (serving_spec.py): no parallel file system the preset may bring.
        cluster["storage"]["parallelFs"] = {"type": "none"}
    return cluster


def served_models(advice: Advice, pick: Candidate) -> dict[str, Any]:
    """The `serving.models` block of a serving advice: the advisor's TP, context and batch (the ones its fit was
    judged at, sizing/fit.py, so the plan's fit check agrees), its replicas always on, and room to grow to what
    the node group holds."""
    from ..serving_spec import ModelSpec

    w = advice.workload
    if w.model is None:
        raise BlueprintError(
            "--write-stack", "a served model needs --model (an architecture in catalog/model_shapes.yaml), not --params"
        )
    if w.precision not in SERVED_PRECISIONS:
        raise BlueprintError(
            "--precision", f"{w.precision} is not served by the model server; allowed: {', '.join(SERVED_PRECISIONS)}"
        )
    plan, replicas = advice.plan_for(pick)  # type: ignore[attr-defined]
    per_node = pick.shape.gpu.count // plan.tp
    name = re.sub(r"[^a-z0-9-]", "-", w.model.lower())[:31]  # serving_spec.NAME: llama-3.1-405b -> llama-3-1-405b
    return {
        name: {
            "model": w.model,
            "weightsPrefix": f"models/{w.model}/",
            "nodeGroup": "gpu",
            "precision": w.precision,
            "tensorParallel": plan.tp,
            "maxContext": w.context,
            "maxBatch": plan.batch,
            "minReplicas": replicas,
            "maxReplicas": max(replicas, pick.nodes * per_node),
            "signal": ModelSpec.model_fields["signal"].default,
            "target": ModelSpec.model_fields["target"].default,
        }
    }


def _risks(advice: Advice, pick: Candidate) -> list[Risk]:
    """The written candidate's risk notes (risks.py), repeated in the stack's header."""
    if advice.workload.serving:
        return serving_risks(pick, advice.plan_for(pick)[1])  # type: ignore[attr-defined]
    return training_risks(pick)


def _document(stack: str, cluster: dict[str, Any], pick: Candidate, note: str, risks: Sequence[Risk] = ()) -> str:
    best = pick.best()
    how = (
        f"{best.label} at ${best.quote.usd_per_hour:,.4g}/h ({best.quote.cite()})"
        if best and best.quote
        else "unpriced"
    )
    run = (
        "about {:,.0f} hours".format(pick.hours or 0)
        if pick.hours is not None
        else "serving around the clock (a vLLM server per replica, serving.models)"
    )
    if pick.on_request:
        how += (
            f"; sold in {pick.region} only on request (nothing sold pay-as-you-go there fits): confirm capacity "
            "with the provider's sales first"
        )
    smtp = (
        " and the alert sender (kubernetes.monitoring.alerts.smtp; kubectl -n monitoring create secret generic "
        "alertmanager-smtp --from-literal=password=...)"
        if "monitoring" in cluster.get("kubernetes", {})
        else ""
    )
    risk_lines = "".join(f"# Risk: {r.line()}\n" for r in risks)
    header = (
        f"# Written by `python -m blueprints size --write-stack {stack}`: {pick.nodes} x "
        f"{pick.shape.instance_type} in {pick.region}, {run}; cheapest option: "
        f"{how}.\n# {note}\n# Replace the example budget contact{smtp} before `pulumi up --stack {stack}`.\n"
        f"{risk_lines}"
    )
    return header + yaml.safe_dump({"config": {FULL_CONFIG_KEY: cluster}}, sort_keys=False)


def _plan_in(folder: Path, stack: str, text: str):
    from ..offline.plan import make_plan

    (folder / f"Pulumi.{stack}.yaml").write_text(text, encoding="utf-8")
    return make_plan(stack, folder)


def _check_final(final, pick: Candidate) -> None:
    """The written stack must resolve to the advisor's shape and plan with exit 0, or nothing is written."""
    from ..offline.readiness import BLOCKING
    from ..resolver import resolve

    chosen = resolve(final.resolved.spec).node_groups[0].shape.instance_type
    if chosen != pick.shape.instance_type:
        raise BlueprintError(
            "--write-stack",
            f"the resolver picks {chosen}, not the advisor's {pick.shape.instance_type}; nothing written",
        )
    if final.exit_code != 0:
        blocking = [f["message"] for f in final.findings if f.get("enforcementLevel") == "mandatory"]
        blocking += [r.message for r in final.readiness if r.level == BLOCKING]
        raise BlueprintError(
            "--write-stack",
            f"the stack would not plan cleanly ({'; '.join(blocking) or 'a blocking readiness finding'}); "
            "nothing written",
        )


def write_stack(
    advice: Advice,
    stack: str,
    stacks_dir: Path,
    margin: float = 0.2,
    contact: str = "platform-team@example.com",
    prices: Optional[Mapping[str, Any]] = None,
) -> Path:
    """Write stacks_dir/Pulumi.<stack>.yaml for the cheapest candidate; return its path. ``prices`` (the account's
    rates, `size --prices`) go into the stack's `prices:`, so the plan prices the nodes as the advisor did."""
    if not STACK_NAME.match(stack):
        raise BlueprintError("--write-stack", f"{stack!r} is not a stack name: lowercase letters, digits and '-'")
    target = Path(stacks_dir) / f"Pulumi.{stack}.yaml"
    if not Path(stacks_dir).is_dir():
        raise BlueprintError("--stacks-dir", f"{stacks_dir} is not a directory")
    if target.exists():
        raise BlueprintError("--write-stack", f"{target} exists; choose another name or remove it")
    pick = advice.cheapest or advice.candidates[0]
    with tempfile.TemporaryDirectory(prefix="size-stack-") as scratch:
        folder = Path(scratch)
        cluster = _cluster(advice, pick, 10**9, contact)
        if prices:
            cluster["prices"] = {t: dict(v) if isinstance(v, Mapping) else v for t, v in prices.items()}
        probe = _plan_in(folder, stack, _document(stack, cluster, pick, "sizing probe"))
        if probe.resolved.node_groups[0].shape.instance_type != pick.shape.instance_type:
            cluster["nodeGroups"]["gpu"]["instanceType"] = pick.shape.instance_type  # pin the advisor's shape
            probe = _plan_in(folder, stack, _document(stack, cluster, pick, "sizing probe"))
        budget = int(math.ceil(probe.cost.monthly_usd * (1 + margin) / 100) * 100)
        cluster["budget"]["monthlyLimitUsd"] = budget
        note = (
            f"Budget: the plan's expected ${probe.cost.monthly_usd:,.2f}/month plus {margin:.0%}, rounded up to $100."
        )
        text = _document(stack, cluster, pick, note, _risks(advice, pick))
        final = _plan_in(folder, stack, text)
        _check_final(final, pick)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    except OSError as error:  # a folder the caller may not write in (issue #36): one line, nothing written
        raise BlueprintError("--write-stack", f"cannot write in {target.parent}: {error.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except OSError as error:
        Path(tmp).unlink(missing_ok=True)
        raise BlueprintError("--write-stack", f"cannot write {target}: {error.strerror}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
