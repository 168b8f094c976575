"""Judge recorded registrations with the CrossGuard packs, the way the Pulumi CLI does.

Each pack runs as the CLI starts it (``python -m pulumi.policy <engine> <pack dir>``): a separate
process serving pulumi-policy's analyzer over gRPC. We send it the same calls the engine sends:
GetAnalyzerInfo, Configure, ConfigureStack, Analyze per resource and AnalyzeStack once, with the
property structs the program registered. Rules therefore see the SDK's proxies, not our dicts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

import grpc
from google.protobuf import empty_pb2, struct_pb2
from pulumi.runtime.proto import analyzer_pb2 as proto
from pulumi.runtime.proto import analyzer_pb2_grpc

from ..errors import BlueprintError
from ..stackconfig import PROJECT, ROOT
from .engine import Registration

PACKS_DIR = ROOT / "policies"
LEVELS = {
    proto.ADVISORY: "advisory",
    proto.MANDATORY: "mandatory",
    proto.DISABLED: "disabled",
    proto.REMEDIATE: "remediate",
}
SEVERITIES = {
    proto.POLICY_SEVERITY_UNSPECIFIED: "unspecified",
    proto.POLICY_SEVERITY_LOW: "low",
    proto.POLICY_SEVERITY_MEDIUM: "medium",
    proto.POLICY_SEVERITY_HIGH: "high",
    proto.POLICY_SEVERITY_CRITICAL: "critical",
}
START_TIMEOUT_S = 60


def available_packs(packs_dir: Path = PACKS_DIR) -> list[str]:
    return sorted(p.parent.name for p in packs_dir.glob("*/PulumiPolicy.yaml"))


class PackProcess:
    """One policy pack served by its own Python process, as the CLI runs it."""

    def __init__(self, pack_dir: Path):
        self.pack_dir = pack_dir
        env = dict(os.environ, PYTHONUNBUFFERED="1")  # the pack announces its port on stdout
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pulumi.policy", "127.0.0.1:0", str(pack_dir)],
            cwd=pack_dir,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.channel: Optional[grpc.Channel] = None
        self.stub: Optional[analyzer_pb2_grpc.AnalyzerStub] = None

    def connect(self) -> "PackProcess":
        line = self.process.stdout.readline().strip()
        if not line.isdigit():
            self.process.wait()
            error = (self.process.stderr.read() or "").strip().splitlines()
            self.close()
            raise BlueprintError(
                f"policy pack {self.pack_dir.name}", f"did not start: {error[-1] if error else 'no port announced'}"
            )
        self.channel = grpc.insecure_channel(f"127.0.0.1:{line}")
        grpc.channel_ready_future(self.channel).result(timeout=START_TIMEOUT_S)
        self.stub = analyzer_pb2_grpc.AnalyzerStub(self.channel)
        return self

    def close(self) -> None:
        if self.channel is not None:
            self.channel.close()
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            stream.close()


@dataclass(frozen=True)
class PolicyMeta:
    pack: str
    level: str
    severity: str
    framework: dict[str, str]
    remediation: str
    url: str


def _struct(values: Mapping[str, Any]) -> struct_pb2.Struct:
    out = struct_pb2.Struct()
    out.update(dict(values))
    return out


def _provider_message(
    reg: Registration, by_urn: Mapping[str, Registration]
) -> Optional[proto.AnalyzerProviderResource]:
    urn = reg.provider.rsplit("::", 1)[0] if reg.provider else ""
    provider = by_urn.get(urn)
    if provider is None:
        return None
    return proto.AnalyzerProviderResource(
        type=provider.type, properties=provider.properties, urn=provider.urn, name=provider.name
    )


def _options(reg: Registration) -> proto.AnalyzerResourceOptions:
    return proto.AnalyzerResourceOptions(protect=reg.protect, parent=reg.parent)


class Analysis:
    """Configure one running pack for a stack and collect its diagnostics."""

    def __init__(self, name: str, pack: PackProcess):
        self.name = name
        self.stub = pack.stub
        info = self.stub.GetAnalyzerInfo(empty_pb2.Empty())
        self.info = info
        self.policies = {
            p.name: PolicyMeta(
                pack=name,
                level=LEVELS[p.enforcementLevel],
                severity=SEVERITIES[p.severity],
                framework={
                    "name": p.framework.name,
                    "version": p.framework.version,
                    "reference": p.framework.reference,
                },
                remediation=p.remediation_steps,
                url=p.url,
            )
            for p in info.policies
        }

    def configure(self, stack: str, overrides: Mapping[str, Mapping[str, Any]]) -> None:
        """Pack defaults (initialConfig), then the stack's own values, as --policy-pack-config would give."""
        request = proto.ConfigureAnalyzerRequest()
        for policy, meta in self.policies.items():
            values: dict[str, Any] = {}
            if policy in self.info.initialConfig:
                values.update(dict(self.info.initialConfig[policy].properties))
            values.update(overrides.get(policy, {}))
            # A pack config may set a policy's enforcementLevel, as `--policy-pack-config` files do.
            chosen = values.pop("enforcementLevel", meta.level)
            level = {v: k for k, v in LEVELS.items()}[chosen]
            request.policyConfig[policy].CopyFrom(
                proto.PolicyConfig(enforcementLevel=level, properties=_struct(values))
            )
        self.stub.Configure(request)
        self.stub.ConfigureStack(proto.AnalyzerStackConfigureRequest(stack=stack, project=PROJECT, dry_run=True))

    def analyze(self, registrations: Sequence[Registration]) -> list[tuple[proto.AnalyzeDiagnostic, str]]:
        by_urn = {r.urn: r for r in registrations}
        found: list[tuple[proto.AnalyzeDiagnostic, str]] = []
        for reg in registrations:
            request = proto.AnalyzeRequest(
                type=reg.type, properties=reg.properties, urn=reg.urn, name=reg.name, options=_options(reg)
            )
            provider = _provider_message(reg, by_urn)
            if provider is not None:
                request.provider.CopyFrom(provider)
            found += [(d, d.urn or reg.urn) for d in self.stub.Analyze(request).diagnostics]
        stack_request = proto.AnalyzeStackRequest()
        for reg in registrations:
            resource = proto.AnalyzerResource(
                type=reg.type,
                properties=reg.properties,
                urn=reg.urn,
                name=reg.name,
                options=_options(reg),
                parent=reg.parent,
                dependencies=reg.dependencies,
            )
            provider = _provider_message(reg, by_urn)
            if provider is not None:
                resource.provider.CopyFrom(provider)
            for prop, urns in reg.property_dependencies.items():
                resource.propertyDependencies[prop].urns.extend(urns)
            stack_request.resources.append(resource)
        found += [(d, d.urn) for d in self.stub.AnalyzeStack(stack_request).diagnostics]
        return found


