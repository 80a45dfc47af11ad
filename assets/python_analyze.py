# Static analysis of a code tool (never runs it): the main function, its docstring, and a JSON
# Schema from its signature, type hints and the Args: section of the docstring.
import ast
import importlib.util
import inspect
import json

_TYPES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean", "dict": "object",
          "list": "array", "Dict": "object", "List": "array", "Any": None, "tuple": "array", "Tuple": "array",
          "set": "array", "Set": "array", "frozenset": "array", "FrozenSet": "array", "AbstractSet": "array",
          "Sequence": "array", "Mapping": "object", "Decimal": "number"}
# Hints of collections without repeats: the model is told so (the call hands the function a set).
_SETS = {"set", "Set", "frozenset", "FrozenSet", "AbstractSet"}
# Types a model writes as text: the call hands the function the type (python_runtime.py, _typed).
_FORMATS = {"date": "date", "datetime": "date-time", "time": "time", "UUID": "uuid"}
_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number"}


def _hint_name(node):
    """`datetime.date` → "date", `typing.List` → "List", `Seat` → "Seat"."""
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def _json_type(values):
    kinds = {_JSON_TYPES.get(type(v)) for v in values}
    return kinds.pop() if len(kinds) == 1 and None not in kinds else None


def _enums(tree):
    """The Enum classes the code defines: as JSON Schema, their values (names when a value is no
    constant, as auto()'s), which the call turns back into members; and each member's."""
    found = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or not any(
                (_hint_name(b) or "").endswith(("Enum", "Flag")) for b in node.bases):
            continue
        members = [(t.targets[0].id, t.value) for t in node.body if isinstance(t, ast.Assign)
                   and len(t.targets) == 1 and isinstance(t.targets[0], ast.Name)
                   and not t.targets[0].id.startswith("_")]
        values = [v.value for _, v in members if isinstance(v, ast.Constant)]
        kind = _json_type(values) if len(values) == len(members) else None
        said = dict(zip((n for n, _ in members), values)) if kind else {n: n for n, _ in members}
        found[node.name] = ({"type": kind or "string", "enum": list(said.values())}, said)
    return found


