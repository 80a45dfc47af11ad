import { Module } from '@nestjs/common';
import { SessionsModule } from '../sessions/sessions.module.js';
import { ToolsModule } from '../tools/tools.module.js';
import { HealthController } from './health.controller.js';

@Module({ imports: [ToolsModule, SessionsModule], controllers: [HealthController] })
export class HealthModule {}
