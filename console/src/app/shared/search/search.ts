import { BreakpointObserver } from '@angular/cdk/layout';
import {
  ChangeDetectionStrategy,
  Component,
  DestroyRef,
  type ElementRef,
  ErrorHandler,
  Injector,
  afterNextRender,
  computed,
  inject,
  output,
  signal,
  viewChild,
} from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatIconButton } from '@angular/material/button';
import {
  MatAutocomplete,
  MatAutocompleteOrigin,
  type MatAutocompleteSelectedEvent,
  MatAutocompleteTrigger,
} from '@angular/material/autocomplete';
import { MatOption } from '@angular/material/core';
import { MatTooltip } from '@angular/material/tooltip';
import { Router } from '@angular/router';
import { map } from 'rxjs';

import { type GraphqlRequestError, asRequestError } from '../graphql/graphql-error';
import { GraphqlClient } from '../graphql/graphql-client';
import type { SearchHit } from '@lunanexa/sdk/generated/graphql';
import { Icon } from '../icon/icon';
import { SEARCH, SEARCH_TERM_MAX_LENGTH } from './search.queries';

/** Long enough not to query on every keystroke of a pasted-in or typed id, short enough to feel immediate. */
const DEBOUNCE_MS = 250;

/** Below this width the toolbar has no room for the field, so it waits behind an icon button. */
const COLLAPSED_LAYOUT = '(max-width: 599.98px)';

/** Material icon set glyphs (Apache-2.0) the shared icon set does not have yet. */
const GLYPHS = {
  search:
    'M15.5 14h-.79l-.28-.27C15.41 12.59 16 11.11 16 9.5 16 5.91 13.09 3 9.5 3S3 5.91 3 9.5 5.91 16 9.5 16c1.61 0 3.09-.59 4.23-1.57l.27.28v.79l5 4.99L20.49 19l-4.99-5zm-6 0C7.01 14 5 11.99 5 9.5S7.01 5 9.5 5 14 7.01 14 9.5 11.99 14 9.5 14z',
  close:
    'M19 6.41 17.59 5 12 10.59 6.41 5 5 6.41 10.59 12 5 17.59 6.41 19 12 13.41 17.59 19 19 17.59 13.41 12z',
} as const;

/** The API's answer for one term: its hits, or why there are none to show. */
interface SearchAnswer {
  readonly term: string;
  readonly hits: readonly SearchHit[];
  readonly error?: GraphqlRequestError;
}

/**
 * The toolbar's search box: a request, correlation or workflow id, an audit
 * seq, or the start of a node, deployment or model name, answered by the
 * API's `search` as you type. Enter opens the only hit (or the highlighted
 * one); `/` anywhere outside a text field puts the cursor here.
 */
@Component({
  selector: 'lnx-search',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    MatAutocomplete,
    MatAutocompleteOrigin,
    MatAutocompleteTrigger,
    MatIconButton,
    MatOption,
    MatTooltip,
    Icon,
  ],
  host: {
    '[class.collapsible]': 'collapsible()',
    '[class.covers-toolbar]': 'coversToolbar()',
    '(document:keydown)': 'shortcut($event)',
    '(focusout)': 'focusLeft($event)',
  },
  templateUrl: './search.html',
  styleUrl: './search.scss',
})
export class Search {
  private readonly graphql = inject(GraphqlClient);
  private readonly router = inject(Router);
  private readonly errorHandler = inject(ErrorHandler);
  private readonly injector = inject(Injector);

  /** After a hit's page is opened, so the shell can move focus to it. */
  readonly opened = output<SearchHit>();

  protected readonly glyphs = GLYPHS;
  protected readonly maxLength = SEARCH_TERM_MAX_LENGTH;

