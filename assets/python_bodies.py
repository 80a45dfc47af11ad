# How ces_requests (python_requests.py, loaded after this file) encodes what it sends, as requests
# encodes it: params and forms as query strings, a multipart/form-data upload (`files=`, as its
# _encode_files and urllib3's encode_multipart_formdata build it), a body given as bytes or a file.
import os
import re
from urllib.parse import quote_plus, urlencode

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



def _body_bytes(data):
    """A body given as bytes, a bytearray, a memoryview or a file (read whole, as requests sends
    it); a str (read from a file, a part's value) goes as its UTF-8, a number as its digits."""
    if hasattr(data, "read"):
        data = data.read()
    if isinstance(data, int):
        data = str(data)
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def _file_name(value):
    """The name requests gives a file part: its file's base name, unless it has none (`<stdin>`)."""
    name = getattr(value, "name", None)
    if isinstance(name, str) and name and not (name[0] == "<" and name[-1] == ">"):
        return os.path.basename(name)
    return None


def _header_param(name, value):
    """A Content-Disposition parameter as urllib3 writes it (HTML5: CR, LF and `"` escaped)."""
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    return f'{name}="{str(value).translate({10: "%0A", 13: "%0D", 34: "%22"})}"'


def _pairs(values):
    """A dict's items or a list of pairs, as requests takes fields and files."""
    return list(values.items()) if hasattr(values, "items") else list(values or [])


def _multipart_parts(data, files):
    """(name, filename, bytes, content type, headers) of each part: `data`'s fields first (a list
    value repeated, None left out), then the files. A file is a file object, bytes or a str, or a
    tuple (filename, file[, content type[, headers]]); a filename of None makes a plain field."""
    if isinstance(data, (str, bytes)):
        raise ValueError("Data must not be a string.")
    parts = []
    for name, values in _pairs(data):
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            values = [values]
        parts += [(name, None, _body_bytes(v if isinstance(v, bytes) else str(v)), None, None)
                  for v in values if v is not None]
    for name, value in _pairs(files):
        content_type = headers = None
        if isinstance(value, (tuple, list)):
            filename, value, content_type, headers = (tuple(value) + (None, None))[:4]
        else:
            filename = _file_name(value) or name
        if value is not None:
            parts.append((name, filename, _body_bytes(value), content_type, headers))
    return parts


def _multipart(data, files):
    """The multipart/form-data body of `data` and `files`, and its Content-Type, as requests sends
    them (a random boundary; a part's Content-Type only when given)."""
    boundary = os.urandom(16).hex()
    body = bytearray()
    for name, filename, content, content_type, headers in _multipart_parts(data, files):
        disposition = "form-data; " + _header_param("name", name)
        if filename is not None:
            disposition += "; " + _header_param("filename", filename)
        lines = [f"Content-Disposition: {disposition}"] + ([f"Content-Type: {content_type}"] if content_type else [])
        own = ("content-disposition", "content-type", "content-location")
        lines += [f"{k}: {v}" for k, v in (headers or {}).items() if v and str(k).lower() not in own]
        body += (f"--{boundary}\r\n" + "".join(line + "\r\n" for line in lines) + "\r\n").encode("utf-8")
        body += content + b"\r\n"
    body += f"--{boundary}--\r\n".encode("ascii")
    return bytes(body), f"multipart/form-data; boundary={boundary}"
