import { Body, Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { AGENT_HTTP_PATHS, type ControllerKeysResponse } from '@lunanexa/agent-protocol';
import { Public } from '../auth';
import { requestIdsOf } from '../common/request-ids';
import { AgentChannelService } from './agent-channel.service';

export function remoteAddressOf(req: IncomingMessage): string {
  return `${req.socket.remoteAddress ?? 'unknown'}:${req.socket.remotePort ?? 0}`.slice(0, 64);
}

/**
 * Agent → controller endpoints. The plain heartbeat is answered before it gets
 * here (heartbeatRoute); this route answers the rest the same way. Public to the roles guard on purpose: agents
 * hold no operator credentials; every request is authenticated by its
 * Ed25519 signature (and enrollment by its bootstrap token) in the service.
 * Answers are signed envelopes; refusals are problem+json with the typed code.
 */
@Public()
@Controller()
export class AgentController {
  constructor(private readonly channel: AgentChannelService) {}

  @Post(AGENT_HTTP_PATHS.enroll)
  @HttpCode(201)
  enroll(@Body() body: unknown, @Req() req: IncomingMessage) {
    return this.channel.enroll(body, requestIdsOf(req), remoteAddressOf(req));
  }

  @Post(AGENT_HTTP_PATHS.heartbeat)
  @HttpCode(200)
  heartbeat(@Body() body: unknown, @Req() req: IncomingMessage) {
    return this.channel.heartbeat(body, requestIdsOf(req), remoteAddressOf(req));
  }

  /** Public keys only, unsigned: a node pins one from here only by a fingerprint an operator gave it. */
  @Get(AGENT_HTTP_PATHS.controllerKeys)
  controllerKeys(): ControllerKeysResponse {
    return this.channel.controllerKeys();
  }
}
