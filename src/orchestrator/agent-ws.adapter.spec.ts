import { EventEmitter } from 'node:events';
import { of } from 'rxjs';
import { AgentWsAdapter } from './agent-ws.adapter.js';

describe('AgentWsAdapter', () => {
  it('leaves the frames of a gateway without @SubscribeMessage handlers to the gateway', () => {
    const client = new EventEmitter();
    new AgentWsAdapter().bindMessageHandlers(client, [], (x) => of(x));
    expect(client.listenerCount('message')).toBe(0);
  });

  it('still routes frames when a gateway declares handlers', () => {
    const client = new EventEmitter();
    const handler = {
      message: 'ping',
      methodName: 'ping',
      callback: () => of('pong'),
      isAckHandledManually: false,
    };
    new AgentWsAdapter().bindMessageHandlers(client, [handler], (x) => of(x));
    expect(client.listenerCount('message')).toBe(1);
  });
});