def _finding(
    diagnostic: proto.AnalyzeDiagnostic, urn: str, meta: PolicyMeta, by_urn: Mapping[str, Registration]
) -> dict[str, Any]:
    reg = by_urn.get(urn)
    description, _, detail = diagnostic.message.partition("\n")
    return {
        "packs": [meta.pack],
        "policy": diagnostic.policyName,
        "enforcementLevel": LEVELS[diagnostic.enforcementLevel],
        "severity": SEVERITIES[diagnostic.severity],
        "urn": urn or None,
        "resourceType": reg.type if reg else None,
        "resourceName": reg.name if reg else None,
        "description": diagnostic.description,
        "message": detail or description,
        "framework": meta.framework,
        "remediation": meta.remediation,
        "url": meta.url,
    }


class InProcessPack:
    """A pack served by pulumi-policy's own analyzer servicer inside this process, without gRPC transport.

    The servicer is the object the SDK's PolicyPack puts behind its gRPC server, built from the same
    arguments (``packs.pack_arguments``); we call its RPC methods with the request messages the engine
    sends, so rules see the same proxies (tests compare the findings with the per-process packs).

    Analyze is routed by resource type as the packs the CLI starts route it (policies.library.hosting).
    Saved: a Python process per pack (each importing the SDK, gRPC and the library) and the transport.
    """

    def __init__(self, name: str):
        from policies.library.hosting import TypeRouter

        self.router = TypeRouter(name)
        self.stub = self  # Analysis calls stub.<Rpc>(request)

    def GetAnalyzerInfo(self, request):  # noqa: N802 (the analyzer's RPC names)
        return self.router.GetAnalyzerInfo(request, None)

    def Configure(self, request):  # noqa: N802
        return self.router.Configure(request, None)

    def ConfigureStack(self, request):  # noqa: N802
        return self.router.ConfigureStack(request, None)

    def Analyze(self, request):  # noqa: N802
        return self.router.Analyze(request, None)

    def AnalyzeStack(self, request):  # noqa: N802
        return self.router.AnalyzeStack(request, None)

    def connect(self) -> "InProcessPack":
        return self

    def close(self) -> None:
        pass


