# The arguments a code tool's function is handed (python_runtime.py's _execute): those it takes,
# typed as its hints say where JSON has no such type. Loaded after python_runtime.py, in its
# globals.
import dataclasses
import datetime
import decimal
import enum
import types
import uuid
from collections.abc import Set as _AbstractSet
from inspect import signature as _signature
from typing import Union as _Union, get_args as _get_args, get_origin as _get_origin, \
    get_type_hints as _type_hints, is_typeddict as _is_typeddict


def _typed(fn, args):
    """The arguments as the function's hints type them, where JSON has no such type: an Enum's
    member from its value (or name), a date, datetime, time, UUID or Decimal from its text; a
    dataclass, NamedTuple or Pydantic model from its object (a TypedDict stays a dict); inside
    lists and dicts too. A text that is none raises, naming the argument."""
    annotations = getattr(fn, "__annotations__", None)
    if not annotations:
        return args
    try:  # the common case, JSON's own types: nothing to do, and get_type_hints is slow in WASM
        if all(annotations.get(name) in _PLAIN for name in args):
            return args
    except TypeError:  # an annotation that cannot be hashed
        pass
    try:
        hints = _type_hints(fn)
    except Exception:  # a hint that cannot be evaluated: the arguments as they are
        return args
    scope = getattr(fn, "__globals__", None)
    return {name: _converted(hints.get(name), name, value, scope) for name, value in args.items()}


def _converted(hint, name, value, scope):
    """`value` as `hint` types it where JSON has no such type; the rest as it is."""
    if value is None or hint is None:
        return value
    origin = _get_origin(hint)
    if origin in (_Union, types.UnionType):
        members = [m for m in _get_args(hint) if m is not type(None)]
        return _converted(members[0], name, value, scope) if len(members) == 1 else value
    inner = _get_args(hint)
    if origin is list and isinstance(value, list) and len(inner) == 1:
        return [_converted(inner[0], f"{name}[{i}]", item, scope) for i, item in enumerate(value)]
    if origin is tuple and isinstance(value, list):
        if len(inner) == 2 and inner[1] is Ellipsis:
            inner = (inner[0],) * len(value)
        if len(inner) == len(value):
            return tuple(_converted(h, f"{name}[{i}]", item, scope) for i, (h, item) in enumerate(zip(inner, value)))
        return tuple(value)
    if origin in (set, frozenset, _AbstractSet) and isinstance(value, list):
        items = [_converted(inner[0], f"{name}[{i}]", item, scope) for i, item in enumerate(value)] \
            if len(inner) == 1 else value
        try:
            return frozenset(items) if origin is frozenset else set(items)
        except TypeError:  # an item that cannot be in a set (a dict): the list as it is
            return value
    if hint in (tuple, set, frozenset) and isinstance(value, list):
        try:
            return hint(value)
        except TypeError:
            return value
    if origin is dict and isinstance(value, dict) and len(inner) == 2:
        return {key: _converted(inner[1], f"{name}.{key}", item, scope) for key, item in value.items()}
    if not isinstance(hint, type) or origin is not None:
        return value
    if isinstance(value, dict) and _is_record(hint):
        return _built_record(hint, name, value, scope)
    try:
        if isinstance(value, hint):
            return value
    except TypeError:  # a class that refuses instance checks
        return value
    return _as_type(hint, name, value)


def _is_record(kind):
    return (_is_typeddict(kind) or dataclasses.is_dataclass(kind) or hasattr(kind, "model_validate")
            or (issubclass(kind, tuple) and hasattr(kind, "_fields")))


def _built_record(kind, name, value, scope):
    """A record class's instance from the model's object: a Pydantic model validates it; a
    dataclass or NamedTuple gets the fields it takes, each typed by its hint (one the model added
    is left out, as for the function's arguments); a TypedDict's values are typed."""
    if hasattr(kind, "model_validate"):
        return kind.model_validate(value)
    try:
        hints = _type_hints(kind, globalns=scope)
    except Exception:
        hints = {}
    fields = {key: _converted(hints.get(key), f"{name}.{key}", item, scope) for key, item in value.items()}
    if _is_typeddict(kind):
        return fields
    takes = {f.name for f in dataclasses.fields(kind) if f.init} if dataclasses.is_dataclass(kind) \
        else set(kind._fields)
    return kind(**{key: item for key, item in fields.items() if key in takes})


def _as_type(kind, name, value):
    if issubclass(kind, enum.Enum):
        try:
            return kind(value)
        except ValueError:
            return kind[value] if isinstance(value, str) and value in kind.__members__ else value
    if kind is decimal.Decimal and isinstance(value, (int, float, str)) and not isinstance(value, bool):
        try:
            return decimal.Decimal(str(value))  # 0.1 as Decimal("0.1"), not its binary float's digits
        except decimal.InvalidOperation:
            raise ValueError(f"argument '{name}' is not a Decimal: {value!r}") from None
    read = _FROM_TEXT.get(kind)
    if read is None or not isinstance(value, str):
        return value
    try:
        return read(value)
    except ValueError:
        raise ValueError(f"argument '{name}' is not a {kind.__name__}: {value!r}") from None


def _date(text):
    """A date, also from a whole timestamp (models write "2026-12-04T00:00:00" for a day)."""
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        return datetime.datetime.fromisoformat(text).date()


_FROM_TEXT = {datetime.datetime: datetime.datetime.fromisoformat, datetime.date: _date,
              datetime.time: datetime.time.fromisoformat, uuid.UUID: uuid.UUID}


_PLAIN = {None, str, int, float, bool, list, dict, "str", "int", "float", "bool", "list", "dict"}
_VARKEYWORDS = 0x08  # CO_VARKEYWORDS: the function has **kwargs


def _accepted(fn, args):
    """The arguments `fn` takes by name: one the model made up beside them is left out (as ADK's
    FunctionTool leaves it out), not a TypeError that costs the conversation a round. A function
    with **kwargs takes them all."""
    code = getattr(fn, "__code__", None)
    if isinstance(code, types.CodeType) and not hasattr(fn, "__wrapped__"):  # a plain function
        if code.co_flags & _VARKEYWORDS:
            return args
        named = code.co_varnames[code.co_posonlyargcount:code.co_argcount + code.co_kwonlyargcount]
        return args if all(k in named for k in args) else {k: v for k, v in args.items() if k in named}
    try:
        params = _signature(fn).parameters.values()
    except (TypeError, ValueError):
        return args
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return args
    named = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return {k: v for k, v in args.items() if k in named}
