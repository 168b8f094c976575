"""The mlps pack as the Pulumi CLI runs it; its rules live in policies/library."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for policies.library

from policies.library.packs import serve  # noqa: E402

serve("mlps")
