import { expect } from 'chai';
import {
  OpenAiChatChunkSchema,
  OpenAiChatResponseSchema,
  OpenAiCompletionChunkSchema,
  OpenAiCompletionResponseSchema,
  openAiChatChunkToWorkload,
  openAiChatResponseToWorkload,
  openAiCompletionResponseToWorkload,
  workloadResponseToOpenAiChat,
  workloadResponseToOpenAiCompletion,
  openAiCompletionChunkToWorkload,
  workloadChunkToOpenAiChat,
  workloadChunkToOpenAiCompletion,
  type WorkloadKind,
} from '@lunanexa/contracts';
import {
  OpenAiStreamWriter,
  openAiCompletionJson,
  readUpstreamChunk,
  readUpstreamCompletion,
} from '../src/openai-stream';

const servedBy = { model: 'llama-3-1-8b-instruct@2024-07-23', alias: 'chat', deploymentId: 'dep-1' };
const REQUEST_ID = 'b1e4c5d2-1f0a-4e8b-9c7d-6a5b4c3d2e1f';
const CREATED = 1763629000;

/** What the gateway wrote before the fast path: parse, map to the generic chunk, map back, stringify. */
function reference(kind: WorkloadKind, body: unknown, sequence: number, includeUsage: boolean): string {
  const context = { id: REQUEST_ID, sequence, servedBy };
  const options = { created: CREATED, includeUsage };
  const chunks =
    kind === 'chat'
      ? workloadChunkToOpenAiChat(
          openAiChatChunkToWorkload(OpenAiChatChunkSchema.parse(body), context),
          options,
        )
      : workloadChunkToOpenAiCompletion(
          openAiCompletionChunkToWorkload(OpenAiCompletionChunkSchema.parse(body), context),
          options,
        );
  return chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('');
}

function fast(
  kind: WorkloadKind,
  body: unknown,
  sequence: number,
  includeUsage: boolean,
): string | undefined {
  const chunk = readUpstreamChunk(kind, body);
  if (chunk === undefined) return undefined;
  return new OpenAiStreamWriter(kind, REQUEST_ID, CREATED, servedBy.model, includeUsage).events(
    chunk,
    sequence,
  );
}

const chatBase = { id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 5, model: 'served' };
const completionBase = { id: 'cmpl-up', object: 'text_completion', created: 5, model: 'served' };
const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };

const CHAT_CHUNKS: unknown[] = [
  { ...chatBase, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
  { ...chatBase, choices: [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }] },
  {
    ...chatBase,
    choices: [{ index: 0, delta: { content: 'quote " and \\ and \n and é 🚀' }, finish_reason: null }],
  },
  { ...chatBase, choices: [{ index: 0, delta: { content: null }, finish_reason: null, logprobs: null }] },
  { ...chatBase, choices: [{ index: 0, delta: {}, finish_reason: 'stop', stop_reason: null }] },
  { ...chatBase, choices: [{ index: 0, delta: {}, finish_reason: 'length' }], usage: null },
  {
    ...chatBase,
    choices: [
      { index: 0, delta: { content: 'a' }, finish_reason: null },
      { index: 1, delta: { content: 'b' }, finish_reason: null },
    ],
  },
  { ...chatBase, choices: [], usage },
  {
    ...chatBase,
    system_fingerprint: 'fp_vendor',
    choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }],
    usage,
  },
];

const COMPLETION_CHUNKS: unknown[] = [
  { ...completionBase, choices: [{ index: 0, text: 'Hel', finish_reason: null }] },
  { ...completionBase, choices: [{ index: 0, text: '', finish_reason: 'stop', logprobs: null }] },
  { ...completionBase, choices: [{ index: 0, text: '"\\\t', finish_reason: null }] },
  { ...completionBase, choices: [], usage },
];

