import type { IncomingMessage, ServerResponse } from 'node:http';
import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { CORRELATION_ID_HEADER, ErrorCode, LunaNexaError, REQUEST_ID_HEADER } from '@lunanexa/contracts';
import { findDeploymentModelAndState } from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { RequirePermission } from '../auth';
import { API_CONFIG, gatewayUrl, type ApiConfig } from '../config';
import { requestIdsOf } from '../common/request-ids';

export const PLAYGROUND_CHAT_PATH = 'console/v1/playground/chat';

const PlaygroundChatSchema = z
  .object({
    /** Deployment id or name; the request goes to its model version through the gateway. */
    deployment: z.string().min(1).max(200),
    messages: z
      .array(
        z
          .object({
            role: z.enum(['system', 'user', 'assistant']),
            content: z.string().min(1).max(32_768),
          })
          .strict(),
      )
      .min(1)
      .max(32),
    maxTokens: z.number().int().min(1).max(4096).default(128),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .optional(),
  })
  .strict();

/**
 * The console playground: streams one chat completion from a deployment.
 * The console cannot call the gateway itself (another origin), so the API
 * checks the caller's role and relays the gateway's OpenAI-compatible SSE
 * stream unchanged, under the same request and correlation ids, so the
 * request shows up in the Requests view under them. The caller's own
 * credential travels along: the gateway authenticates the operator again
 * (a pinned `model@version` is for operators only) and records who called.
 * Nothing of the prompt or reply is stored here.
 */
@Controller()
export class PlaygroundController {
  constructor(
    private readonly db: DataSource,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  @RequirePermission('operate')
  @Post(PLAYGROUND_CHAT_PATH)
  @HttpCode(200)
  async chat(@Body() body: unknown, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const parsed = PlaygroundChatSchema.safeParse(body);
    if (!parsed.success) {
      throw new LunaNexaError(
        ErrorCode.VALIDATION_FAILED,
        'The playground request is not valid.',
        parsed.error.issues.map((issue) => ({
          path: issue.path.join('.') || '(body)',
          message: issue.message,
        })),
      );
    }
    const input = parsed.data;
    const deployment = await findDeploymentModelAndState(this.db, input.deployment);
    if (deployment === null) {
      throw new LunaNexaError(ErrorCode.NOT_FOUND, `No deployment "${input.deployment}".`, [
        { path: 'deployment', message: 'no such deployment' },
      ]);
    }
    const ids = requestIdsOf(req);
    const abort = new AbortController();
    res.once('close', () => abort.abort());
    let upstream: Response;
    try {
      upstream = await fetch(`${gatewayUrl(this.config)}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          [REQUEST_ID_HEADER]: ids.requestId,
          [CORRELATION_ID_HEADER]: ids.correlationId,
          // Checked by the roles guard above; the gateway verifies it against the same operators.
          authorization: req.headers.authorization ?? '',
        },
        body: JSON.stringify({
          model: deployment.model_ref,
          messages: input.messages,
          max_tokens: input.maxTokens,
          ...(input.seed === undefined ? {} : { seed: input.seed }),
          stream: true,
          stream_options: { include_usage: true },
        }),
        signal: abort.signal,
      });
    } catch {
      throw new LunaNexaError(
        ErrorCode.DEPENDENCY_UNAVAILABLE,
        'The inference gateway could not be reached; check that the gateway process is running.',
      );
    }
    const contentType = upstream.headers.get('content-type') ?? 'application/octet-stream';
    res.writeHead(upstream.status, {
      // A gateway problem (no ready replica, data class refused…) reaches the console as the gateway wrote it.
      'content-type': contentType,
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    if (upstream.body === null) {
      res.end();
      return;
    }
    try {
      for await (const chunk of upstream.body) {
        if (!res.write(chunk)) await new Promise((resume) => res.once('drain', resume));
      }
    } catch {
      // The client left or the gateway broke off: the stream's own error event (or its absence) says so.
    }
    res.end();
  }
}
