import { EventEmitter } from 'node:events';
import { ClusterLink } from '../../src/cluster/cluster-link.js';
import { answerShelf, primaryShelves } from '../../src/cluster/memory-shelf.js';
import type { ClusterMessage } from '../../src/cluster/messages.js';

/**
 * An engine process's line to a primary played by the test: the primary's shelves, answered as
 * primary.ts answers them, and its broadcast, which comes back to the sender too.
 */
export function linked(): ClusterLink {
  const emitter = new EventEmitter();
  const shelves = primaryShelves();
  const reply = (message: ClusterMessage) => setImmediate(() => emitter.emit('message', message));
  const channel = Object.assign(emitter, {
    send: (m: ClusterMessage) => {
      if (!answerShelf(shelves, m, reply) && m.kind === 'engine.broadcast') reply(m);
      return true;
    },
  });
  return new ClusterLink(channel as unknown as ConstructorParameters<typeof ClusterLink>[0]);
}
