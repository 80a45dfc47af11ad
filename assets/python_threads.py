# Threads in code tools, loaded after python_asyncio.py. Pyodide has none ("can't start new
# thread"), so code handing work to concurrent.futures' ThreadPoolExecutor (`with
# ThreadPoolExecutor() as ex: pages = list(ex.map(fetch, urls))`) failed. Its pool runs each
# function in place, when submitted, one after the other, and gives its result or exception as
# a Future as usual. A thread of the code's own says why it cannot start and what to use instead.
import concurrent.futures as _cf
import concurrent.futures.thread as _cf_thread
import threading

_NO_THREADS = ("can't start new thread: code tools have no threads (a ThreadPoolExecutor runs its work in "
               "place; for requests at once, use async code: aiohttp, httpx.AsyncClient, asyncio.gather)")


class _InPlacePool(_cf.Executor):
    """ThreadPoolExecutor of code tools: what is submitted runs at once, in place."""

    def __init__(self, max_workers=None, thread_name_prefix="", initializer=None, initargs=(), **ignored):
        if max_workers is not None and max_workers <= 0:
            raise ValueError("max_workers must be greater than 0")
        self._initializer, self._initargs, self._shut = initializer, tuple(initargs), False

    def submit(self, fn, /, *args, **kwargs):
        if self._shut:
            raise RuntimeError("cannot schedule new futures after shutdown")
        if self._initializer is not None:  # as a worker thread would, before its first work
            initializer, self._initializer = self._initializer, None
            initializer(*self._initargs)
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


def _no_thread(self):
    raise RuntimeError(_NO_THREADS)


_cf.ThreadPoolExecutor = _cf_thread.ThreadPoolExecutor = _InPlacePool
threading.Thread.start = _no_thread
