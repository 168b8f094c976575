"""`python -m blueprints plan|size|schema|...`: one line and exit 2 on bad input, never a traceback."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Optional, Sequence

from .errors import EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_REGISTRY, BlueprintError, RegistryError
from .output import STDOUT_NAMES, check_folder, check_output, write_output

# One meaning per code across commands (README: exit codes). Unlike `terraform plan -detailed-exitcode`, whose 2
# means "changes present", 2 here is always bad input; a change is never a failure by itself.
EXIT_MEANINGS = {
    0: "done; nothing blocks",
    1: "the result blocks: mandatory compliance findings or blocking readiness gaps (plan), a change that must not "
    "merge (diff), or a recorded image digest missing or not the registry's (pin-images --check); the output is "
    "still written",
    2: "bad input: each problem on its own line as 'error: <file>: <field>: <what is allowed>'; nothing written",
    3: "the program itself failed (a bug: the traceback is printed)",
    4: "a registry could not be read or gave an unusable answer (pin-images): one line naming the image; nothing "
    "written",
}
# every other command: 0, 2, 3 (it has no verdict)
CODES_OF = {"plan": (0, 1, 2, 3), "diff": (0, 1, 2, 3), "pin-images": (0, 1, 2, 3, 4), "conformance": (0, 1, 2, 3)}


def exit_codes(command: Optional[str] = None) -> str:
    """The exit codes a command can return, each with its one meaning."""
    codes = tuple(EXIT_MEANINGS) if command is None else CODES_OF.get(command, (0, 2, 3))
    return "exit codes:\n" + "\n".join(f"  {c}  {EXIT_MEANINGS[c]}" for c in codes)


EXIT_CODES = exit_codes()

EXAMPLES = {
    "plan": """examples:
  python -m blueprints plan --stack research-a100
  python -m blueprints plan --stack startup-t4 --format markdown
  python -m blueprints plan --all-stacks --format json --output plan.json
  make plan STACK=research-a100 FORMAT=json > plan.json

--all-stacks plans every stack it can; failures are reported per stack (and in the JSON bundle's
"failures") and the exit code is the worst of all stacks.""",
    "diff": """examples:
  python -m blueprints diff base.json head.json
  python -m blueprints diff base.json head.json --format markdown --output comment.md
  python -m blueprints diff base.json head.json --data-loss-acknowledged  # the PR carries the label

exit code 1 when the change must not merge as it is (the verdict the comment states): a stack
failed to plan at the head or its plan fails (mandatory findings, blocking readiness gaps), a
replacement would clash with a fixed name, or a protected data store would be replaced or deleted
(or an autoscaling engine switch would replace the GPU nodes) without --data-loss-acknowledged
(the workflow sets it from the PR label data-loss-acknowledged).""",
    "ci-matrix": """examples:
  git diff --name-only "$BASE" "$HEAD" > changed.txt
  python -m blueprints ci-matrix --changed-files changed.txt
  python -m blueprints ci-matrix --stacks research-a100 startup-t4""",
    "policy-config": """examples:
  python -m blueprints policy-config --stack enterprise-h100 --output-dir policy-config/enterprise-h100""",
    "schema": """examples:
  python -m blueprints schema --output stack-config.schema.json
  python -m blueprints schema --plan --output plan.schema.json""",
    "pin-images": """examples:
  python -m blueprints pin-images          # at release time, where the registries are reachable; commit the file
  python -m blueprints pin-images --check  # the release checklist: exit 1 if an entry is missing or differs

