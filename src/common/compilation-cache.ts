import { setFlagsFromString } from 'node:v8';

/**
 * Turns off V8's cache of compiled sources for this process. The engine compiles a function for
 * each tool's schema (Ajv, `new Function`): for every session that declares client tools, for
 * every tool set installed. Since Node 25, V8 keeps each distinct source it compiled, with its
 * code, until the heap nears its limit (~6 KB a schema, never given back under a pod's memory
 * limit), where Node 20–24 aged them out; the engine never compiles one source twice on purpose,
 * so the cache only kept them. Called first thing at start-up. Pure: no Nest import.
 */
export function keepNoCompiledSources(): void {
  setFlagsFromString('--no-compilation-cache');
}
