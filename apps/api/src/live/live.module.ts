import { Module } from '@nestjs/common';
import { LiveEventsService } from './live-events.service';
import { LiveResolver } from './live.resolver';

@Module({ providers: [LiveEventsService, LiveResolver] })
export class LiveModule {}
