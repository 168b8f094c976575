"""A kubeconfig's current context turned into what an HTTPS request needs: the server, a TLS context and headers.

Standard library only (see kubeapi.py for why). Supported credentials, as kubectl reads them
(https://kubernetes.io/docs/reference/config-api/kubeconfig.v1/): a bearer token (`token`, `tokenFile`), a client
certificate and key (`client-certificate[-data]`, `client-key[-data]`: ACK's kubeconfigs), and an exec credential
plugin (`exec`, client.authentication.k8s.io ExecCredential: `aws eks get-token` in EKS's kubeconfigs), whose
`status.token` becomes the bearer token. A kubeconfig this cannot use is bad input: one line naming the field.
"""

from __future__ import annotations

import base64
import json
import os
import ssl
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import yaml

from ..errors import BlueprintError

EXEC_TIMEOUT_S = 60


@dataclass
class Connection:
    server: str
    """https://host[:port] (http:// only for a local test server)."""
    context: ssl.SSLContext | None
    headers: dict[str, str] = field(default_factory=dict)
    refresh: Callable[[], str] | None = None
    """A new bearer token (the exec plugin run again): EKS's tokens last 15 minutes, a run may take longer."""


def _named(config: Mapping[str, Any], section: str, name: str, where: str) -> Mapping[str, Any]:
    for entry in config.get(section) or []:
        if isinstance(entry, Mapping) and entry.get("name") == name:
            inner = entry.get(section[:-1])
            if isinstance(inner, Mapping):
                return inner
    raise BlueprintError(where, f"{section}: no entry named {name!r} (the current context names it)")


def _data_or_file(entry: Mapping[str, Any], key: str, base: Path, where: str) -> bytes | None:
    if entry.get(f"{key}-data"):
        try:
            return base64.b64decode(entry[f"{key}-data"], validate=True)
        except (ValueError, TypeError):
            raise BlueprintError(where, f"{key}-data: base64 of a PEM file") from None
    if entry.get(key):
        path = Path(os.path.expanduser(str(entry[key])))
        path = path if path.is_absolute() else base / path
        if not path.is_file():
            raise BlueprintError(where, f"{key}: {path} is not a file")
        return path.read_bytes()
    return None


def _exec_token(spec: Mapping[str, Any], where: str) -> str:
    command = spec.get("command")
    if not isinstance(command, str) or not command:
        raise BlueprintError(where, "users[].user.exec.command: the credential plugin to run")
    env = dict(os.environ)
    for item in spec.get("env") or []:
        env[str(item.get("name"))] = str(item.get("value"))
    argv = [command, *[str(a) for a in spec.get("args") or []]]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=EXEC_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise BlueprintError(where, f"users[].user.exec: {command} could not run ({error})") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [""])[-1]
        raise BlueprintError(where, f"users[].user.exec: {command} exited {done.returncode}: {last}")
    try:
        token = json.loads(done.stdout)["status"]["token"]
    except (ValueError, KeyError, TypeError):
        raise BlueprintError(where, f"users[].user.exec: {command} printed no ExecCredential status.token") from None
    return str(token)


def _pem_file(data: bytes) -> str:
    handle = tempfile.NamedTemporaryFile(prefix="blueprints-kube-", suffix=".pem", delete=False)
    with handle:
        handle.write(data)
    return handle.name


def load(path: Path) -> Connection:
    """The current context of the kubeconfig at ``path`` (bad input: BlueprintError naming the file and field)."""
    where = str(path)
    if not path.is_file():
        raise BlueprintError("--kubeconfig", f"{path} is not a file; name the cluster's kubeconfig")
    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise BlueprintError(where, f"not YAML: {str(error).splitlines()[0]}") from None
    if not isinstance(config, Mapping):
        raise BlueprintError(where, "a kubeconfig (apiVersion: v1, kind: Config) mapping")
    current = config.get("current-context")
    if not current:
        raise BlueprintError(where, "current-context: the context to use (kubectl config use-context NAME)")
    context = _named(config, "contexts", current, where)
    cluster = _named(config, "clusters", str(context.get("cluster")), where)
    user = _named(config, "users", str(context.get("user")), where) if context.get("user") else {}
    server = str(cluster.get("server") or "")
    if not server.startswith(("https://", "http://")):
        raise BlueprintError(where, "clusters[].cluster.server: https://host[:port] of the API server")
    base = path.resolve().parent
    headers: dict[str, str] = {}
    tls = None
    if server.startswith("https://"):
        tls = ssl.create_default_context()
        if cluster.get("insecure-skip-tls-verify"):
            tls.check_hostname = False
            tls.verify_mode = ssl.CERT_NONE
        else:
            ca = _data_or_file(cluster, "certificate-authority", base, where)
            if ca:
                tls.load_verify_locations(cadata=ca.decode("ascii", "replace"))
        if cluster.get("tls-server-name"):
            headers["Host"] = str(cluster["tls-server-name"])
        cert = _data_or_file(user, "client-certificate", base, where)
        key = _data_or_file(user, "client-key", base, where)
        if cert and key:
            cert_file, key_file = _pem_file(cert), _pem_file(key)
            try:
                tls.load_cert_chain(cert_file, key_file)
            except ssl.SSLError as error:
                raise BlueprintError(where, f"users[].user.client-certificate/client-key: unusable ({error})") from None
            finally:
                os.unlink(cert_file)
                os.unlink(key_file)
    token = user.get("token")
    if not token and user.get("tokenFile"):
        token = Path(os.path.expanduser(str(user["tokenFile"]))).read_text(encoding="utf-8").strip()
    refresh = None
    if not token and isinstance(user.get("exec"), Mapping):
        plugin = user["exec"]
        token = _exec_token(plugin, where)

        def refresh() -> str:
            return _exec_token(plugin, where)

    if token:
        headers["Authorization"] = f"Bearer {token}"
    return Connection(server=server.rstrip("/"), context=tls, headers=headers, refresh=refresh)
