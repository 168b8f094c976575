"""The evidence kit's kubeconfig (blueprints/evidence/kubeconfig.py) and API client over real TLS: a CA and a client
certificate (ACK's kubeconfigs), an exec credential plugin whose token is renewed on 401 (EKS's `aws eks
get-token`), and kubeconfigs it cannot use (one line, exit 2). Certificates are made with the openssl binary."""

from __future__ import annotations

import base64
import shutil
import ssl
import subprocess
import sys

import pytest
import yaml

from blueprints.errors import BlueprintError
from blueprints.evidence.kit import server_version
from blueprints.evidence.kubeapi import ApiError, Client
from blueprints.evidence.kubeconfig import load
from fake_kube import FakeCluster, serve

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl binary")


def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """A CA, a server certificate for 127.0.0.1 and a client certificate, all signed by the CA."""
    d = tmp_path_factory.mktemp("pki")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "1",
             "-subj", "/CN=fake-ca", cwd=d)  # fmt: skip
    (d / "san.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    for name, extra in (("server", ["-extfile", "san.cnf"]), ("client", [])):
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
                 "-subj", f"/CN={name}", cwd=d)  # fmt: skip
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                 "-out", f"{name}.crt", "-days", "1", *extra, cwd=d)  # fmt: skip
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other.key", "-out", "other.crt",
             "-days", "1", "-subj", "/CN=other-ca", cwd=d)  # fmt: skip
    return d


@pytest.fixture
def tls_cluster(pki):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pki / "server.crt", pki / "server.key")
    context.load_verify_locations(pki / "ca.crt")
    context.verify_mode = ssl.CERT_REQUIRED  # the API server asks for the client certificate
    cluster = FakeCluster()
    server = serve(cluster, context)
    yield cluster, f"https://127.0.0.1:{server.server_port}"
    server.shutdown()


def _kubeconfig(path, server, user, cluster_extra=None):
    cluster = {"server": server, **(cluster_extra or {})}
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": "c",
                "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u"}}],
                "clusters": [{"name": "k", "cluster": cluster}],
                "users": [{"name": "u", "user": user}],
            }
        )
    )
    return path


def _b64(path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


def test_client_certificate_and_ca_data(tls_cluster, pki, tmp_path):
    cluster, server = tls_cluster
    user = {"client-certificate-data": _b64(pki / "client.crt"), "client-key-data": _b64(pki / "client.key")}
    config = _kubeconfig(tmp_path / "kc", server, user, {"certificate-authority-data": _b64(pki / "ca.crt")})
    assert server_version(Client(load(config))) == "v1.35.2-eks.9"


def test_files_relative_to_the_kubeconfig(tls_cluster, pki, tmp_path):
    _, server = tls_cluster
    for name in ("ca.crt", "client.crt", "client.key"):
        shutil.copy(pki / name, tmp_path / name)
    user = {"client-certificate": "client.crt", "client-key": "client.key"}
    config = _kubeconfig(tmp_path / "kc", server, user, {"certificate-authority": "ca.crt"})
    assert server_version(Client(load(config))) == "v1.35.2-eks.9"


def test_a_server_the_ca_did_not_sign_is_refused(tls_cluster, pki, tmp_path):
    _, server = tls_cluster
    user = {"client-certificate-data": _b64(pki / "client.crt"), "client-key-data": _b64(pki / "client.key")}
    config = _kubeconfig(tmp_path / "kc", server, user, {"certificate-authority-data": _b64(pki / "other.crt")})
    with pytest.raises(ApiError, match="CERTIFICATE_VERIFY_FAILED"):
        Client(load(config)).request("GET", "/version")


def test_exec_plugin_token_renewed_on_401(tmp_path):
    cluster = FakeCluster()
    server = serve(cluster)
    try:
        counter = tmp_path / "count"
        counter.write_text("0")
        plugin = tmp_path / "get-token.py"
        plugin.write_text(
            "import json, pathlib, sys\n"
            f"c = pathlib.Path({str(counter)!r}); n = int(c.read_text()) + 1; c.write_text(str(n))\n"
            "print(json.dumps({'apiVersion': 'client.authentication.k8s.io/v1beta1', 'kind': 'ExecCredential',"
            " 'status': {'token': f'token-{n}'}}))\n"
        )
        user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1", "command": sys.executable,
                         "args": [str(plugin)]}}  # fmt: skip
        client = Client(load(_kubeconfig(tmp_path / "kc", f"http://127.0.0.1:{server.server_port}", user)))
        cluster.token = "token-1"
        assert server_version(client) == "v1.35.2-eks.9"
        cluster.token = "token-2"  # the first token expired
        assert server_version(client) == "v1.35.2-eks.9"
        assert cluster.authorizations == ["Bearer token-1", "Bearer token-1", "Bearer token-2"]
    finally:
        server.shutdown()


@pytest.mark.parametrize(
    "text, message",
    [
        ("{not yaml", "not YAML"),
        ("- a list", "a kubeconfig (apiVersion: v1, kind: Config) mapping"),
        ("current-context: c\n", "contexts: no entry named 'c'"),
        (
            "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
            "clusters: [{name: k, cluster: {server: ftp://x}}]\nusers: [{name: u, user: {}}]\n",
            "clusters[].cluster.server: https://host[:port] of the API server",
        ),
        (
            "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n"
            "clusters: [{name: k, cluster: {server: 'https://x'}}]\n"
            "users: [{name: u, user: {exec: {command: /nonexistent/get-token}}}]\n",
            "users[].user.exec: /nonexistent/get-token could not run",
        ),
    ],
)
def test_an_unusable_kubeconfig_is_one_line(tmp_path, text, message):
    path = tmp_path / "kc"
    path.write_text(text)
    with pytest.raises(BlueprintError) as caught:
        load(path)
    assert len(caught.value.lines) == 1 and message in caught.value.lines[0], caught.value.lines
