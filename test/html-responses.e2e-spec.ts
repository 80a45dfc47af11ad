import { callOnce, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

/** A page as sites serve them: a head of scripts and styles longer than the result limit. */
const page = (title: string, body: string) =>
  `<!DOCTYPE html><html><head><title>${title}</title><style>${'.a{color:red}'.repeat(200)}</style>` +
  `<script>${'window.x=1;'.repeat(300)}</script></head><body>${body}</body></html>`;

/** An HTML page a tool fetches is read as its text, not its markup. */
describe('HTML responses', () => {
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      LLM_TOOL_RESULT_MAX_CHARS: '300',
      LLM_TOOLS_FILE: writeToolsFile(
        ['hours', 'gone', 'plain'].map((name) => ({ name, url: `${base}/${name}`, method: 'GET' })),
      ),
    }),
    (req, res) => {
      const html = { 'Content-Type': 'text/html; charset=utf-8' };
      if (req.path === '/hours')
        return void res
          .writeHead(200, html)
          .end(
            page('Rossi Bakery', '<h1>Opening hours</h1><p>Mon&ndash;Fri <b>7:00–19:00</b></p>'),
          );
      if (req.path === '/gone')
        return void res.writeHead(404, html).end(page('Not found', '<h1>This page is gone</h1>'));
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('<b>as sent</b>');
    },
  );

  it('hands the model the text of a page and of an error page, and plain text as it is', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    try {
      expect((await callOnce(rig, ws, 'hours')).read).toBe(
        'Rossi Bakery\n\nOpening hours\n\nMon–Fri 7:00–19:00',
      );
      const gone = await callOnce(rig, ws, 'gone');
      expect(gone.read).toBe('Error: HTTP 404 Not Found — Not found\n\nThis page is gone');
      expect(gone.result).toMatchObject({ ok: false });
      expect((await callOnce(rig, ws, 'plain')).read).toBe('<b>as sent</b>');
    } finally {
      ws.close();
    }
  }, 30_000);
});