Reads each image's digest from its registry (OCI distribution API, anonymous pull token) and records it in
catalog/image_digests.yaml; the plan then deploys those images as name:tag@sha256:<digest>.""",
}


SIZE_DESCRIPTION = """The sizing and cost advisor: which catalog shapes can run a workload, on how many GPUs, how
long and at what cost per purchase option, every figure with its formula or price source. Training
(transformers by parameters and tokens, or --model), serving (--mode inference with --rps or
--concurrency: tensor parallelism, batch, latency, replicas, cost per hour and per million tokens),
and vision or other work by FLOPs per sample (--workload resnet50, or --flops-per-sample)."""

SIZE_EPILOG = """examples:
  python -m blueprints size --model llama-2-7b --tokens 2T --target-days 30
  python -m blueprints size --params 7B --tokens 1T --cloud aws --write-stack llm-7b
  python -m blueprints size --mode inference --model llama-3-70b --precision fp8 --rps 5 \\
      --input-tokens 1000 --output-tokens 300 --ttft-ms 1000 --tpot-ms 50 --spare-replicas 1
  python -m blueprints size --workload resnet50 --precision fp16 --format markdown
  python -m blueprints size --params 25.6M --flops-per-sample 8.2G --samples 1.28M --epochs 90

exit codes:
  0  done (and, with --write-stack, the stack was written after planning with exit 0)
  2  bad input or no shape can run it: one line 'error: <field>: <what is allowed>'
  3  the program itself failed (a bug: the traceback is printed)"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would print usage over several lines
        raise BlueprintError("usage", message)


def version() -> str:
    """The package's version: pyproject.toml beside the code (a checkout), else the installed metadata."""
    import tomllib
    from importlib import metadata

    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    if pyproject.is_file():
        return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]
    return metadata.version("gpu-cluster-blueprints")


def _unknown_options(parser: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    """`--stak` is an unknown option (with the nearest real one), not a missing `--stack`.

    argparse checks required options before it reports unrecognised ones, so a typo of a required option
    would read as that option missing; this looks first.
    """
    import difflib

    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    name = next((a for a in argv if not a.startswith("-")), None)
    sub = commands.choices.get(name) if name else None
    known = list((sub or parser)._option_string_actions)
    for token in argv:
        option = token.split("=", 1)[0]
        if not option.startswith("-") or option == "-" or option.lstrip("-").replace(".", "").isdigit():
            continue
        if option == "--":
            break
        if option in known or (option.startswith("--") and any(k.startswith(option) for k in known)):
            continue
        close = difflib.get_close_matches(option, [k for k in known if k.startswith("--")], n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]}?" if close else f"; options of {name or 'this command'}: see --help"
        raise BlueprintError("usage", f"unknown option {option}{hint}")


