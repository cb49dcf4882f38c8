import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { Logger } from '@lunanexa/observability';
import { API_CONFIG, API_LOGGER, controllerKeyFile, type ApiConfig } from '../config';
import { AuditWriter } from './audit-writer';
import { CONTROLLER_KEY } from './auth.constants';
import { AuthResolver } from './auth.resolver';
import { AuthService } from './auth.service';
import { loadOrCreateControllerKey, type ControllerKey } from './controller-key';
import { IdentityService } from './identity.service';
import { RolesGuard } from './roles.guard';

/**
 * Operator identity and roles: the controller key, sessions, API tokens,
 * accounts, and the global deny-by-default RolesGuard. Global so other
 * modules can inject CONTROLLER_KEY (assignment signing) and AuditWriter.
 */
@Global()
@Module({
  providers: [
    {
      provide: CONTROLLER_KEY,
      inject: [API_CONFIG, API_LOGGER],
      useFactory: (config: ApiConfig, logger: Logger): ControllerKey => {
        const key = loadOrCreateControllerKey(controllerKeyFile(config));
        logger.info({ file: key.file, fingerprint: key.fingerprint }, 'controller key loaded');
        return key;
      },
    },
    AuditWriter,
    AuthService,
    IdentityService,
    AuthResolver,
    { provide: APP_GUARD, useClass: RolesGuard },
  ],
  exports: [CONTROLLER_KEY, AuditWriter, AuthService],
})
export class AuthModule {}
