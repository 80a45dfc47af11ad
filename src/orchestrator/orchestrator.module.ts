import { Module } from '@nestjs/common';
import { parkedCalls } from './parked-calls.provider.js';
import { LlmModule } from '../llm/llm.module.js';
import { SpeechModule } from '../speech/speech.module.js';
import { SessionsModule } from '../sessions/sessions.module.js';
import { ToolsModule } from '../tools/tools.module.js';
import { AgentGateway } from './agent.gateway.js';
import { OpenSessions } from './open-sessions.service.js';
import { SessionDirectory } from './session-directory.js';
import { SessionKeeper } from './session-keeper.service.js';
import { SessionsController } from './sessions.controller.js';
import { ToolScope } from './tool-scope.service.js';
import { TurnManager } from './turn-manager.service.js';
import { TwilioGateway } from './twilio.gateway.js';
import { TwilioVoiceController } from './twilio-voice.controller.js';
import { CallsController } from './calls.controller.js';
import { AsyncApiController } from './protocol/asyncapi.controller.js';

@Module({
  imports: [LlmModule, ToolsModule, SpeechModule, SessionsModule],
  controllers: [SessionsController, TwilioVoiceController, CallsController, AsyncApiController],
  providers: [
    TurnManager,
    ToolScope,
    SessionKeeper,
    SessionDirectory,
    OpenSessions,
    AgentGateway,
    parkedCalls,
    TwilioGateway,
  ],
})
export class OrchestratorModule {}
