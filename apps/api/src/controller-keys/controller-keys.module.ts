import { Module } from '@nestjs/common';
import { ControllerKeysResolver } from './controller-keys.resolver';
import { ControllerKeysService } from './controller-keys.service';

/** The controller key ring and its rotation (RotateControllerKey). */
@Module({
  providers: [ControllerKeysService, ControllerKeysResolver],
})
export class ControllerKeysModule {}
