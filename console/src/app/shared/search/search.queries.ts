import { ConsoleSearchDocument } from '@lunanexa/sdk/generated/operations';

/** The API refuses longer terms (VALIDATION_FAILED), so the box stops accepting text there. */
export const SEARCH_TERM_MAX_LENGTH = 300;

/** libs/sdk/graphql/console/search.graphql */
export const SEARCH = ConsoleSearchDocument;
