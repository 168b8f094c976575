"""The offline plan: spec -> resolve -> program under mocks -> resources, cost, findings.

Importing it installs on-demand loading of the provider SDKs' service packages (``provider_imports``): the offline
plan loads only the provider modules its program uses. The Pulumi CLI runs ``__main__.py``, which never imports this
package, with the SDKs as they are.
"""

from .provider_imports import install as _install_provider_imports

_install_provider_imports()