describe('OpenAI stream relay fast path', () => {
  for (const [kind, chunks] of [
    ['chat', CHAT_CHUNKS],
    ['completion', COMPLETION_CHUNKS],
  ] as const) {
    it(`writes exactly what the reference mapping writes for every ${kind} chunk shape, sequence and usage option`, () => {
      let compared = 0;
      for (const body of chunks)
        for (const sequence of [0, 1, 7])
          for (const includeUsage of [false, true]) {
            const expected = reference(kind, body, sequence, includeUsage);
            expect(
              fast(kind, body, sequence, includeUsage),
              JSON.stringify({ body, sequence, includeUsage }),
            ).to.equal(expected);
            compared += 1;
          }
      expect(compared).to.equal(chunks.length * 6);
    });
  }

  it('leaves to the reference path whatever it does not recognise, which the reference refuses', () => {
    const odd: unknown[] = [
      { ...chatBase, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
      { ...chatBase, choices: [{ index: 0, delta: { content: 3 }, finish_reason: null }] },
      { ...chatBase, choices: [{ index: -1, delta: {}, finish_reason: null }] },
      { ...chatBase, choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 9 } },
      { ...chatBase, object: 'chat.completion', choices: [] },
      { ...chatBase, id: '', choices: [] },
      { ...chatBase, choices: 'none' },
      { ...completionBase, object: 'chat.completion.chunk', choices: [] },
      null,
      'text',
    ];
    for (const body of odd) {
      expect(readUpstreamChunk(body === odd[7] ? 'completion' : 'chat', body), JSON.stringify(body)).to.equal(
        undefined,
      );
      expect(
        () => reference(body === odd[7] ? 'completion' : 'chat', body, 1, true),
        JSON.stringify(body),
      ).to.throw();
    }
  });
});

/** What the gateway answers a non-streamed call with on the reference path (its createdAt is the gateway's). */
function referenceCompletion(kind: WorkloadKind, body: unknown): string {
  const context = { id: REQUEST_ID, servedBy, correlation: {} };
  const createdAt = new Date(CREATED * 1000).toISOString();
  if (kind === 'chat') {
    const response = openAiChatResponseToWorkload(OpenAiChatResponseSchema.parse(body), context);
    return JSON.stringify(workloadResponseToOpenAiChat({ ...response, createdAt }));
  }
  const response = openAiCompletionResponseToWorkload(OpenAiCompletionResponseSchema.parse(body), context);
  return JSON.stringify(workloadResponseToOpenAiCompletion({ ...response, createdAt }));
}

const chatResponse = { id: 'chatcmpl-up', object: 'chat.completion', created: 5, model: 'served', usage };
const completionResponse = { id: 'cmpl-up', object: 'text_completion', created: 5, model: 'served', usage };

describe('OpenAI non-streamed relay fast path', () => {
  const shapes: [WorkloadKind, unknown][] = [
    [
      'chat',
      {
        ...chatResponse,
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
      },
    ],
    [
      'chat',
      {
        ...chatResponse,
        system_fingerprint: 'fp',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'quote " \\ \n é 🚀' },
            finish_reason: 'length',
            logprobs: null,
          },
          {
            index: 1,
            message: { role: 'assistant', content: null },
            finish_reason: 'stop',
            stop_reason: null,
          },
        ],
      },
    ],
    ['completion', { ...completionResponse, choices: [{ index: 0, text: 'Hel"lo', finish_reason: 'stop' }] }],
    [
      'completion',
      { ...completionResponse, choices: [{ index: 0, text: '', finish_reason: 'length', logprobs: null }] },
    ],
  ];

  it('writes exactly what the reference mapping writes for every plain shape', () => {
    for (const [kind, body] of shapes) {
      const relayed = readUpstreamCompletion(kind, body);
      expect(relayed, JSON.stringify(body)).to.not.equal(undefined);
      expect(openAiCompletionJson(kind, REQUEST_ID, CREATED, servedBy.model, relayed!)).to.equal(
        referenceCompletion(kind, body),
      );
    }
  });

  it('leaves to the reference path whatever it does not recognise, which the reference refuses', () => {
    const odd: [WorkloadKind, unknown][] = [
      ['chat', { ...chatResponse, choices: [] }],
      [
        'chat',
        {
          ...chatResponse,
          choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: null }],
        },
      ],
      [
        'chat',
        {
          ...chatResponse,
          choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'tool_calls' }],
        },
      ],
      [
        'chat',
        {
          ...chatResponse,
          choices: [{ index: 0, message: { role: 'user', content: 'x' }, finish_reason: 'stop' }],
        },
      ],
      [
        'chat',
        {
          ...chatResponse,
          choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 3 },
        },
      ],
      [
        'chat',
        {
          ...chatResponse,
          usage: undefined,
          choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'stop' }],
        },
      ],
      ['completion', { ...chatResponse, choices: [{ index: 0, text: 'x', finish_reason: 'stop' }] }],
      ['completion', { ...completionResponse, choices: [{ index: 0, text: 4, finish_reason: 'stop' }] }],
      ['chat', null],
    ];
    for (const [kind, body] of odd) {
      expect(readUpstreamCompletion(kind, body), JSON.stringify(body)).to.equal(undefined);
      expect(() => referenceCompletion(kind, body), JSON.stringify(body)).to.throw();
    }
  });
});
