"""How a pack is served: pulumi-policy's own analyzer servicer, with Analyze routed by resource type.

The SDK's servicer (``_PolicyAnalyzerServicer``, what ``PolicyPack`` puts behind its gRPC server) deserializes a
resource's properties once for every resource policy in the pack, whatever types the policy judges. Our rules
declare their types, so ``TypeRouter`` holds one SDK servicer with the whole pack (GetAnalyzerInfo, AnalyzeStack,
Remediate and every other RPC) and one per resource type with only the policies that judge that type; Analyze goes
to the type's servicer, a type no rule judges gets an empty response. Configure and ConfigureStack reach the whole
pack's servicer at once and every other servicer just before its next use (the SDK's Configure converts the whole
pack's config in each servicer), so a pack pays nothing for the types a program does not declare. The SDK's
AnalyzeStack likewise deserializes every resource once per stack policy, so a stack rule that declares the types it
reads gets its own servicer and a request holding only resources of those types. Rules therefore see the SDK's
proxies exactly as before, and a pack's time grows with the rules for the types a program declares, not with the
library.

``serve`` starts the gRPC server the way ``PolicyPack.__init__`` does in pulumi-policy 1.21.0 (a thread pool of 4,
the SDK's channel options, the port on stdout, then wait), with the router as its servicer: this is what the
Pulumi CLI talks to. The offline plan calls the router's RPC methods in process (blueprints.offline.policy).
"""

from __future__ import annotations

import sys
import threading
import time
from concurrent import futures
from typing import Any

from google.protobuf import empty_pb2

from .packs import PACKS, pack_arguments
from .rule import ResourceRule, StackRule


class TypeRouter:
    """An analyzer servicer for ``pack_name``: the SDK's servicers, one per resource type for Analyze."""

    def __init__(self, pack_name: str):
        from pulumi_policy.policy import EnforcementLevel, _PolicyAnalyzerServicer  # the SDK's servicer

        args = pack_arguments(pack_name)

        def servicer(policies):
            return _PolicyAnalyzerServicer(
                args["name"],
                "0.0.1",
                policies,
                args["enforcement_level"] or EnforcementLevel.ADVISORY,
                args["initial_config"],
                args["description"],
                args["display_name"],
                None,
                args["provider"],
                None,
                args["repository"],
            )

        self.whole = servicer(args["policies"])
        by_name = {p.name: p for p in args["policies"]}
        types: dict[str, list] = {}
        whole_stack: list = []  # stack policies that read every resource
        self.scoped: list[tuple[frozenset[str], Any]] = []  # (types read, servicer) per typed stack rule
        for rule in PACKS[pack_name].rules():
            if isinstance(rule, ResourceRule):
                for type_ in rule.types:
                    types.setdefault(type_, []).append(by_name[rule.name])
            elif isinstance(rule, StackRule) and rule.types:
                self.scoped.append((frozenset(rule.types), servicer([by_name[rule.name]])))
            else:
                whole_stack.append(by_name[rule.name])
        self.by_type = {type_: servicer(policies) for type_, policies in types.items()}
        self.stack = servicer(whole_stack) if whole_stack else None
        self.servicers = [self.whole, *self.by_type.values(), *(s for _, s in self.scoped)]
        self.servicers += [self.stack] if self.stack is not None else []
        self._configures: list[tuple[str, Any, Any]] = []  # the Configure/ConfigureStack calls to replay
        self._ready = {id(s) for s in self.servicers}  # servicers holding the latest of them (none sent yet)
        # The CLI's gRPC server calls from a pool of 4 threads: a servicer's first use and a new Configure must not
        # interleave (a servicer marked ready with the older configuration, or configured twice at once).
        self._lock = threading.Lock()

    def __getattr__(self, rpc: str) -> Any:
        """Every RPC not routed here (GetAnalyzerInfo, Remediate...) is the whole pack's."""
        return getattr(self.whole, rpc)

    def Configure(self, request, context):  # noqa: N802 (the analyzer's RPC names)
        self.whole.Configure(request, context)
        self._remember("Configure", request, context)
        return empty_pb2.Empty()

    def ConfigureStack(self, request, context):  # noqa: N802
        response = self.whole.ConfigureStack(request, context)
        self._remember("ConfigureStack", request, context)
        return response

    def _remember(self, rpc: str, request, context) -> None:
        """The latest call of each configuring RPC, replayed in order to a servicer before its next use."""
        with self._lock:
            self._configures = [c for c in self._configures if c[0] != rpc] + [(rpc, request, context)]
            self._ready = {id(self.whole)}

    def _configured(self, servicer):
        """``servicer``, given the configuration the CLI sent before its first use since. Configure converts the
        whole pack's config in each servicer it reaches (the SDK's Configure), so a servicer for a type or stack
        rule the program never uses (an Alibaba type on an AWS stack) is never configured."""
        with self._lock:
            if id(servicer) not in self._ready:
                for rpc, request, context in self._configures:
                    getattr(servicer, rpc)(request, context)
                self._ready.add(id(servicer))
        return servicer

    def AnalyzeStack(self, request, context):  # noqa: N802
        from pulumi.runtime.proto import analyzer_pb2 as proto

        response = proto.AnalyzeResponse()
        if self.stack is not None:
            response.MergeFrom(self._configured(self.stack).AnalyzeStack(request, context))
        if self.scoped:
            bare = proto.AnalyzeStackRequest()  # the request without its resources, copied once
            bare.CopyFrom(request)
            del bare.resources[:]
        for types, servicer in self.scoped:
            scoped = proto.AnalyzeStackRequest()
            scoped.CopyFrom(bare)
            scoped.resources.extend(r for r in request.resources if r.type in types)
            response.MergeFrom(self._configured(servicer).AnalyzeStack(scoped, context))
        return response

    def Analyze(self, request, context):  # noqa: N802
        from pulumi.runtime.proto import analyzer_pb2 as proto

        servicer = self.by_type.get(request.type)
        if servicer is None:
            return proto.AnalyzeResponse()
        return self._configured(servicer).Analyze(request, context)


def serve(pack_name: str) -> None:
    """What each pack's __main__.py does: start the analyzer the Pulumi CLI talks to, and wait."""
    import grpc
    from pulumi.runtime.proto import analyzer_pb2_grpc
    from pulumi_policy.policy import _GRPC_CHANNEL_OPTIONS, _ONE_DAY_IN_SECONDS

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), options=_GRPC_CHANNEL_OPTIONS)
    analyzer_pb2_grpc.add_AnalyzerServicer_to_server(TypeRouter(pack_name), server)
    port = server.add_insecure_port(address="127.0.0.1:0")
    server.start()
    sys.stdout.buffer.write(f"{port}\n".encode())
    sys.stdout.buffer.flush()
    try:
        while True:
            time.sleep(_ONE_DAY_IN_SECONDS)
    except KeyboardInterrupt:
        server.stop(0)
