# aiohttp's exceptions for code tools (python_aiohttp.py, loaded after this file), and what each
# failure of ces_requests is raised as.
from urllib.parse import urlsplit as _urlsplit


class _AiohttpErrors:
    """aiohttp's exceptions, as its module has them (aiohttp.ClientError, …)."""

    class ClientError(Exception):
        pass

    class ClientResponseError(ClientError):
        def __init__(self, request_info, history, *, status=None, message="", headers=None):
            self.request_info, self.history = request_info, history
            self.status, self.message, self.headers = status or 0, message, headers
            super().__init__(f"{self.status}, message={message!r}, url={str(request_info.real_url)!r}")

    class ContentTypeError(ClientResponseError):
        pass

    class TooManyRedirects(ClientResponseError):
        pass

    class ClientPayloadError(ClientError):
        pass

    class ClientConnectionError(ClientError):
        pass

    class ClientOSError(ClientConnectionError, OSError):
        pass

    class ClientConnectorError(ClientOSError):
        def __init__(self, message, host=None, port=None):
            super().__init__(message)
            self.host, self.port = host, port

        def __str__(self):
            return self.args[0]

    class ClientSSLError(ClientConnectorError):
        pass

    class ServerConnectionError(ClientConnectionError):
        pass

    class ServerTimeoutError(ServerConnectionError, TimeoutError):
        pass

    class ConnectionTimeoutError(ServerTimeoutError):
        pass

    class SocketTimeoutError(ServerTimeoutError):
        pass

    class InvalidURL(ClientError, ValueError):
        pass


# The failures of ces_requests -> what aiohttp raises.
_AIOHTTP_FAILURES = {
    "ConnectTimeout": _AiohttpErrors.ConnectionTimeoutError, "ReadTimeout": _AiohttpErrors.SocketTimeoutError,
    "SSLError": _AiohttpErrors.ClientSSLError, "ConnectionError": _AiohttpErrors.ClientConnectorError,
    "InvalidURL": _AiohttpErrors.InvalidURL, "ContentDecodingError": _AiohttpErrors.ClientPayloadError,
}


def _aiohttp_failure(error, method, url, headers):
    if type(error).__name__ == "TooManyRedirects":
        info = _Aiohttp.RequestInfo(url, method, headers)
        return _AiohttpErrors.TooManyRedirects(info, (), message=str(error))
    for cls in type(error).__mro__:
        kind = _AIOHTTP_FAILURES.get(cls.__name__)
        if kind is _AiohttpErrors.ClientConnectorError or kind is _AiohttpErrors.ClientSSLError:
            parts = _urlsplit(url)
            return kind(str(error), parts.hostname, parts.port)
        if kind is not None:
            return kind(str(error))
    return _AiohttpErrors.ClientError(str(error))
