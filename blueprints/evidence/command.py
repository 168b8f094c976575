"""`python -m blueprints conformance`: its arguments and what it does (cli.py only hooks it in)."""

from __future__ import annotations

import argparse
from pathlib import Path

EXAMPLES = """examples:
  python -m blueprints conformance --stack startup-serving --kubeconfig ~/.kube/config
  python -m blueprints conformance --stack research-a100 --kubeconfig kubeconfig.yaml --out evidence-1.35

Runs each MUST item's demonstration of the CNCF Kubernetes AI Conformance checklist for the stack's
Kubernetes minor on the live cluster the kubeconfig's current context names; writes DIR/evidence/<item>.yaml
(what was applied, what was observed, when), DIR/run.yaml and a DIR/PRODUCT.yaml draft in the format of
cncf/k8s-ai-conformance. Every object it creates carries app.kubernetes.io/managed-by=blueprints-conformance:
a re-run replaces them and the run deletes them at the end, also on failure or Ctrl-C.

exit code 1 names each MUST item that was not shown."""


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 7200:
        raise argparse.ArgumentTypeError(f"{text!r}: seconds, more than 0 and at most 7200")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stack", required=True, help="the stack whose cluster this is (stacks/Pulumi.<stack>.yaml)")
    parser.add_argument("--kubeconfig", required=True, type=Path, help="kubeconfig; its current context is used")
    parser.add_argument("--out", type=Path, help="folder for the evidence (default: ai-conformance-<stack>)")
    parser.add_argument("--timeout", type=_seconds, default=300.0, help="seconds each wait may take (default 300)")
    parser.add_argument(
        "--scale-timeout",
        type=_seconds,
        default=900.0,
        help="seconds a wait that needs a new GPU node may take (default 900)",
    )
    parser.add_argument("--poll", type=_seconds, default=5.0, help="seconds between two looks (default 5)")
    parser.add_argument(
        "--hpa-metric",
        default=None,
        help="the pods metric name the cluster's custom metrics API serves for vLLM's queue gauge "
        "(default vllm:num_requests_waiting)",
    )


def run(args: argparse.Namespace) -> int:
    from ..output import prepare_folder
    from .kit import run_kit
    from .kubeapi import Client
    from .kubeconfig import load
    from .manifests import MODEL_METRIC
    from .target import load_target

    target = load_target(args.stack)
    connection = load(args.kubeconfig)
    out = args.out or Path(f"ai-conformance-{args.stack}")
    prepare_folder(out, "--out")
    options = dict(
        timeout_s=args.timeout,
        scale_timeout_s=args.scale_timeout,
        poll_s=args.poll,
        hpa_metric=args.hpa_metric or MODEL_METRIC,
    )
    return run_kit(Client(connection), target, out, emit=lambda line: print(line, flush=True), **options)


__all__ = ["EXAMPLES", "add_arguments", "run"]
