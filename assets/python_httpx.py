# httpx for code tools, loaded after python_urllib.py: what code written for httpx uses (get/post/…/
# request, Client and AsyncClient with their base_url, headers, params, auth, timeout,
# follow_redirects and event_hooks; Response; its exceptions), each request carried out by the engine through the
# calling tool's ces_requests (its address policy and secrets). `import httpx` in tool code gives it.
_UNSET = object()


class _Httpx:
    """The httpx module of code tools."""

    class HTTPError(Exception):
        def __init__(self, message, *, request=None):
            super().__init__(message)
            self.request = request

    class RequestError(HTTPError):
        pass

    class TransportError(RequestError):
        pass

    class TimeoutException(TransportError):
        pass

    class ConnectTimeout(TimeoutException):
        pass

    class ReadTimeout(TimeoutException):
        pass

    class WriteTimeout(TimeoutException):
        pass

    class PoolTimeout(TimeoutException):
        pass

    class NetworkError(TransportError):
        pass

    class ConnectError(NetworkError):
        pass

    class ReadError(NetworkError):
        pass

    class UnsupportedProtocol(TransportError):
        pass

    class DecodingError(RequestError):
        pass

    class TooManyRedirects(RequestError):
        pass

    class HTTPStatusError(HTTPError):
        def __init__(self, message, *, request, response):
            super().__init__(message, request=request)
            self.response = response

    class InvalidURL(Exception):
        pass

    class Timeout:
        """A timeout for the whole request: the longest of those given bounds it."""

        def __init__(self, timeout=5.0, *, connect=None, read=None, write=None, pool=None):
            if isinstance(timeout, _Httpx.Timeout):
                timeout = timeout.seconds
            given = [t for t in (timeout, connect, read, write, pool) if t is not None]
            self.seconds = max(given) if given else None
            self.connect, self.read, self.write, self.pool = connect, read, write, pool

    class BasicAuth:
        def __init__(self, username, password):
            self.pair = (username, password)

    DigestAuth = auth.HTTPDigestAuth  # answered by the engine, as ces_requests' (python_requests.py)

    class Request:
        def __init__(self, method, url, headers=None):
            self.method, self.url, self.headers = method, url, CaseInsensitiveDict(headers or {})

    class Response:
        """What a request answered: httpx's names for ces_requests' Response."""

        def __init__(self, answer, request):
            self.status_code, self.reason_phrase = answer.status_code, answer.reason
            self.headers, self.cookies, self.url = answer.headers, answer.cookies, answer.url
            self.text, self.content, self.elapsed = answer.text, answer.content, answer.elapsed
            self.request, self.http_version, self.encoding, self.history = request, "HTTP/1.1", "utf-8", []

        is_informational = property(lambda self: 100 <= self.status_code < 200)
        is_success = property(lambda self: 200 <= self.status_code < 300)
        is_redirect = property(lambda self: 300 <= self.status_code < 400)
        is_client_error = property(lambda self: 400 <= self.status_code < 500)
        is_server_error = property(lambda self: 500 <= self.status_code < 600)
        is_error = property(lambda self: 400 <= self.status_code < 600)

        def json(self, **kwargs):
            return json.loads(self.text, **kwargs)

        def read(self):
            return self.content

        def iter_bytes(self, chunk_size=None):
            size = chunk_size or len(self.content) or 1
            return iter([self.content[i:i + size] for i in range(0, len(self.content), size)])

        def iter_text(self, chunk_size=None):
            size = chunk_size or len(self.text) or 1
            return iter([self.text[i:i + size] for i in range(0, len(self.text), size)])

        def iter_lines(self):
            return iter(self.text.splitlines())

        def raise_for_status(self):
            if self.is_success:
                return self
            kind = {1: "Informational response", 3: "Redirect response", 4: "Client error",
                    5: "Server error"}.get(self.status_code // 100, "Invalid status code")
            raise _Httpx.HTTPStatusError(
                f"{kind} '{self.status_code} {self.reason_phrase}' for url '{self.url}'\nFor more information "
                f"check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/{self.status_code}",
                request=self.request, response=self)

        def close(self):
            pass

        async def aread(self):
            return self.content

        async def aiter_bytes(self, chunk_size=None):
            for chunk in self.iter_bytes(chunk_size):
                yield chunk

        async def aiter_text(self, chunk_size=None):
            for chunk in self.iter_text(chunk_size):
                yield chunk

        async def aiter_lines(self):
            for line in self.iter_lines():
                yield line

        async def aclose(self):
            pass

        def __repr__(self):
            return f"<Response [{self.status_code} {self.reason_phrase}]>"

    class Client(_Verbs, _Closable):
        """httpx.Client: its base_url, headers, params, cookies, auth, timeout (5 s unless given)
        and follow_redirects (False unless given, as httpx) go with each request of it."""

        def __init__(self, *, base_url="", headers=None, params=None, cookies=None, auth=None, timeout=5.0,
                     follow_redirects=False, verify=True, event_hooks=None, **ignored):
            self.base_url, self.headers = str(base_url), CaseInsensitiveDict(headers or {})
            # Called with each request before it is sent, and each response (raise_for_status, logging).
            self.event_hooks = {kind: list((event_hooks or {}).get(kind, ())) for kind in ("request", "response")}
            self.params, self.cookies, self.auth = dict(params or {}), dict(cookies or {}), auth
            self.timeout, self.follow_redirects = timeout, follow_redirects

        def request(self, method, url, **kwargs):
            request, sent = self._prepared(method, url, **kwargs)
            for hook in self.event_hooks["request"]:
                hook(request)
            try:
                answer = _calling_requests().request(request.method, request.url, **sent)  # python_urllib.py
            except exceptions.RequestException as error:
                raise _httpx_failure(error, request) from None
            response = self._received(answer, request)
            for hook in self.event_hooks["response"]:
                hook(response)
            return response

        def _prepared(self, method, url, *, params=None, content=None, data=None, files=None, json=None,
                      headers=None, cookies=None, auth=None, timeout=_UNSET, follow_redirects=None, **ignored):
            """The request, and what ces_requests is given for it."""
            url = str(url)
            if self.base_url and "://" not in url:
                url = self.base_url.rstrip("/") + "/" + url.lstrip("/")
            sent_headers = CaseInsensitiveDict(self.headers)  # the request's win, in any case
            sent_headers.update(CaseInsensitiveDict(headers or {}))
            request = _Httpx.Request(str(method).upper(), url, sent_headers)
            auth = auth if auth is not None else self.auth
            if isinstance(auth, _Httpx.BasicAuth):
                auth = auth.pair
            timeout = self.timeout if timeout is _UNSET else timeout  # not given: the client's
            if isinstance(timeout, _Httpx.Timeout):
                timeout = timeout.seconds
            follow = self.follow_redirects if follow_redirects is None else follow_redirects
            return request, dict(params=_merged(self.params, params), data=content if content is not None else data,
                                 files=files, json=json, headers=request.headers,  # as request hooks leave them
                                 cookies={**self.cookies, **(cookies or {})}, auth=auth, timeout=timeout,
                                 allow_redirects=bool(follow))

        def _received(self, answer, request):
            self.cookies.update(answer.cookies)
            return _Httpx.Response(answer, request)

        def stream(self, method, url, **kwargs):
            return _Streamed(self.request(method, url, **kwargs))

    class AsyncClient(Client):
        """httpx.AsyncClient: a Client whose requests are awaited (python_asyncio.py's loop), several
        out at once (asyncio.gather); no retries of an adapter, no hooks."""

        def request(self, method, url, **kwargs):
            request, sent = self._prepared(method, url, **kwargs)
            return self._answer(_calling_requests(), request, sent)  # the caller's, as it is made

        async def _answer(self, own, request, sent):
            for hook in self.event_hooks["request"]:
                await hook(request)
            try:
                answer = await _request_async(own, request.method, request.url, **sent)  # python_asyncio.py
            except exceptions.RequestException as error:
                raise _httpx_failure(error, request) from None
            response = self._received(answer, request)
            for hook in self.event_hooks["response"]:
                await hook(response)
            return response

        def stream(self, method, url, **kwargs):
            return _Streamed(self.request(method, url, **kwargs))

        async def aclose(self):
            pass

        async def __aenter__(self):
            return self

        async def __aexit__(self, *exc):
            return False

    class codes:
        """httpx.codes: `codes.OK` 200, `codes.NOT_FOUND` 404, … (http.HTTPStatus's names)."""

    for _status in http.HTTPStatus:
        setattr(codes, _status.name, int(_status))
        setattr(codes, _status.name.lower(), int(_status))
    del _status


def _merged(own, given):
    """A client's params and a request's: merged when both are dicts, else the request's as given."""
    if given is None or hasattr(given, "items"):
        return {**own, **(given or {})} or None
    return given


class _Streamed:
    """`with client.stream(…) as r:` (`async with` for an AsyncClient's, whose request is awaited on
    entering) — the body read whole, as ces_requests reads it."""

    def __init__(self, response):
        self._response = response

    def __enter__(self):
        return self._response

    def __exit__(self, *exc):
        return False

    async def __aenter__(self):
        return await self._response

    async def __aexit__(self, *exc):
        return False


# The failures of ces_requests -> what httpx raises.
_HTTPX_FAILURES = {
    "ConnectTimeout": _Httpx.ConnectTimeout, "ReadTimeout": _Httpx.ReadTimeout,
    "SSLError": _Httpx.ConnectError, "ConnectionError": _Httpx.ConnectError,
    "TooManyRedirects": _Httpx.TooManyRedirects, "InvalidURL": _Httpx.UnsupportedProtocol,
    "ContentDecodingError": _Httpx.DecodingError,
}


def _httpx_failure(error, request):
    for cls in type(error).__mro__:
        if cls.__name__ in _HTTPX_FAILURES:
            return _HTTPX_FAILURES[cls.__name__](str(error), request=request)
    return _Httpx.RequestError(str(error), request=request)


def _httpx_verb(verb):
    def call(url, **kwargs):
        with _Httpx.Client() as client:
            return client.request(verb, url, **kwargs)

    call.__name__ = verb.lower()
    return call


for _verb in ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"):
    setattr(_Httpx, _verb.lower(), staticmethod(_httpx_verb(_verb)))
_Httpx.request = staticmethod(lambda method, url, **kwargs: _Httpx.Client().request(method, url, **kwargs))
del _verb
