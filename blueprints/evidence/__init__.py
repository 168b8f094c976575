"""The evidence kit: `python -m blueprints conformance --stack S --kubeconfig FILE` runs, on the live cluster, each
MUST item's demonstration of the CNCF Kubernetes AI Conformance checklist for the stack's Kubernetes minor, and writes
what it applied, what it observed and when, plus a PRODUCT.yaml draft in cncf/k8s-ai-conformance's format.

Modules, one concern each: kubeconfig (credentials), kubeapi (the few API calls, plain HTTPS), target (what the
stack tells the kit), manifests (every object the kit applies), items (one demonstration per MUST item), product
(the PRODUCT.yaml draft), kit (the run: progress, evidence files, cleanup).
"""
