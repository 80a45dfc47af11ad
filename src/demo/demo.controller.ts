import { Controller, Get, Header, Inject } from '@nestjs/common';
import {
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import { appConfig, type AppConfig } from '../config/app.config.js';
import { refuse } from '../tools/tools-http.js';

/** The page, read once: it is served as it is (no template, nothing of the engine's in it). */
let page: string | undefined;
const demoPage = () =>
  (page ??= readFileSync(new URL('../../assets/demo.html', import.meta.url), 'utf8'));

/**
 * `GET /demo`: a page that talks to the agent over `/ws`, as any client does (the key, if
 * WS_API_KEY is set, typed into it): text turns, tool calls as they happen, the microphone
 * and the answer's speech. Everything it needs is in the page: nothing is fetched elsewhere.
 */
@ApiTags('demo')
@Controller('demo')
export class DemoController {
  constructor(@Inject(appConfig.KEY) private readonly config: AppConfig) {}

  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  // Its own script and style only; its connections to this engine only; the microphone's
  // worklet from a blob. No framing by other sites.
  @Header(
    'Content-Security-Policy',
    "default-src 'none'; script-src 'unsafe-inline' blob:; style-src 'unsafe-inline'; connect-src 'self'; media-src 'self'; frame-ancestors 'none'",
  )
  @ApiOperation({
    summary: 'A page to talk to the agent from a browser: text, microphone, speech',
    description:
      'Connects to /ws from the browser (with the key typed in when WS_API_KEY is set). The microphone needs the page over https, or on localhost. Off with WS_DEMO_PAGE=false.',
  })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The page', schema: { type: 'string' } })
  @ApiNotFoundResponse({ description: 'WS_DEMO_PAGE=false' })
  demo(): string {
    if (!this.config.ws.demoPage) throw refuse(404, 'the demo page is off (WS_DEMO_PAGE=false)');
    return demoPage();
  }
}
