"""Compliance rules that judge resource properties as the Pulumi engine sees them.

One rule a module, under a path that says cloud/service/resource (``stack/`` for rules that
judge the whole stack, ``common/`` for rules that apply to several clouds' resource types).
"""
