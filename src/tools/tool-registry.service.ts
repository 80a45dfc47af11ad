import { Inject, Injectable, Logger } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { llmConfig, toolsConfig, type LlmConfig, type ToolsConfig } from '../config/app.config.js';
import { snapshotOf, type Tool, type ToolSnapshot } from './tool-definition.js';
import { ToolDefinitionError, validateToolDefinitions } from './tool-validation.js';

/**
 * The active tool set (seed §2): the file, read once at start-up, or an in-memory override
 * installed by `POST /api/tools`. A turn takes one snapshot at its start.
 */
@Injectable()
export class ToolRegistry {
  private readonly logger = new Logger(ToolRegistry.name);
  private current: ToolSnapshot;

  constructor(
    @Inject(toolsConfig.KEY) private readonly config: ToolsConfig,
    @Inject(llmConfig.KEY) private readonly llm: LlmConfig,
  ) {
    this.current = this.loadFile();
  }

  get llmEnabled(): boolean {
    return this.llm.enabled;
  }

  /**
   * Tools are used at all: the LLM is on and tool calling is enabled. With LLM_TOOLS_ENABLED
   * unset, that is when the file is set (seed §2) or an admin has installed an override.
   */
  get enabled(): boolean {
    if (!this.llm.enabled) return false;
    return this.config.explicit ?? (this.config.enabled || this.current.source === 'request');
  }

  active(): ToolSnapshot {
    return this.enabled ? this.current : snapshotOf('none', []);
  }

  /** Validates and installs an override (source `request`); throws ToolDefinitionError and changes nothing. */
  replace(definitions: unknown, source = 'request body'): ToolSnapshot {
    const { tools, warnings } = validateToolDefinitions(definitions, source);
    warnings.forEach((w) => this.logger.warn(w));
    this.current = snapshotOf('request', tools);
    this.logger.log(
      `installed ${tools.length} tool(s) from ${source}; they apply from the next turn`,
    );
    if (!this.enabled)
      this.logger.warn(
        'tool calling is disabled (LLM_TOOLS_ENABLED=false): the override is kept but unused',
      );
    return this.active();
  }

  private loadFile(): ToolSnapshot {
    if (!this.config.enabled || this.config.file === '') return snapshotOf('none', []);
    const path = resolve(this.config.file);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new ToolDefinitionError(
        `Cannot read tools file ${path} (LLM_TOOLS_FILE): ${(error as Error).message}`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new ToolDefinitionError(`${path}: not valid JSON: ${(error as Error).message}`);
    }
    const { tools, warnings } = validateToolDefinitions(parsed, path);
    warnings.forEach((w) => this.logger.warn(w));
    this.logger.log(`loaded ${tools.length} tool(s) from ${path}`);
    return snapshotOf('file', tools);
  }
}

export type { Tool };
