import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MULTIPART = fileURLToPath(new URL('../../assets/python_bodies.py', import.meta.url));

/**
 * ces_requests' uploads against Python's own requests (Debian: python3-requests, installed by
 * .ci/run): the same fields and files make the same bytes, boundary aside, and the same
 * Content-Type.
 */
const COMPARE = `
import io, json, re, sys
import requests
exec(open(sys.argv[1]).read())

class Named(io.BytesIO):
    name = "/tmp/reports/q3 report.pdf"

class Stdin(io.BytesIO):
    name = "<stdin>"

CASES = {
    "fields and a typed file": ({"a": "1", "tag": ["x", "y"], "n": 2, "skip": None},
                                {"file": ("a.txt", b"hello\\xff", "text/plain")}),
    "a file object, named by its field": (None, {"f": io.BytesIO(b"\\x00\\x01")}),
    "a file named by its path": ({}, {"doc": Named(b"%PDF-1.7")}),
    "a file named <stdin>": ({}, {"doc": Stdin(b"in")}),
    "pairs, a plain field, extra headers, a str, a number": (
        [("k", "v"), ("k", "w")],
        [("f", (None, "plain")), ("g", ('na"me\\n.bin', b"z", "application/x", {"X-Extra": "1"})),
         ("h", "str value"), ("i", 5), ("skipped", None)]),
    "non-ASCII names and text": ({"é": "ü"}, {"file": ("ünï.txt", "tëxt")}),
    "bytes field values": ({"b": b"\\xfe"}, {"f": ("x", b"")}),
}

def fresh(files):
    for value in (files.values() if hasattr(files, "values") else [v for _, v in files]):
        if hasattr(value, "seek"):
            value.seek(0)

same = {}
for name, (data, files) in CASES.items():
    theirs = requests.Request("POST", "http://x/", data=data, files=files).prepare()
    fresh(files)
    body, content_type = _multipart(data, files)
    their_boundary = re.search(r"boundary=(\\w+)", theirs.headers["Content-Type"]).group(1)
    our_boundary = re.search(r"boundary=(\\w+)", content_type).group(1)
    same[name] = [theirs.body.replace(their_boundary.encode(), b"B") == body.replace(our_boundary.encode(), b"B"),
                  theirs.headers["Content-Type"].replace(their_boundary, "B") == content_type.replace(our_boundary, "B")]
try:
    _multipart("a=1", {"f": b"x"})
except ValueError as error:
    same["data as a string"] = str(error)
print(json.dumps(same))
`;

describe("ces_requests' multipart uploads (python_bodies.py) against Python's requests", () => {
  it('builds the body and Content-Type requests builds, byte for byte', () => {
    const run = spawnSync('python3', ['-c', COMPARE, MULTIPART], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const same = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(Object.keys(same)).toHaveLength(8);
    for (const [name, verdict] of Object.entries(same))
      expect([name, verdict]).toEqual([
        name,
        name === 'data as a string' ? 'Data must not be a string.' : [true, true],
      ]);
  });
});