def _command(commands, name: str, help_text: str) -> argparse.ArgumentParser:
    return commands.add_parser(
        name,
        help=help_text,
        description=help_text,
        epilog=f"{EXAMPLES[name]}\n\n{exit_codes(name)}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _parser() -> argparse.ArgumentParser:
    """The top-level parser; each subcommand's arguments live in their own step below."""
    parser = _Parser(
        prog="python -m blueprints",
        description="GPU cluster blueprints, offline.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _plan_parser(commands)
    _diff_parser(commands)
    _ci_matrix_parser(commands)
    _policy_config_parser(commands)
    _size_parser(commands)
    _schema_parser(commands)
    _pin_images_parser(commands)
    _conformance_parser(commands)
    return parser


def _plan_parser(commands) -> None:
    """`plan`: which stacks to run, the output format and the policy packs to judge with."""
    plan = _command(commands, "plan", "run a stack's program under mocks: resources, cost, findings")
    which = plan.add_mutually_exclusive_group(required=True)
    which.add_argument("-s", "--stack", help="stack name, stacks/Pulumi.<stack>.yaml")
    which.add_argument("--all-stacks", action="store_true", help="every stack in the stacks folder (JSON: a bundle)")
    plan.add_argument(
        "--format",
        choices=("text", "json", "markdown", "sarif"),
        default="text",
        help="sarif: findings and readiness gaps as SARIF 2.1.0, for GitHub code scanning",
    )
    plan.add_argument("--output", type=Path, help="write here (atomically) instead of standard output")
    plan.add_argument("--stacks-dir", type=Path, default=None, help="where the stack files are (default: stacks/)")
    _policy_pack_arguments(plan)


def _policy_pack_arguments(plan: argparse.ArgumentParser) -> None:
    """`plan --policy-pack` and `--policy-pack-config`: mirror what `pulumi preview` takes."""
    plan.add_argument(
        "--policy-pack",
        action="append",
        dest="packs",
        metavar="PACK",
        help="judge with this pack from policies/ instead of the spec's compliance.frameworks "
        "(repeatable; 'none' runs no pack)",
    )
    plan.add_argument(
        "--policy-pack-config",
        action="append",
        dest="pack_configs",
        metavar="FILE",
        type=Path,
        default=[],
        help="a pack's config JSON, as `pulumi preview --policy-pack-config` takes it: "
        "the n-th configures the n-th --policy-pack, else the pack named by the "
        "file (<pack>.json, as policy-config writes)",
    )


def _diff_parser(commands) -> None:
    """`diff`: the two plans to compare, the format and the data-loss acknowledgement."""
    diff = _command(commands, "diff", "compare two plans (JSON from base and head): resources, cost, findings")
    diff.add_argument("base", type=Path, help="plan JSON of the base (a plan or an --all-stacks bundle)")
    diff.add_argument("head", type=Path, help="plan JSON of the head")
    diff.add_argument(
        "--format",
        choices=("text", "markdown", "sarif"),
        default="text",
        help="sarif: the head's findings and the merge blockers as SARIF 2.1.0",
    )
    diff.add_argument("--output", type=Path, help="write here (atomically) instead of standard output")
    diff.add_argument(
        "--data-loss-acknowledged",
        action="store_true",
        help="the pull request acknowledges replacing or deleting protected data stores, or the GPU "
        "nodes an autoscaling engine switch replaces (the workflow sets it from the PR's label)",
    )


def _ci_matrix_parser(commands) -> None:
    """`ci-matrix`: the changed files (or stacks) that pick the CI matrix."""
    ci = _command(commands, "ci-matrix", "stacks a change touches and their packs, as a JSON matrix")
    ci.add_argument("--changed-files", type=Path, help="file listing changed paths, one a line (default: all stacks)")
    ci.add_argument("--stacks", nargs="+", help="these stacks instead of working them out from changes")


def _policy_config_parser(commands) -> None:
    """`policy-config`: the stack whose pack configs to write, and where."""
    pconf = _command(commands, "policy-config", "write a stack's --policy-pack-config files, one per pack")
    pconf.add_argument("-s", "--stack", required=True, help="stack name, stacks/Pulumi.<stack>.yaml")
    pconf.add_argument("--output-dir", type=Path, required=True, help="folder for <pack>.json files")


def _schema_parser(commands) -> None:
    """`schema`: where to print the stack config's JSON schema."""
    schema = _command(commands, "schema", "print the JSON schema of the stack config (or, with --plan, of plan JSON)")
    schema.add_argument(
        "--plan", action="store_true", help="the schema of `plan --format json`, which `diff` checks both plans against"
    )
    schema.add_argument("--output", type=Path, help="write here instead of standard output")


def _conformance_parser(commands) -> None:
    """`conformance`: the evidence kit (blueprints/evidence), its arguments kept beside it."""
    from .evidence.command import EXAMPLES as CONFORMANCE_EXAMPLES
    from .evidence.command import add_arguments

    EXAMPLES.setdefault("conformance", CONFORMANCE_EXAMPLES)
    add_arguments(_command(commands, "conformance", "run the AI Conformance demonstrations on a live cluster"))


def _pin_images_parser(commands) -> None:
    """`pin-images`: record (or with --check compare) the digests of the images the components name."""
    pin = _command(commands, "pin-images", "record the registry digest of each image the components name (release)")
    pin.add_argument(
        "--check",
        action="store_true",
        help="compare catalog/image_digests.yaml with the registries and write nothing; exit 1 on a difference",
    )


def _pin_images(args: argparse.Namespace) -> int:
    """`pin-images`: one line per image on standard output; the catalog written only after every image resolved."""
    from .image_pins import pin_images

    outcomes, code = pin_images(check=args.check)
    _write("".join(f"{o.line()}\n" for o in outcomes), None)
    return code


def _size_parser(commands) -> None:
    """`size`: the sizing and cost advisor (blueprints/sizing). Counts take units: 7B, 110M, 1T."""
    size = commands.add_parser(
        "size",
        help="GPUs, time and cost for a workload; optionally write its stack",
        description=SIZE_DESCRIPTION,
        epilog=SIZE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    size.add_argument("--params", help="model parameters with a unit, e.g. 7B, 110M, 175B")
    size.add_argument("--mode", choices=("training", "inference"), default="training")
    size.add_argument("--precision", help="fp32, bf16, fp16, fp8; int8 or int4 for inference (default bf16)")
    size.add_argument("--optimizer", help="adam, adamw (default) or sgd")
    size.add_argument("--sharding", help="dp, zero1, zero2, zero3 (default) or fsdp")
    size.add_argument("--tokens", help="tokens to train on (or serve), e.g. 1T, 300B")
    size.add_argument("--steps", type=int, help="optimizer steps (with --global-batch) instead of --tokens")
    size.add_argument("--global-batch", type=int, help="sequences per optimizer step")
    size.add_argument("--seq-len", type=int, help="sequence length (default 4096)")
    size.add_argument("--micro-batch", type=int, help="sequences per GPU per pass (default 1)")
    size.add_argument("--recompute", help="activation recomputation: none, selective (default), full")
    size.add_argument("--hidden-size", type=int)
    size.add_argument("--layers", type=int)
    size.add_argument("--heads", type=int)
    size.add_argument("--kv-heads", type=int, help="key/value heads (grouped-query attention; default = --heads)")
    size.add_argument(
        "--model",
        help="a published architecture: llama-2-7b/13b/70b, llama-3-8b/70b, "
        "llama-3.1-405b, mistral-7b, mixtral-8x7b, bert-base/large, gpt-3-175b",
    )
    vision = size.add_argument_group("vision and other work sized by FLOPs per sample")
    vision.add_argument("--workload", help="a named workload: resnet50 (ImageNet-1k, 90 epochs; flags override)")
    vision.add_argument("--flops-per-sample", help="forward-pass FLOPs per sample, e.g. 8.2G (training = 3x)")
    vision.add_argument("--samples", help="samples per epoch, e.g. 1.28M")
    vision.add_argument("--epochs", type=float, help="passes over the samples")
    _size_serving_arguments(size)
    size.add_argument("--mfu", type=float, help="model FLOPs utilization, 0-1 (default 0.40, Llama 3 paper)")
    size.add_argument("--target-days", type=float, help="finish within this many days (sets the node count)")
    size.add_argument("--cloud", action="append", dest="clouds", help="aws or alicloud (repeatable; default both)")
    size.add_argument("--region", action="append", dest="regions", help="region (repeatable; default all)")
    size.add_argument("--spot-overhead", type=float, help="extra run time spot interruptions cost (default 0.10)")
    size.add_argument("--dataset-tb", type=float, help="training data to keep, TB (sizes storage)")
    size.add_argument("--checkpoints", type=int, dest="checkpoints_kept", help="checkpoints kept (default 3)")
    size.add_argument(
        "--usage-history",
        type=Path,
        help="CSV of monthly GPU-hours per shape: forecast and recommend commitments (needs requirements-advisor.txt)",
    )
    size.add_argument(
        "--prices",
        type=Path,
        metavar="FILE",
        help="the account's rates, the stack file's prices: form (--write-stack keeps them)",
    )
    size.add_argument("--write-stack", metavar="NAME", help="write stacks/Pulumi.NAME.yaml for the cheapest candidate")
    size.add_argument("--budget-margin", type=float, default=0.2, help="budget = estimate x (1 + margin)")
    size.add_argument("--stacks-dir", type=Path, default=None, help="where --write-stack writes (default: stacks/)")
    size.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    size.add_argument("--output", type=Path, help="write here (atomically) instead of standard output")


def _size_serving_arguments(size: argparse.ArgumentParser) -> None:
    """`size`'s serving flags and the fleet you have (issue #37)."""
    serve = size.add_argument_group("serving (--mode inference with --rps or --concurrency)")
    serve.add_argument("--rps", type=float, help="requests per second to serve")
    serve.add_argument("--concurrency", type=int, help="users generating at once (instead of --rps)")
    serve.add_argument("--input-tokens", type=int, help="prompt tokens per request (default 512)")
    serve.add_argument("--output-tokens", type=int, help="generated tokens per request (default 256)")
    serve.add_argument(
        "--max-context", type=int, help="tokens a sequence may hold (maxContext; default prompt + output tokens)"
    )
    serve.add_argument("--max-batch", type=int, help="sequences decoded together (maxBatch; default: all that fit)")
    serve.add_argument("--ttft-ms", type=float, help="time-to-first-token target, ms")
    serve.add_argument("--tpot-ms", type=float, help="time-per-output-token target, ms")
    serve.add_argument("--spare-replicas", type=int, help="replicas that may be lost while serving (availability)")
    serve.add_argument("--mbu", type=float, help="memory-bandwidth utilization of a decode step (default 0.6, NIM)")
    fleet = size.add_argument_group("a fleet you have (instead of sizing one)")
    fleet.add_argument("--gpus", type=int, help="GPUs you have: time and cost (or the rate served) on exactly them")
    fleet.add_argument("--nodes", type=int, help="nodes you have of --shape")
    fleet.add_argument("--shape", help="the instance type of your --nodes, e.g. p5.48xlarge")


def _size(args: argparse.Namespace) -> int:
    """`size`: a usage-history forecast, or a workload's advice (and optionally its stack)."""
    if args.write_stack:  # before the advice and its plans: a folder the stack cannot be written in is refused now
        from .stackconfig import STACKS_DIR

        folder = Path(args.stacks_dir or STACKS_DIR)
        if folder.is_dir():  # a missing folder is --stacks-dir's own error, below
            check_output(folder / f"Pulumi.{args.write_stack}.yaml", [], option="--write-stack")
    if args.usage_history is not None:
        from .sizing.history import render_history

        _write(render_history(args.usage_history, args.format), args.output)
        return 0
    _check_size_args(args)
    advice, text = _size_advice(args, _size_workload(args))
    if args.write_stack:
        _size_write_stack(args, advice)
    _write(text, args.output)
    return 0


def _check_size_args(args: argparse.Namespace) -> None:
    """Refuse a sizing without a model, and a budget margin that is not a finite number."""
    if args.params is None and args.model is None and args.workload is None:
        raise BlueprintError(
            "--params", "required: model parameters with a unit, e.g. 7B, or --model NAME (or --usage-history FILE)"
        )
    if not 0 <= args.budget_margin < float("inf"):  # nan and inf too: argparse's float() accepts them
        raise BlueprintError("--budget-margin", f"must be a finite number, 0 or more (got {args.budget_margin})")


def _size_workload(args: argparse.Namespace):
    """The workload the flags describe; counts parsed in flag order so the first bad one is reported."""
    from .sizing.workload import build_workload

    return build_workload(**_model_kwargs(args), **_placement_kwargs(args), **_serving_vision_kwargs(args))


def _model_kwargs(args: argparse.Namespace) -> dict:
    """The model and its training run: size, precision, parallelism, tokens and batch."""
    from .sizing.workload import parse_count

    return dict(
        params=None if args.params is None else parse_count(args.params, "--params"),
        model=args.model,
        kv_heads=args.kv_heads,
        mode=args.mode,
        precision=args.precision,
        optimizer=args.optimizer,
        sharding=args.sharding,
        tokens=None if args.tokens is None else parse_count(args.tokens, "--tokens"),
        steps=args.steps,
        global_batch=args.global_batch,
        seq_len=args.seq_len,
        micro_batch=args.micro_batch,
        recompute=args.recompute,
        hidden_size=args.hidden_size,
        layers=args.layers,
        heads=args.heads,
        mfu=args.mfu,
    )


def _placement_kwargs(args: argparse.Namespace) -> dict:
    """Where and how long it runs: deadline, clouds, regions, spot overhead and storage."""
    return dict(
        target_hours=None if args.target_days is None else args.target_days * 24,
        clouds=None if not args.clouds else tuple(args.clouds),
        regions=None if not args.regions else tuple(args.regions),
        spot_overhead=args.spot_overhead,
        dataset_tb=args.dataset_tb,
        checkpoints_kept=args.checkpoints_kept,
        fleet_gpus=args.gpus,
        fleet_nodes=args.nodes,
        fleet_shape=args.shape,
    )


def _serving_vision_kwargs(args: argparse.Namespace) -> dict:
    """Serving targets, and the work sized by FLOPs per sample (vision)."""
    from .sizing.workload import parse_count

    return dict(
        request_rate=args.rps,
        concurrency=args.concurrency,
        input_tokens=args.input_tokens,
        output_tokens=args.output_tokens,
        max_context=args.max_context,
        max_batch=args.max_batch,
        ttft_ms=args.ttft_ms,
        tpot_ms=args.tpot_ms,
        spare_replicas=args.spare_replicas,
        mbu=args.mbu,
        workload=args.workload,
        epochs=args.epochs,
        flops_per_sample=None
        if args.flops_per_sample is None
        else parse_count(args.flops_per_sample, "--flops-per-sample"),
        samples=None if args.samples is None else parse_count(args.samples, "--samples"),
    )


def _size_advice(args: argparse.Namespace, workload) -> tuple:
    """The advice (serving or training) and its rendering in the chosen format."""
    from .sizing.candidates import advise
    from .sizing.render import RENDERERS

    prices = None
    if args.prices is not None:
        from .sizing.prices_file import load_prices_file

        prices = load_prices_file(args.prices)
    if workload.serving:
        from .sizing.serving import SERVING_RENDERERS, advise_serving

        advice = advise_serving(workload, prices=prices)
        return advice, SERVING_RENDERERS[args.format](advice)
    advice = advise(workload, prices=prices)
    if args.format == "text":  # the table fits COLUMNS (or the terminal); 160 columns in a pipe
        from .sizing.render import render_text
        from .terminal import width

        return advice, render_text(advice, width=width())
    return advice, RENDERERS[args.format](advice)


def _size_write_stack(args: argparse.Namespace, advice) -> None:
    """`--write-stack`: the cheapest candidate's stack file, its path on standard error."""
    from .sizing.write_stack import write_stack
    from .stackconfig import STACKS_DIR

    prices = None
    if args.prices is not None:
        from .sizing.prices_file import load_prices_file

        prices = load_prices_file(args.prices)
    path = write_stack(
        advice, args.write_stack, args.stacks_dir or STACKS_DIR, margin=args.budget_margin, prices=prices
    )
    print(f"wrote {path}", file=sys.stderr)


def _write(text: str, output: Optional[Path], coloured: bool = False) -> None:
    """Standard output, a FIFO or device written in place, or a regular file replaced atomically.

    ``coloured``: text for people; coloured when standard output is a terminal (never in a file or pipe).
    """
    if coloured and (output is None or str(output) in STDOUT_NAMES):
        from .terminal import write_coloured

        write_coloured(text)
        return
    write_output(text, output)


def _inputs(args: argparse.Namespace) -> list[tuple[str, Path]]:
    """What the command reads, as (what, path): `--output` may be none of them (issue #36, item 1)."""
    from catalog.image_digests import DIGESTS_FILE

    from .stackconfig import STACKS_DIR, available_stacks

    if args.command == "diff":
        return [("base plan", args.base), ("head plan", args.head)]
    catalog = [("image digest catalog", DIGESTS_FILE)]
    stacks_dir = Path(getattr(args, "stacks_dir", None) or STACKS_DIR)
    if args.command == "plan":
        stacks = available_stacks(stacks_dir) if args.all_stacks and stacks_dir.is_dir() else [args.stack]
        files = [("stack file", stacks_dir / f"Pulumi.{s}.yaml") for s in stacks if s]
        return files + [("policy pack config", p) for p in args.pack_configs] + catalog
    if args.command == "size":
        history = [("usage history", args.usage_history)] if args.usage_history else []
        prices = [("prices file", args.prices)] if args.prices is not None else []
        written = [("stack file --write-stack writes", stacks_dir / f"Pulumi.{args.write_stack}.yaml")]
        return history + prices + (written if args.write_stack else []) + catalog
    return []


def _ci_matrix(args: argparse.Namespace) -> int:
    """The stacks a pull request's plan job covers: those named, or those its changed files touch."""
    from .ci import matrix, touched_stacks

    if args.stacks:
        stacks = args.stacks
    else:
        changed = None
        if args.changed_files:
            from .inputs import CHANGED_FILES_BYTES, read_text

            text = read_text(args.changed_files, CHANGED_FILES_BYTES, f"--changed-files: {args.changed_files}")
            changed = text.splitlines()
        stacks = touched_stacks(changed)
    _write(json.dumps(matrix(stacks)) + "\n", None)
    return 0


def run(argv: Sequence[str], own_process: bool = False) -> int:
    for token in argv:  # no shell can pass one (C strings); a caller in process can, and no path may hold one
        if "\x00" in token:
            raise BlueprintError("usage", f"argument {token!r} contains a NUL character")
    parser = _parser()
    _unknown_options(parser, argv)
    args = parser.parse_args(argv)
    if own_process and args.command != "plan":  # __main__ turned the collector off for the imports
        gc.enable()
    check_output(getattr(args, "output", None), _inputs(args))  # before any work: nothing is read or planned yet
    if args.command == "schema":
        from .offline.plan_schema import plan_schema
        from .schema import stack_config_schema

        _write(json.dumps(plan_schema() if args.plan else stack_config_schema(), indent=2) + "\n", args.output)
        return 0
    if args.command == "ci-matrix":
        return _ci_matrix(args)
    if args.command == "policy-config":
        from .offline.pack_config import write_pack_configs
        from .offline.plan import make_plan

        check_folder(args.output_dir)  # before the plan: a file at the path is refused, not found out later
        plan = make_plan(args.stack, packs=[])  # the budget rule needs the plan's rates and cost estimate
        for path in write_pack_configs(plan.resolved.spec, args.output_dir, plan.resolved, plan.cost):
            print(path)
        return 0
    if args.command == "size":
        return _size(args)
    if args.command == "pin-images":
        return _pin_images(args)
    if args.command == "conformance":
        from .evidence.command import run as conformance

        return conformance(args)
    if args.command == "diff":
        from .offline.diff import check_exit_code, diff_plans, load_bundle
        from .offline.diff_render import render_diff_markdown, render_diff_text
        from .progress import progress

        base, _ = load_bundle(args.base)
        head, failures = load_bundle(args.head)
        diffs = diff_plans(base, head, failures, progress=progress)
        if args.format == "sarif":
            from .offline.sarif import diff_sarif
            from .stackconfig import STACKS_DIR

            _write(diff_sarif(diffs, args.data_loss_acknowledged, STACKS_DIR, version()), args.output)
            return check_exit_code(diffs, args.data_loss_acknowledged)
        render = render_diff_markdown if args.format == "markdown" else render_diff_text
        _write(render(diffs, args.data_loss_acknowledged), args.output, coloured=args.format == "text")
        return check_exit_code(diffs, args.data_loss_acknowledged)
    return _plan(args, own_process)


def quiet_collector() -> None:
    """Stop Python's cyclic garbage collector for the rest of this short-lived plan process.

    Registering resources allocates many container objects, and each allocation burst triggers a
    collection that walks everything alive: a prototype measured half the plan's CPU there (issue #19).
    ``gc.freeze()`` moves what the imports created out of the collector's reach, ``gc.disable()`` stops
    automatic collection; reference counting still frees what is not in a cycle, and the process exits
    after the plan. ``__main__`` already turned the collector off before the imports, and no full collection runs
    before the freeze: the imports leave a few dozen cyclic objects, and collecting them walked all ~100k objects
    (about 0.07 s, issue #42). Set BLUEPRINTS_GC=1 to keep the collector on.
    """
    if os.environ.get("BLUEPRINTS_GC", "") in ("1", "true", "yes"):
        gc.enable()
        return
    gc.freeze()
    gc.disable()


def _plan(args: argparse.Namespace, own_process: bool = False) -> int:
    from .offline.plan import make_plan
    from .offline.render import RENDERERS, render_bundle, render_failure
    from .offline.sarif import plans_sarif
    from .progress import progress
    from .stackconfig import STACKS_DIR, available_stacks

    if own_process:  # `python -m blueprints plan`, not a caller's process (tests call run())
        quiet_collector()
    packs = None if args.packs is None else [p for p in args.packs if p != "none"]
    stacks_dir = args.stacks_dir or STACKS_DIR
    if not Path(stacks_dir).is_dir():
        raise BlueprintError(
            "--stacks-dir",
            f"{stacks_dir} is not a directory; name the folder that holds Pulumi.<stack>.yaml files (default: stacks/)",
        )
    if not args.all_stacks:  # one stack: bad input is an error and nothing is written
        plan = make_plan(args.stack, stacks_dir, packs=packs, pack_config_paths=args.pack_configs)
        _write(
            plans_sarif([plan], stacks_dir, version()) if args.format == "sarif" else RENDERERS[args.format](plan),
            args.output,
            coloured=args.format == "text",
        )
        return plan.exit_code
    plans, failures, texts, worst = [], [], [], 0
    for stack in progress(available_stacks(stacks_dir), "planning"):
        try:
            plan = make_plan(stack, stacks_dir, packs=packs, pack_config_paths=args.pack_configs)
            plan.findings  # judged here, so a pack that fails is this stack's failure
        except BlueprintError as error:
            failures.append((stack, _report(stack, error.lines)))
            worst = max(worst, EXIT_BAD_INPUT)
        except Exception:  # noqa: BLE001 - one stack's crash must not hide the other stacks' plans
            traceback.print_exc()
            failures.append((stack, _report(stack, [f"the program failed: {traceback.format_exc(limit=0).strip()}"])))
            worst = max(worst, EXIT_INTERNAL)
        else:
            plans.append(plan)
            texts.append(RENDERERS[args.format](plan) if args.format in RENDERERS and args.format != "json" else "")
            worst = max(worst, plan.exit_code)
            continue
        texts.append(render_failure(stack, failures[-1][1], args.format) if args.format in ("text", "markdown") else "")
    if args.format == "sarif":  # a stack that failed to plan is on stderr and in the exit code
        _write(plans_sarif(plans, stacks_dir, version()), args.output)
    else:
        _write(
            render_bundle(plans, failures) if args.format == "json" else "\n".join(texts),
            args.output,
            coloured=args.format == "text",
        )
    return worst


def _report(stack: str, lines: Sequence[str]) -> str:
    """Print a stack's problems on standard error, each naming the stack; return them as one text."""
    named = [line if f"Pulumi.{stack}.yaml" in line else f"{stack}: {line}" for line in lines]
    for line in named:
        print(f"error: {line}", file=sys.stderr)
    return "\n".join(named)


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        return run(sys.argv[1:] if argv is None else argv, own_process=argv is None)
    except BlueprintError as error:
        for line in error.lines:
            print(f"error: {line}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except RegistryError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_REGISTRY
    except Exception:  # noqa: BLE001 - a bug, not bad input: its traceback, and a code no caller reads as findings
        traceback.print_exc()
        print("error: the program failed (exit 3); the traceback above is a bug to report", file=sys.stderr)
        return EXIT_INTERNAL
