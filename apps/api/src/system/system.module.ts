import { Module } from '@nestjs/common';
import { PingService } from './ping.service';
import { SystemResolver } from './system.resolver';

@Module({ providers: [PingService, SystemResolver] })
export class SystemModule {}
