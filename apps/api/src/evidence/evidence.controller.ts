import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { principalOf, requirePrincipal, RequirePermission } from '../auth';
import { EvidenceService } from './evidence.service';

/** `GET /v1/evidence/<alias>?revision=N`: one release's evidence bundle (libs/audit evidence-bundle.ts). */
export const EVIDENCE_PATH = 'v1/evidence';
export const EVIDENCE_CONTENT_TYPE = 'application/gzip';

@Controller()
export class EvidenceController {
  constructor(private readonly evidence: EvidenceService) {}

  @RequirePermission('read')
  @Get(`${EVIDENCE_PATH}/:alias`)
  async export(
    @Param('alias') alias: string,
    @Query('revision') revision: string | string[] | undefined,
    @Req() req: IncomingMessage,
    @Res() res: ServerResponse,
  ): Promise<void> {
    const principal = requirePrincipal(principalOf(req));
    // A repeated ?revision= is not a number either.
    const given = Array.isArray(revision) ? revision.join(',') : revision;
    const bundle = await this.evidence.export(alias, given, principal.actor);
    res.writeHead(200, {
      'content-type': EVIDENCE_CONTENT_TYPE,
      'content-length': String(bundle.bytes.length),
      'content-disposition': `attachment; filename="${bundle.fileName}"`,
      'cache-control': 'no-store',
      'x-lunanexa-evidence-fingerprint': bundle.manifest.controllerKey.sshFingerprint,
    });
    res.end(bundle.bytes);
  }
}
