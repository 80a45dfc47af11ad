import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WsAdapter } from '@nestjs/platform-ws';

type BindArgs = Parameters<WsAdapter['bindMessageHandlers']>;
type UpgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * Nest's `ws` adapter, with two changes:
 * - no `@SubscribeMessage` routing when a gateway declares no such handler. The agent gateway
 *   reads its frames itself; the default routing would build an observable pipeline for every
 *   connection and parse every frame (audio included) as JSON a second time, only to find no
 *   handler.
 * - an upgrade to a path with a trailing slash (`/ws/`, as some gateways and ingresses rewrite
 *   it) reaches the WebSocket at that path; one to a path where none is gets HTTP 404 naming the
 *   path that serves one, where Nest's adapter drops the connection without a word.
 */
export class AgentWsAdapter extends WsAdapter {
  override bindMessageHandlers(...[client, handlers, transform]: BindArgs): void {
    if (handlers.length === 0) return;
    super.bindMessageHandlers(client, handlers, transform);
  }

  protected override ensureHttpServerExists(port: number, httpServer?: Server): Server | undefined {
    const known = this.httpServersRegistry.has(port);
    const created = super.ensureHttpServerExists(port, httpServer);
    if (known) return created;
    // Nest's own listener, kept in its (private) registry so that closing the adapter removes
    // it. Should a later Nest keep it elsewhere, its listener is left as it is.
    const registry = (
      this as unknown as { upgradeListenersRegistry?: Map<number, UpgradeListener> }
    ).upgradeListenersRegistry;
    const server = this.httpServersRegistry.get(port) as Server | undefined;
    const nest = registry?.get(port);
    if (!registry || !server || !nest) return created;
    const paths = () =>
      (this.wsServersRegistry.get(port) ?? []).map((s) => (s as { path: string }).path).sort();
    const upgrade: UpgradeListener = (request, socket, head) => {
      const target = request.url ?? '/';
      const query = target.indexOf('?');
      const pathname = query === -1 ? target : target.slice(0, query);
      const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
      const served = paths();
      if (!served.includes(path)) {
        const text = `no WebSocket at ${pathname.slice(0, 200)}: it is at ${served.join(', ')}\n`;
        socket.end(
          `HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
        );
        return;
      }
      if (path !== pathname) request.url = path + (query === -1 ? '' : target.slice(query));
      nest(request, socket, head);
    };
    server.off('upgrade', nest);
    server.on('upgrade', upgrade);
    registry.set(port, upgrade);
    return created;
  }
}
