"""Issue #30: images our components name are pinned by the digest their registry gives at release time.

`pin-images` is tested end to end against a local registry (http.server on 127.0.0.1) that speaks the OCI
distribution API the way Docker Hub does: a HEAD on a manifest without a token gets 401 and a Bearer challenge,
the token service gives an anonymous pull token, the repeated HEAD answers with Docker-Content-Digest. Its
manifests are small made-up documents, and every digest here is the sha256 of one of them: none is a real image's.
"""

from __future__ import annotations

import hashlib
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from blueprints import clock, oci_registry
from blueprints.cli import main
from blueprints.image_pins import named_images, pin_images
from blueprints.offline.plan import make_plan
from catalog import image_digests
from catalog.image_digests import DIGESTS_FILE, digests, pinned
from components.kubernetes.acceptance import IMAGE
from components.kubernetes.mirror import mirrored, split_image
from conftest import shipped_cluster, write_stack

INDEX = "application/vnd.oci.image.index.v1+json"
DIGEST_RULE = "kubernetes-workload-image-digest"


def manifest(ref: str, version: int = 1) -> bytes:
    """A made-up image index for `ref` (its bytes are what the digest is computed from)."""
    return json.dumps({"schemaVersion": 2, "mediaType": INDEX, "manifests": [], "annotations": {ref: version}}).encode()


def sha256(body: bytes) -> str:
    return "sha256:" + hashlib.sha256(body).hexdigest()


class FakeRegistry:
    """Manifests by (repository, tag); every manifest request needs the token its token service hands out."""

    TOKEN = "anonymous-pull-token"

    def __init__(self):
        self.manifests: dict[tuple[str, str], bytes] = {}
        self.failing: dict[str, int] = {}  # repository -> HTTP status its manifest requests get
        self.digest_header = True
        self.scope = ""  # the challenge's scope where it is not the repository's (public.ecr.aws)
        self.redirected: set[str] = set()  # repositories the front door sends on to /backend (as registry.k8s.io does)
        self.token_queries: list[dict[str, list[str]]] = []
        self.accepts: list[str] = []
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep pytest's output clean
                pass

            def do_GET(self):
                self._answer(send_body=True)

            def do_HEAD(self):
                self._answer(send_body=False)

            def _answer(self, send_body: bool):
                url = urllib.parse.urlsplit(self.path)
                if url.path == "/token":
                    registry.token_queries.append(urllib.parse.parse_qs(url.query))
                    return self._send(200, {"Content-Type": "application/json"}, json.dumps({"token": registry.TOKEN}))
                backend = url.path.startswith("/backend/")
                name, _, tag = url.path.removeprefix("/backend").removeprefix("/v2/").rpartition("/manifests/")
                if name in registry.redirected and not backend:
                    return self._send(307, {"Location": f"/backend{url.path}"}, "")
                if self.headers.get("Authorization") != f"Bearer {registry.TOKEN}":
                    realm = f"http://127.0.0.1:{self.server.server_port}/token"
                    scope = registry.scope or f"repository:{name}:pull"
                    challenge = f'Bearer realm="{realm}",service="fake-registry",scope="{scope}"'
                    return self._send(401, {"WWW-Authenticate": challenge}, "")
                registry.accepts.append(self.headers.get("Accept", ""))
                if name in registry.failing:
                    return self._send(registry.failing[name], {}, "")
                body = registry.manifests.get((name, tag))
                if body is None:
                    return self._send(404, {}, "")
                headers = {"Content-Type": INDEX}
                if registry.digest_header:
                    headers["Docker-Content-Digest"] = sha256(body)
                self._send(200, headers, body if send_body else b"", length=len(body))

            def _send(self, status, headers, body, length=None):
                body = body.encode() if isinstance(body, str) else body
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body) if length is None else length))
                self.end_headers()
                if body:
                    self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def base_url(self, host: str) -> str:
        return self.url

    def publish(self, ref: str, version: int = 1) -> str:
        """Serve a manifest for `ref`'s tag; its digest."""
        name, _, tag = split_image(ref)[1].rpartition(":")
        self.manifests[(name, tag)] = manifest(ref, version)
        return sha256(self.manifests[(name, tag)])


