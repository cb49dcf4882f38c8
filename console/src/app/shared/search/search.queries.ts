import { graphqlOperation } from '../graphql/graphql-operation';
import type { SearchHit } from '@lunanexa/sdk/generated/graphql';

/** The API refuses longer terms (VALIDATION_FAILED), so the box stops accepting text there. */
export const SEARCH_TERM_MAX_LENGTH = 300;

export const SEARCH = graphqlOperation<{ readonly search: readonly SearchHit[] }, { readonly term: string }>(`
  query ConsoleSearch($term: String!) {
    search(term: $term) {
      kind
      title
      detail
      route
      temporalUiUrl
    }
  }
`);
