# ces_requests (alias requests) of code tools, loaded after python_runtime.py and python_multipart.py:
# the part of Python's requests that code written for it uses — get/post/…/request (uploads with
# files= too), Session, Response (headers read in any case), raise_for_status, json(), and its
# exceptions (Timeout, ConnectionError, …) — carried out by the engine over the bridge (see
# src/code-tools/safe-http.ts). `import requests` and `import ces_requests` in tool code give the
# same object (see _guarded_import).
import base64
import datetime
import http
import json
import re
import time
from urllib.parse import quote_plus, urlencode, urlsplit


class exceptions:
    """requests.exceptions. Defined in this class, not as globals of the runtime: ConnectionError
    and TimeoutError-like names must not hide Python's own there."""

    class RequestException(IOError):
        def __init__(self, *args, response=None, request=None):
            super().__init__(*args)
            self.response = response
            self.request = request

    class HTTPError(RequestException):
        pass

    class ConnectionError(RequestException):
        pass

    class SSLError(ConnectionError):
        pass

    class Timeout(RequestException):
        pass

    class ConnectTimeout(ConnectionError, Timeout):
        pass

    class ReadTimeout(Timeout):
        pass

    class TooManyRedirects(RequestException):
        pass

    class InvalidURL(RequestException, ValueError):
        pass

    class InvalidJSONError(RequestException):
        pass

    class ContentDecodingError(RequestException):
        pass

    class JSONDecodeError(InvalidJSONError, json.JSONDecodeError):
        def __init__(self, msg, doc, pos):
            json.JSONDecodeError.__init__(self, msg, doc, pos)
            self.response = self.request = None


_E = exceptions
# The engine's name for a failure (HttpFailureKind) -> what is raised; any other: RequestException.
_FAILURES = {"connect_timeout": _E.ConnectTimeout, "read_timeout": _E.ReadTimeout, "connection": _E.ConnectionError,
             "refused": _E.ConnectionError, "ssl": _E.SSLError, "redirects": _E.TooManyRedirects,
             "invalid_url": _E.InvalidURL, "decoding": _E.ContentDecodingError}


class CaseInsensitiveDict(dict):
    """Response headers: read in any case (`headers["Content-Type"]`), as in requests."""

    def __init__(self, items=()):
        super().__init__((str(k).lower(), v) for k, v in dict(items).items())

    def __getitem__(self, key):
        return super().__getitem__(str(key).lower())

    def __contains__(self, key):
        return super().__contains__(str(key).lower())

    def get(self, key, default=None):
        return super().get(str(key).lower(), default)


class Response:
    """What a request answered (the body is read whole: `text`, and `content` its bytes)."""

    def __init__(self, data, elapsed=0.0):
        self.status_code = data["status_code"]
        self.reason = data.get("reason", "")
        self.ok = 200 <= self.status_code < 400
        self.text = data.get("text", "")
        # The body's bytes come when they are not its text's UTF-8 (not text, another charset).
        binary = data.get("content_b64")
        self.content = base64.b64decode(binary) if binary is not None else self.text.encode("utf-8")
        self.headers = CaseInsensitiveDict(data.get("headers", {}))
        self.cookies = dict(data.get("cookies", {}))
        self.url = data.get("url", "")
        self.encoding = "utf-8"
        # From sending to the answer, as the code waited for it (its body read too).
        self.elapsed = datetime.timedelta(seconds=elapsed)

    def json(self, **kwargs):
        try:
            return json.loads(self.text, **kwargs)
        except json.JSONDecodeError as error:
            raise _E.JSONDecodeError(error.msg, error.doc, error.pos) from None

    def iter_lines(self, chunk_size=512, decode_unicode=False, delimiter=None):
        """The body's lines (read whole: `stream=True` has no effect), bytes unless decoded."""
        lines = self.text.splitlines() if delimiter is None else self.text.split(delimiter)
        return iter(lines if decode_unicode else [line.encode("utf-8") for line in lines])

    def iter_content(self, chunk_size=1, decode_unicode=False):
        data = self.text if decode_unicode else self.content
        size = chunk_size or len(data) or 1
        return iter([data[i:i + size] for i in range(0, len(data), size)])

    def raise_for_status(self):
        if self.status_code >= 400:
            kind = "Client" if self.status_code < 500 else "Server"
            raise _E.HTTPError(f"{self.status_code} {kind} Error: {self.reason} for url: {self.url}", response=self)

    def __bool__(self):
        return self.ok

    def __repr__(self):
        return f"<Response [{self.status_code}]>"


