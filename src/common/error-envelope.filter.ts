import { Catch, HttpException, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';

/** What the filter needs of Express' response. */
interface HttpResponse {
  headersSent: boolean;
  setHeader(name: string, value: string): void;
  status(code: number): { json(body: unknown): void };
}

/**
 * Every refusal of the HTTP API in one shape, `{ok:false, statusCode, message}` (ToolsErrorDto,
 * as the engine's own controllers refuse): also those the framework makes itself — an unknown
 * route (`Cannot GET /x`), a path it cannot decode, a validation's messages (joined). A fault of
 * the engine's own (not an HttpException) is left to Nest: logged, and answered 500.
 */
@Catch()
export class ErrorEnvelope extends BaseExceptionFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    if (!(exception instanceof HttpException) || host.getType() !== 'http')
      return super.catch(exception, host);
    const status = exception.getStatus();
    const response = host.switchToHttp().getResponse<HttpResponse>();
    if (response.headersSent) return;
    // A body refused as too large is read only so far (request-body.ts): the connection cannot
    // carry another request.
    if (status === 413) response.setHeader('Connection', 'close');
    response.status(status).json(envelopeOf(status, exception.getResponse()));
  }
}

/** `body` (an HttpException's) as the API's refusal. */
export function envelopeOf(status: number, body: unknown): Record<string, unknown> {
  const given = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  if (given.ok === false) return given;
  const message = typeof body === 'string' ? body : given.message;
  return {
    ok: false,
    statusCode: status,
    message: Array.isArray(message)
      ? message.join('; ')
      : typeof message === 'string'
        ? message
        : 'request refused',
  };
}
