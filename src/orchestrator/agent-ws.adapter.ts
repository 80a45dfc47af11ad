import { WsAdapter } from '@nestjs/platform-ws';

type BindArgs = Parameters<WsAdapter['bindMessageHandlers']>;

/**
 * Nest's `ws` adapter without the `@SubscribeMessage` routing when a gateway declares no such
 * handler. The agent gateway reads its frames itself; the default routing would build an
 * observable pipeline for every connection and parse every frame (audio included) as JSON a
 * second time, only to find no handler.
 */
export class AgentWsAdapter extends WsAdapter {
  override bindMessageHandlers(...[client, handlers, transform]: BindArgs): void {
    if (handlers.length === 0) return;
    super.bindMessageHandlers(client, handlers, transform);
  }
}