class _Codes:
    """requests.codes: `codes.ok` 200, `codes.not_found` 404, … (the names of http.HTTPStatus)."""

    def __getattr__(self, name):
        try:
            return int(http.HTTPStatus[name.upper()])
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, name):
        return getattr(self, name)


class auth:
    """requests.auth: HTTPBasicAuth, and AuthBase for the code's own (a token put in a header)."""

    class AuthBase:
        def __call__(self, r):
            raise NotImplementedError("Auth hooks must be callable.")

    class HTTPBasicAuth(AuthBase):
        def __init__(self, username, password):
            self.username, self.password = username, password

        def __call__(self, r):
            pair = f"{self.username}:{self.password}".encode("utf-8")
            r.headers["Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")
            return r


class _Prepared:
    """The request an auth callable is handed (requests' PreparedRequest, as such code uses it)."""

    def __init__(self, method, url, headers):
        self.method, self.url, self.headers, self.body = method, url, headers, None


_A = auth


def _authorized(auth, method, url, headers):
    """An auth object (HTTPBasicAuth, an AuthBase of the code's own, any callable) applied as
    requests applies it: to the request's headers and URL."""
    prepared = auth(_Prepared(method, url, dict(headers or {})))
    return prepared.url, prepared.headers


def _pair(auth):
    if auth is None:
        return None
    if isinstance(auth, (tuple, list)) and len(auth) == 2:
        return [str(auth[0]), str(auth[1])]
    raise TypeError("auth must be a (user, password) pair")


class _Verbs:
    """get/post/…, with the positional arguments requests' take (`post(url, data, json)`); `head`
    follows no redirect unless asked, as in requests."""

    def get(self, url, params=None, **kwargs):
        return self.request("GET", url, params=params, **kwargs)

    def options(self, url, **kwargs):
        return self.request("OPTIONS", url, **kwargs)

    def head(self, url, **kwargs):
        kwargs.setdefault("allow_redirects", False)
        return self.request("HEAD", url, **kwargs)

    def post(self, url, data=None, json=None, **kwargs):
        return self.request("POST", url, data=data, json=json, **kwargs)

    def put(self, url, data=None, **kwargs):
        return self.request("PUT", url, data=data, **kwargs)

    def patch(self, url, data=None, **kwargs):
        return self.request("PATCH", url, data=data, **kwargs)

    def delete(self, url, **kwargs):
        return self.request("DELETE", url, **kwargs)


class _Requests(_Verbs):
    """ces_requests of one tool's code; `caller` (its call id) tells the engine whose secrets it may use."""
    exceptions = _E
    RequestException, HTTPError, ConnectionError, Timeout = _E.RequestException, _E.HTTPError, _E.ConnectionError, _E.Timeout
    ConnectTimeout, ReadTimeout, TooManyRedirects = _E.ConnectTimeout, _E.ReadTimeout, _E.TooManyRedirects
    JSONDecodeError, Response, codes = _E.JSONDecodeError, Response, _Codes()
    auth = auth

    def __init__(self, caller=""):
        self._caller = caller

    def request(self, method, url, params=None, data=None, headers=None, cookies=None, files=None, auth=None,
                timeout=None, allow_redirects=True, json=None, verify=True, stream=False, _decode=True):
        # verify and stream are taken for compatibility: certificates are always checked (against
        # the engine's trust, NODE_EXTRA_CA_CERTS included), and bodies are always read whole.
        if isinstance(auth, _A.HTTPBasicAuth):
            auth = (auth.username, auth.password)  # a pair: the engine fills in a secret's reference
        if auth is not None and not isinstance(auth, (tuple, list)):
            url, headers = _authorized(auth, str(method).upper(), url, headers)
            auth = None
        # As requests: files (and data's fields) as multipart/form-data; bytes or a file as they are;
        # a dict or pairs as a form, encoded here as requests encodes it; a str as it is.
        form = binary = None
        if files:
            binary, content_type = _multipart(data, files)  # python_multipart.py
            if not any(str(name).lower() == "content-type" for name in (headers or {})):
                headers = {**(headers or {}), "Content-Type": content_type}
            data = None
        elif hasattr(data, "read") or isinstance(data, (bytes, bytearray, memoryview)):
            binary, data = _body_bytes(data), None
        elif data is not None and not isinstance(data, str):
            form, data = _encoded(data), None
        payload = {"method": str(method).upper(), "url": url, "params": _encoded(params), "json": json,
                   "headers": headers, "timeout": _seconds(timeout), "data": data, "form": form,
                   "data_b64": _base64(binary), "cookies": cookies, "auth": _pair(auth),
                   "allow_redirects": bool(allow_redirects), "decode": _decode, "caller": self._caller}
        started = time.monotonic()
        try:
            result = _bridge("http", payload)
        except ValueError as error:  # NaN or an infinity in json=, which requests refuses too
            raise _E.InvalidJSONError(str(error)) from None
        if "error" in result:
            raise _FAILURES.get(result.get("kind"), _E.RequestException)(result["error"])
        return Response(result, time.monotonic() - started)

    def Session(self):  # noqa: N802 (requests' own name)
        return Session(self)


