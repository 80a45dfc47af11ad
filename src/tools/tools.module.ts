import { HttpModule } from '@nestjs/axios';
import { Module } from '@nestjs/common';
import { HttpToolExecutor } from './http-tool.executor.js';
import { ToolExecutor } from './tool-executor.js';
import { ToolRegistry } from './tool-registry.service.js';
import { ToolsController } from './tools.controller.js';

@Module({
  imports: [HttpModule],
  controllers: [ToolsController],
  providers: [ToolRegistry, { provide: ToolExecutor, useClass: HttpToolExecutor }],
  exports: [ToolRegistry, ToolExecutor],
})
export class ToolsModule {}
