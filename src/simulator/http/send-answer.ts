import type { ServerResponse } from 'node:http';
import type { Answer } from './answer.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Writes an answer in one go, with its length. */
export function sendAnswer(res: ServerResponse, answer: Answer): void {
  if (res.destroyed) return;
  res.writeHead(answer.status, {
    'Content-Type': answer.contentType ?? JSON_TYPE,
    'Content-Length': Buffer.byteLength(answer.body),
    ...answer.headers,
  });
  res.end(answer.body);
}
