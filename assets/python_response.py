# What a request of ces_requests answered (python_requests.py, loaded after this file, and the
# clients over it): Response, its headers read in any case, its cookies as requests' jar,
# requests.codes.
import base64
import datetime
import http
import json
import re


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


class _CookieJar(dict):
    """requests' cookie jar as code reads it: name → value (`jar["sid"]`, get, items), get_dict(),
    set(); each cookie a server set is kept with its host, and goes to that host alone (one a
    name's last setter's)."""

    def __init__(self, items=()):
        super().__init__(items)
        self._hosts = {}  # name -> the host that set it; not there: the code's own, for any host

    def set(self, name, value, domain=None, **ignored):
        if value is None:
            self.pop(name, None)
            return None
        self[name] = value
        self._hosts[name] = domain
        return value

    def get_dict(self, domain=None, path=None):
        return {k: v for k, v in self.items() if domain is None or self._hosts.get(k) in (None, domain)}

    def for_host(self, host):
        return {k: v for k, v in self.items() if self._hosts.get(k) in (None, host)}

    def __setitem__(self, name, value):
        super().__setitem__(name, value)
        self._hosts.pop(name, None)  # set by the code: for any host, until a server sets it


class Response:
    """What a request answered (the body is read whole: `text`, and `content` its bytes)."""

    def __init__(self, data):
        self.status_code = data["status_code"]
        self.reason = data.get("reason", "")
        self.ok = 200 <= self.status_code < 400
        self.text = data.get("text", "")
        # The body's bytes come when they are not its text's UTF-8 (not text, another charset).
        binary = data.get("content_b64")
        self.content = base64.b64decode(binary) if binary is not None else self.text.encode("utf-8")
        self.headers = CaseInsensitiveDict(data.get("headers", {}))
        self.cookies = _CookieJar(data.get("cookies", {}))
        self.url = data.get("url", "")
        self.encoding = "utf-8"
        self.elapsed = datetime.timedelta(0)  # set by the request, once answered
        # The redirects followed to it, first first (without their bodies).
        self.history = [Response(hop) for hop in data.get("history", [])]

    @property
    def links(self):
        """The Link header's links by rel (`r.links["next"]["url"]`: an API's next page), parsed as
        requests parses them."""
        links = {}
        for link in _header_links(self.headers.get("link", "")):
            links[link.get("rel") or link.get("url")] = link
        return links

    is_redirect = property(lambda self: "location" in self.headers and self.status_code in (301, 302, 303, 307, 308))
    is_permanent_redirect = property(lambda self: "location" in self.headers and self.status_code in (301, 308))

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


def _header_links(value):
    """requests.utils.parse_header_links: `<url>; rel="next", <url>; rel="last"` as dicts."""
    links, strip = [], " '\""
    value = value.strip(strip)
    for part in re.split(", *<", value) if value else []:
        url, _, params = part.partition(";")
        link = {"url": url.strip("<> '\"")}
        for param in params.split(";") if params else []:
            key, sep, val = param.partition("=")
            if not sep:
                break
            link[key.strip(strip)] = val.strip(strip)
        links.append(link)
    return links
