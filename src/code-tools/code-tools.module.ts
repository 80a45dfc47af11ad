import { Module } from '@nestjs/common';
import { CodeToolService } from './code-tool.service.js';

@Module({ providers: [CodeToolService], exports: [CodeToolService] })
export class CodeToolsModule {}
