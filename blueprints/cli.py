"""`python -m blueprints plan|schema`: one line and exit 2 on bad input, never a traceback."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Optional, Sequence

from .errors import EXIT_BAD_INPUT, EXIT_INTERNAL, BlueprintError


EXIT_CODES = """exit codes:
  0  done; no mandatory finding, no blocking readiness gap
  1  mandatory compliance findings or blocking readiness gaps (the plan is still written)
  2  bad input: each problem on its own line as 'error: <file>: <field>: <what is allowed>'
  3  the program itself failed on a stack (a bug: the traceback is printed)"""

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

exit code 1 when the change must not merge as it is: a stack failed to plan at the head, a
replacement would clash with a fixed name, or a protected data store would be replaced or deleted
without --data-loss-acknowledged (the workflow sets it from the PR label data-loss-acknowledged).""",
    "ci-matrix": """examples:
  git diff --name-only "$BASE" "$HEAD" > changed.txt
  python -m blueprints ci-matrix --changed-files changed.txt
  python -m blueprints ci-matrix --stacks research-a100 startup-t4""",
    "policy-config": """examples:
  python -m blueprints policy-config --stack enterprise-h100 --output-dir policy-config/enterprise-h100""",
    "schema": """examples:
  python -m blueprints schema --output stack-config.schema.json""",
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would print usage over several lines
        raise BlueprintError("usage", message)


def _command(commands, name: str, help_text: str) -> argparse.ArgumentParser:
    return commands.add_parser(name, help=help_text, description=help_text,
                               epilog=f"{EXAMPLES[name]}\n\n{EXIT_CODES}",
                               formatter_class=argparse.RawDescriptionHelpFormatter)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m blueprints", description="GPU cluster blueprints, offline.",
                     epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    plan = _command(commands, "plan", "run a stack's program under mocks: resources, cost, findings")
    which = plan.add_mutually_exclusive_group(required=True)
    which.add_argument("--stack", help="stack name, stacks/Pulumi.<stack>.yaml")
    which.add_argument("--all-stacks", action="store_true", help="every stack in the stacks folder (JSON: a bundle)")
    plan.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    plan.add_argument("--output", type=Path, help="write here (atomically) instead of standard output")
    plan.add_argument("--stacks-dir", type=Path, default=None, help="where the stack files are (default: stacks/)")
    plan.add_argument("--policy-pack", action="append", dest="packs", metavar="PACK",
                      help="judge with this pack from policies/ instead of the spec's compliance.frameworks "
                           "(repeatable; 'none' runs no pack)")
    diff = _command(commands, "diff", "compare two plans (JSON from base and head): resources, cost, findings")
    diff.add_argument("base", type=Path, help="plan JSON of the base (a plan or an --all-stacks bundle)")
    diff.add_argument("head", type=Path, help="plan JSON of the head")
    diff.add_argument("--format", choices=("text", "markdown"), default="text")
    diff.add_argument("--output", type=Path, help="write here (atomically) instead of standard output")
    diff.add_argument("--data-loss-acknowledged", action="store_true",
                      help="the pull request acknowledges replacing or deleting protected data stores "
                           "(the workflow sets it from the PR's label)")
    ci = _command(commands, "ci-matrix", "stacks a change touches and their packs, as a JSON matrix")
    ci.add_argument("--changed-files", type=Path, help="file listing changed paths, one a line (default: all stacks)")
    ci.add_argument("--stacks", nargs="+", help="these stacks instead of working them out from changes")
    pconf = _command(commands, "policy-config", "write a stack's --policy-pack-config files, one per pack")
    pconf.add_argument("--stack", required=True, help="stack name, stacks/Pulumi.<stack>.yaml")
    pconf.add_argument("--output-dir", type=Path, required=True, help="folder for <pack>.json files")
    schema = _command(commands, "schema", "print the JSON schema of the stack config")
    schema.add_argument("--output", type=Path, help="write here instead of standard output")
    return parser


def _write(text: str, output: Optional[Path]) -> None:
    """Write all of it or nothing: a temporary file beside the target, renamed into place."""
    if output is None:
        sys.stdout.write(text)
        return
    target = output.resolve()
    if target.is_dir():
        raise BlueprintError("--output", f"{output} is a directory; name a file, for example {output}/plan.json")
    if not target.parent.is_dir():
        raise BlueprintError("--output", f"directory {target.parent} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    except OSError as error:
        raise BlueprintError("--output", f"cannot write in {target.parent}: {error.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except OSError as error:
        Path(tmp).unlink(missing_ok=True)
        raise BlueprintError("--output", f"cannot write {output}: {error.strerror}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def run(argv: Sequence[str]) -> int:
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
        from .offline.diff import check_exit_code, diff_plans, load_bundle
        from .progress import progress
        from .offline.diff_render import render_diff_markdown, render_diff_text

        base, _ = load_bundle(args.base)
        head, failures = load_bundle(args.head)
        diffs = diff_plans(base, head, failures, progress=progress)
        render = render_diff_markdown if args.format == "markdown" else render_diff_text
        _write(render(diffs, args.data_loss_acknowledged), args.output)
        return check_exit_code(diffs, args.data_loss_acknowledged)
    return _plan(args)


def _plan(args: argparse.Namespace) -> int:
    from .offline.plan import make_plan
    from .offline.render import RENDERERS, render_bundle, render_failure
    from .progress import progress
    from .stackconfig import STACKS_DIR, available_stacks

    packs = None if args.packs is None else [p for p in args.packs if p != "none"]
    stacks_dir = args.stacks_dir or STACKS_DIR
    if not args.all_stacks:  # one stack: bad input is an error and nothing is written
        plan = make_plan(args.stack, stacks_dir, packs=packs)
        _write(RENDERERS[args.format](plan), args.output)
        return plan.exit_code
    plans, failures, texts, worst = [], [], [], 0
    for stack in progress(available_stacks(stacks_dir), "planning"):
        try:
            plan = make_plan(stack, stacks_dir, packs=packs)
        except BlueprintError as error:
            failures.append((stack, _report(stack, error.lines)))
            worst = max(worst, EXIT_BAD_INPUT)
        except Exception:  # noqa: BLE001 - one stack's crash must not hide the other stacks' plans
            traceback.print_exc()
            failures.append((stack, _report(stack, [f"the program failed: {traceback.format_exc(limit=0).strip()}"])))
            worst = max(worst, EXIT_INTERNAL)
        else:
            plans.append(plan)
            texts.append(RENDERERS[args.format](plan) if args.format != "json" else "")
            worst = max(worst, plan.exit_code)
            continue
        texts.append(render_failure(stack, failures[-1][1], args.format) if args.format != "json" else "")
    _write(render_bundle(plans, failures) if args.format == "json" else "\n".join(texts), args.output)
    return worst


def _report(stack: str, lines: Sequence[str]) -> str:
    """Print a stack's problems on standard error, each naming the stack; return them as one text."""
    named = [line if f"Pulumi.{stack}.yaml" in line else f"{stack}: {line}" for line in lines]
    for line in named:
        print(f"error: {line}", file=sys.stderr)
    return "\n".join(named)


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except BlueprintError as error:
        for line in error.lines:
            print(f"error: {line}", file=sys.stderr)
        return EXIT_BAD_INPUT
