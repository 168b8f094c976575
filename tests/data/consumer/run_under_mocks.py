"""Runs the consumer program under Pulumi's mocks and prints, as JSON, every resource and invoke with its provider.

Kept apart from the repository's own offline engine on purpose: it imports nothing but the installed package
and the Pulumi SDK, as a consumer's test would.
"""
import json
import runpy
import sys

import pulumi


class Recorder(pulumi.runtime.Mocks):
    def __init__(self):
        self.resources, self.invokes = [], []

    def new_resource(self, args):
        self.resources.append({"type": args.typ, "name": args.name, "provider": args.provider})
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args):
        self.invokes.append({"token": args.token, "provider": args.provider})
        return {"value": "1.33.0-20251120"}, []


recorder = Recorder()
pulumi.runtime.set_mocks(recorder, project="consumer", stack="dev", preview=False)
runpy.run_path(sys.argv[1], run_name="__main__")
pulumi.runtime.sync_await._sync_await(pulumi.runtime.wait_for_rpcs())
print(json.dumps({"resources": recorder.resources, "invokes": recorder.invokes,
                  "package": __import__("blueprints").__file__}))
