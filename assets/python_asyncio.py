# asyncio for code tools, loaded after python_runtime.py. A call's code runs synchronously in its
# worker (each request through the engine's bridge blocks until answered), where Pyodide's own
# event loop (WebLoop) waits on JavaScript's, which never turns while a call runs: `asyncio.run()`
# failed. Here a loop runs on the spot: its callbacks in order, its timers by sleeping (in slices,
# so the engine's interrupt stops it), and what it would hand to a thread (asyncio.to_thread,
# run_in_executor) run in place. An `async def` tool's coroutine is run to its end on one.
# Requests awaited together (asyncio.gather) are carried out one after the other.
import asyncio
import asyncio.events as _events
import inspect


class _Waits:
    """The selector of a loop with no sockets: select() waits for the next timer, or until the loop
    is woken (the engine's interrupt, which asyncio.run answers by cancelling the main task)."""

    def __init__(self):
        self.woken = False

    def select(self, timeout):
        if timeout is None:  # nothing ready, no timer: what is awaited can never come
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
        future = self.create_future()
        try:
            future.set_result(func(*args))
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


def _awaited(result):
    """What a tool's function returned; an `async def` one's coroutine (any awaitable) run to its end.
    A tool called inline (tools.<name>) from an async tool's code runs on a loop of its own while the
    caller's waits, as a function call would."""
    if not inspect.isawaitable(result):
        return result
    outer = _events._get_running_loop()
    _events._set_running_loop(None)
    try:
        with asyncio.Runner(loop_factory=_CallLoop) as runner:
            return runner.run(result)
    finally:
        _events._set_running_loop(outer)


def _end_loop():
    """The current loop a call's code made (asyncio.get_event_loop(), set_event_loop()) is closed
    with the call: the next call starts without it."""
    policy = _events._get_event_loop_policy()
    local = getattr(policy, "_local", None)
    loop = getattr(local, "_loop", None)
    if loop is not None:
        if not loop.is_running():
            loop.close()
        local._loop = None
    _events._set_running_loop(None)
