import {
  Global,
  Inject,
  Injectable,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_GUARD } from '@nestjs/core';
import type { Logger } from '@lunanexa/observability';
import { API_CONFIG, API_LOGGER, controllerKeyFile, type ApiConfig } from '../config';
import { AuditWriter } from './audit-writer';
import { CONTROLLER_KEY } from './auth.constants';
import { AuthResolver } from './auth.resolver';
import { AuthService } from './auth.service';
import { ControllerKeyRing, loadOrCreateControllerKey, watchControllerKeyRing } from './controller-key';
import { IdentityService } from './identity.service';
import { RolesGuard } from './roles.guard';

/** Keeps this process's controller key ring current: every switch and retirement reaches it through NOTIFY. */
@Injectable()
export class ControllerKeyRingWatcher implements OnModuleInit, OnApplicationShutdown {
  private stop: (() => Promise<void>) | undefined;

  constructor(
    @Inject(CONTROLLER_KEY) private readonly ring: ControllerKeyRing,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(API_LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.stop = watchControllerKeyRing(
      this.ring,
      this.config.DATABASE_URL,
      'lunanexa-api-keyring',
      this.logger,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop?.();
  }
}

/**
 * Operator identity and roles: the controller key, sessions, API tokens,
 * accounts, and the global deny-by-default RolesGuard. Global so other
 * modules can inject CONTROLLER_KEY (the controller key ring) and AuditWriter.
 */
@Global()
@Module({
  providers: [
    {
      provide: CONTROLLER_KEY,
      inject: [API_CONFIG, API_LOGGER, DataSource],
      useFactory: async (config: ApiConfig, logger: Logger, db: DataSource): Promise<ControllerKeyRing> => {
        const key = loadOrCreateControllerKey(controllerKeyFile(config));
        const ring = await ControllerKeyRing.open(db, key);
        const current = ring.current();
        logger.info(
          { file: current.file, fingerprint: current.fingerprint, keyId: current.keyId },
          'controller key ring loaded',
        );
        return ring;
      },
    },
    ControllerKeyRingWatcher,
    AuditWriter,
    AuthService,
    IdentityService,
    AuthResolver,
    { provide: APP_GUARD, useClass: RolesGuard },
  ],
  exports: [CONTROLLER_KEY, AuditWriter, AuthService],
})
export class AuthModule {}
