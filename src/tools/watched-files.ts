/** The files the tools file's set is read from, watched for changes (LLM_TOOLS_FILE_WATCH_SECS). */
import { dirname, resolve } from 'node:path';
import { toolSecretFiles } from '../config/secret-files.js';
import { isSpecUrl } from './openapi/spec-source.js';
import type { ToolSnapshot } from './tool-definition.js';
import { isDirectory, toolsFilesIn } from './tools-dir.js';

/** The tools file, and the Python files and OpenAPI documents the definitions it gave name. */
export function watchedFiles(fromFile: ToolSnapshot, toolsFile: string): string[] {
  const base = toolsBaseDir(toolsFile);
  const named = fromFile.definitions.flatMap((t) => {
    // An MCP server's script: edited, the server is started anew (McpCommand.revision).
    if (t.stdio) return t.stdio.files ?? [];
    const file = t.raw.type === 'openapi' ? t.raw.spec : t.kind === 'http' ? undefined : t.raw.file;
    // A document at a URL is read again with the file (and by SpecUrlWatch), not stat'ed.
    const own = typeof file === 'string' && !isSpecUrl(file) ? [resolve(base, file)] : [];
    // A client certificate renewed (cert-manager, Vault) is taken up as the file is.
    return [...own, ...(t.clientCertificate?.files ?? [])];
  });
  const path = resolve(toolsFile);
  // A directory's own state changes as files come and go; each file's as it is edited.
  const files = isDirectory(path) ? filesIn(path) : [];
  // A TOOL_SECRET_* given as a file: rotated there, the tools are read again with it.
  const secrets = Object.values(toolSecretFiles(process.env));
  return [path, ...files, ...new Set(named), ...secrets];
}

function filesIn(dir: string): string[] {
  try {
    return toolsFilesIn(dir);
  } catch {
    return [];
  }
}

/** Where relative paths of definitions start: the tools file's directory, or the directory itself. */
export function toolsBaseDir(toolsFile: string): string {
  if (!toolsFile) return process.cwd();
  const path = resolve(toolsFile);
  return isDirectory(path) ? path : dirname(path);
}
