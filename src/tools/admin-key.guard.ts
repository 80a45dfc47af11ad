import {
  HttpException,
  Inject,
  Injectable,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { appConfig, type AppConfig } from '../config/app.config.js';
import { bearerMatches } from '../config/bearer-key.js';

/** With ADMIN_API_KEY set, the admin API needs `Authorization: Bearer <key>`; 401 otherwise. */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  constructor(@Inject(appConfig.KEY) private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const key = this.config.adminApiKey;
    if (!key) return true;
    const { authorization } = context.switchToHttp().getRequest<IncomingMessage>().headers;
    if (bearerMatches(authorization, key)) return true;
    throw new HttpException(
      {
        ok: false,
        statusCode: 401,
        message: 'missing or wrong admin API key (Authorization: Bearer …)',
      },
      401,
    );
  }
}
