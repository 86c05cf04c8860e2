import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import express from 'express';
import { sendText, type HttpHandler } from '../runtime/http-server.js';
import type { Uses } from '../runtime/app-resources.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';

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
      const router = serverAdapter.getRouter() as express.Express;
      router.engine('ejs', offlineViewEngine());
      handle = express().disable('x-powered-by').use(QUEUE_BOARD_PATH, router);
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

/** The `(file, options, callback)` function Express renders a view with. */
type ViewEngine = (
  file: string,
  options: object,
  callback: (error: Error | null, html?: string) => void,
) => void;

/** EJS's compiler, as far as it is used here. */
interface Ejs {
  compile(template: string, options?: { filename?: string }): (data: object) => string;
}

/**
 * Renders Bull Board's page template without its one outside resource (Google Fonts: the board
 * falls back to the system's fonts), so that the board works offline and asks nothing of another
 * site. The template is read once from the installed `@bull-board/ui` and compiled in memory with
 * the EJS that `@bull-board/express` renders with: no file is written (a temporary copy would be
 * left behind by every `envdata serve`).
 */
function offlineViewEngine(): ViewEngine {
  const requireHere = createRequire(import.meta.url);
  const file = join(
    dirname(requireHere.resolve('@bull-board/ui/package.json')),
    'dist',
    'index.ejs',
  );
  const ejs = createRequire(requireHere.resolve('@bull-board/express'))('ejs') as Ejs;
  const template = readFileSync(file, 'utf8').replace(
    /<link[^>]+href="https?:\/\/[^"]*"[^>]*>/g,
    '',
  );
  const render = ejs.compile(template, { filename: file });
  return (_file, options, callback) => {
    let html: string;
    try {
      html = render(options);
    } catch (error) {
      callback(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    callback(null, html);
  };
}
