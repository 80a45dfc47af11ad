# requests.Session, requests.adapters and urllib3's Retry for code tools, loaded after
# python_requests.py: a Session's headers, cookies and adapters, and the way code written for
# requests retries (`session.mount("https://", HTTPAdapter(max_retries=Retry(…)))`), each try a
# request the engine carries out; and what `import requests` gives tool code.
import email.utils
import random
import time
from urllib.parse import urlsplit


class Retry:
    """urllib3's Retry, as requests' HTTPAdapter takes it: how many times a request is tried again
    after a connection that failed (`connect`), an answer that did not come (`read`: idempotent
    methods only) or a status of `status_forcelist` (`status`), all within `total`; waiting
    `backoff_factor` × 2^(n-1) seconds before the nth retry but the first (at most `backoff_max`),
    or what a 413, 429 or 503's Retry-After asks. Redirects are followed by the engine."""

    DEFAULT_ALLOWED_METHODS = frozenset(["HEAD", "GET", "PUT", "DELETE", "OPTIONS", "TRACE"])
    RETRY_AFTER_STATUS_CODES = frozenset([413, 429, 503])
    DEFAULT_BACKOFF_MAX = 120

    def __init__(self, total=10, connect=None, read=None, redirect=None, status=None, other=None,
                 allowed_methods=DEFAULT_ALLOWED_METHODS, status_forcelist=None, backoff_factor=0,
                 backoff_max=DEFAULT_BACKOFF_MAX, raise_on_redirect=True, raise_on_status=True, history=None,
                 respect_retry_after_header=True, remove_headers_on_redirect=None, backoff_jitter=0.0,
                 method_whitelist=None):
        self.total, self.connect, self.read, self.status = total, connect, read, status
        self.redirect, self.other = redirect, other
        # method_whitelist: urllib3 1.x's name, still in code written for it.
        self.allowed_methods = method_whitelist if method_whitelist is not None else allowed_methods
        self.status_forcelist = frozenset(status_forcelist or ())
        self.backoff_factor, self.backoff_max, self.backoff_jitter = backoff_factor, backoff_max, backoff_jitter
        self.raise_on_redirect, self.raise_on_status = raise_on_redirect, raise_on_status
        self.respect_retry_after_header = respect_retry_after_header
        self.remove_headers_on_redirect = remove_headers_on_redirect
        self.history = tuple(history or ())

    @classmethod
    def from_int(cls, retries, redirect=True, default=None):
        if retries is None:
            retries = default if default is not None else cls(3)
        return retries if isinstance(retries, Retry) else cls(retries, redirect=redirect)

    def __repr__(self):
        return (f"Retry(total={self.total}, connect={self.connect}, read={self.read}, "
                f"redirect={self.redirect}, status={self.status})")


def _method_retried(retry, method):
    return not retry.allowed_methods or method.upper() in retry.allowed_methods


def _status_retried(retry, method, response):
    if not _method_retried(retry, method):
        return False
    if response.status_code in retry.status_forcelist:
        return True
    return bool(retry.total and retry.respect_retry_after_header and "Retry-After" in response.headers
                and response.status_code in retry.RETRY_AFTER_STATUS_CODES)


def _retry_after(value):
    """Retry-After's seconds (a number, or an HTTP date), or None."""
    if value is None:
        return None
    if value.strip().isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _wait(retry, tries, response):
    if response is not None and retry.respect_retry_after_header:
        after = _retry_after(response.headers.get("Retry-After"))
        if after is not None:
            return after
    if tries <= 1:
        return 0.0
    backoff = retry.backoff_factor * 2 ** (tries - 1) + random.random() * retry.backoff_jitter
    return max(0.0, min(retry.backoff_max, backoff))


def _retried(payload, retry):
    """The request of `payload` (ces_requests' bridge request), tried again as `retry` allows: the
    last answer, or the last failure once the retries are spent (RetryError for a status, unless
    raise_on_status is False)."""
    left = {"total": retry.total, "connect": retry.connect, "read": retry.read, "status": retry.status}
    method, tries = payload["method"], 0
    while True:
        error = response = None
        try:
            response = _sent(payload)  # python_requests.py
        except _E.RequestException as failure:
            which = getattr(failure, "_retry_as", None)  # "connect", "read", or not retried
            if retry.total is False or which is None or left[which] is False:
                raise
            if which == "read" and not _method_retried(retry, method):
                raise
            error = failure
        else:
            if retry.total is False or not _status_retried(retry, method, response):
                return response
            which = "status"
        for name in ("total", which):
            if left[name] is not None:
                left[name] -= 1
        if any(count is not None and count < 0 for count in left.values()):
            if error is not None:
                raise error
            if not retry.raise_on_status:
                return response
            why = f"too many {response.status_code} error responses"
            raise _E.RetryError(f"Max retries exceeded with url: {payload['url']} (Caused by ResponseError('{why}'))",
                                response=response)
        tries += 1
        time.sleep(_wait(retry, tries, response))