# A secret's reference, which the engine fills in (tool-secrets.ts SECRET_REFERENCE).
_SECRET_REFERENCE = re.compile(r"(\$\{TOOL_SECRET_[A-Za-z0-9_]+\})")


def _quote(text, safe="", encoding=None, errors=None):
    """quote_plus, but for ${TOOL_SECRET_*} references, kept as written for the engine to fill in
    (and encode)."""
    if isinstance(text, bytes):
        text = text.decode(encoding or "utf-8", errors or "strict")
    parts = _SECRET_REFERENCE.split(text)
    return "".join(part if i % 2 else quote_plus(part, safe) for i, part in enumerate(parts))


def _encoded(data):
    """requests' own encoding of `params` and of a form's `data`: a str (or bytes) as it is; a dict
    or (key, value) pairs as a query string, a list value repeated, None left out, other values
    written as str() writes them (True, 1.5); a secret's reference left for the engine."""
    if data is None or isinstance(data, str):
        return data
    if isinstance(data, bytes):
        return data.decode("utf-8")
    pairs = []
    for key, values in (data.items() if hasattr(data, "items") else data):
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            values = [values]
        pairs += [(key, value) for value in values if value is not None]
    return urlencode(pairs, quote_via=_quote)


def _base64(body):
    return None if body is None else base64.b64encode(body).decode("ascii")


def _seconds(timeout):
    """requests' timeout: seconds, or a (connect, read) pair, of which the longer bounds the request."""
    if isinstance(timeout, (tuple, list)):
        return max((t for t in timeout if t is not None), default=None)
    return timeout


class Session(_Verbs):
    """requests.Session(): headers, auth, params and cookies sent with every request of it; the
    cookies a host sets (a login) are sent again to that host, and to no other."""

    def __init__(self, requests):
        self._requests = requests
        self.headers = {}
        self.params = {}
        self.cookies = {}
        self.auth = None
        self._jar = {}  # host -> the cookies it set

    def request(self, method, url, **kwargs):
        kwargs["cookies"] = {**self._jar.get(urlsplit(url).hostname, {}), **(kwargs.get("cookies") or {})}
        for name in ("headers", "params", "cookies"):
            given = kwargs.get(name)
            # The request's own as it is when it is no dict (a query string, pairs), as requests.
            kwargs[name] = {**getattr(self, name), **(given or {})} if given is None or hasattr(given, "items") else given
        kwargs.setdefault("auth", self.auth)
        response = self._requests.request(method, url, **kwargs)
        if response.cookies:
            self._jar.setdefault(urlsplit(response.url).hostname, {}).update(response.cookies)
        return response

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


requests = _Requests()


def _requests_import(name, globals, fromlist):
    """`import requests` (or ces_requests, or their `exceptions`) in tool code: the call's own."""
    own = globals.get("__requests__") or requests
    parts = name.split(".")
    if len(parts) == 1:
        return own
    if parts[1:] == ["exceptions"]:
        return exceptions if fromlist else own
    if parts[1:] == ["auth"]:
        return auth if fromlist else own
    raise ImportError(f"module '{name}' is not available to code tools (ces_requests offers requests' "
                      "get/post/put/patch/delete/head/options/request, Session, auth and its exceptions)")
