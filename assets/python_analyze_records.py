# Static analysis (python_analyze.py) of the classes a code tool's function may take an object as:
# the dataclasses, TypedDicts, NamedTuples and Pydantic models the code defines, as JSON Schema
# objects. The call builds the instance from the model's object (python_arguments.py, _built_record).
import ast

_RECORD_BASES = {"TypedDict": "typeddict", "NamedTuple": "namedtuple", "BaseModel": "model"}


def _decorated_dataclass(node):
    return any(_hint_name(d.func if isinstance(d, ast.Call) else d) == "dataclass" for d in node.decorator_list)


def _field_default(value):
    """(required, description, default) of a field by its value: none, or a `Field(...)`/`field()`
    giving none, leaves it required; Pydantic's `Field(description=...)` is said."""
    if value is None:
        return True, None, None
    if not (isinstance(value, ast.Call) and _hint_name(value.func) in ("Field", "field")):
        return False, None, value
    words = {k.arg: k.value for k in value.keywords if k.arg}
    said = words.get("description")
    description = said.value if isinstance(said, ast.Constant) and isinstance(said.value, str) else None
    given = words.get("default", value.args[0] if value.args else None)
    if isinstance(given, ast.Constant) and given.value is Ellipsis:
        given = None
    return given is None and "default_factory" not in words, description, given


def _records(tree):
    """The record classes of the code by name: their kind, fields (annotation, required,
    description, default; a base's of the code first) and docstring."""
    found = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        bases = [_hint_name(b) for b in node.bases]
        inherited = [found[b] for b in bases if b in found]
        kind = next((_RECORD_BASES[b] for b in bases if b in _RECORD_BASES), None)
        kind = kind or (inherited[0]["kind"] if inherited else None)
        kind = kind or ("dataclass" if _decorated_dataclass(node) else None)
        if kind is None:
            continue
        total = not any(k.arg == "total" and isinstance(k.value, ast.Constant) and k.value.value is False
                        for k in node.keywords)
        fields = {}
        for base in inherited:
            fields.update(base["fields"])
        for stmt in node.body:
            if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name) \
                    or stmt.target.id.startswith("_"):
                continue
            annotation = stmt.annotation
            wrapper = _hint_name(annotation.value) if isinstance(annotation, ast.Subscript) else None
            if wrapper in ("ClassVar", "InitVar"):
                continue
            required, description, default = _field_default(stmt.value)
            if kind == "typeddict":
                required = total
            if wrapper in ("Required", "NotRequired"):
                required, annotation = wrapper == "Required", annotation.slice
            fields[stmt.target.id] = (annotation, required, description, default)
        doc = (ast.get_docstring(node) or "").split("\n\n")[0].strip()
        found[node.name] = {"kind": kind, "fields": fields, "doc": doc, "open": False}
    return found


def _record_schema(record, defs):
    """A record class as a JSON Schema object; one that holds itself is cut there (an object)."""
    if record["open"]:
        return {"type": "object"}
    record["open"] = True
    try:
        properties, required = {}, []
        for name, (annotation, needed, description, default) in record["fields"].items():
            properties[name] = _schema_of(annotation, defs)
            if description:
                properties[name]["description"] = description
            said, value = _default(default, defs)
            if said:
                properties[name]["default"] = value
            if needed:
                required.append(name)
    finally:
        record["open"] = False
    schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if record["doc"]:
        schema["description"] = record["doc"]
    return schema
