/** The query parameter that selects one node in the Nodes view; see nodes.ts for why it is not a path segment. */
export const NODE_QUERY_PARAM = 'node';

/** `queryParams` for a link to one node's detail. */
export function nodeDetailParams(name: string): Readonly<Record<string, string>> {
  return { [NODE_QUERY_PARAM]: name };
}

/** Heartbeats arrive every few seconds; polling faster than this would mostly re-read the same lease. */
export const REFRESH_INTERVAL_MS = 10_000;

/** Dialogs fill a phone screen but stay readable on a desktop one. */
export const DIALOG_SIZE = { width: '640px', maxWidth: 'calc(100vw - 32px)' } as const;