class PackSession:
    """A started pack that can judge any number of stacks (tests reuse one per pack).

    ``in_process`` (the offline plan's default) hosts the pack in this process with the SDK's servicer;
    otherwise it runs as the CLI runs it, ``python -m pulumi.policy`` in a process of its own.
    """

    def __init__(self, name: str, packs_dir: Path = PACKS_DIR, in_process: bool = False):
        if not (packs_dir / name / "PulumiPolicy.yaml").is_file():
            raise BlueprintError(
                "policy packs", f"no pack named {name}; available: {', '.join(available_packs(packs_dir))}"
            )
        self.name = name
        self.process = InProcessPack(name) if in_process else PackProcess(packs_dir / name)  # starts booting now
        self._analysis: Optional[Analysis] = None

    @property
    def analysis(self) -> Analysis:
        if self._analysis is None:
            self._analysis = Analysis(self.name, self.process.connect())
        return self._analysis

    def judge(
        self,
        stack: str,
        registrations: Sequence[Registration],
        overrides: Mapping[str, Mapping[str, Any]],
        user: Optional[tuple[str, Mapping[str, Mapping[str, Any]]]] = None,
    ) -> list[dict[str, Any]]:
        """``user``: (file, config) a `--policy-pack-config` file gives this pack, over the stack's values."""
        if user is not None:
            overrides = _with_user_config(overrides, self.analysis.policies, *user)
        self.analysis.configure(stack, overrides)
        by_urn = {r.urn: r for r in registrations}
        return [
            _finding(d, urn, self.analysis.policies[d.policyName], by_urn)
            for d, urn in self.analysis.analyze(registrations)
        ]

    def close(self) -> None:
        self.process.close()


def _with_user_config(
    overrides: Mapping[str, Mapping[str, Any]],
    policies: Iterable[str],
    source: str,
    config: Mapping[str, Mapping[str, Any]],
) -> dict[str, dict[str, Any]]:
    """The stack's values, then the file's: "all" sets every policy's level, a named policy its level and settings."""
    known = set(policies)
    unknown = sorted(set(config) - known - {"all"})
    if unknown:
        raise BlueprintError(source, f"no policy {', '.join(unknown)} in this pack")
    merged = {k: dict(v) for k, v in overrides.items()}
    for policy in known:
        values = {**config.get("all", {}), **config.get(policy, {})}
        if values:
            merged[policy] = {**merged.get(policy, {}), **values}
    return merged


LEVEL_ORDER = {"mandatory": 0, "remediate": 1, "advisory": 2, "disabled": 3}
SEVERITY_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3, "unspecified": 4}


def merge(findings: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One finding per (policy, resource, message), listing every pack that raised it; worst first."""
    merged: dict[tuple[str, str, str], dict[str, Any]] = {}
    for finding in findings:
        key = (finding["policy"], finding["urn"] or "", finding["message"])
        if key in merged:
            merged[key]["packs"] += [p for p in finding["packs"] if p not in merged[key]["packs"]]
        else:
            merged[key] = dict(finding, packs=list(finding["packs"]))
    return sorted(
        merged.values(),
        key=lambda f: (LEVEL_ORDER[f["enforcementLevel"]], SEVERITY_ORDER[f["severity"]], f["policy"], f["urn"] or ""),
    )


def in_process_default() -> bool:
    """Packs of our own library are hosted in the plan's process unless BLUEPRINTS_PACK_PROCESSES=1 asks
    for one process per pack, as the CLI runs them (the findings are the same either way)."""
    return os.environ.get("BLUEPRINTS_PACK_PROCESSES", "") not in ("1", "true", "yes")


def evaluate(
    stack: str,
    registrations: Sequence[Registration],
    packs: Iterable[str],
    overrides: Optional[Mapping[str, Mapping[str, Any]]] = None,
    packs_dir: Path = PACKS_DIR,
    in_process: Optional[bool] = None,
    user_configs: Optional[Mapping[str, tuple[str, Mapping[str, Mapping[str, Any]]]]] = None,
) -> list[dict[str, Any]]:
    """Findings of ``packs`` on ``registrations``: in this process with the SDK's servicer (the default
    for our packs folder), or side by side in one process each, as the CLI starts them."""
    if in_process is None:
        in_process = in_process_default() and packs_dir == PACKS_DIR
    with ExitStack() as cleanup:
        sessions = []
        for name in dict.fromkeys(packs):
            session = PackSession(name, packs_dir, in_process=in_process)  # processes boot in parallel
            cleanup.callback(session.close)
            sessions.append(session)
        if in_process:
            return merge(
                f
                for s in sessions
                for f in s.judge(stack, registrations, overrides or {}, (user_configs or {}).get(s.name))
            )
        with ThreadPoolExecutor(max_workers=max(len(sessions), 1)) as pool:
            results = pool.map(
                lambda s: s.judge(stack, registrations, overrides or {}, (user_configs or {}).get(s.name)), sessions
            )
            return merge(f for found in results for f in found)
