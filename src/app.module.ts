import { Module } from '@nestjs/common';
import { ConfigModule } from './config/config.module.js';
import { ToolsModule } from './tools/tools.module.js';

@Module({ imports: [ConfigModule, ToolsModule] })
export class AppModule {}
