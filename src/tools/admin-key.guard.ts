import {
  HttpException,
  Inject,
  Injectable,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { appConfig, type AppConfig } from '../config/app.config.js';

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** With ADMIN_API_KEY set, the admin API needs `Authorization: Bearer <key>`; 401 otherwise. */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  constructor(@Inject(appConfig.KEY) private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const key = this.config.adminApiKey;
    if (!key) return true;
    const header = context.switchToHttp().getRequest<IncomingMessage>().headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (match && same(match[1]!.trim(), key)) return true;
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
