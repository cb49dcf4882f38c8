import { Args, Query, Resolver } from '@nestjs/graphql';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { RequirePermission } from '../auth';
import { SearchService } from './search.service';
import { SearchHit } from './search.types';

@Resolver()
export class SearchResolver {
  constructor(private readonly searchService: SearchService) {}

  @RequirePermission('read')
  @Query(() => [SearchHit], {
    description:
      'Finds a request id, correlation id, workflow id, audit seq, or node / deployment / model name (prefix).',
  })
  search(@Args('term') term: string): Promise<SearchHit[]> {
    const trimmed = term.trim();
    if (
      trimmed.length < 1 ||
      trimmed.length > 300 ||
      [...trimmed].some((char) => char.charCodeAt(0) < 0x20)
    ) {
      throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'term must be 1–300 printable characters', [
        { path: 'term', message: 'must be 1–300 printable characters' },
      ]);
    }
    return this.searchService.search(trimmed);
  }
}
