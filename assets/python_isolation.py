# What one code-tool call changes in its worker's interpreter is undone before the next call, so
# calls of different sessions never see each other's changes. The worker calls seal() once, when
# the runtime is loaded, and restore() after every job.
#
# Undone: attributes set, replaced or deleted on any loaded module (builtins, sys, json, …) and on
# the classes those modules define, and the classes defined inside those (json.JSONEncoder.default = …); modules replaced in or removed
# from sys.modules; sys.path, os.environ, the working directory, the recursion limit, trace and
# profile functions, the decimal context, logging's handlers and levels, warnings' filters; files
# and directories a call created are removed (one that changed or removed what was there raises:
# its worker is replaced). random is reseeded from the system. A module a call imports is kept as its import
# left it (recorded before the call's code could touch it); one loaded past both the import
# statement and importlib.import_module, or made by hand, is unloaded, for the next call to
# import afresh.
# Not undone: changes inside objects (a list or dict a module holds, an instance's attributes).
import builtins
import importlib
import os
import sys

_IMMUTABLE_TYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE: built-in and C extension types
_modules = {}  # sys.modules as recorded
_live = []  # the recorded namespaces (module __dict__s, class __dict__ proxies) ...
_copies = []  # ... their contents as recorded, index for index ...
_owners = []  # ... and the class of a class's proxy (changed only through the class), else None
_environment = {}
_path = []
_cwd = "/"
_recursion_limit = 1000
_files = {}  # path -> (is a directory, size, modification time) of every file, as recorded
# Not files of the interpreter's: the host's time zone database is mounted, read-only, at
# /usr/share/zoneinfo (python-sandbox.mjs).
_SKIPPED = ("/dev", "/proc", "/sys", "/usr/share/zoneinfo")
_loggers = []  # (logger, handlers, level, propagate, disabled) as recorded, once logging is loaded
_logger_names = set()
_warning_filters = []  # warnings.filters as recorded
_depth = 0  # imports in progress: modules are recorded when the outermost one has finished


def _namespace(module):
    d = getattr(module, "__dict__", None)
    return d if isinstance(d, dict) else None


def _record(name, module):
    _modules[name] = module
    if name == "logging":
        _record_loggers(module)
    if name == "warnings":
        _warning_filters[:] = module.filters
    d = _namespace(module)
    if d is None:
        return
    _keep(d, None)
    for value in list(d.values()):
        if isinstance(value, type) and value.__module__ == name:
            _keep_class(value)


def _keep_class(cls):
    """A class of a module as recorded, and the classes defined inside it (requests.exceptions.Timeout,
    requests.auth.HTTPBasicAuth), not those it only refers to."""
    if cls.__flags__ & _IMMUTABLE_TYPE:
        return
    _keep(cls.__dict__, cls)
    for inner in list(cls.__dict__.values()):
        if isinstance(inner, type) and inner.__qualname__.startswith(cls.__qualname__ + "."):
            _keep_class(inner)


def _keep(namespace, owner):
    _live.append(namespace)
    _copies.append(dict(namespace))
    _owners.append(owner)


def _record_loggers(logging):
    loggers = [logging.root] + [v for v in logging.Logger.manager.loggerDict.values() if isinstance(v, logging.Logger)]
    _loggers[:] = [(lg, list(lg.handlers), lg.level, lg.propagate, lg.disabled) for lg in loggers]
    _logger_names.update(logging.Logger.manager.loggerDict)


def _restore_loggers():
    """Handlers and levels as recorded; loggers the call created are let go (a handler a call adds
    to logging.getLogger(__name__) would otherwise be one more on every later call)."""
    logging = _modules.get("logging")
    if logging is None:
        return
    known = logging.Logger.manager.loggerDict
    for name in [n for n in known if n not in _logger_names]:
        del known[name]
    for logger, handlers, level, propagate, disabled in _loggers:
        logger.handlers[:] = handlers
        logger.level, logger.propagate, logger.disabled = level, propagate, disabled
    getattr(logging.Logger.manager, "_clear_cache", lambda: None)()  # levels cached per logger


def _imported_whole(module):
    """The import system loaded `module` and has finished running its code (`_initializing` is
    what importlib sets around that run; a module made or loaded by hand has none)."""
    return getattr(getattr(module, "__spec__", None), "_initializing", None) is False


def _restore_warning_filters():
    """warnings.filters as at the start (filterwarnings("ignore") would silence every later call)."""
    warnings = _modules.get("warnings")
    if warnings is None or warnings.filters == _warning_filters:
        return
    warnings.filters[:] = _warning_filters
    getattr(warnings, "_filters_mutated", lambda: None)()  # its caches see the change


