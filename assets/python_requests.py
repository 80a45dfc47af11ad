# ces_requests (alias requests) of code tools, loaded after python_runtime.py, python_bodies.py and
# python_response.py: the part of Python's requests that code written for it uses —
# get/post/…/request (uploads with files= too), Session, Response (headers read in any case),
# raise_for_status, json(), and its exceptions (Timeout, ConnectionError, …) — carried out by the
# engine over the bridge (see src/code-tools/safe-http.ts). `import requests` and `import
# ces_requests` in tool code give the same object (see _guarded_import).
import base64
import datetime
import json
import time


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

    class RetryError(RequestException):
        pass

    class InvalidSchema(RequestException, ValueError):
        pass

    class JSONDecodeError(InvalidJSONError, json.JSONDecodeError):
        def __init__(self, msg, doc, pos):
            json.JSONDecodeError.__init__(self, msg, doc, pos)
            self.response = self.request = None


_E = exceptions
# The engine's name for a failure (HttpFailureKind) -> what is raised; any other: RequestException.
# A Retry (python_session.py) tries again after a failed connection and an answer that did not come.
_FAILURES = {"connect_timeout": _E.ConnectTimeout, "read_timeout": _E.ReadTimeout, "connection": _E.ConnectionError,
             "refused": _E.ConnectionError, "ssl": _E.SSLError, "redirects": _E.TooManyRedirects,
             "invalid_url": _E.InvalidURL, "decoding": _E.ContentDecodingError}


class auth:
    """requests.auth: HTTPBasicAuth, HTTPDigestAuth, and AuthBase for the code's own (a token put in
    a header)."""

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

    class HTTPDigestAuth(AuthBase):
        """Digest authentication: the engine answers the server's challenge (a 401), so that a
        secret's reference as the password is filled in there."""

        def __init__(self, username, password):
            self.username, self.password = username, password

        def __call__(self, r):
            return r


class _Prepared:
    """The request an auth callable is handed (requests' PreparedRequest, as such code uses it)."""

    def __init__(self, method, url, headers, payload=None, body=None):
        self.method, self.url, self.headers, self.body = method, url, headers, body
        self._payload = payload  # what the engine is asked to send (an adapter sends it)


_A = auth


def _with_query(url, query):
    """`url` with `query` added to its own, before its fragment, as requests adds params."""
    url, hash_, fragment = url.partition("#")
    return f"{url}{'&' if '?' in url else '?'}{query}{hash_}{fragment}"


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