@pytest.fixture
def registry():
    fake = FakeRegistry()
    thread = threading.Thread(target=fake.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


@pytest.fixture
def catalog_file(tmp_path, monkeypatch) -> Path:
    """A copy of the shipped (empty) catalog, used by pinned() and pin-images in place of the shipped file."""
    path = tmp_path / "image_digests.yaml"
    path.write_text(DIGESTS_FILE.read_text())
    monkeypatch.setattr(image_digests, "DIGESTS_FILE", path)
    return path


def test_the_shipped_catalog_holds_no_digest_and_is_what_pin_images_writes_for_none():
    from blueprints.image_pins import render

    assert digests() == {}  # none resolved yet: no registry is reachable where this is built (README)
    assert render(DIGESTS_FILE.read_text(), {}) == DIGESTS_FILE.read_text()


def test_the_shipped_catalog_records_only_images_a_component_names():
    assert set(digests()) <= set(named_images())  # what pin-images --check calls unused


def test_every_image_a_component_names_is_listed():
    images = named_images()
    assert IMAGE in images and "vllm/vllm-openai:v0.12.0" in images
    assert "registry.k8s.io/gateway-api-inference-extension/epp:v1.0.2" in images
    assert any(i.startswith("public.ecr.aws/deep-learning-containers/pytorch-training:") for i in images)


def test_pin_images_records_each_images_digest_from_its_registry(registry, catalog_file):
    expected = {ref: registry.publish(ref) for ref in named_images()}
    outcomes, code = pin_images(base_url=registry.base_url)
    assert code == 0 and {o.ref: o.status for o in outcomes} == dict.fromkeys(expected, "new")
    recorded = digests(catalog_file)
    assert {ref: e.digest for ref, e in recorded.items()} == expected
    assert {e.resolved for e in recorded.values()} == {clock.today()}
    assert recorded[IMAGE].registry == "registry-1.docker.io"  # Docker Hub's API host, not docker.io
    assert catalog_file.read_text().startswith(DIGESTS_FILE.read_text().split("images:")[0])  # the comment is kept
    # anonymous tokens scoped to pulling the one repository; every manifest type named in Accept
    assert {"repository:pytorch/pytorch:pull"} in [set(q["scope"]) for q in registry.token_queries]
    assert all(q["service"] == ["fake-registry"] for q in registry.token_queries)
    assert all(t in accept for accept in registry.accepts for t in oci_registry.ACCEPT.split(", "))


def test_pinned_images_are_deployed_by_digest_and_a_rerun_changes_nothing(registry, catalog_file):
    expected = {ref: registry.publish(ref) for ref in named_images()}
    pin_images(base_url=registry.base_url)
    written = catalog_file.read_text()
    assert pinned(IMAGE) == f"{IMAGE}@{expected[IMAGE]}"
    assert pinned("busybox:1.36") == "busybox:1.36"  # nothing recorded: unchanged
    assert pinned(f"{IMAGE}@{expected[IMAGE]}") == f"{IMAGE}@{expected[IMAGE]}"  # already pinned: unchanged
    outcomes, code = pin_images(base_url=registry.base_url)
    assert code == 0 and {o.status for o in outcomes} == {"unchanged"} and catalog_file.read_text() == written


def test_check_passes_then_finds_a_moved_tag_and_writes_nothing(registry, catalog_file):
    for ref in named_images():
        registry.publish(ref)
    outcomes, code = pin_images(check=True, base_url=registry.base_url)
    assert code == 1 and {o.status for o in outcomes} == {"missing"}  # nothing recorded yet
    assert catalog_file.read_text() == DIGESTS_FILE.read_text()
    pin_images(base_url=registry.base_url)
    written = catalog_file.read_text()
    assert pin_images(check=True, base_url=registry.base_url)[1] == 0
    moved = registry.publish("vllm/vllm-openai:v0.12.0", version=2)  # the tag now names another image
    outcomes, code = pin_images(check=True, base_url=registry.base_url)
    assert code == 1
    assert [(o.ref, o.status, o.registry_digest) for o in outcomes if o.status != "ok"] == [
        ("vllm/vllm-openai:v0.12.0", "differs", moved)
    ]
    assert catalog_file.read_text() == written


def test_check_reports_an_entry_no_component_names(registry, catalog_file):
    for ref in named_images():
        registry.publish(ref)
    pin_images(base_url=registry.base_url)
    stale = catalog_file.read_text().replace("vllm/vllm-openai:v0.12.0", "vllm/vllm-openai:v0.11.0")
    catalog_file.write_text(stale)
    outcomes, code = pin_images(check=True, base_url=registry.base_url)
    assert code == 1
    assert {(o.ref, o.status) for o in outcomes if o.status != "ok"} == {
        ("vllm/vllm-openai:v0.12.0", "missing"),
        ("vllm/vllm-openai:v0.11.0", "unused"),
    }
    pin_images(base_url=registry.base_url)  # writing drops it
    assert "vllm/vllm-openai:v0.11.0" not in digests(catalog_file)


def test_a_challenge_naming_another_scope_gets_both_asked_for(registry, catalog_file):
    registry.scope = "aws"
    ref = "public.ecr.aws/deep-learning-containers/pytorch-training:2.8.0-gpu-py312-cu129-ubuntu22.04-ec2"
    expected = registry.publish(ref)
    assert oci_registry.resolve(ref, registry.base_url).digest == expected
    assert registry.token_queries[-1]["scope"] == ["repository:deep-learning-containers/pytorch-training:pull", "aws"]


def test_a_registry_that_leaves_out_the_digest_header_is_read_by_get(registry, catalog_file):
    registry.digest_header = False
    expected = {ref: registry.publish(ref) for ref in named_images()}
    pin_images(base_url=registry.base_url)
    assert {ref: e.digest for ref, e in digests(catalog_file).items()} == expected


def test_a_registry_that_redirects_to_a_backend_asking_for_a_token_is_followed(registry, catalog_file):
    """registry.k8s.io answers with a redirect to a regional backend, which may challenge on its own."""
    epp = "registry.k8s.io/gateway-api-inference-extension/epp:v1.0.2"
    registry.redirected.add("gateway-api-inference-extension/epp")
    expected = registry.publish(epp)
    answer = oci_registry.resolve(epp, registry.base_url)
    assert (answer.digest, answer.registry) == (expected, "registry.k8s.io")


def _cli(monkeypatch, capsys, registry, *argv):
    monkeypatch.setattr(oci_registry, "https_base", registry.base_url)
    code = main(["pin-images", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_prints_a_line_per_image_and_check_exits_1_on_a_difference(
    registry, catalog_file, monkeypatch, capsys
):
    for ref in named_images():
        registry.publish(ref)
    code, out, err = _cli(monkeypatch, capsys, registry)
    assert code == 0 and err == "" and len(out.splitlines()) == len(named_images())
    assert all(line.startswith("new: ") for line in out.splitlines())
    registry.publish(IMAGE, version=2)
    code, out, err = _cli(monkeypatch, capsys, registry, "--check")
    assert code == 1 and err == "" and f"differs: {IMAGE} " in out


@pytest.mark.parametrize("status", [404, 500])
def test_a_registry_error_is_one_line_exit_4_and_the_catalog_is_untouched(
    registry, catalog_file, monkeypatch, capsys, status
):
    for ref in named_images():
        registry.publish(ref)
    registry.failing["vllm/vllm-openai"] = status  # the last image: the others resolved before it failed
    before = catalog_file.read_bytes()
    code, out, err = _cli(monkeypatch, capsys, registry)
    assert code == 4 and out == ""
    assert err.splitlines() == [f"error: vllm/vllm-openai:v0.12.0: {registry.url} answered HTTP {status} to HEAD"]
    assert catalog_file.read_bytes() == before
    assert [p.name for p in catalog_file.parent.iterdir()] == [catalog_file.name]  # no temporary file left


def test_an_unreachable_registry_is_one_line_exit_4(catalog_file, monkeypatch, capsys):
    import socket

    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setattr(oci_registry, "https_base", lambda host: f"http://127.0.0.1:{port}")
    before = catalog_file.read_bytes()
    code = main(["pin-images", "--check"])
    out, err = capsys.readouterr()
    assert code == 4 and len(err.splitlines()) == 1 and "cannot reach http://127.0.0.1:" in err
    assert "Traceback" not in err and catalog_file.read_bytes() == before


@pytest.mark.parametrize(
    "entry, fragment",
    [
        ("{digest: sha256:abc, resolved: 2026-11-27, registry: registry-1.docker.io}", ".digest: expected sha256:"),
        ("{digest: 'sha256:" + "0" * 64 + "', resolved: soon, registry: registry-1.docker.io}", ".resolved:"),
        ("{digest: 'sha256:" + "0" * 64 + "', resolved: 2026-11-27}", "expected exactly digest, resolved"),
    ],
)
def test_a_malformed_catalog_is_refused_in_one_line_exit_2(catalog_file, capsys, entry, fragment):
    catalog_file.write_text(f"images:\n  pytorch/pytorch:2.9.0-cuda12.8-cudnn9-runtime: {entry}\n")
    before = catalog_file.read_bytes()
    assert main(["pin-images"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and fragment in err and str(catalog_file) in err
    assert catalog_file.read_bytes() == before


def test_a_pinned_image_keeps_its_digest_through_a_mirror():
    digest = sha256(b"made-up")
    for ref, host, path in [
        (IMAGE, "docker.io", "pytorch/pytorch:2.9.0-cuda12.8-cudnn9-runtime"),
        ("busybox:1.36", "docker.io", "library/busybox:1.36"),
        ("registry.k8s.io/gateway-api-inference-extension/epp:v1.0.2", "registry.k8s.io", None),
    ]:
        ref_at = f"{ref}@{digest}"
        assert split_image(ref_at)[0] == host
        expected = f"{path or ref.split('/', 1)[1]}@{digest}"
        assert mirrored(ref_at, "cr.example.com/gpu-platform") == f"cr.example.com/gpu-platform/{expected}"


def _record(path: Path, refs: list[str]) -> dict[str, str]:
    """A catalog recording made-up digests for `refs` (never the shipped file)."""
    table = {ref: sha256(ref.encode()) for ref in refs}
    path.write_text(
        "images:\n"
        + "".join(f"  {r}: {{digest: '{d}', resolved: 2026-11-24, registry: example.com}}\n" for r, d in table.items())
    )
    return table


def _images(value) -> list[str]:
    """Every container image in a resource's inputs, however deep its pod template sits (JobSet, CronJob...)."""
    if isinstance(value, dict):
        found = [c["image"] for key in ("containers", "initContainers") for c in value.get(key) or [] if "image" in c]
        return found + [i for key, item in value.items() for i in _images(item)]
    return [i for item in value for i in _images(item)] if isinstance(value, list) else []


def _container_images(plan) -> list[str]:
    return [i for r in plan.registrations if not r.type.startswith("kubernetes:helm.sh/") for i in _images(r.inputs)]


def test_the_plan_deploys_a_recorded_image_by_digest_and_its_finding_goes(catalog_file):
    table = _record(catalog_file, [IMAGE])
    plan = make_plan("startup-t4")
    assert f"{IMAGE}@{table[IMAGE]}" in _container_images(plan)
    assert IMAGE not in _container_images(plan)
    assert [f for f in plan.findings if f["policy"] == DIGEST_RULE] == []  # it was the stack's one finding


def test_a_mirrored_stack_pulls_the_recorded_digest_from_the_mirror(catalog_file, tmp_path):
    table = _record(catalog_file, [IMAGE])
    cluster = shipped_cluster("startup-t4")
    cluster.setdefault("kubernetes", {})["registry"] = {"mirror": "cr.example.com/gpu-platform"}
    write_stack(tmp_path, "mirrored", cluster)
    images = _container_images(make_plan("mirrored", tmp_path))
    assert f"cr.example.com/gpu-platform/pytorch/pytorch:2.9.0-cuda12.8-cudnn9-runtime@{table[IMAGE]}" in images


@pytest.mark.parametrize("stack", ["startup-serving", "research-a100"])
def test_with_every_named_image_recorded_no_container_floats(catalog_file, stack):
    """The vLLM server, its endpoint picker, the acceptance and fabric checks: each passes through pinned()."""
    _record(catalog_file, named_images())
    plan = make_plan(stack)
    assert _container_images(plan) and all("@sha256:" in image for image in _container_images(plan))
    assert [f["resourceName"] for f in plan.findings if f["policy"] == DIGEST_RULE] == []
