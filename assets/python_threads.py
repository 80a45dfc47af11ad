# Threads in code tools, loaded after python_asyncio.py. Pyodide has none ("can't start new
# thread"), so code handing work to concurrent.futures' ThreadPoolExecutor (`with
# ThreadPoolExecutor() as ex: pages = list(ex.map(fetch, urls))`) failed. Its pool runs each
# function in place, when submitted, one after the other, and gives its result or exception as
# a Future as usual, but for a call into the engine given as it is (`ex.map(requests.get, urls)`,
# `ex.submit(tools.get_weather, {...})`): that goes out at once, beside others, and is answered
# when its result is asked for (result(), map, as_completed, wait, leaving `with`). A thread of
# the code's own says why it cannot start and what to use instead.
import asyncio
import concurrent.futures as _cf
import concurrent.futures._base as _cf_base
import concurrent.futures.thread as _cf_thread
import threading

_NO_THREADS = ("can't start new thread: code tools have no threads (a ThreadPoolExecutor runs its work in "
               "place, and requests.get or tools.<name> given to it as they are side by side; for requests "
               "at once, async code: aiohttp, httpx.AsyncClient, asyncio.gather)")


class _InPlacePool(_cf.Executor):
    """ThreadPoolExecutor of code tools: what is submitted runs at once, in place."""

    def __init__(self, max_workers=None, thread_name_prefix="", initializer=None, initargs=(), **ignored):
        if max_workers is not None and max_workers <= 0:
            raise ValueError("max_workers must be greater than 0")
        self._initializer, self._initargs, self._shut = initializer, tuple(initargs), False
        self._deferred = []

    def submit(self, fn, /, *args, **kwargs):
        if self._shut:
            raise RuntimeError("cannot schedule new futures after shutdown")
        if self._initializer is not None:  # as a worker thread would, before its first work
            initializer, self._initializer = self._initializer, None
            initializer(*self._initargs)
        func, given, more = _unwrapped(fn, args)  # python_asyncio.py
        call = _call_of(func, given, {**more, **kwargs})
        if call is not None:
            future = _Deferred(call)
            self._deferred.append(future)
            return future
        future = _cf.Future()
        try:
            with _outside_loop():  # as in a thread, where no loop runs (python_asyncio.py)
                result = fn(*args, **kwargs)
        except Exception as error:  # an interrupt (KeyboardInterrupt) stops the call, as in a thread
            future.set_exception(error)
        else:
            future.set_result(result)
        return future

    def shutdown(self, wait=True, *, cancel_futures=False):
        self._shut = True
        if wait:
            _settle(self._deferred)


class _Deferred(_cf.Future):
    """The Future of a call into the engine submitted to the pool: sent at once on a loop of its own,
    and answered when its result is asked for."""

    def __init__(self, call):
        super().__init__()
        self._loop = _CallLoop()  # python_asyncio.py
        with _outside_loop():
            self._task = self._loop.create_task(call)
            self._loop.run_until_complete(asyncio.sleep(0))  # its first step sends it

    def _settle(self, seconds=None):
        """Runs its loop until its answer came (`seconds`: at most that long); then it is done."""
        if super().done():
            return
        with _outside_loop():
            if seconds is None:
                self._loop.run_until_complete(asyncio.wait([self._task]))
            else:
                self._loop.run_until_complete(asyncio.sleep(seconds))
        if not self._task.done():
            return
        if self._task.cancelled():
            super().cancel()
        elif self._task.exception() is not None:
            self.set_exception(self._task.exception())
        else:
            self.set_result(self._task.result())
        self._loop.close()

    def done(self):
        self._settle(0.001)  # code polling done() sees the answer come
        return super().done()

    def result(self, timeout=None):
        self._settle()
        return super().result(0)

    def exception(self, timeout=None):
        self._settle()
        return super().exception(0)


def _settle(futures):
    for future in futures:
        if isinstance(future, _Deferred):
            future._settle()


def _settled(wait_for):
    """as_completed and wait, once the pool's calls into the engine among the futures are answered."""

    def settled(fs, *args, **kwargs):
        fs = list(fs)
        _settle(fs)
        return wait_for(fs, *args, **kwargs)

    settled.__name__ = wait_for.__name__
    return settled


_cf.as_completed = _cf_base.as_completed = _settled(_cf_base.as_completed)
_cf.wait = _cf_base.wait = _settled(_cf_base.wait)


def _no_thread(self):
    raise RuntimeError(_NO_THREADS)


_cf.ThreadPoolExecutor = _cf_thread.ThreadPoolExecutor = _InPlacePool
threading.Thread.start = _no_thread
