// Preloaded into a built engine (`--import`): every module it resolves is appended, one URL a
// line, to LOADED_MODULES_FILE. Lets a test tell which libraries an engine loaded.
import { register } from 'node:module';

register('./loaded-modules-hooks.mjs', import.meta.url, {
  data: { file: process.env.LOADED_MODULES_FILE },
});
