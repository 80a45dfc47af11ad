# Runtime of Python code tools, loaded once per worker. User code runs in a fresh namespace per
# call, with the globals of seed 003: context, _session, tools, ces_requests (alias requests; see
# python_requests.py, loaded after this file).
import builtins
import io
import json
import signal
import sys
import time
import types

from _engine_bridge import call as _bridge_call

# The runtime's own (de)serialisers, bound once: a call that rebinds json.dumps still gets its
# reply read (and the rebinding is undone after it, see python_isolation.py).
_dumps, _loads = json.dumps, json.loads
_BLOCKED = ("js", "pyodide", "pyodide_js", "_pyodide", "micropip", "_engine_bridge")
# Modules tool code gets from the engine, not from the interpreter (_engine_import).
_ENGINE_MODULES = ("requests", "ces_requests", "urllib3", "httpx", "aiohttp")
_real_import = builtins.__import__


def _guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    if globals is not None and globals.get("__name__") == "__tool__":
        root = name.split(".")[0]
        if root in _BLOCKED:
            raise ImportError(f"module '{name}' is not available to code tools")
        if root in _ENGINE_MODULES and level == 0:
            return _engine_import(root, name, globals, fromlist)
    return _real_import(name, globals, locals, fromlist, level)


def _engine_import(root, name, globals, fromlist):
    """`import httpx` (python_httpx.py), `import aiohttp` (python_aiohttp.py), and requests' with its
    submodules (python_session.py)."""
    clients = {"httpx": _Httpx, "aiohttp": _Aiohttp}
    if root not in clients:
        return _requests_import(name, globals, fromlist)
    if name != root:
        raise ImportError(f"module '{name}' is not available to code tools (`import {root}` gives {root}'s "
                          "client)")
    return clients[root]


builtins.__import__ = _guarded_import

_real_sleep = time.sleep


def _sleep(seconds):
    """time.sleep in slices of 50 ms: the engine's interrupt (a call past its timeout) stops it
    between two, where Pyodide's own sleep never sees it (its worker was killed and replaced)."""
    if seconds < 0:
        raise ValueError("sleep length must be non-negative")
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        _real_sleep(min(left, 0.05))


time.sleep = _sleep


def _state_json(state):
    """context.state as JSON for the next turns; what JSON cannot hold fails the call, saying so.
    Compact, as the engine measures it."""
    try:
        return _dumps(state, ensure_ascii=False, allow_nan=False, default=_jsonable, separators=(",", ":"))
    except (TypeError, ValueError) as error:
        raise TypeError(f"context.state cannot be kept: {error}") from None


_REQUEST_LIMIT = 16 * 1024 * 1024  # bytes of a call into the engine, as JSON


def _bridge_request(kind, payload):
    """A call into the engine as sent (JSON), and None; or None, and the answer to one over
    _REQUEST_LIMIT, refused here as a failed request: the engine never holds it. NaN and
    infinities, which JSON lacks, raise ValueError."""
    request = _dumps({"kind": kind, "payload": payload}, default=_jsonable, allow_nan=False)  # ASCII: a byte a character
    if len(request) > _REQUEST_LIMIT:
        why = f"the request is larger than {_REQUEST_LIMIT // (1024 * 1024)} MiB"
        return None, {"error": why, "text": f"Error: tool request failed: {why}"}
    return request, None


def _bridge(kind, payload):
    """A call into the engine (a tool, an HTTP request), answered as the engine answers it. One
    interrupted while it waited (the call's timeout) raises KeyboardInterrupt, as the interrupt
    does anywhere else (within asyncio.run: its main task is cancelled, and this call fails)."""
    request, refused = _bridge_request(kind, payload)
    if refused:
        return refused
    answer = _loads(_bridge_call(request))
    if answer.get("interrupted") is True:
        _deliver_interrupt()
        return {"error": "interrupted", "text": "Error: tool request failed: interrupted"}
    return answer


def _deliver_interrupt():
    """The engine's interrupt, seen while Python waited for it (where its own check cannot run),
    delivered as Python's signal handling would: the SIGINT handler (KeyboardInterrupt)."""
    handler = signal.getsignal(signal.SIGINT)
    if not callable(handler):
        raise KeyboardInterrupt
    handler(signal.SIGINT, None)


class _Tools:
    """tools.<name>(args): calls another active tool synchronously."""

    def __init__(self, run_nested):
        self._run_nested = run_nested

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)

        def call(args=None, **kwargs):
            payload = dict(args or {})
            payload.update(kwargs)
            return self._answer(payload, _bridge("tool", {"name": name, "args": payload}))

        call.__name__ = name
        call._tool = (self, name)  # handed to a thread by async code, it goes out beside others (python_asyncio.py)
        return call

    def _answer(self, payload, result):
        """A tool's result as the code reads it: a code tool's run inline, else parsed JSON or the text."""
        if result.get("python"):
            return self._run_nested(result["python"], payload)
        text = result["text"]
        try:
            return json.loads(text)
        except ValueError:
            return text


def _ns(obj):
    if isinstance(obj, dict):
        return types.SimpleNamespace(**{k: _ns(v) for k, v in obj.items()})
    if isinstance(obj, list):
        return [_ns(v) for v in obj]
    return obj


