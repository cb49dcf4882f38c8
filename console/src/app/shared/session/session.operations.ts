import { ConsoleLoginDocument, ConsoleLogoutDocument } from '@lunanexa/sdk/generated/operations';

/* libs/sdk/graphql/console/session.graphql */

export const LOGIN = ConsoleLoginDocument;

/** Ends every session of the caller's account, not only this tab's. */
export const LOGOUT = ConsoleLogoutDocument;