def _record_new_modules():
    if len(sys.modules) == len(_modules):
        return
    # A module not yet whole (its import still running, or loaded by hand) is not recorded: the
    # call's end unloads it, and the next call that wants it imports it afresh.
    new = [
        (name, module)
        for name, module in list(sys.modules.items())
        if name not in _modules and _imported_whole(module)
    ]
    for name, module in new:
        _record(name, module)
    for name, module in new:  # the parent package now holds the submodule: so must its record
        parent, _, child = name.rpartition(".")
        d = _namespace(_modules.get(parent))
        if d is not None and d.get(child) is module:
            _copies[_index_of(d)][child] = module


def _index_of(namespace):
    return next(i for i, d in enumerate(_live) if d is namespace)


def _recording(load):
    """`load` (an import function) recording the modules it loaded once the outermost import ends."""

    def recorded(*args, **kwargs):
        global _depth
        _depth += 1
        try:
            return load(*args, **kwargs)
        finally:
            _depth -= 1
            if not _depth:
                _record_new_modules()

    return recorded


def seal():
    """Records the interpreter as every call must find it."""
    global _cwd, _recursion_limit
    # The import statement, and importlib.import_module (which libraries such as pydantic use for
    # their lazy imports): a module loaded either way is recorded, and stays loaded.
    builtins.__import__ = _recording(builtins.__import__)
    importlib.import_module = _recording(importlib.import_module)
    sys.dont_write_bytecode = True  # no __pycache__ files written by imports
    _environment.update(os.environ)
    _path[:] = sys.path
    _cwd = os.getcwd()
    _recursion_limit = sys.getrecursionlimit()
    for name, module in list(sys.modules.items()):
        _record(name, module)
    _files.update(_scan("/"))


def _scan(top):
    """Every file and directory under top, with what tells that it changed."""
    found = {}
    with os.scandir(top) as entries:
        for entry in entries:
            if entry.path in _SKIPPED:
                continue
            is_dir = entry.is_dir(follow_symlinks=False)
            info = entry.stat(follow_symlinks=False)
            found[entry.path] = (is_dir, info.st_size, info.st_mtime_ns)
            if is_dir:
                found.update(_scan(entry.path))
    return found


def _restore_files():
    now = _scan("/")
    if now == _files:
        return
    # A directory's time changes with its contents: only its presence counts.
    changed = [path for path, seen in _files.items() if path not in now or not seen[0] and now[path] != seen]
    if changed:
        raise RuntimeError(f"files changed: {changed[:3]}")
    created = sorted((p for p in now if p not in _files), key=len, reverse=True)
    for path in created:
        if now[path][0]:
            os.rmdir(path)
        else:
            os.remove(path)
    # A module the call wrote and imported is forgotten with its file.
    for name, module in list(_modules.items()):
        if getattr(module, "__file__", None) in created:
            _forget(name, module)


def _forget(name, module):
    del _modules[name]
    sys.modules.pop(name, None)
    d = _namespace(module)
    for i in reversed(range(len(_live))):
        if _live[i] is d or _owners[i] is not None and _owners[i].__module__ == name:
            del _live[i], _copies[i], _owners[i]


def _equal(a, b):
    try:
        return a == b  # compared in C, identity first: fast when nothing changed
    except Exception:  # a value whose == raises: treat as changed
        return False


def _put_back(live, recorded, owner):
    missing = object()
    for key, value in recorded.items():
        if live.get(key, missing) is not value:
            if owner is None:
                live[key] = value
            else:
                setattr(owner, key, value)
    for key in [k for k in live if k not in recorded]:
        if owner is None:
            del live[key]
        else:
            delattr(owner, key)


def _restore_modules():
    if not _equal(sys.modules, _modules):
        for name in [n for n in sys.modules if n not in _modules]:
            del sys.modules[name]  # imported past the recording import: the next call imports it afresh
        sys.modules.update(_modules)
    if _equal(_live, _copies):
        return
    for live, recorded, owner in zip(_live, _copies, _owners):
        if not _equal(live, recorded):
            _put_back(live, recorded, owner)


def restore():
    """Undoes what the last call changed outside its own namespace."""
    sys.settrace(None)
    sys.setprofile(None)
    if os.getcwd() != _cwd:
        os.chdir(_cwd)
    _restore_modules()
    _restore_files()
    _restore_loggers()
    if sys.path != _path:
        sys.path[:] = _path
    if os.environ != _environment:
        os.environ.clear()
        os.environ.update(_environment)
    if sys.getrecursionlimit() != _recursion_limit:
        sys.setrecursionlimit(_recursion_limit)
    _restore_warning_filters()
    if "decimal" in sys.modules:
        decimal = sys.modules["decimal"]
        decimal.setcontext(decimal.Context())
    if "random" in sys.modules:
        sys.modules["random"].seed()
