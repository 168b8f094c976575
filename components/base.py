"""What every public component shares: Pulumi's component-package token, the alias to its old token, and args
that arrive either as the args dataclass (Python programs) or as a dict (the component provider's construct)."""

import dataclasses
from collections import abc
from typing import Any, Mapping, Optional, TypeVar, Union, get_args, get_origin

import pulumi

# The component packages (one per cloud, one for the Kubernetes layer): PulumiPlugin.yaml under provider/<layer>/.
AWS = "gpu-blueprints-aws"
ALICLOUD = "gpu-blueprints-alicloud"
KUBERNETES = "gpu-blueprints-kubernetes"

Args = TypeVar("Args")


class Component(pulumi.ComponentResource):
    """A component registered as `<package>:index:<ClassName>`, the token Pulumi's component packages use, so the
    same class serves Python programs and, through provider/<layer>, TypeScript, Go and YAML ones.

    `LEGACY_TYPE` is the token the class had before (`gpu-blueprints:<layer>:<OldName>`): registering it as an
    alias lets the engine match every resource of an existing stack, children included, without replacing any.
    """

    PACKAGE = ""
    LEGACY_TYPE = None  # not annotated: the component analyzer reads annotations as outputs

    def __init__(self, name: str, opts: Optional[pulumi.ResourceOptions]):
        aliases = [pulumi.Alias(type_=self.LEGACY_TYPE)] if self.LEGACY_TYPE else []
        super().__init__(
            self.type_token(), name, None, pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(aliases=aliases))
        )

    def publish(self, outputs: Mapping[str, Any]) -> None:
        """The component's outputs: as attributes (Python callers), `outputs` (the whole map) and registered (the
        engine, other languages through the component provider)."""
        self.outputs = dict(outputs)
        for key, value in outputs.items():
            setattr(self, key, value)
        self.register_outputs(self.outputs)

    @classmethod
    def type_token(cls) -> str:
        return f"{cls.PACKAGE}:index:{cls.__name__}"


def as_args(cls: type[Args], value: Union[Args, Mapping[str, Any]]) -> Args:
    """The args dataclass for `value`: itself, or built from the dict the component provider passes (snake_case
    keys, nested dicts for nested args), so components read `args.field` either way."""
    if not isinstance(value, Mapping):
        return value
    hints = {f.name: f.type for f in dataclasses.fields(cls)}  # real types: component modules keep annotations live
    known = set(hints)
    unknown = sorted(set(value) - known)
    if unknown:
        raise TypeError(f"{cls.__name__}: unknown field(s) {', '.join(unknown)}")
    return cls(**{key: _coerce(hints[key], item) for key, item in value.items()})


def _coerce(hint: Any, value: Any) -> Any:
    if get_origin(hint) is Union:
        options = [a for a in get_args(hint) if a is not type(None)]
        if len(options) == 1:
            hint = options[0]
    if dataclasses.is_dataclass(hint) and isinstance(value, Mapping):
        return as_args(hint, value)
    if get_origin(hint) in (list, abc.Sequence) and isinstance(value, list) and get_args(hint):
        return [_coerce(get_args(hint)[0], item) for item in value]
    return value


class Args:
    """Base of every args dataclass: a field given None takes its default.

    Fields with a default are typed Optional so Pulumi's schema marks them optional (the component analyzer reads
    optionality from the type, not from dataclass defaults); None, or leaving the field out, means the default.
    """

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            if getattr(self, f.name) is None:
                if f.default is not dataclasses.MISSING and f.default is not None:
                    object.__setattr__(self, f.name, f.default)
                elif f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
                    object.__setattr__(self, f.name, f.default_factory())  # type: ignore[misc]
