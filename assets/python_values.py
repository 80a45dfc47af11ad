# How the runtime writes what code tools hand back (python_runtime.py, python_requests.py): values
# JSON lacks, and exceptions as text. Loaded first; its names are the runtime's globals.
import dataclasses
import datetime
import decimal
import enum
import pathlib
import uuid


def _jsonable(value):
    """A value json cannot write, as Pydantic's JSON mode writes it (a result the model reads, or
    context.state kept for the next turns): dates and times in ISO 8601, a duration in seconds, a
    Decimal as its digits, an Enum as its value, a set as a list, bytes as UTF-8 text; a Pydantic
    model or a dataclass as its fields."""
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (decimal.Decimal, uuid.UUID, pathlib.PurePath)):
        return str(value)
    if isinstance(value, (set, frozenset)):
        return list(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    # The class's own method: an object answering any attribute (`tools`, a proxy, a mock)
    # would be called for one it has not got.
    if callable(getattr(type(value), "model_dump", None)) and not isinstance(value, type):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _error_text(error):
    """`Error: ValueError: bad`, as a traceback's last line says it: the type alone when the
    message is empty (`Error: StopIteration`); a message that cannot be read (its `__str__`
    raises) said so, rather than the fault of reading it."""
    name = type(error).__name__
    try:
        message = str(error)
    except BaseException:  # noqa: BLE001 - whatever its __str__ raises
        message = "(its message could not be read)"
    return f"Error: {name}: {message}" if message else f"Error: {name}"
