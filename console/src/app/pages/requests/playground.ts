import {
  ChangeDetectionStrategy,
  Component,
  DestroyRef,
  ElementRef,
  ErrorHandler,
  computed,
  effect,
  inject,
  input,
  output,
  signal,
  untracked,
  viewChild,
} from '@angular/core';
import { FormControl, NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButton } from '@angular/material/button';
import { MatCard, MatCardContent, MatCardHeader, MatCardTitle } from '@angular/material/card';
import { MatError, MatFormField, MatHint, MatLabel } from '@angular/material/form-field';
import { MatInput } from '@angular/material/input';
import { MatOption, MatSelect } from '@angular/material/select';
import { RouterLink } from '@angular/router';
import { rolesWithPermission } from '@lunanexa/contracts/roles';

import { CopyButton } from '../../shared/copy-button/copy-button';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { DurationPipe } from '../../shared/format/duration';
import { type GraphqlRequestError, asRequestError } from '../../shared/graphql/graphql-error';
import { Icon } from '../../shared/icon/icon';
import { Session } from '../../shared/session/session';
import {
  DEFAULT_MAX_TOKENS,
  MAX_TOKENS_LIMIT,
  type PlaygroundIds,
  type PlaygroundMessage,
  type PlaygroundOutcome,
  PlaygroundClient,
} from './playground-client';
import { REQUESTS_PATH, requestLinkParams, takesRequests } from './requests-view';
import type { DeploymentChoice } from './requests.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

/** The largest seed the endpoint takes (a non-negative 32-bit integer). */
const MAX_SEED = 2 ** 31 - 1;
/** The endpoint's limit on one message. */
const MAX_MESSAGE_LENGTH = 32_768;

type RunState = 'idle' | 'streaming' | 'done' | 'stopped' | 'failed';

/**
 * Sends one chat request to a deployment through the gateway and streams the
 * reply in, so an operator can check a deployment end to end and then find
 * the request in the list by its id. Needs the operate permission; other
 * roles see the form disabled, with the reason.
 */
@Component({
  selector: 'lnx-playground',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ProgressSlot,
    ReactiveFormsModule,
    RouterLink,
    MatButton,
    MatCard,
    MatCardContent,
    MatCardHeader,
    MatCardTitle,
    MatError,
    MatFormField,
    MatHint,
    MatInput,
    MatLabel,
    MatOption,
    MatSelect,
    CopyButton,
    DurationPipe,
    ErrorPanel,
    Icon,
  ],
  templateUrl: './playground.html',
  styleUrl: './playground.scss',
})
export class Playground {
  /** Every deployment; undefined until loaded. The select offers those that take requests. */
  readonly deployments = input<readonly DeploymentChoice[] | undefined>();
  /** After each request that reached the API (finished, stopped or failed), so the page can refresh. */
  readonly finished = output<PlaygroundIds>();

  private readonly client = inject(PlaygroundClient);
  private readonly session = inject(Session);
  private readonly errorHandler = inject(ErrorHandler);
  private readonly heading = viewChild.required<ElementRef<HTMLElement>>('heading');
  private readonly messageField = viewChild.required<ElementRef<HTMLTextAreaElement>>('message');

  protected readonly requestsPath = REQUESTS_PATH;
  protected readonly requestLinkParams = requestLinkParams;
  protected readonly maxTokensLimit = MAX_TOKENS_LIMIT;
  protected readonly maxSeed = MAX_SEED;
  protected readonly maxMessageLength = MAX_MESSAGE_LENGTH;

  protected readonly canSend = computed(() => this.session.can('operate'));
  protected readonly sendRoles = rolesWithPermission('operate').join(' or ');
  protected readonly role = this.session.role;

  protected readonly choices = computed(() => (this.deployments() ?? []).filter(takesRequests));

  protected readonly form = inject(NonNullableFormBuilder).group({
    deployment: ['', Validators.required],
    system: ['', Validators.maxLength(MAX_MESSAGE_LENGTH)],
    message: ['', [Validators.required, Validators.maxLength(MAX_MESSAGE_LENGTH)]],
    maxTokens: [
      DEFAULT_MAX_TOKENS,
      [Validators.required, Validators.min(1), Validators.max(MAX_TOKENS_LIMIT)],
    ],
    seed: new FormControl<number | null>(null, [Validators.min(0), Validators.max(MAX_SEED)]),
  });

