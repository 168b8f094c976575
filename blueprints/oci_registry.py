"""Read a tag's digest from its registry with the OCI distribution API, anonymously, using only the standard library.

`HEAD /v2/<name>/manifests/<tag>` with an Accept header naming the OCI image index, the Docker manifest list and the
OCI and Docker image manifests, so a multi-platform tag answers with its index; the digest is the response's
`Docker-Content-Digest` (OCI distribution spec, "Pulling an Image Manifest", "Existing Manifests", "Digest Header":
https://github.com/opencontainers/distribution-spec/blob/main/spec.md, read at commit 0056e984 on 2026-11-27). A
registry that leaves the header out is asked with GET and the digest computed from the manifest's bytes, which is
what the digest is. A 401 names a token service in `WWW-Authenticate: Bearer realm=...,service=...,scope=...`; an
anonymous GET there gives a pull token (`token` or `access_token`), and the request is repeated with it (Docker's
token authentication, https://docs.docker.com/reference/api/registry/auth/, read 2026-11-27). Docker Hub
(registry-1.docker.io, auth.docker.io), public.ecr.aws and registry.k8s.io (which redirects to its backends) are
asked so; the tests exercise this flow against a local registry, since no registry is reachable where they run.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Callable, Optional

from components.kubernetes.mirror import split_image

from .errors import RegistryError

ACCEPT = ", ".join(
    (
        "application/vnd.oci.image.index.v1+json",
        "application/vnd.docker.distribution.manifest.list.v2+json",
        "application/vnd.oci.image.manifest.v1+json",
        "application/vnd.docker.distribution.manifest.v2+json",
    )
)
DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
TIMEOUT_S = 20  # per request; a registry that does not answer fails the run instead of hanging it
MAX_MANIFEST = 4 * 1024 * 1024  # the spec's suggested manifest limit
MAX_TOKEN = 64 * 1024
# Docker Hub serves the API on another host than the one image names carry.
API_HOSTS = {"docker.io": "registry-1.docker.io"}
CHALLENGE = re.compile(r'(\w+)="([^"]*)"')


@dataclass(frozen=True)
class Resolved:
    ref: str
    digest: str
    registry: str  # the API host asked


def api_host(ref: str) -> str:
    """The host whose /v2/ API serves `ref` (Docker Hub's images are served by registry-1.docker.io)."""
    host = split_image(ref)[0]
    return API_HOSTS.get(host, host)


def repository_and_tag(ref: str) -> tuple[str, str]:
    """('library/nginx', '1.27') of 'nginx:1.27': the API's <name> and <reference>."""
    path = split_image(ref)[1]
    name, sep, tag = path.rpartition(":")
    if "@" in ref or not sep or "/" in tag:
        raise RegistryError(f"{ref}: not a name:tag reference (a digest or a missing tag cannot be resolved)")
    return name, tag


def https_base(host: str) -> str:
    return f"https://{host}"


def resolve(ref: str, base_url: Optional[Callable[[str], str]] = None) -> Resolved:
    """The digest `ref`'s tag names now. `base_url` maps the API host to the URL asked: https://<host> unless a test
    points it at a local registry."""
    host = api_host(ref)
    name, tag = repository_and_tag(ref)
    url = f"{(base_url or https_base)(host).rstrip('/')}/v2/{name}/manifests/{urllib.parse.quote(tag, safe='')}"
    session = _Session(ref, url)
    try:
        digest = session.head_digest() or session.get_digest()
    except (OSError, http.client.HTTPException) as error:  # a connection dropped while reading an answer
        raise RegistryError(f"{ref}: reading from {_where(session.url)} failed: {error}") from None
    if not DIGEST.match(digest):
        raise RegistryError(f"{ref}: {host} gave digest {digest[:80]!r}; expected sha256: and 64 lowercase hex digits")
    return Resolved(ref, digest, host)


class _Session:
    """One image's requests: the bearer token a 401 asked for is kept for the next request to the same URL."""

    def __init__(self, ref: str, url: str):
        self.ref, self.url, self.token = ref, url, None

    def head_digest(self) -> Optional[str]:
        with self._open("HEAD") as response:
            self._check_type(response)
            return response.headers.get("Docker-Content-Digest")

    def get_digest(self) -> str:
        with self._open("GET") as response:
            self._check_type(response)
            body = response.read(MAX_MANIFEST + 1)
            given = response.headers.get("Docker-Content-Digest")
        if len(body) > MAX_MANIFEST:
            raise RegistryError(f"{self.ref}: manifest larger than {MAX_MANIFEST} bytes")
        computed = "sha256:" + hashlib.sha256(body).hexdigest()
        if given and given != computed:
            raise RegistryError(f"{self.ref}: Docker-Content-Digest {given} is not the manifest's digest {computed}")
        return computed

    def _check_type(self, response) -> None:
        kind = (response.headers.get("Content-Type") or "").split(";")[0].strip()
        if kind and kind not in ACCEPT.split(", "):
            raise RegistryError(f"{self.ref}: registry answered with media type {kind[:80]!r}, not an image manifest")

    def _open(self, method: str, retried: bool = False):
        request = urllib.request.Request(self.url, method=method, headers={"Accept": ACCEPT})
        if self.token:  # not sent on to where a redirect points (another host)
            request.add_unredirected_header("Authorization", f"Bearer {self.token}")
        try:
            return urllib.request.urlopen(request, timeout=TIMEOUT_S)  # noqa: S310 - https, or a test's local URL
        except urllib.error.HTTPError as error:
            error.close()
            if error.code == 401 and not retried:
                self.url = error.url or self.url  # the host that asked (after a redirect) gets the token
                self.token = self._token(error.headers.get("WWW-Authenticate") or "")
                return self._open(method, retried=True)
            raise RegistryError(f"{self.ref}: {_where(self.url)} answered HTTP {error.code} to {method}") from None
        except (OSError, http.client.HTTPException) as error:  # URLError and timeouts are OSErrors
            reason = getattr(error, "reason", error)
            raise RegistryError(f"{self.ref}: cannot reach {_where(self.url)}: {reason}") from None

    def _token(self, challenge: str) -> str:
        scheme, _, params = challenge.partition(" ")
        fields = dict(CHALLENGE.findall(params))
        realm = fields.pop("realm", "")
        if scheme.lower() != "bearer" or not realm:
            raise RegistryError(f"{self.ref}: {_where(self.url)} asks for credentials ({scheme or 'no challenge'})")
        if urllib.parse.urlsplit(realm).scheme not in ("https", urllib.parse.urlsplit(self.url).scheme):
            raise RegistryError(f"{self.ref}: token service {_where(realm)} is not https")
        # The repository's pull scope, and the challenge's own where it names another (public.ecr.aws may say "aws").
        scopes = dict.fromkeys([f"repository:{repository_and_tag(self.ref)[0]}:pull", fields.get("scope")])
        params = [("service", fields["service"])] if fields.get("service") else []
        query = urllib.parse.urlencode(params + [("scope", scope) for scope in scopes if scope])
        url = f"{realm}{'&' if '?' in realm else '?'}{query}"
        try:
            with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:  # noqa: S310 - https or the test's
                body = response.read(MAX_TOKEN + 1)
        except urllib.error.HTTPError as error:
            error.close()
            raise RegistryError(f"{self.ref}: token service {_where(realm)} answered HTTP {error.code}") from None
        except (OSError, http.client.HTTPException) as error:  # URLError and timeouts are OSErrors
            reason = getattr(error, "reason", error)
            raise RegistryError(f"{self.ref}: cannot reach token service {_where(realm)}: {reason}") from None
        try:
            answer = json.loads(body) if len(body) <= MAX_TOKEN else {}
        except ValueError:
            answer = {}
        token = (answer.get("token") or answer.get("access_token")) if isinstance(answer, dict) else None
        if not isinstance(token, str) or not token:
            raise RegistryError(f"{self.ref}: token service {_where(realm)} gave no token")
        return token


def _where(url: str) -> str:
    """scheme://host of a URL: enough to say which service failed, without query strings."""
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
