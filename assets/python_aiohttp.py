# aiohttp for code tools, loaded after python_asyncio.py: the client that async code is written with
# (`async with aiohttp.ClientSession() as s: async with s.get(url) as r: await r.json()`), each
# request carried out by the engine through the calling tool's ces_requests (its address policy
# and secrets) when awaited. `import aiohttp` in tool code gives it. Bodies are read whole.
import re as _re
from os.path import basename as _basename
from urllib.parse import parse_qsl as _parse_qsl, urljoin as _urljoin, urlsplit as _urlsplit

_json_dumps = json.dumps
_JSON_TYPE = _re.compile(r"^(?:application/|[\w.-]+/[\w.+-]+?\+)json$")  # as aiohttp matches it


class _URL(str):
    """A response's URL: a str with yarl's parts that code reads (`r.url.host`, `.path`, `.query`)."""

    def _part(self, name):
        return getattr(_urlsplit(self), name)

    scheme = property(lambda self: self._part("scheme"))
    host = property(lambda self: self._part("hostname"))
    port = property(lambda self: self._part("port") or {"http": 80, "https": 443}.get(self.scheme))
    path = property(lambda self: self._part("path") or "/")
    query_string = property(lambda self: self._part("query"))
    query = property(lambda self: dict(_parse_qsl(self.query_string, keep_blank_values=True)))
    fragment = property(lambda self: self._part("fragment"))


