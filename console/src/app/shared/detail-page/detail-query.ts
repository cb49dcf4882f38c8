import { type Signal, computed, effect, untracked } from '@angular/core';

import { type PolledQuery, type PollOptions, pollQuery } from '../graphql/polled-query';

/** One answer of a detail page's query, with the key (the URL's name or id) it answers. */
export interface KeyedAnswer<K, T> {
  readonly key: K;
  /** Null when the API has no record under that key. */
  readonly record: T | null;
}

export interface DetailQuery<K, T> extends PolledQuery<KeyedAnswer<K, T>> {
  /**
   * The record for the key now in the URL: null when there is none, undefined
   * until its answer arrives. After the URL names another record the previous
   * one's answer must not show under the new heading, so it is undefined then too.
   */
  readonly current: Signal<T | null | undefined>;
}

export interface DetailQueryOptions<K, T> extends PollOptions {
  /** The route-bound input naming the record. */
  readonly key: Signal<K>;
  /**
   * Loads the record of `key`, null when there is none. `shown` is the
   * current answer for the same key, if any, for pages that may answer a
   * poll with it instead of a request (see PacedLoad).
   */
  readonly load: (key: K, signal: AbortSignal, shown: T | null | undefined) => Promise<T | null>;
  /** Also called when the URL names another record, before that record loads. */
  readonly keyChanged?: (key: K) => void;
}

/**
 * The query of a detail page: polls the record the URL names, loads again as
 * soon as the URL names another one (the router reuses the component), and
 * tells the record of the current key apart from a late answer for the last.
 *
 * Must be called in an injection context (a field initializer or constructor).
 */
export function detailQuery<K, T>(options: DetailQueryOptions<K, T>): DetailQuery<K, T> {
  const { key, load, keyChanged, ...pollOptions } = options;
  let query: PolledQuery<KeyedAnswer<K, T>> | undefined = undefined;
  const shownFor = (wanted: K): T | null | undefined => {
    const answer = query?.value();
    return answer !== undefined && answer.key === wanted ? answer.record : undefined;
  };
  query = pollQuery((signal) => {
    const wanted = untracked(key);
    return load(
      wanted,
      signal,
      untracked(() => shownFor(wanted)),
    ).then((record) => ({ key: wanted, record }));
  }, pollOptions);
  const polled = query;

  let shownKey: K | undefined;
  let first = true;
  effect(() => {
    const now = key();
    // The first load is pollQuery's own, after the first render; only another key needs one more.
    if (!first && shownKey !== now) {
      untracked(() => {
        keyChanged?.(now);
        polled.refresh();
      });
    }
    first = false;
    shownKey = now;
  });

  return { ...polled, current: computed(() => shownFor(key())) };
}
