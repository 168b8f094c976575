"""`python -m blueprints plan|schema`: one line and exit 2 on bad input, never a traceback."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Optional, Sequence

from .errors import EXIT_BAD_INPUT, BlueprintError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would print usage over several lines
        raise BlueprintError("usage", message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m blueprints", description="GPU cluster blueprints, offline.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    plan = commands.add_parser("plan", help="run a stack's program under mocks: resources, cost, findings")
    which = plan.add_mutually_exclusive_group(required=True)
    which.add_argument("--stack", help="stack name, stacks/Pulumi.<stack>.yaml")
    which.add_argument("--all-stacks", action="store_true", help="every stack in the stacks folder (JSON: a bundle)")
    plan.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    plan.add_argument("--output", type=Path, help="write here (atomically) instead of standard output")
    plan.add_argument("--stacks-dir", type=Path, default=None, help="where the stack files are (default: stacks/)")
    plan.add_argument("--policy-pack", action="append", dest="packs", metavar="PACK",
                      help="judge with this pack from policies/ instead of the spec's compliance.frameworks "
                           "(repeatable; 'none' runs no pack)")
    diff = commands.add_parser("diff", help="compare two plans (JSON from base and head): resources, cost, findings")
    diff.add_argument("base", type=Path, help="plan JSON of the base (a plan or an --all-stacks bundle)")
    diff.add_argument("head", type=Path, help="plan JSON of the head")
    diff.add_argument("--format", choices=("text", "markdown"), default="text")
    diff.add_argument("--output", type=Path, help="write here (atomically) instead of standard output")
    ci = commands.add_parser("ci-matrix", help="stacks a change touches and their packs, as a JSON matrix")
    ci.add_argument("--changed-files", type=Path, help="file listing changed paths, one a line (default: all stacks)")
    ci.add_argument("--stacks", nargs="+", help="these stacks instead of working them out from changes")
    pconf = commands.add_parser("policy-config", help="write a stack's --policy-pack-config files, one per pack")
    pconf.add_argument("--stack", required=True, help="stack name, stacks/Pulumi.<stack>.yaml")
    pconf.add_argument("--output-dir", type=Path, required=True, help="folder for <pack>.json files")
    schema = commands.add_parser("schema", help="print the JSON schema of the stack config")
    schema.add_argument("--output", type=Path, help="write here instead of standard output")
    return parser


def _write(text: str, output: Optional[Path]) -> None:
    """Write all of it or nothing: a temporary file beside the target, renamed into place."""
    if output is None:
        sys.stdout.write(text)
        return
    target = output.resolve()
    if not target.parent.is_dir():
        raise BlueprintError("--output", f"directory {target.parent} does not exist")
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def run(argv: Sequence[str], own_process: bool = False) -> int:
    args = _parser().parse_args(argv)
    if args.command == "schema":
        from .schema import stack_config_schema

        _write(json.dumps(stack_config_schema(), indent=2) + "\n", args.output)
        return 0
    if args.command == "ci-matrix":
        from .ci import matrix, touched_stacks

        if args.stacks:
            stacks = args.stacks
        else:
            changed = None
            if args.changed_files:
                if not args.changed_files.is_file():
                    raise BlueprintError("--changed-files", f"{args.changed_files} does not exist")
                changed = args.changed_files.read_text(encoding="utf-8").splitlines()
            stacks = touched_stacks(changed)
        _write(json.dumps(matrix(stacks)) + "\n", None)
        return 0
    if args.command == "policy-config":
        from .policy_config import write_pack_configs
        from .stackconfig import load_stack_spec

        for path in write_pack_configs(load_stack_spec(args.stack), args.output_dir):
            print(path)
        return 0
    if args.command == "diff":
        from .offline.diff import diff_plans, load_plans
        from .offline.diff_render import render_diff_markdown, render_diff_text

        diffs = diff_plans(load_plans(args.base), load_plans(args.head))
        _write((render_diff_markdown if args.format == "markdown" else render_diff_text)(diffs), args.output)
        return 0
    return _plan(args, own_process)


def quiet_collector() -> None:
    """Stop Python's cyclic garbage collector for the rest of this short-lived plan process.

    Registering resources allocates many container objects, and each allocation burst triggers a
    collection that walks everything alive: a prototype measured half the plan's CPU there (issue #19).
    ``gc.freeze()`` moves what the imports created out of the collector's reach, ``gc.disable()`` stops
    automatic collection; reference counting still frees what is not in a cycle, and the process exits
    after the plan. Set BLUEPRINTS_GC=1 to keep the collector on.
    """
    if os.environ.get("BLUEPRINTS_GC", "") in ("1", "true", "yes"):
        return
    gc.collect()
    gc.freeze()
    gc.disable()


def _plan(args: argparse.Namespace, own_process: bool = False) -> int:
    from .offline.plan import make_plan
    from .offline.render import RENDERERS, render_bundle
    from .stackconfig import STACKS_DIR, available_stacks

    if own_process:  # `python -m blueprints plan`, not a caller's process (tests call run())
        quiet_collector()
    packs = None if args.packs is None else [p for p in args.packs if p != "none"]
    stacks_dir = args.stacks_dir or STACKS_DIR
    stacks = available_stacks(stacks_dir) if args.all_stacks else [args.stack]
    plans = [make_plan(stack, stacks_dir, packs=packs) for stack in stacks]
    if args.all_stacks and args.format == "json":
        _write(render_bundle(plans), args.output)
    else:
        _write("\n".join(RENDERERS[args.format](plan) for plan in plans), args.output)
    return max(plan.exit_code for plan in plans)


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        return run(sys.argv[1:] if argv is None else argv, own_process=argv is None)
    except BlueprintError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
