"""Runs the consumer program under Pulumi's mocks and prints, as JSON, every resource and invoke with its provider.

Kept apart from the repository's own offline engine on purpose: it imports nothing but the installed package
and the Pulumi SDK, as a consumer's test would.
"""

import json
import runpy
import sys

import pulumi
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await


class Recorder(pulumi.runtime.Mocks):
    def __init__(self):
        self.resources, self.invokes = [], []

    def new_resource(self, args):
        self.resources.append({"type": args.typ, "name": args.name, "provider": args.provider})
        # what the cloud would fill in that these components read back: ARNs and names
        state = {"arn": f"arn:aws:::{args.name}", "bucket": args.name, **dict(args.inputs)}
        if args.typ == "aws:eks/nodeGroup:NodeGroup":
            state["resources"] = [{"autoscalingGroups": [{"name": f"eks-{args.name}"}]}]
        return f"{args.name}-id", state

    def call(self, args):
        self.invokes.append({"token": args.token, "provider": args.provider})
        return {"value": "1.33.0-20251120"}, []


recorder = Recorder()
pulumi.runtime.set_mocks(recorder, project="consumer", stack="dev", preview=False)
_sync_await(run_pulumi_func(lambda: runpy.run_path(sys.argv[1], run_name="__main__")))
print(
    json.dumps(
        {"resources": recorder.resources, "invokes": recorder.invokes, "package": __import__("blueprints").__file__}
    )
)
