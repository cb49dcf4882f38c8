import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { GqlExecutionContext, type GqlContextType } from '@nestjs/graphql';
import { endSpan, otelContext, otelTrace, tracer } from '@lunanexa/observability';
import { Observable } from 'rxjs';

/**
 * One span per GraphQL operation's root field (`graphql.mutation createDeployment`),
 * a child of the request's server span. The resolver is subscribed inside the
 * span's context, so what it starts (a Temporal workflow, through the client's
 * tracing interceptor) is the span's child. Registered only with tracing on.
 */
export class GraphqlTracingInterceptor implements NestInterceptor {
  intercept(execution: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (execution.getType<GqlContextType>() !== 'graphql') return next.handle();
    const info = GqlExecutionContext.create(execution).getInfo<{
      fieldName: string;
      parentType: { name: string };
      operation: { operation: string; name?: { value: string } | null };
    }>();
    // Field resolvers below the root are not operations.
    if (!['Query', 'Mutation', 'Subscription'].includes(info.parentType.name)) return next.handle();
    const span = tracer().startSpan(`graphql.${info.operation.operation} ${info.fieldName}`, {
      attributes: {
        'graphql.operation.type': info.operation.operation,
        'graphql.operation.name': info.operation.name?.value ?? '',
        'graphql.field.name': info.fieldName,
      },
    });
    const active = otelTrace.setSpan(otelContext.active(), span);
    return new Observable((subscriber) => {
      const subscription = otelContext.with(active, () =>
        next.handle().subscribe({
          next: (value) => subscriber.next(value),
          error: (error: unknown) => {
            endSpan(span, error);
            subscriber.error(error);
          },
          complete: () => {
            endSpan(span);
            subscriber.complete();
          },
        }),
      );
      return () => subscription.unsubscribe();
    });
  }
}
