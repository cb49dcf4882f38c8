import { request } from 'node:http';
import {
  detectMetricsFormat,
  parsePrometheusText,
  runtimeLoadFrom,
  type MetricsFormat,
  type RuntimeLoad,
} from '@lunanexa/contracts';

/**
 * Short: the scrape runs inside a health observation, and a runtime too busy
 * to answer its /metrics page within this is better reported as "unknown".
 */
export const METRICS_TIMEOUT_MS = 1_000;
/** A runtime's /metrics page is a few hundred KiB at most; stop reading beyond this. */
const MAX_METRICS_BYTES = 4 * 1024 * 1024;

/**
 * The load a runtime reports on its /metrics page. The assignment does not
 * name the runtime's metrics format (agent protocol 2 has no field for it),
 * so the page's own metric names say which server family it is.
 */
export function runtimeLoadOfPage(text: string, scrapedAt: Date): RuntimeLoad | null {
  const page = parsePrometheusText(text);
  const format: MetricsFormat = detectMetricsFormat(page);
  return format === 'none' ? null : runtimeLoadFrom(page, format, scrapedAt);
}

/**
 * GETs `<endpoint>/metrics` and reads the load; null when the runtime does not
 * answer in time, answers with an error, or speaks no format we know.
 */
export function readRuntimeLoad(
  endpoint: string,
  now: () => Date,
  timeoutMs = METRICS_TIMEOUT_MS,
): Promise<RuntimeLoad | null> {
  return new Promise((resolve) => {
    const req = request(
      `${endpoint}/metrics`,
      { method: 'GET', agent: false, signal: AbortSignal.timeout(timeoutMs) },
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
        res.on('end', () => resolve(runtimeLoadOfPage(Buffer.concat(parts).toString('utf8'), now())));
        res.on('error', () => resolve(null));
      },
    );
    req.on('error', () => resolve(null));
    req.end();
  });
}
