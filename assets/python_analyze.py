# Static analysis of a code tool (never runs it): the main function, its docstring, and a JSON
# Schema from its signature, type hints and the Args: section of the docstring.
import ast
import importlib.util
import inspect
import json

_TYPES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean", "dict": "object",
          "list": "array", "Dict": "object", "List": "array", "Any": None, "tuple": "array", "Tuple": "array"}


def _schema_of(annotation):
    if annotation is None:
        return {}
    text = ast.unparse(annotation)
    for prefix in ("typing.", "t."):
        text = text.replace(prefix, "")
    nullable = False
    if text.startswith("Optional[") and text.endswith("]"):
        text, nullable = text[len("Optional["):-1], True
    if "|" in text:
        parts = [p.strip() for p in text.split("|")]
        if "None" in parts:
            nullable = True
            parts = [p for p in parts if p != "None"]
        text = parts[0] if len(parts) == 1 else text
    base = text.split("[")[0]
    kind = _TYPES.get(base)
    schema = {} if kind is None else {"type": kind}
    if kind == "array" and "[" in text:
        inner = ast.parse(text, mode="eval").body
        if isinstance(inner, ast.Subscript):
            item = _schema_of(inner.slice if not isinstance(inner.slice, ast.Tuple) else inner.slice.elts[0])
            if item:
                schema["items"] = item
    if nullable and "type" in schema:
        schema["type"] = [schema["type"], "null"]
    return schema


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
    for arg, default in list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults)):
        schema = _schema_of(arg.annotation)
        if arg.arg in arg_docs:
            schema["description"] = arg_docs[arg.arg]
        properties[arg.arg] = schema
        if default is None:
            required.append(arg.arg)
    parameters = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    description = inspect.cleandoc(doc).split("\n\nArgs:")[0].split("\nArgs:")[0].strip() if doc else ""
    return json.dumps({"ok": True, "name": fn.name, "description": description, "parameters": parameters,
                       "line": fn.lineno})
