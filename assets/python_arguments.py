# The arguments a code tool's function is handed (python_runtime.py's _execute): those it takes,
# typed as its hints say where JSON has no such type. Loaded after python_runtime.py, in its
# globals.
import datetime
import enum
import types
import uuid
from inspect import signature as _signature
from typing import Union as _Union, get_args as _get_args, get_origin as _get_origin, \
    get_type_hints as _type_hints


def _typed(fn, args):
    """The arguments as the function's hints type them, where JSON has no such type: an Enum's
    member from its value (or name), a date, datetime, time or UUID from its text. A text that is
    none raises, naming the argument."""
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
    typed = dict(args)
    for name, value in args.items():
        hint = hints.get(name)
        members = _get_args(hint) if _get_origin(hint) in (_Union, types.UnionType) else (hint,)
        kinds = [m for m in members if isinstance(m, type) and _get_origin(m) is None and m is not type(None)]
        if len(kinds) == 1 and value is not None and not isinstance(value, kinds[0]):
            typed[name] = _as_type(kinds[0], name, value)
    return typed


def _as_type(kind, name, value):
    if issubclass(kind, enum.Enum):
        try:
            return kind(value)
        except ValueError:
            return kind[value] if isinstance(value, str) and value in kind.__members__ else value
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