class ToolContext:
    def __init__(self, ctx, state):
        self.function_call_id = ctx["function_call_id"]
        self.user_content = _ns(ctx["user_content"])
        self.state = state
        self.events = _ns(ctx["events"])
        self.session_id = ctx["session_id"]
        self.invocation_id = ctx["invocation_id"]
        self.agent_name = ctx["agent_name"]
        self.variables = dict(ctx.get("variables", {}))
        self._progress_sent = float("-inf")

    def report_progress(self, progress=None, total=None, message=None):
        return _report_progress(self, progress, total, message)  # python_user.py

    def confirm(self, question):
        return _confirm(question)  # python_user.py

    def ask(self, question, choices=None, type="text", minimum=None, maximum=None, multiple=False):
        return _ask(question, choices, type, minimum, maximum, multiple)  # python_user.py


def _execute(code, func, args, ctx, state):
    ns = {"__name__": "__tool__", "__builtins__": builtins}

    def run_nested(spec, payload):
        nested_ctx = dict(ctx, function_call_id=spec["call_id"])
        with _outside_loop():  # python_asyncio.py
            return _execute(spec["code"], spec["func"], payload, nested_ctx, state)

    own_requests = _Requests(ctx["function_call_id"])
    ns.update(context=ToolContext(ctx, state), _session=dict(ctx["session"]), tools=_Tools(run_nested),
              ces_requests=own_requests, requests=own_requests, __requests__=own_requests)
    exec(compile(code, "<tool>", "exec"), ns)
    fn = ns.get(func)
    if not callable(fn):
        raise NameError(f"function '{func}' is not defined")
    return _awaited(fn(**_typed(fn, _accepted(fn, args))))  # python_asyncio.py


_LOG_LIMIT = 32 * 1024


class _BoundedLog(io.TextIOBase):
    """print() output of one call: its first _LOG_LIMIT characters are kept, the rest only counted."""

    def __init__(self):
        super().__init__()
        self._parts = []
        self._kept = 0
        self._dropped = 0

    def writable(self):
        return True

    def write(self, text):
        room = max(_LOG_LIMIT - self._kept, 0)
        if room:
            self._parts.append(text[:room])
            self._kept += min(room, len(text))
        self._dropped += max(len(text) - room, 0)
        return len(text)

    def getvalue(self):
        more = f"\n… [{self._dropped} more characters not kept]" if self._dropped else ""
        return "".join(self._parts) + more


def _cut(text, limit):
    """At most `limit` + 1 characters of `text`: the engine still sees that it is over its limit,
    and cuts it there itself, saying so; the rest (a result of 100 MB, say) never reaches it."""
    return text if limit is None or len(text) <= limit + 1 else text[: limit + 1]


def _run_job(job_json, body):
    """Runs `body(job, ctx, state)` with print() captured; any exception becomes the error text.
    A result and an error are cut past the job's `result_max_chars`; a state whose JSON is over
    its `state_max_chars` is not sent, only its size (`state_chars`), which the engine refuses."""
    job = _loads(job_json)
    ctx = job["context"]
    limit = job.get("result_max_chars")
    state = _loads(_dumps(ctx.get("state") or {}))
    out = _BoundedLog()
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = out
    try:
        reply = body(job, ctx, state)
        if "result" in reply:
            reply["result"] = _cut(reply["result"], limit)
        kept = _state_json(state)
        if len(kept) > job.get("state_max_chars", len(kept)):
            reply.update(state_chars=len(kept))
        else:
            reply.update(state=kept)
        reply.update(ok=True, logs=out.getvalue())
        return _dumps(reply)
    except BaseException as error:  # the model gets the error as text, never a crash
        text = _cut(_error_text(error), limit)
        return _dumps({"ok": False, "error": text, "logs": out.getvalue()})
    finally:
        sys.stdout, sys.stderr = saved
        _end_loop()  # python_asyncio.py


def run_tool(job_json):
    def body(job, ctx, state):
        result = _execute(job["code"], job["func"], job["args"], ctx, state)
        text = _dumps(result, ensure_ascii=False, default=_jsonable)
        # The engine reads a JSON result compact, but a result cut here (_cut, past
        # result_max_chars) is no JSON it can read: written compact before the cut.
        if len(text) > job.get("result_max_chars", len(text)):
            text = _dumps(result, ensure_ascii=False, default=_jsonable, separators=(",", ":"))
        return {"result": text}

    return _run_job(job_json, body)


class _LlmConfig:
    def __init__(self, tool_names):
        self.excluded_tools = []
        self.tool_names = list(tool_names)

    def hide_tool(self, name):
        if name not in self.excluded_tools:
            self.excluded_tools.append(name)


def run_callback(job_json):
    def body(job, ctx, state):
        ns = {"__name__": "__tool__", "__builtins__": builtins}
        ns.update(_session=dict(ctx["session"]), tools=_Tools(lambda spec, payload: None), ces_requests=requests,
                  requests=requests)
        exec(compile(job["code"], "<callback>", "exec"), ns)
        variables = {**ctx.get("variables", {}), "_session": dict(ctx["session"])}
        callback_context = types.SimpleNamespace(variables=variables, state=state,
                                                 session_id=ctx["session_id"], invocation_id=ctx["invocation_id"],
                                                 agent_name=ctx["agent_name"])
        llm_request = types.SimpleNamespace(config=_LlmConfig(job["tool_names"]))
        _awaited(ns[job["func"]](callback_context, llm_request))
        return {"excluded": [str(n) for n in llm_request.config.excluded_tools]}

    return _run_job(job_json, body)
