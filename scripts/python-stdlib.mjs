// Pyodide's standard library with its modules compiled, for the code tools workers
// (src/code-tools/sandbox-process.ts). Pyodide ships the library as sources, which every worker
// compiled anew as it imported them: 2.6 s of a worker's 3.5 s start-up on a 2-core machine.
// Here each module's bytecode, compiled once by Pyodide's own Python (its version, its magic
// number), is put beside its source (kept for tracebacks) as an unchecked hash-based .pyc, which
// Python's zipimport loads without compiling. Run by `npm run build`; written once per Pyodide
// release. A worker that finds no such file loads Pyodide's own library.
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { loadPyodide } from 'pyodide';
import { COMPILED_STDLIB } from '../dist/code-tools/sandbox-process.js';

if (!existsSync(COMPILED_STDLIB)) {
  const started = performance.now();
  const pyodide = await loadPyodide({ stdout: () => {}, stderr: (line) => console.error(line) });
  pyodide.runPython(`
import io, py_compile, sys, zipfile

library = next(p for p in sys.path if p.endswith(".zip"))
out = io.BytesIO()
with zipfile.ZipFile(library) as given, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as made:
    for entry in given.infolist():
        source = given.read(entry)
        made.writestr(entry, source, compress_type=zipfile.ZIP_DEFLATED)
        if not entry.filename.endswith(".py"):
            continue
        with open("/tmp/module.py", "wb") as f:
            f.write(source)
        py_compile.compile(
            "/tmp/module.py",
            cfile="/tmp/module.pyc",
            dfile=f"{library}/{entry.filename}",  # where tracebacks say the code is, as before
            doraise=True,
            invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        )
        with open("/tmp/module.pyc", "rb") as f:
            compiled = zipfile.ZipInfo(entry.filename[:-3] + ".pyc", entry.date_time)
            made.writestr(compiled, f.read(), compress_type=zipfile.ZIP_DEFLATED)
with open("/tmp/stdlib.zip", "wb") as f:
    f.write(out.getvalue())
`);
  // Written whole, then renamed: a build running beside another never reads half a file.
  const partial = `${COMPILED_STDLIB}.${process.pid}`;
  writeFileSync(partial, pyodide.FS.readFile('/tmp/stdlib.zip'));
  renameSync(partial, COMPILED_STDLIB);
  console.log(
    `python-stdlib: ${COMPILED_STDLIB} (${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
}
