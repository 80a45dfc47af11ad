# Python's own HTTP clients in code tools, loaded after python_requests.py: urllib.request's
# requests (urlopen, any opener) are carried out by the engine, as ces_requests' are (its address
# policy, its secrets filled in, redirects followed by it); a socket of the code's own (http.client,
# socket) says where the network is. Both are patched when the module is first imported, by
# whatever imports it, so a worker whose tools do not use them does not load them.
import importlib.abc
import io
import sys

# Headers urllib computes for the connection it would open: the engine's connection sets its own
# (a Host of the first URL would go to the host a redirect leads to).
_CONNECTION_HEADERS = ("host", "content-length", "connection")
_NO_NETWORK = ("code tools have no network of their own: requests (ces_requests) and urllib.request "
               "are carried out by the engine")


def _calling_requests():
    """The ces_requests of the tool whose code is running (the innermost, for one called inline
    through tools.<name>): whose secrets its requests may use."""
    frame = sys._getframe(1)
    while frame is not None:
        own = frame.f_globals.get("__requests__")
        if own is not None:
            return own
        frame = frame.f_back
    return requests


def _answer(response):
    """A ces_requests Response as urlopen returns one (http.client.HTTPResponse's reading)."""
    import http.client
    import urllib.response

    class Answer(urllib.response.addinfourl):
        def getheader(self, name, default=None):
            return self.headers.get(name, default)

        def getheaders(self):
            return list(self.headers.items())

    headers = http.client.HTTPMessage()
    for name, value in response.headers.items():
        headers[name] = value
    answer = Answer(io.BytesIO(response.content), headers, response.url, response.status_code)
    answer.reason = answer.msg = response.reason
    return answer


def _engine_open(self, req):
    """HTTPHandler.http_open and HTTPSHandler.https_open: the request sent by the engine. What
    answers comes back to urllib's own processing (HTTPError for a 4xx or 5xx, cookies, …); a
    failure is raised as urllib raises it (URLError, or TimeoutError while reading)."""
    from urllib.error import URLError

    own = _calling_requests()
    headers = {k: v for k, v in req.header_items() if k.lower() not in _CONNECTION_HEADERS}
    data = req.data
    if data is not None and not isinstance(data, (bytes, bytearray, memoryview)) and not hasattr(data, "read"):
        data = b"".join(data)  # an iterable of bytes, as urllib sends it
    timeout = req.timeout if isinstance(req.timeout, (int, float)) else None
    try:
        # As urllib: no Accept-Encoding added, the body given as sent.
        response = own.request(req.get_method(), req.full_url, data=data, headers=headers, timeout=timeout,
                               _decode=False)
    except exceptions.ReadTimeout:
        raise TimeoutError("timed out") from None
    except exceptions.ConnectTimeout:
        raise URLError(TimeoutError("timed out")) from None
    except exceptions.RequestException as error:
        raise URLError(str(error)) from None
    return _answer(response)


def _refused(*args, **kwargs):
    raise OSError(_NO_NETWORK)


def _patch(module):
    if module.__name__ == "urllib.request":
        module.HTTPHandler.http_open = _engine_open
        module.HTTPSHandler.https_open = _engine_open
    elif module.__name__ == "socket":
        module.create_connection = _refused
        module.socket.connect = module.socket.connect_ex = _refused


class _Patched(importlib.abc.Loader):
    """The module's own loader, and the patch once it has run."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _patch(module)

    def __getattr__(self, name):  # get_source, …: the module's own loader's
        return getattr(self._loader, name)


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Finds urllib.request and socket as the other finders do, with their loaders wrapped."""

    def find_spec(self, name, path=None, target=None):
        if name not in ("urllib.request", "socket"):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                spec.loader = _Patched(spec.loader)
                return spec
        return None


for _name in ("urllib.request", "socket"):
    if _name in sys.modules:
        _patch(sys.modules[_name])
sys.meta_path.insert(0, _PatchOnImport())