class _Aiohttp(_AiohttpErrors):
    """The aiohttp module of code tools (its exceptions: python_aiohttp_errors.py)."""

    class ClientTimeout:
        """The whole request is bounded by `total`, else by the longest of the others given."""

        def __init__(self, total=None, connect=None, sock_read=None, sock_connect=None, ceil_threshold=5):
            self.total, self.connect, self.sock_read, self.sock_connect = total, connect, sock_read, sock_connect

        @property
        def seconds(self):
            given = [t for t in (self.connect, self.sock_read, self.sock_connect) if t is not None]
            return self.total if self.total is not None else max(given) if given else None

    class TCPConnector:
        """Taken, without effect: the engine holds the connections (and checks certificates)."""

        def __init__(self, *args, **kwargs):
            pass

        async def close(self):
            pass

    class FormData:
        """A form: sent urlencoded, or as multipart/form-data once a field is a file, has a filename
        or a content type (as aiohttp decides)."""

        def __init__(self, fields=(), **ignored):
            self.fields, self.is_multipart = [], False
            self.add_fields(*(fields.items() if hasattr(fields, "items") else fields))

        def add_field(self, name, value, *, content_type=None, filename=None, **ignored):
            if hasattr(value, "read") or isinstance(value, (bytes, bytearray, memoryview)):
                filename = filename or _basename(str(getattr(value, "name", "") or "")) or name
            if filename is not None or content_type is not None:
                self.is_multipart = True
            self.fields.append((name, value, filename, content_type))

        def add_fields(self, *fields):
            for name, value in fields:
                self.add_field(name, value)

        def sent(self):
            """What ces_requests is given for it: data= (a form), or files= (multipart)."""
            if not self.is_multipart:
                return {"data": [(name, value) for name, value, _, _ in self.fields]}
            return {"files": [(name, (filename, value, content_type) if content_type else (filename, value))
                              for name, value, filename, content_type in self.fields]}

    class BasicAuth:
        def __init__(self, login, password="", encoding="latin1"):
            self.login, self.password, self.encoding = login, password, encoding

    class RequestInfo:
        def __init__(self, url, method, headers):
            self.url = self.real_url = _URL(url)
            self.method, self.headers = method, headers

    class ClientResponse:
        """What a request answered, its body read whole (text(), read(), json(), `content`)."""

        def __init__(self, answer, method, request_headers):
            self.status, self.reason = answer.status_code, answer.reason
            self.headers, self.cookies, self.url = answer.headers, answer.cookies, _URL(answer.url)
            self.real_url, self.method, self._body = self.url, method, answer.content
            self.request_info = _Aiohttp.RequestInfo(answer.url, method, request_headers)
            self.history = tuple(_Aiohttp.ClientResponse(hop, method, request_headers) for hop in answer.history)
            self.content = _Body(self._body)

        ok = property(lambda self: self.status < 400)
        content_type = property(lambda self: (self.headers.get("content-type") or "application/octet-stream")
                                .split(";")[0].strip().lower())

        @property
        def charset(self):
            found = _re.search(r"charset=\"?([\w.:-]+)", self.headers.get("content-type", ""), _re.I)
            return found.group(1).lower() if found else None

        async def read(self):
            return self._body

        async def text(self, encoding=None, errors="strict"):
            return self._body.decode(encoding or self.charset or "utf-8", errors)

        async def json(self, *, encoding=None, loads=json.loads, content_type="application/json"):
            if content_type:
                expected = _JSON_TYPE.match(self.content_type) if content_type == "application/json" \
                    else content_type in self.content_type
                if not expected:
                    raise _Aiohttp.ContentTypeError(
                        self.request_info, self.history, status=self.status, headers=self.headers,
                        message=f"Attempt to decode JSON with unexpected mimetype: {self.content_type}")
            stripped = self._body.strip()
            return loads(stripped.decode(encoding or self.charset or "utf-8")) if stripped else None

        def raise_for_status(self):
            if self.status >= 400:
                raise _Aiohttp.ClientResponseError(self.request_info, self.history, status=self.status,
                                                   message=self.reason, headers=self.headers)

        def release(self):
            pass

        close = release

        async def __aenter__(self):
            return self

        async def __aexit__(self, *exc):
            return False

        def __repr__(self):
            return f"<ClientResponse({self.url}) [{self.status} {self.reason}]>"

    class ClientSession:
        """aiohttp.ClientSession: its base_url, headers, cookies, auth, timeout and raise_for_status go
        with each request; the cookies servers set are kept and sent again."""

        def __init__(self, base_url=None, *, headers=None, cookies=None, auth=None, timeout=None,
                     raise_for_status=False, json_serialize=json.dumps, **ignored):
            self._base_url, self.headers = base_url and str(base_url), CaseInsensitiveDict(headers or {})
            self.cookies, self.auth, self.timeout = dict(cookies or {}), auth, timeout
            self._raise_for_status, self._json_serialize, self.closed = raise_for_status, json_serialize, False

        def request(self, method, url, **kwargs):
            # The calling tool's ces_requests, as the request is made (its secrets).
            own = _calling_requests()  # python_urllib.py
            return _Requested(self._send(own, str(method).upper(), str(url), **kwargs))

        async def _send(self, own, method, url, *, params=None, data=None, json=None, headers=None, cookies=None,
                        auth=None, allow_redirects=True, timeout=None, raise_for_status=None, **ignored):
            if self.closed:
                raise RuntimeError("Session is closed")
            if self._base_url:
                url = _urljoin(self._base_url, url)
            sent = CaseInsensitiveDict(self.headers)
            sent.update(CaseInsensitiveDict(headers or {}))
            if json is not None and self._json_serialize is not _json_dumps:
                data, json = self._json_serialize(json), None
                sent.setdefault("Content-Type", "application/json")
            auth = auth if auth is not None else self.auth
            timeout = timeout if timeout is not None else self.timeout
            try:
                body = data.sent() if isinstance(data, _Aiohttp.FormData) else {"data": data}
                answer = await _request_async(  # python_asyncio.py
                    own, method, url, params=params, json=json, headers=sent, **body,
                    cookies={**self.cookies, **(cookies or {})},
                    auth=(auth.login, auth.password) if isinstance(auth, _Aiohttp.BasicAuth) else auth,
                    timeout=timeout.seconds if isinstance(timeout, _Aiohttp.ClientTimeout) else timeout,
                    allow_redirects=allow_redirects)
            except exceptions.RequestException as error:
                raise _aiohttp_failure(error, method, url, sent) from None
            for hop in [*answer.history, answer]:
                self.cookies.update(hop.cookies)
            response = _Aiohttp.ClientResponse(answer, method, sent)
            checked = self._raise_for_status if raise_for_status is None else raise_for_status
            if callable(checked):  # the code's own check (an async function), as aiohttp awaits it
                await checked(response)
            elif checked:
                response.raise_for_status()
            return response

        async def close(self):
            self.closed = True

        async def __aenter__(self):
            return self

        async def __aexit__(self, *exc):
            await self.close()
            return False

    for _verb in ("get", "post", "put", "patch", "delete", "head", "options"):
        def _method(self, url, *, _verb=_verb, **kwargs):
            kwargs.setdefault("allow_redirects", _verb != "head")
            return self.request(_verb.upper(), url, **kwargs)

        _method.__name__ = _verb
        setattr(ClientSession, _verb, _method)
    del _verb, _method

    @staticmethod
    def request(method, url, **kwargs):
        """aiohttp.request(method, url): a request of a session of its own."""
        return _Aiohttp.ClientSession().request(method, url, **kwargs)


class _Requested:
    """What ClientSession.get() returns: awaited, or entered with `async with`, it is the response."""

    def __init__(self, coroutine):
        self._coroutine = coroutine

    def __await__(self):
        return self._coroutine.__await__()

    async def __aenter__(self):
        return await self._coroutine

    async def __aexit__(self, *exc):
        return False


class _Body:
    """A response's `content` (aiohttp's StreamReader) over the body read whole."""

    def __init__(self, body):
        self._body, self._at = body, 0

    async def read(self, n=-1):
        end = len(self._body) if n is None or n < 0 else self._at + n
        chunk, self._at = self._body[self._at:end], min(end, len(self._body))
        return chunk

    async def readline(self):
        end = self._body.find(b"\n", self._at)
        return await self.read(-1 if end < 0 else end + 1 - self._at)

    async def iter_chunked(self, n):
        while chunk := await self.read(n):
            yield chunk

    def iter_any(self):
        return self.iter_chunked(64 * 1024)

    def __aiter__(self):
        return self

    async def __anext__(self):
        line = await self.readline()
        if not line:
            raise StopAsyncIteration
        return line
