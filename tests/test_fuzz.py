"""Issue #36, item 4: the short run of the CLI's property-based tests (tests/hostile/cli_fuzz.py), in `make test`.

The properties run in a child process that limits its own address space first (RLIMIT_AS), so a runaway read or
expansion fails here as MemoryError instead of swapping the machine; each example has its own alarm, and this test
a timeout. The `ci` profile is derandomized (the same examples every run, about a minute on a 2-core machine);
`make fuzz` runs the same properties for FUZZ_SECONDS with a random seed it prints.
"""

import subprocess
import sys

from blueprints.stackconfig import ROOT


def test_the_cli_contract_holds_for_generated_stacks_arguments_and_plans():
    result = subprocess.run(
        [sys.executable, str(ROOT / "tests/hostile/cli_fuzz.py"), "--profile", "ci"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-6000:]
    assert result.stdout.splitlines()[0].startswith("fuzz seed: ")
    assert result.stdout.rstrip().endswith(": ok")