class _Closable:
    """A Session's (a Client's) close() and `with`: nothing to release, the engine holds the
    connections."""

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Requests(_Verbs):
    """ces_requests of one tool's code; `caller` (its call id) tells the engine whose secrets it may use."""
    exceptions = _E
    RequestException, HTTPError, ConnectionError, Timeout = _E.RequestException, _E.HTTPError, _E.ConnectionError, _E.Timeout
    ConnectTimeout, ReadTimeout, TooManyRedirects = _E.ConnectTimeout, _E.ReadTimeout, _E.TooManyRedirects
    JSONDecodeError, Response, codes = _E.JSONDecodeError, Response, _Codes()
    auth = auth
    adapters = property(lambda self: adapters)  # python_session.py, loaded after this file

    def __init__(self, caller=""):
        self._caller = caller

    def request(self, method, url, params=None, data=None, headers=None, cookies=None, files=None, auth=None,
                timeout=None, allow_redirects=True, proxies=None, hooks=None, stream=False, verify=True,
                cert=None, json=None, _decode=True, _adapter=None):
        # verify, stream and proxies are taken for compatibility: certificates are always checked
        # (against the engine's trust, NODE_EXTRA_CA_CERTS included), bodies are always read whole,
        # and requests go out through the engine's egress (EGRESS_PROXY).
        payload = self._payload(method, url, params, data, headers, cookies, files, auth, allow_redirects, cert,
                                json, _decode)
        started = time.monotonic()
        adapter = _adapter or adapters.HTTPAdapter()  # python_session.py
        response = adapter.send(_Prepared(payload["method"], payload["url"], payload["headers"], payload),
                                timeout=timeout)
        # Response hooks, as requests calls them (one that returns a response replaces it).
        for hook in _hooks(hooks):
            response = hook(response, timeout=timeout, verify=verify, proxies=proxies, stream=stream,
                            cert=cert) or response
        # From sending to the answer, as the code waited for it (retries and their waits too).
        response.elapsed = datetime.timedelta(seconds=time.monotonic() - started)
        return response

    def _payload(self, method, url, params=None, data=None, headers=None, cookies=None, files=None, auth=None,
                 allow_redirects=True, cert=None, json=None, _decode=True):
        """The request as the engine carries it out. A client certificate cannot be shown from here:
        said at once rather than met as the server's refusal."""
        if cert is not None:
            raise _E.RequestException("cert= is not available to code tools: give an HTTP or OpenAPI tool "
                                      "a client_certificate, and call it with tools.<name>")
        digest = None
        if isinstance(auth, _A.HTTPDigestAuth):
            digest, auth = [str(auth.username), str(auth.password)], None
        if isinstance(auth, _A.HTTPBasicAuth):
            auth = (auth.username, auth.password)  # a pair: the engine fills in a secret's reference
        # As requests: files (and data's fields) as multipart/form-data; bytes or a file as they are;
        # a dict or pairs as a form, encoded here as requests encodes it; a str as it is; else json=,
        # written as requests writes it (the engine fills a secret in it escaped for JSON).
        form = binary = json_text = None
        headers = dict(headers or {})
        typed = any(str(name).lower() == "content-type" for name in headers)
        if files:
            binary, content_type = _multipart(data, files)  # python_bodies.py
            if not typed:
                headers["Content-Type"] = content_type
            data = None
        elif hasattr(data, "read") or isinstance(data, (bytes, bytearray, memoryview)):
            binary, data = _body_bytes(data), None
        elif data is not None and not isinstance(data, str):
            form, data = _encoded(data), None
        elif not data and json is not None:
            try:
                json_text = _dumps(json, default=_jsonable, allow_nan=False)
            except ValueError as error:  # NaN or an infinity, which JSON lacks: refused as requests does
                raise _E.InvalidJSONError(str(error)) from None
            if not typed:
                headers["Content-Type"] = "application/json"
        query = _encoded(params)
        if auth is not None and not isinstance(auth, (tuple, list)):
            # An auth of the code's own sees the request as requests hands it over: its URL with
            # the query, and its body (bytes for json=), to sign them if it will.
            if query:
                url, query = _with_query(url, query), None
            body = json_text.encode("utf-8") if json_text is not None else binary if binary is not None else form or data
            prepared = auth(_Prepared(str(method).upper(), url, headers, body=body))
            url, headers, auth = prepared.url, dict(prepared.headers), None
        payload = {"method": str(method).upper(), "url": url, "params": query, "json_text": json_text,
                   "headers": headers, "data": data, "form": form, "data_b64": _base64(binary),
                   "cookies": cookies, "auth": _pair(auth), "digest": digest,
                   "allow_redirects": bool(allow_redirects),
                   "decode": _decode, "caller": self._caller}
        return payload

    def Session(self):  # noqa: N802 (requests' own name)
        return Session(self)


def _hooks(hooks):
    """The response hooks of `hooks` ({"response": a callable or a list of them})."""
    found = (hooks or {}).get("response") or []
    return [found] if callable(found) else list(found)


def _sent(payload):
    """The engine's answer to one request (no retry): a Response, or the exception requests raises."""
    try:
        result = _bridge("http", payload)
    except ValueError as error:  # NaN or an infinity in json=, which requests refuses too
        raise _E.InvalidJSONError(str(error)) from None
    return _answered(result)


def _answered(result):
    """The engine's answer to a request as a Response, or the exception requests raises."""
    if "error" in result:
        kind = result.get("kind")
        failure = _FAILURES.get(kind, _E.RequestException)(result["error"])
        failure._retry_as = _RETRY_AS.get(kind)
        raise failure
    return Response(result)


_RETRY_AS = {"connect_timeout": "connect", "read_timeout": "read", "connection": "read"}


def _base64(body):
    return None if body is None else base64.b64encode(body).decode("ascii")


def _seconds(timeout):
    """requests' timeout: seconds, or a (connect, read) pair, of which the longer bounds the request."""
    if isinstance(timeout, (tuple, list)):
        return max((t for t in timeout if t is not None), default=None)
    return timeout


requests = _Requests()