  protected readonly state = signal<RunState>('idle');
  protected readonly streaming = computed(() => this.state() === 'streaming');
  protected readonly reply = signal('');
  protected readonly ids = signal<PlaygroundIds | undefined>(undefined);
  protected readonly outcome = signal<PlaygroundOutcome | undefined>(undefined);
  protected readonly error = signal<GraphqlRequestError | undefined>(undefined);
  /** From Send to the first reply text, measured in this browser. */
  protected readonly timeToFirstTokenMs = signal<number | null>(null);
  /** The gateway's count when the stream reported usage, otherwise the text pieces received. */
  protected readonly tokenCount = computed(() => {
    const tokens = this.outcome()?.completionTokens ?? null;
    if (tokens !== null) {
      return `${tokens} completion ${tokens === 1 ? 'token' : 'tokens'}`;
    }
    const chunks = this.chunks();
    return `${chunks} ${chunks === 1 ? 'chunk' : 'chunks'} received`;
  });

  protected readonly placeholder = computed(() => {
    switch (this.state()) {
      case 'idle':
        return 'The reply streams in here.';
      case 'streaming':
        return 'Waiting for the first token…';
      case 'failed':
        return 'No reply.';
      default:
        return 'The reply was empty.';
    }
  });
  /** Reply text pieces received; the token count when the stream does not report usage. */
  protected readonly chunks = signal(0);

  private running: AbortController | undefined;

  constructor() {
    // Offer the first deployment that takes requests, and move off one that stopped taking them.
    effect(() => {
      const names = this.choices().map((choice) => choice.name);
      untracked(() => {
        const control = this.form.controls.deployment;
        if (!names.includes(control.value)) {
          control.setValue(names[0] ?? '');
        }
      });
    });
    // A viewer sees the form as it would be, but cannot use it.
    effect(() => {
      if (this.canSend()) {
        this.form.enable();
      } else {
        this.form.disable();
      }
    });
    inject(DestroyRef).onDestroy(() => this.running?.abort());
  }

  /** Brings the playground into view and puts the caret in Message (the empty state's way here). */
  focus(): void {
    this.heading().nativeElement.scrollIntoView({ block: 'start' });
    if (this.canSend()) {
      this.messageField().nativeElement.focus({ preventScroll: true });
    }
  }

  protected send(): void {
    if (!this.canSend() || this.streaming()) {
      return;
    }
    if (this.form.invalid) {
      this.form.markAllAsTouched();
      return;
    }
    const raw = this.form.getRawValue();
    const messages: PlaygroundMessage[] = [
      ...(raw.system.trim() ? [{ role: 'system' as const, content: raw.system }] : []),
      { role: 'user', content: raw.message },
    ];
    const attempt = new AbortController();
    this.running = attempt;
    const sentAt = performance.now();
    this.state.set('streaming');
    this.reply.set('');
    this.ids.set(undefined);
    this.outcome.set(undefined);
    this.error.set(undefined);
    this.timeToFirstTokenMs.set(null);
    this.chunks.set(0);

    const current = (): boolean => this.running === attempt;
    void this.client
      .chat(
        {
          deployment: raw.deployment,
          messages,
          maxTokens: raw.maxTokens,
          ...(raw.seed === null ? {} : { seed: raw.seed }),
        },
        {
          onIds: (ids) => {
            if (current()) {
              this.ids.set(ids);
            }
          },
          onDelta: (text) => {
            if (!current()) {
              return;
            }
            if (this.timeToFirstTokenMs() === null) {
              this.timeToFirstTokenMs.set(performance.now() - sentAt);
            }
            this.chunks.update((count) => count + 1);
            this.reply.update((reply) => reply + text);
          },
        },
        attempt.signal,
      )
      .then(
        (outcome) => {
          if (current()) {
            this.outcome.set(outcome);
            this.state.set('done');
          }
        },
        (failure: unknown) => {
          if (!current()) {
            return;
          }
          if (attempt.signal.aborted) {
            this.state.set('stopped');
            return;
          }
          this.error.set(asRequestError(failure, this.errorHandler));
          this.state.set('failed');
        },
      )
      .finally(() => {
        if (!current()) {
          return;
        }
        this.running = undefined;
        const ids = this.ids();
        if (ids !== undefined) {
          this.finished.emit(ids);
        }
      });
  }

  protected stop(): void {
    this.running?.abort();
  }
}