  protected readonly collapsible = toSignal(
    inject(BreakpointObserver)
      .observe(COLLAPSED_LAYOUT)
      .pipe(map((state) => state.matches)),
    { initialValue: false },
  );
  private readonly expanded = signal(false);
  protected readonly fieldShown = computed(() => !this.collapsible() || this.expanded());
  /** On a phone the open field takes the whole toolbar row; the shell hides what it would cover. */
  readonly coversToolbar = computed(() => this.collapsible() && this.expanded());

  /** What is in the box, trimmed: what the API is asked about. */
  protected readonly term = signal('');
  private readonly answer = signal<SearchAnswer | undefined>(undefined);
  /** The term whose lookup is running (or waiting out the debounce), if any. */
  private readonly pending = signal<string | undefined>(undefined);
  /** The answer for what is in the box now; undefined while that is still being looked up. */
  protected readonly current = computed(() => {
    const answer = this.answer();
    return answer?.term === this.term() && this.pending() !== answer.term ? answer : undefined;
  });
  /**
   * Read out by screen readers when an answer arrives: the messages in the
   * list are disabled options, which the arrow keys skip.
   */
  protected readonly announcement = computed(() => {
    const answer = this.current();
    if (answer === undefined) {
      return '';
    }
    if (answer.error) {
      return `Search failed: ${answer.error.code}: ${answer.error.message}`;
    }
    if (answer.hits.length === 0) {
      // Worded unlike the visible "No match for …" (and no hit is named below either),
      // so that looking for the list's text on the page finds it once.
      return `No results for “${answer.term}”.`;
    }
    return answer.hits.length === 1
      ? '1 result. Press Enter to open it.'
      : `${answer.hits.length} results. Use the arrow keys to choose one.`;
  });

  private readonly input = viewChild<ElementRef<HTMLInputElement>>('input');
  private readonly trigger = viewChild(MatAutocompleteTrigger);
  private readonly expandButton = viewChild('expandButton', { read: MatIconButton });

  private debounce: ReturnType<typeof setTimeout> | undefined;
  private inFlight: AbortController | undefined;
  /** Enter was pressed before the answer for the term arrived: open its hit when it does. */
  private openWhenAnswered = false;

  /** What the box shows for a picked hit: nothing, as picking one opens its page. */
  protected readonly noDisplay = (): string => '';

  constructor() {
    inject(DestroyRef).onDestroy(() => this.cancel());
  }

  protected typed(text: string): void {
    const term = text.trim();
    if (term === this.term()) {
      return;
    }
    this.cancel();
    this.term.set(term);
    if (term === '' || this.answer()?.term === term) {
      return;
    }
    this.pending.set(term);
    this.debounce = setTimeout(() => this.lookUp(term), DEBOUNCE_MS);
  }

  protected enter(event: Event): void {
    const trigger = this.trigger();
    if (event.defaultPrevented || (trigger?.panelOpen && trigger.activeOption)) {
      // The autocomplete opens the highlighted option itself.
      return;
    }
    event.preventDefault();
    const term = this.term();
    if (term === '') {
      return;
    }
    const answer = this.current();
    if (answer !== undefined && !answer.error) {
      this.openOnlyHit(answer);
      return;
    }
    this.openWhenAnswered = true;
    if (this.inFlight === undefined) {
      // Now rather than after the pause; after a failure, this is the retry.
      this.lookUp(term);
    }
  }

  /** A first Escape closes the list (the autocomplete does that); the next one empties the box. */
  protected escape(): void {
    if (this.trigger()?.panelOpen) {
      return;
    }
    this.clear();
    if (this.coversToolbar()) {
      this.collapse();
    }
  }

  protected selected(event: MatAutocompleteSelectedEvent): void {
    // Only hits are selectable; the messages (no match, failure, searching) are disabled options.
    const hit = this.current()?.hits.find((candidate) => candidate === event.option.value);
    if (hit !== undefined) {
      this.open(hit);
    }
  }

  protected expand(): void {
    this.expanded.set(true);
    this.focusField();
  }

  protected collapse(): void {
    this.clear();
    this.expanded.set(false);
    afterNextRender(() => this.expandButton()?.focus(), { injector: this.injector });
  }

