"""Run the real Pulumi program under mocks and record every registration as the SDK sends it.

The monitor below sits where the Pulumi engine would: it receives the SDK's
RegisterResourceRequest protobufs, keeps them (the policy analyzer later gets the very same
property structs), and answers through the mocks in ``mocks.py``.
"""

from __future__ import annotations

import asyncio
import json
import math
import queue
import runpy
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Mapping, TypeVar

import pulumi
from google.protobuf import json_format, struct_pb2
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import settings as pulumi_settings
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

from ..stackconfig import PROJECT, ROOT
from .mocks import OfflineMocks

PROGRAM = ROOT / "__main__.py"
# Sentinels the Pulumi wire format uses inside property structs.
SPECIAL_SIG = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e"
OUTPUT_SIG = "d0e6a833031e9bbcd3f4e8bde6ca49a4"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"


@dataclass
class Registration:
    """One RegisterResourceRequest as the engine would have received it."""

    urn: str
    id: str
    type: str
    name: str
    parent: str
    provider: str
    custom: bool
    protect: bool
    dependencies: list[str]
    property_dependencies: dict[str, list[str]]
    properties: struct_pb2.Struct = field(repr=False)
    # The URNs the engine would also match this resource by: its own type alias, or one an ancestor's alias implies.
    aliases: list[str] = field(default_factory=list)
    # Resource options the engine honours when it diffs: the plan diff needs them to say what
    # `pulumi up` will do (an ignored input is not a change; deleteBeforeReplace avoids name clashes).
    ignore_changes: list[str] = field(default_factory=list)
    replace_on_changes: list[str] = field(default_factory=list)
    delete_before_replace: bool = False

    @cached_property
    def inputs(self) -> dict[str, Any]:
        """The properties as plain JSON values, secrets and unknowns spelled out: decoded once, at the first read,
        and shared by cost, readiness, conformance and the renderers. Read-only: copy before changing it (a test
        that edits inputs builds a new Registration with ``dataclasses.replace``, which decodes its own)."""
        return plain_struct(self.properties)


def plain_struct(struct: struct_pb2.Struct) -> dict[str, Any]:
    """``plain(json_format.MessageToDict(struct))`` in one walk over the protobuf, without the intermediate dict
    and json_format's per-field reflection (the plan reads every registration's inputs; issue #42)."""
    return _plain_fields(struct.fields)


def _plain_fields(fields: Any) -> Any:
    sig = fields[SPECIAL_SIG].string_value if SPECIAL_SIG in fields else None
    if sig == SECRET_SIG:
        return {"secret": True}
    if sig == RESOURCE_SIG:
        return {"resourceUrn": json_format.MessageToDict(fields["urn"]) if "urn" in fields else None}
    if sig == OUTPUT_SIG:
        return _plain_value(fields["value"]) if "value" in fields else "<computed>"
    return {key: _plain_value(fields[key]) for key in fields}


def _plain_value(value: struct_pb2.Value) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        text = value.string_value
        return "<computed>" if text == UNKNOWN else text
    if kind == "struct_value":
        return _plain_fields(value.struct_value.fields)
    if kind == "list_value":
        return [_plain_value(v) for v in value.list_value.values]
    if kind == "number_value":
        number = value.number_value
        if math.isinf(number) or math.isnan(number):  # as json_format refuses them
            raise ValueError(f"a property holds {number}, which JSON cannot carry")
        return int(number) if number.is_integer() else number
    if kind == "bool_value":
        return value.bool_value
    return None  # null_value, or no kind set (json_format reads both as null)


def plain(value: Any) -> Any:
    if isinstance(value, dict):
        sig = value.get(SPECIAL_SIG)
        if sig == SECRET_SIG:
            return {"secret": True}
        if sig == RESOURCE_SIG:
            return {"resourceUrn": value.get("urn")}
        if sig == OUTPUT_SIG:
            return plain(value.get("value")) if "value" in value else "<computed>"
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if value == UNKNOWN:
        return "<computed>"
    if isinstance(value, float) and value.is_integer():
        return int(value)  # protobuf Structs carry every number as a double
    return value


