"""`python -m blueprints plan|schema`: one line and exit 2 on bad input, never a traceback."""

from __future__ import annotations

import argparse
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
    plan.add_argument("--stack", required=True, help="stack name, stacks/Pulumi.<stack>.yaml")
    plan.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    plan.add_argument("--output", type=Path, help="write here (atomically) instead of standard output")
    plan.add_argument("--stacks-dir", type=Path, default=None, help="where the stack files are (default: stacks/)")
    plan.add_argument("--policy-pack", action="append", dest="packs", metavar="PACK",
                      help="judge with this pack from policies/ instead of the spec's compliance.frameworks "
                           "(repeatable; 'none' runs no pack)")
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


def run(argv: Sequence[str]) -> int:
    args = _parser().parse_args(argv)
    if args.command == "schema":
        from .schema import stack_config_schema

        _write(json.dumps(stack_config_schema(), indent=2) + "\n", args.output)
        return 0
    from .offline.plan import make_plan
    from .offline.render import RENDERERS

    packs = None if args.packs is None else [p for p in args.packs if p != "none"]
    kwargs = {"stacks_dir": args.stacks_dir} if args.stacks_dir else {}
    plan = make_plan(args.stack, packs=packs, **kwargs)
    _write(RENDERERS[args.format](plan), args.output)
    return plan.exit_code


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except BlueprintError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