  protected clearAndFocus(): void {
    this.clear();
    this.input()?.nativeElement.focus();
  }

  /** `/` puts the cursor in the box from anywhere, except where it is typed as text or a dialog has the keyboard. */
  protected shortcut(event: KeyboardEvent): void {
    if (
      event.key !== '/' ||
      event.ctrlKey ||
      event.metaKey ||
      event.altKey ||
      event.isComposing ||
      event.defaultPrevented ||
      takesText(event.target) ||
      inOverlay(event.target)
    ) {
      return;
    }
    event.preventDefault();
    if (this.fieldShown()) {
      this.input()?.nativeElement.focus();
    } else {
      this.expand();
    }
  }

  /**
   * An opened but unused field on a phone folds away again when the operator
   * moves on. Only the input's own blur counts: the Search button, too, loses
   * focus when the field replaces it.
   */
  protected focusLeft(event: FocusEvent): void {
    const next = event.relatedTarget;
    const host = event.currentTarget;
    if (
      event.target !== this.input()?.nativeElement ||
      !this.coversToolbar() ||
      this.term() !== '' ||
      (next instanceof Node && host instanceof Node && host.contains(next))
    ) {
      return;
    }
    this.expanded.set(false);
  }

  private focusField(): void {
    afterNextRender(() => this.input()?.nativeElement.focus(), { injector: this.injector });
  }

  private lookUp(term: string): void {
    clearTimeout(this.debounce);
    this.inFlight?.abort();
    const attempt = new AbortController();
    this.inFlight = attempt;
    this.pending.set(term);
    void this.graphql.request(SEARCH, { term }, { signal: attempt.signal }).then(
      (data) => this.answered(attempt, { term, hits: data.search }),
      (failure: unknown) => {
        if (!attempt.signal.aborted) {
          this.answered(attempt, { term, hits: [], error: asRequestError(failure, this.errorHandler) });
        }
      },
    );
  }

  private answered(attempt: AbortController, answer: SearchAnswer): void {
    if (this.inFlight !== attempt) {
      return;
    }
    this.inFlight = undefined;
    this.pending.set(undefined);
    this.answer.set(answer);
    if (this.openWhenAnswered && answer.term === this.term()) {
      this.openWhenAnswered = false;
      if (!answer.error) {
        this.openOnlyHit(answer);
      }
    }
  }

  /** Enter without a highlighted option: one hit is opened; for several, the list stays open to pick from. */
  private openOnlyHit(answer: SearchAnswer): void {
    const [only, ...others] = answer.hits;
    if (only !== undefined && others.length === 0) {
      this.open(only);
    } else {
      this.trigger()?.openPanel();
    }
  }

  private open(hit: SearchHit): void {
    this.trigger()?.closePanel();
    this.clear();
    this.expanded.set(false);
    void this.router.navigateByUrl(hit.route).then(
      () => this.opened.emit(hit),
      (failure: unknown) => this.errorHandler.handleError(failure),
    );
  }

  /** Empties the box and forgets the last answer. */
  private clear(): void {
    this.cancel();
    this.term.set('');
    this.answer.set(undefined);
    // Through the autocomplete, so that it knows the box is empty and reopens on the next keystroke.
    this.trigger()?.writeValue('');
  }

  private cancel(): void {
    clearTimeout(this.debounce);
    this.inFlight?.abort();
    this.inFlight = undefined;
    this.pending.set(undefined);
    this.openWhenAnswered = false;
  }
}

/** Whether a key pressed on `target` is typed into it (a text field, a select, an editable region). */
function takesText(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable ||
      target.closest('input, textarea, select, [role="combobox"], [role="textbox"]') !== null)
  );
}

/** Whether `target` is in a dialog, menu or other overlay, which keeps the keyboard while it is open. */
function inOverlay(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('.cdk-overlay-container') !== null;
}
