import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import express from 'express';
import { sendText, type HttpHandler } from '../app/http-server.js';
import type { Uses } from '../app/app-resources.js';
import { QUEUE_NAMES } from '../queue/queue-names.js';

/** Where the queues board is mounted. */
export const QUEUE_BOARD_PATH = '/queues';

/**
 * Bull Board (`@bull-board/express`) over envdata's BullMQ queues, read-only: the jobs waiting,
 * active, delayed and failed, on either backend (Bull Board 9 reads BullMQ's Postgres backend
 * too, with Postgres's own figures in its header). Its pages and assets are served from the
 * package, under `/queues`. The queues are opened on first request.
 */
export function queueBoardHandler(app: Uses<'queues'>): HttpHandler {
  let handle: express.Express | undefined;
  return (request: IncomingMessage, response: ServerResponse) => {
    if (!handle) {
      const serverAdapter = new ExpressAdapter().setBasePath(QUEUE_BOARD_PATH);
      createBullBoard({
        queues: Object.values(QUEUE_NAMES).map(
          (name) => new BullMQAdapter(app.queues.queue(name), { readOnlyMode: true }),
        ),
        serverAdapter,
        options: { uiConfig: { boardTitle: 'envdata queues' } },
      });
      serverAdapter.setViewsPath(offlineViews());
      handle = express().disable('x-powered-by').use(QUEUE_BOARD_PATH, serverAdapter.getRouter());
    }
    const board = handle;
    return new Promise<void>((resolve, reject) => {
      response.once('finish', resolve);
      response.once('close', resolve);
      // Express calls back when nothing under /queues answered (404) or a handler failed (500).
      board(request as express.Request, response as express.Response, (error?: unknown) => {
        if (error) return reject(error instanceof Error ? error : new Error(String(error)));
        sendText(response, 404, 'not found\n');
        resolve();
      });
    });
  };
}

/**
 * Bull Board's page template without its one outside resource (Google Fonts: the board falls
 * back to the system's fonts), so that the board works offline and asks nothing of another
 * site. Written once per process to a temporary folder, from the installed `@bull-board/ui`.
 */
function offlineViews(): string {
  const ui = dirname(createRequire(import.meta.url).resolve('@bull-board/ui/package.json'));
  const template = readFileSync(join(ui, 'dist', 'index.ejs'), 'utf8').replace(
    /<link[^>]+href="https?:\/\/[^"]*"[^>]*>/g,
    '',
  );
  const folder = mkdtempSync(join(tmpdir(), 'envdata-bull-board-'));
  writeFileSync(join(folder, 'index.ejs'), template);
  return folder;
}
