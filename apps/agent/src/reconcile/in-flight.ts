import { request } from 'node:http';

/**
 * vLLM's gauge of requests being answered (`vllm:num_requests_running`,
 * labelled by model). The fake runtime exports the same name, so one reader
 * covers both; llama.cpp server and SGLang do not, and read as null.
 */
export const REQUESTS_RUNNING_METRIC = 'vllm:num_requests_running';

const METRICS_TIMEOUT_MS = 1_000;
/** A runtime's /metrics page is a few hundred KiB at most; stop reading beyond this. */
const MAX_METRICS_BYTES = 4 * 1024 * 1024;

/** Sum of the gauge over its label sets in Prometheus text; null when absent. */
export function parseRequestsRunning(text: string): number | null {
  let total: number | null = null;
  for (const line of text.split('\n')) {
    if (!line.startsWith(REQUESTS_RUNNING_METRIC)) continue;
    const match = /^vllm:num_requests_running(?:\{[^}]*\})?\s+([0-9.eE+-]+|NaN)(?:\s+[0-9]+)?\s*$/.exec(line);
    if (match === null) continue;
    const value = Number(match[1]);
    if (!Number.isFinite(value) || value < 0) continue;
    total = (total ?? 0) + value;
  }
  return total === null ? null : Math.round(total);
}

/** GETs `<endpoint>/metrics` and reads the gauge; null when the runtime does not say (or does not answer). */
export function readRequestsRunning(endpoint: string): Promise<number | null> {
  return new Promise((resolve) => {
    const req = request(
      `${endpoint}/metrics`,
      { method: 'GET', agent: false, signal: AbortSignal.timeout(METRICS_TIMEOUT_MS) },
      (res) => {
        if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) {
          res.resume();
          resolve(null);
          return;
        }
        const parts: Buffer[] = [];
        let size = 0;
        res.on('data', (part: Buffer) => {
          size += part.length;
          if (size > MAX_METRICS_BYTES) {
            req.destroy();
            resolve(null);
            return;
          }
          parts.push(part);
        });
        res.on('end', () => resolve(parseRequestsRunning(Buffer.concat(parts).toString('utf8'))));
        res.on('error', () => resolve(null));
      },
    );
    req.on('error', () => resolve(null));
    req.end();
  });
}
