import { graphqlOperation } from '../graphql/graphql-operation';
import type { LoginInput, LoginResult } from '../graphql/schema-types';

export const LOGIN = graphqlOperation<{ readonly login: LoginResult }, { readonly input: LoginInput }>(`
  mutation ConsoleLogin($input: LoginInput!) {
    login(input: $input) {
      accessToken
      expiresAt
      operator { id username role }
    }
  }
`);

/** Ends every session of the caller's account, not only this tab's. */
export const LOGOUT = graphqlOperation<{ readonly logout: boolean }>(`
  mutation ConsoleLogout {
    logout
  }
`);
