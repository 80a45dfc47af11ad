# asyncio for code tools, loaded after python_runtime.py. A call's code runs synchronously in its
# worker (each request through the engine's bridge blocks until answered), where Pyodide's own
# event loop (WebLoop) waits on JavaScript's, which never turns while a call runs: `asyncio.run()`
# failed. Here a loop runs on the spot: its callbacks in order, its timers by sleeping (in slices,
# so the engine's interrupt stops it), and what it would hand to a thread (asyncio.to_thread,
# run_in_executor) run in place. An `async def` tool's coroutine is run to its end on one. Its
# requests (aiohttp's, httpx.AsyncClient's, and ces_requests' handed to a thread) go out when
# awaited, several at once: the loop waits for their answers where it would wait for sockets.
import asyncio
import asyncio.events as _events
import contextlib
import contextvars
import functools
import inspect
import math

from _engine_bridge import next as _bridge_next, start as _bridge_start

_IN_FLIGHT = 6  # requests out at once (bridge.ts MAX_CALLS_IN_FLIGHT)
_waiting = {}  # number -> future of each request out, until its answer comes (cancelled or not)
_turns = []  # futures of requests waiting to go out


class _Waits:
    """The selector of a loop with no sockets: select() waits for the next timer, or until the loop
    is woken (the engine's interrupt, which asyncio.run answers by cancelling the main task)."""

    def __init__(self):
        self.woken = False

    def select(self, timeout):
        if _waiting:
            got = _bridge_next(-1 if timeout is None else math.ceil(timeout * 1000))
            if got == "!":  # the engine's interrupt
                _deliver_interrupt()  # python_runtime.py
            elif got:
                _arrived(got)
            return []
        if timeout is None:  # nothing ready, no timer, no request out: what is awaited can never come
            raise RuntimeError("the tool's code awaits something that nothing will ever finish (no timer, "
                               "no request and no other task is left to run)")
        end = time.monotonic() + timeout
        while not self.woken and (left := end - time.monotonic()) > 0:
            _real_sleep(min(left, 0.05))  # python_runtime.py
        self.woken = False
        return []

    def close(self):
        pass


class _CallLoop(asyncio.BaseEventLoop):
    """The event loop of code tools (see above)."""

    def __init__(self):
        super().__init__()
        self._selector = _Waits()

    def _process_events(self, event_list):
        pass

    def _write_to_self(self):
        self._selector.woken = True

    def run_in_executor(self, executor, func, *args):
        self._check_closed()
        func, args, kwargs = _unwrapped(func, args)
        call = _call_of(func, args, kwargs)
        if call is not None:  # a request, or tools.<name>: out at once, beside others
            return self.create_task(call)
        future = self.create_future()
        try:
            with _outside_loop():  # as in a thread, where no loop runs
                result = func(*args, **kwargs)
            future.set_result(result)
        except Exception as error:  # an interrupt (KeyboardInterrupt) is not the function's failure
            future.set_exception(error)
        return future

    async def getaddrinfo(self, *args, **kwargs):
        raise OSError(_NO_NETWORK)  # python_urllib.py

    async def create_connection(self, *args, **kwargs):
        raise OSError(_NO_NETWORK)

    create_unix_connection = create_datagram_endpoint = create_server = create_unix_server = create_connection
    sock_connect = create_connection


class _CallLoopPolicy(getattr(_events, "_BaseDefaultEventLoopPolicy", None) or _events.BaseDefaultEventLoopPolicy):
    _loop_factory = _CallLoop

    def get_event_loop(self):
        """As before Python 3.14, a loop is made when there is none, for code written then
        (`asyncio.get_event_loop().run_until_complete(main())`)."""
        if self._local._loop is None:
            self.set_event_loop(self.new_event_loop())
        return self._local._loop


# Pyodide leaves its WebLoop running (for JavaScript's promises, which tool code cannot reach) and
# has asyncio.run() block on it: neither can run here.
_events._set_event_loop_policy(_CallLoopPolicy())
_events._set_running_loop(None)
asyncio.run = asyncio.runners.run


def _arrived(got):
    """An answer (`<number>\n<JSON>`) for the request waiting for it, and the next may go out."""
    seq, _, text = got.partition("\n")
    future = _waiting.pop(int(seq), None)
    if future is not None and not future.done():
        future.set_result(text)
    while _turns:
        turn = _turns.pop(0)
        if not turn.done():
            turn.set_result(None)
            break


async def _bridge_async(kind, payload):
    """_bridge (python_runtime.py) for async code: the request goes out at once, unless _IN_FLIGHT
    are out, and others go out while its answer is awaited."""
    request, refused = _bridge_request(kind, payload)
    if refused:
        return refused
    loop = asyncio.get_running_loop()
    while len(_waiting) >= _IN_FLIGHT:
        turn = loop.create_future()
        _turns.append(turn)
        await turn
    answer = loop.create_future()
    _waiting[_bridge_start(request)] = answer
    return _loads(await answer)


