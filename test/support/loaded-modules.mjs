// Preloaded into a built engine (`--import`): every module it resolves is appended, one URL a
// line, to LOADED_MODULES_FILE. Lets a test tell which libraries an engine loaded. In the
// engine's own thread where Node has synchronous hooks (22.15 and later: ~5 s less for two
// start-ups than hooks on the loader thread, each resolution a round trip to it).
import * as module from 'node:module';
import { appendFileSync } from 'node:fs';

const file = process.env.LOADED_MODULES_FILE;
if (module.registerHooks)
  module.registerHooks({
    resolve(specifier, context, next) {
      const resolved = next(specifier, context);
      if (file) appendFileSync(file, `${resolved.url}\n`);
      return resolved;
    },
  });
else module.register('./loaded-modules-hooks.mjs', import.meta.url, { data: { file } });