class RecordingMonitor(pulumi_mocks.MockMonitor):
    def __init__(self, mocks: pulumi_mocks.Mocks):
        super().__init__(mocks)
        self.registrations: list[Registration] = []
        self.stack_outputs: dict[str, Any] = {}
        self._aliased: dict[str, list[str]] = {}  # URN -> the URNs its aliases and its ancestors' imply

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        """URNs as the engine writes them: the parent's whole qualified type chain, then ours."""
        if parent:
            type_ = parent.split("::")[2] + "$" + type_
        return "urn:pulumi:" + "::".join([pulumi.get_stack(), pulumi.get_project(), type_, name])

    def aliased_urns(self, request, urn: str) -> list[str]:
        """The other URNs the engine matches this resource by: each of its alias specs' type and name, under its
        parent's URN or any of the parent's aliases (children inherit their parent's aliases)."""
        own = {(request.type, request.name)} | {
            (a.spec.type or request.type, a.spec.name or request.name) for a in request.aliases if a.HasField("spec")
        }
        parents = [request.parent, *self._aliased.get(request.parent, [])]
        return sorted({self.make_urn(p, t, n) for p in parents for t, n in own} - {urn})

    def RegisterResource(self, request):  # noqa: N802 (the engine's RPC name)
        response = super().RegisterResource(request)
        aliased = self.aliased_urns(request, response.urn)
        if aliased:
            self._aliased[response.urn] = aliased
        properties = struct_pb2.Struct()
        properties.CopyFrom(request.object)
        self.registrations.append(
            Registration(
                urn=response.urn,
                id=response.id,
                type=request.type,
                name=request.name,
                parent=request.parent,
                provider=request.provider,
                custom=request.custom,
                protect=bool(request.protect),
                dependencies=list(request.dependencies),
                property_dependencies={k: list(v.urns) for k, v in request.propertyDependencies.items()},
                properties=properties,
                aliases=aliased,
                ignore_changes=list(request.ignoreChanges),
                replace_on_changes=list(request.replaceOnChanges),
                delete_before_replace=bool(request.deleteBeforeReplace),
            )
        )
        return response

    def RegisterResourceOutputs(self, request):  # noqa: N802 (the engine's RPC name)
        """Keep the outputs of top-level components: `__main__.py` exports the cluster component's outputs."""
        if request.urn.split("::")[2].count("$") == 1:  # pulumi:pulumi:Stack$<cluster component>
            self.stack_outputs.update(plain_struct(request.outputs))
        return super().RegisterResourceOutputs(request)


def _config_values(config: Mapping[str, Any]) -> dict[str, str]:
    """Stack config as the CLI hands it to a program: strings, structured values as JSON."""
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in config.items()}


T = TypeVar("T")


class ProgramThread:
    """The one thread that runs every program of this process, with its own event loop that outlives each program.

    The SDK records a stack trace for every resource it registers (``traceback.extract_stack``, then a file URI per
    frame), so a registration costs more the deeper its caller's stack: planned from a test, 60-odd pytest frames
    made a plan about 20% dearer than from a shallow stack (issue #42). Here a program starts a few frames deep,
    whoever asks for it. A daemon thread, so an interrupted CLI exits without waiting for the program to end."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def run(self, job: Callable[[], T]) -> T:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="pulumi-program", daemon=True)
                self._thread.start()
        done: Future = Future()
        self._jobs.put((job, done))
        return done.result()

    def _serve(self) -> None:
        asyncio.set_event_loop(asyncio.new_event_loop())
        while True:
            job, done = self._jobs.get()
            try:
                done.set_result(job())
            except BaseException as error:  # noqa: BLE001 - re-raised in the caller's thread by done.result()
                done.set_exception(error)


PROGRAMS = ProgramThread()


def run_program(
    stack: str, config: Mapping[str, Any], region: str, program: Path = PROGRAM
) -> tuple[list[Registration], dict[str, Any]]:
    """Run ``program`` for ``stack`` with ``config`` under mocks; return what it registered and its exports."""
    return PROGRAMS.run(lambda: _run(stack, config, region, program))


def _run(stack: str, config: Mapping[str, Any], region: str, program: Path) -> tuple[list[Registration], dict]:
    monitor = RecordingMonitor(OfflineMocks(region))
    pulumi_settings.ROOT.set(None)
    # A program that failed before (a stack with a bad zone) leaves its first exception in the SDK's RPC manager,
    # which would be raised again at the end of this run.
    pulumi_settings._get_rpc_manager().clear()
    pulumi.runtime.set_all_config(_config_values(config))
    pulumi_mocks.set_mocks(monitor.mocks, project=PROJECT, stack=stack, preview=True, monitor=monitor)
    try:
        _sync_await(run_pulumi_func(lambda: runpy.run_path(str(program), run_name="__main__")))
    except BaseException:
        _drain()
        raise
    return monitor.registrations, monitor.stack_outputs


def _drain() -> None:
    """Cancel a failed program's outstanding registrations and outputs, so none of them raises into the next stack
    planned in this process (the SDK's event loop outlives one program)."""
    loop = asyncio.get_event_loop()
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    pulumi_settings._get_rpc_manager().clear()