async def _tool_async(tools, name, payload):
    """tools.<name>(payload) for async code: the call goes out at once, and others beside it; a code
    tool's run inline once the engine names it, as a function call would."""
    result = await _bridge_async("tool", {"name": name, "args": payload})
    with _outside_loop():
        return tools._answer(payload, result)


async def _request_async(own, method, url, *, timeout=None, **kwargs):
    """A request of ces_requests `own` (the calling tool's, taken when the request was made) for
    async code, with what requests' own takes but retries and hooks."""
    payload = own._payload(method, url, **kwargs)
    payload["timeout"] = _seconds(timeout)
    try:
        result = await _bridge_async("http", payload)
    except ValueError as error:  # NaN or an infinity, which JSON lacks
        raise exceptions.InvalidJSONError(str(error)) from None
    return _answered(result)


class _Asked(_Verbs):
    """What a verb of ces_requests (get, post, …) asks its request() for."""

    def request(self, method, url, **kwargs):
        return method, url, kwargs


_REQUEST_ARGS = inspect.signature(_Requests.request)
_VERBS = ("get", "options", "head", "post", "put", "patch", "delete")


def _unwrapped(func, args):
    """The function handed to a thread, and its arguments, out of partials (to_thread's
    `partial(Context.run, func, …)`, the code's own)."""
    kwargs = {}
    while isinstance(func, functools.partial):
        inner = func.func
        args, kwargs = (*func.args, *args), {**func.keywords, **kwargs}
        if isinstance(getattr(inner, "__self__", None), contextvars.Context) and inner.__name__ == "run":
            inner, args = args[0], args[1:]
        func = inner
    return func, args, kwargs


def _call_of(func, args, kwargs):
    """A call into the engine handed to a thread, as a coroutine that sends it when run: a request
    of ces_requests, or tools.<name>(args, **more); None for any other work."""
    asked = _as_request(func, args, kwargs)
    if asked is not None:
        own, method, url, asked = asked
        return _request_async(own, method, url, **asked)
    tool = getattr(func, "_tool", None)
    if tool is not None and len(args) <= 1:
        return _tool_async(*tool, {**(args[0] if args and args[0] else {}), **kwargs})
    return None


def _as_request(func, args, kwargs):
    """A request of ces_requests handed to a thread (`asyncio.to_thread(requests.get, url)`,
    `run_in_executor(None, partial(requests.post, url, json=…))`): its ces_requests, method, URL and
    arguments; None for any other work (run in place), and for one with hooks or an adapter."""
    own, name = getattr(func, "__self__", None), getattr(func, "__name__", "")
    if type(own) is not _Requests or name not in (*_VERBS, "request"):
        return None
    try:
        if name == "request":
            asked = _REQUEST_ARGS.bind(own, *args, **kwargs).arguments
            asked.pop("self")
            method, url = asked.pop("method"), asked.pop("url")
        else:
            method, url, asked = getattr(_Verbs, name)(_Asked(), *args, **kwargs)
    except TypeError:  # arguments requests does not take: raised as it raises them, in place
        return None
    if asked.get("hooks") or asked.get("_adapter") is not None:
        return None
    for unused in ("proxies", "stream", "verify", "hooks", "_adapter"):
        asked.pop(unused, None)
    return own, method, url, asked


def _awaited(result):
    """What a tool's function returned; an `async def` one's coroutine (any awaitable) run to its end."""
    if not inspect.isawaitable(result):
        return result
    with asyncio.Runner(loop_factory=_CallLoop) as runner:
        return runner.run(result)


@contextlib.contextmanager
def _outside_loop():
    """What runs inside async code as a function call (a tool called inline through tools.<name>)
    or as in a thread (to_thread's work, a pool's) runs as if no loop were running (its own
    asyncio.run(), its own coroutine's loop), while the caller's waits."""
    outer = _events._get_running_loop()
    task = asyncio.tasks._swap_current_task(outer, None) if outer is not None else None
    _events._set_running_loop(None)
    try:
        yield
    finally:
        _events._set_running_loop(outer)
        if task is not None:
            asyncio.tasks._swap_current_task(outer, task)


def _end_loop():
    """The current loop a call's code made (asyncio.get_event_loop(), set_event_loop()) is closed
    with the call, and its requests still out are forgotten (the engine sends nothing more for
    them): the next call starts without either."""
    _waiting.clear()
    _turns.clear()
    policy = _events._get_event_loop_policy()
    local = getattr(policy, "_local", None)
    loop = getattr(local, "_loop", None)
    if loop is not None:
        if not loop.is_running():
            loop.close()
        local._loop = None
    _events._set_running_loop(None)
