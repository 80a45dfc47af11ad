import { Module } from '@nestjs/common';
import { ToolsModule } from '../tools/tools.module.js';
import { HealthController } from './health.controller.js';

@Module({ imports: [ToolsModule], controllers: [HealthController] })
export class HealthModule {}
