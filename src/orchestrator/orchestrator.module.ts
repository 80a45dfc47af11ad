import { Logger, Module } from '@nestjs/common';
import { sessionsConfig, type SessionsConfig } from '../config/app.config.js';
import { SessionStore } from '../sessions/session-store.js';
import { ParkedCalls } from './background-calls.js';
import { SharedBackground } from './shared-background.js';
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

/**
 * Background calls parked for their sessions' resumption; with Redis, across every process of
 * every replica (a session resumed elsewhere gets their results there).
 */
const parkedCalls = {
  provide: ParkedCalls,
  inject: [SessionStore, sessionsConfig.KEY, SessionDirectory],
  useFactory: (store: SessionStore, config: SessionsConfig, directory: SessionDirectory) => {
    const logger = new Logger('BackgroundCalls');
    const { broadcast, scripts } = store;
    const shared =
      broadcast && scripts
        ? new SharedBackground(broadcast, scripts, config.resumeSecs)
        : undefined;
    const parked = new ParkedCalls(
      shared,
      (id) => directory.get(id)?.session.background,
      (message) => logger.warn(message),
    );
    parked
      .listen()
      .catch((error: unknown) =>
        logger.warn(
          `background results reach sessions resumed in this process only: ${(error as Error).message}`,
        ),
      );
    return parked;
  },
};

@Module({
  imports: [LlmModule, ToolsModule, SpeechModule, SessionsModule],
  controllers: [SessionsController, TwilioVoiceController, CallsController],
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