class adapters:
    """requests.adapters: HTTPAdapter (max_retries), and BaseAdapter for one of the code's own."""

    Retry = Retry

    class BaseAdapter:
        def send(self, request, stream=False, timeout=None, verify=True, cert=None, proxies=None):
            raise NotImplementedError

        def close(self):
            pass

    class HTTPAdapter(BaseAdapter):
        """Sends through the engine, tried again as `max_retries` (a count or a Retry) allows; the
        pool sizes are taken and have no effect (the engine keeps its own connections)."""

        def __init__(self, pool_connections=10, pool_maxsize=10, max_retries=0, pool_block=False):
            self.max_retries = Retry(0, read=False) if max_retries == 0 else Retry.from_int(max_retries)
            self._pool_connections, self._pool_maxsize, self._pool_block = pool_connections, pool_maxsize, pool_block

        def send(self, request, stream=False, timeout=None, verify=True, cert=None, proxies=None):
            # A subclass may have changed the request's URL or headers, or its timeout, first.
            payload = dict(request._payload, url=request.url, headers=request.headers, timeout=_seconds(timeout))
            return _retried(payload, self.max_retries)


class _Urllib3:
    """`urllib3` in tool code: its Retry alone (what requests' adapters take)."""

    Retry = Retry

    class util:
        Retry = Retry

        class retry:
            Retry = Retry


def _module_import(root, parts, fromlist, name):
    """`import a.b.c` of a module made here: the top for the statement to bind, or the module named,
    whose names `from a.b.c import x` takes."""
    if not fromlist:
        return root
    found = root
    for part in parts:
        found = getattr(found, part, None)
        if found is None:
            raise ImportError(f"module '{name}' is not available to code tools")
    return found


class Session(_Verbs, _Closable):
    """requests.Session(): headers, auth, params and cookies sent with every request of it; the
    cookies a host sets (a login) are in its `cookies`, and sent again to that host, to no other."""

    def __init__(self, requests):
        self._requests = requests
        self.headers = {}
        self.params = {}
        self.cookies = _CookieJar()  # the code's own (any host) and those servers set (their host)
        self.auth = None
        self.hooks = {"response": []}
        self.verify, self.proxies, self.cert = True, {}, None  # as a request's (see its request())
        self.adapters = {}
        self.mount("https://", adapters.HTTPAdapter())
        self.mount("http://", adapters.HTTPAdapter())

    def mount(self, prefix, adapter):
        """The adapter for URLs starting with `prefix` (the longest prefix wins), as requests."""
        self.adapters[prefix] = adapter
        for key in [k for k in self.adapters if len(k) < len(prefix)]:
            self.adapters[key] = self.adapters.pop(key)

    def get_adapter(self, url):
        for prefix, adapter in self.adapters.items():
            if str(url).lower().startswith(prefix.lower()):
                return adapter
        raise _E.InvalidSchema(f"No connection adapters were found for {url!r}")

    def request(self, method, url, **kwargs):
        kwargs["cookies"] = {**self.cookies.for_host(urlsplit(url).hostname), **(kwargs.get("cookies") or {})}
        for name in ("headers", "params"):
            given = kwargs.get(name)
            # The request's own as it is when it is no dict (a query string, pairs), as requests.
            kwargs[name] = {**getattr(self, name), **(given or {})} if given is None or hasattr(given, "items") else given
        kwargs.setdefault("auth", self.auth)
        kwargs.setdefault("cert", self.cert)
        # The request's response hooks, else the Session's, as requests merges them.
        if not _hooks(kwargs.get("hooks")):
            kwargs["hooks"] = self.hooks
        response = self._requests.request(method, url, _adapter=self.get_adapter(url), **kwargs)
        for answer in [*response.history, response]:  # a login's redirect sets them too
            for name, value in answer.cookies.items():
                self.cookies.set(name, value, domain=urlsplit(answer.url).hostname)
        return response


def _requests_import(name, globals, fromlist):
    """`import requests` (or ces_requests; their `exceptions`, `auth`, `adapters`) in tool code: the
    call's own; `import urllib3` (its Retry)."""
    parts = name.split(".")
    if parts[0] == "urllib3":
        return _module_import(_Urllib3, parts[1:], fromlist, name)
    own = globals.get("__requests__") or requests
    if len(parts) == 1:
        return own
    if parts[1:3] == ["packages", "urllib3"]:  # requests.packages.urllib3.util.retry, as older code has it
        return _module_import(_Urllib3, parts[3:], fromlist, name) if fromlist else own
    modules = {"exceptions": exceptions, "auth": auth, "adapters": adapters}
    if len(parts) == 2 and parts[1] in modules:
        return modules[parts[1]] if fromlist else own
    raise ImportError(f"module '{name}' is not available to code tools (ces_requests offers requests' "
                      "get/post/put/patch/delete/head/options/request, Session, auth, adapters and its "
                      "exceptions; urllib3 its Retry)")