def _union(node):
    """The members of `X | Y`, `Union[X, Y]`, `Optional[X]`, and whether None is one of them."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, left_none = _union(node.left)
        right, right_none = _union(node.right)
        return left + right, left_none or right_none
    if isinstance(node, ast.Constant) and node.value is None:
        return [], True
    if isinstance(node, ast.Subscript) and _hint_name(node.value) in ("Optional", "Union"):
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        members, nullable = [], _hint_name(node.value) == "Optional"
        for part in parts:
            inner, none = _union(part)
            members += inner
            nullable = nullable or none
        return members, nullable
    return [node], False


def _schema_of(annotation, defs=None):
    if annotation is None:
        return {}
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:  # a quoted annotation, "Seat"
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return {}
    members, nullable = _union(annotation)
    schemas = [_single(m, defs or {}) for m in members]
    if len(schemas) == 1:
        schema = schemas[0]
    elif schemas and all(list(s) == ["type"] and isinstance(s["type"], str) for s in schemas):
        types = list(dict.fromkeys(s["type"] for s in schemas))
        schema = {"type": "number" if set(types) == {"integer", "number"} else types}
    else:
        schema = {}
    if nullable and isinstance(schema.get("type"), str):
        schema["type"] = [schema["type"], "null"]
        if "enum" in schema:
            schema["enum"] = schema["enum"] + [None]
    return schema


def _single(node, defs):
    """The schema of one hint; `defs` are the Enums (_enums: a tuple) and records
    (python_analyze_records.py: a dict) the code defines, by name."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _schema_of(node, defs)  # quoted inside: Optional["Seat"]
    name = _hint_name(node.value if isinstance(node, ast.Subscript) else node)
    if isinstance(node, ast.Subscript):
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if name == "Literal":
            values = [a.value for a in args if isinstance(a, ast.Constant)]
            kind = _json_type(values)
            return {"type": kind, "enum": values} if kind and len(values) == len(args) else {}
        if name == "Annotated":
            schema = _schema_of(args[0], defs)
            said = [a.value for a in args[1:] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            return {**schema, "description": said[0]} if said else schema
        kind = _TYPES.get(name)
        if kind not in ("array", "object"):
            return {} if kind is None else {"type": kind}
        if name in ("tuple", "Tuple"):
            return _tuple_schema(args, defs)
        schema = {"type": kind, **({"uniqueItems": True} if name in _SETS else {})}
        if kind == "array" and (items := _schema_of(args[0], defs)):
            schema["items"] = items  # list[str]
        elif kind == "object" and len(args) == 2 and (values := _schema_of(args[1], defs)):
            schema["additionalProperties"] = values  # dict[str, int]
        return schema
    if name in defs:
        found = defs[name]
        return _record_schema(found, defs) if isinstance(found, dict) else dict(found[0])
    if name in _FORMATS:
        return {"type": "string", "format": _FORMATS[name]}
    kind = _TYPES.get(name)
    return {} if kind is None else {"type": kind}


def _tuple_schema(args, defs):
    """`tuple[str, ...]`: an array of any length; `tuple[float, float]`: of that many items, each
    of its place's type (one of them, for a JSON Schema every server takes; the call types each
    place by its hint)."""
    if len(args) == 2 and isinstance(args[1], ast.Constant) and args[1].value is Ellipsis:
        items = _schema_of(args[0], defs)
        return {"type": "array", **({"items": items} if items else {})}
    places = [_schema_of(a, defs) for a in args]
    schema = {"type": "array", "minItems": len(places), "maxItems": len(places)}
    distinct = [p for i, p in enumerate(places) if p not in places[:i]]
    if len(distinct) == 1 and distinct[0]:
        schema["items"] = distinct[0]
    elif distinct and all(distinct):
        schema["items"] = {"anyOf": distinct}
    return schema


def _default(node, defs):
    """A default the model may read (found, value): a scalar constant, or a member of an Enum of
    the code; None and containers are not said."""
    if isinstance(node, ast.Constant) and type(node.value) in _JSON_TYPES:
        return True, node.value
    found = defs.get(_hint_name(node.value)) if isinstance(node, ast.Attribute) else None
    if isinstance(found, tuple):
        said = found[1]
        if node.attr in said:
            return True, said[node.attr]
    return False, None


def _arg_docs(doc):
    docs, section = {}, False
    for line in (doc or "").splitlines():
        stripped = line.strip()
        if stripped in ("Args:", "Arguments:", "Parameters:"):
            section = True
            continue
        if section:
            if not stripped:
                continue
            if stripped.endswith(":") and " " not in stripped:
                section = False
                continue
            if ":" in stripped:
                name, _, text = stripped.partition(":")
                name = name.split("(")[0].strip()
                if name.isidentifier():
                    docs[name] = text.strip()
                    continue
            last = list(docs)[-1] if docs else None
            if last:
                docs[last] = (docs[last] + " " + stripped).strip()
    return docs


def _missing_import(tree):
    """The first module the code imports at its top level, unconditionally (each call runs that
    line, and fails on it), that code tools do not have: an error naming it and its line."""
    for node in tree.body:
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            root = name.split(".")[0]
            if root in _BLOCKED:  # python_runtime.py
                why = "is not available to code tools"
            elif root in _ENGINE_MODULES or importlib.util.find_spec(root) is not None:  # python_runtime.py
                continue
            else:
                why = ("is not there: code tools have Python's standard library, and requests, httpx and "
                       "aiohttp through the engine; other packages load from CODE_TOOLS_PACKAGES_DIR (Pyodide "
                       "wheels)")
            return {"ok": False, "error": f"module '{root}' (imported at line {node.lineno}) {why}",
                    "line": node.lineno}
    return None


def analyze(job_json):
    """Parses (never runs) a code tool: its main function, description and JSON Schema."""
    job = json.loads(job_json)
    try:
        tree = ast.parse(job["code"], filename="<tool>")
    except SyntaxError as error:
        return json.dumps({"ok": False, "error": f"Python syntax error at line {error.lineno}: {error.msg}",
                           "line": error.lineno})
    missing = _missing_import(tree)
    if missing:
        return json.dumps(missing)
    functions = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    wanted = job.get("name")
    if wanted:
        found = [f for f in functions if f.name == wanted]
        if not found:
            names = ", ".join(f.name for f in functions) or "none"
            return json.dumps({"ok": False, "error": f"no function named '{wanted}' (functions defined: {names})"})
        fn = found[0]
    else:
        public = [f for f in functions if not f.name.startswith("_")]
        if not public:
            return json.dumps({"ok": False, "error": "the code defines no function"})
        fn = public[0]
    doc = ast.get_docstring(fn) or ""
    arg_docs = _arg_docs(doc)
    properties, required = {}, []
    args = fn.args
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    defs = {**_records(tree), **_enums(tree)}
    for arg, default in list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults)):
        schema = _schema_of(arg.annotation, defs)
        if arg.arg in arg_docs:
            schema["description"] = arg_docs[arg.arg]
        said, value = _default(default, defs)
        if said:
            schema["default"] = value
        properties[arg.arg] = schema
        if default is None:
            required.append(arg.arg)
    parameters = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    description = inspect.cleandoc(doc).split("\n\nArgs:")[0].split("\nArgs:")[0].strip() if doc else ""
    return json.dumps({"ok": True, "name": fn.name, "description": description, "parameters": parameters,
                       "line": fn.lineno})
