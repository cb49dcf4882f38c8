import { expect } from 'chai';
import { canonicalJson } from '../src/canonical-json';
import { ERROR_CODES, ErrorCode, LunaNexaError } from '../src/errors';
import {
  OpenAiChatChunkSchema,
  OpenAiChatRequestSchema,
  OpenAiChatResponseSchema,
  OpenAiCompletionChunkSchema,
  OpenAiCompletionRequestSchema,
  OpenAiCompletionResponseSchema,
  openAiChatChunkToWorkload,
  openAiChatRequestToWorkload,
  openAiChatResponseToWorkload,
  openAiCompletionChunkToWorkload,
  openAiCompletionRequestToWorkload,
  openAiCompletionResponseToWorkload,
  type OpenAiRequestContext,
  OPENAI_ERROR_TYPE_BY_CODE,
  openAiErrorFromProblem,
  unixSeconds,
  workloadChunkToOpenAiChat,
  workloadChunkToOpenAiCompletion,
  workloadResponseToOpenAiChat,
  workloadResponseToOpenAiCompletion,
  workloadToOpenAiChatRequest,
  workloadToOpenAiCompletionRequest,
} from '../src/openai';
import { OpenAiErrorSchema, ProblemDetailsSchema } from '../src/problem';
import { WorkloadDeltaChunkSchema, type WorkloadDeltaChunk } from '../src/streaming';
import {
  ChatWorkloadRequestSchema,
  CompletionWorkloadRequestSchema,
  WorkloadResponseSchema,
  type ChatWorkloadRequest,
} from '../src/workload';
import { expectErrorCode, fixture } from './helpers';

const chatRequest = (): ChatWorkloadRequest =>
  ChatWorkloadRequestSchema.parse(fixture('workload-request.chat.json'));
const contextOf = (request: ChatWorkloadRequest): OpenAiRequestContext => ({
  dataClass: request.dataClass,
  priority: request.priority,
  ...(request.deadlineMs !== undefined ? { deadlineMs: request.deadlineMs } : {}),
  correlation: request.correlation,
});
const minimalChat = { model: 'chat-default', messages: [{ role: 'user', content: 'hi' }] };

describe('OpenAI mapping', () => {
  describe('chat requests', () => {
    it('maps the generic chat fixture to the OpenAI fixture and back', () => {
      const generic = chatRequest();
      const openai = workloadToOpenAiChatRequest(generic);
      expect(canonicalJson(openai)).to.equal(
        canonicalJson(OpenAiChatRequestSchema.parse(fixture('openai-chat-request.json'))),
      );
      expect(
        openAiChatRequestToWorkload(OpenAiChatRequestSchema.parse(openai), contextOf(generic)),
      ).to.deep.equal(generic);
    });

    it('round-trips a streamed request and always asks the runtime for usage', () => {
      const generic = ChatWorkloadRequestSchema.parse(fixture('workload-request.chat-stream.json'));
      const openai = OpenAiChatRequestSchema.parse(fixture('openai-chat-request.stream.json'));
      expect(workloadToOpenAiChatRequest(generic)).to.deep.equal(openai);
      expect(openai.stream_options).to.deep.equal({ include_usage: true });
      expect(openAiChatRequestToWorkload(openai, contextOf(generic))).to.deep.equal(generic);
    });

    it('substitutes the runtime served-model name when given', () => {
      expect(workloadToOpenAiChatRequest(chatRequest(), 'served-llama').model).to.equal('served-llama');
    });

    it('reads a plain model string as an alias and name@version as a pinned model', () => {
      const ctx: OpenAiRequestContext = { dataClass: 'public' };
      expect(
        openAiChatRequestToWorkload(OpenAiChatRequestSchema.parse(minimalChat), ctx).target,
      ).to.deep.equal({ alias: 'chat-default' });
      const pinned = OpenAiChatRequestSchema.parse({
        ...minimalChat,
        model: 'llama-3-1-8b-instruct@2024-07-23',
      });
      expect(openAiChatRequestToWorkload(pinned, ctx).target).to.deep.equal({
        model: 'llama-3-1-8b-instruct@2024-07-23',
      });
    });

    it('applies defaults from the context and produces a schema-valid workload', () => {
      const mapped = openAiChatRequestToWorkload(OpenAiChatRequestSchema.parse(minimalChat), {
        dataClass: 'internal',
      });
      expect(mapped).to.deep.equal(ChatWorkloadRequestSchema.parse(mapped));
      expect(mapped.priority).to.equal('normal');
      expect(mapped.stream).to.equal(false);
      expect(mapped.parameters).to.deep.equal({});
    });

    it('normalises OpenAI variants: string stop, developer role, text parts, nulls', () => {
      const request = OpenAiChatRequestSchema.parse({
        model: 'chat-default',
        messages: [
          { role: 'developer', content: 'be brief' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'a' },
              { type: 'text', text: 'b' },
            ],
          },
        ],
        stop: 'END',
        temperature: null,
        seed: null,
      });
      const mapped = openAiChatRequestToWorkload(request, { dataClass: 'public' });
      expect(mapped.messages).to.deep.equal([
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'a\nb' },
      ]);
      expect(mapped.parameters).to.deep.equal({ stop: ['END'] });
    });

    it('accepts max_completion_tokens and refuses a disagreeing max_tokens', () => {
      const agreeing = OpenAiChatRequestSchema.parse({ ...minimalChat, max_completion_tokens: 64 });
      expect(openAiChatRequestToWorkload(agreeing, { dataClass: 'public' }).parameters.maxTokens).to.equal(
        64,
      );
      const conflicting = OpenAiChatRequestSchema.parse({
        ...minimalChat,
        max_tokens: 32,
        max_completion_tokens: 64,
      });
      const error = expectErrorCode(
        () => openAiChatRequestToWorkload(conflicting, { dataClass: 'public' }),
        ErrorCode.VALIDATION_FAILED,
      );
      expect(error.violations.map((violation) => violation.path)).to.deep.equal(['max_completion_tokens']);
    });

    it('drops the OpenAI user field so caller identity never reaches a node', () => {
      const request = OpenAiChatRequestSchema.parse({ ...minimalChat, user: 'alice@example.com' });
      const mapped = openAiChatRequestToWorkload(request, { dataClass: 'public' });
      expect(JSON.stringify(mapped)).to.not.include('alice');
    });

    it('refuses an out-of-range deadline from the context', () => {
      const request = OpenAiChatRequestSchema.parse(minimalChat);
      expectErrorCode(
        () => openAiChatRequestToWorkload(request, { dataClass: 'public', deadlineMs: 0 }),
        ErrorCode.VALIDATION_FAILED,
      );
    });

    for (const [label, extra] of [
      ['tools', { tools: [] }],
      ['n > 1', { n: 2 }],
      ['logprobs', { logprobs: true }],
      ['a non-zero presence penalty', { presence_penalty: 0.5 }],
      ['an invalid model name', { model: 'Chat Default' }],
    ] as const) {
      it(`refuses ${label}`, () => {
        expect(OpenAiChatRequestSchema.safeParse({ ...minimalChat, ...extra }).success).to.equal(false);
      });
    }
  });

  describe('completion requests', () => {
    it('maps the pinned completion fixture to the OpenAI fixture and back', () => {
      const generic = CompletionWorkloadRequestSchema.parse(
        fixture('workload-request.completion-pinned.json'),
      );
      const openai = OpenAiCompletionRequestSchema.parse(fixture('openai-completion-request.json'));
      expect(workloadToOpenAiCompletionRequest(generic)).to.deep.equal(openai);
      expect(
        openAiCompletionRequestToWorkload(openai, {
          dataClass: generic.dataClass,
          priority: generic.priority,
          correlation: generic.correlation,
        }),
      ).to.deep.equal(generic);
    });

    it('accepts a one-element prompt array and refuses batches', () => {
      const single = OpenAiCompletionRequestSchema.parse({ model: 'm', prompt: ['hello'] });
      expect(openAiCompletionRequestToWorkload(single, { dataClass: 'public' }).prompt).to.equal('hello');
      expect(OpenAiCompletionRequestSchema.safeParse({ model: 'm', prompt: ['a', 'b'] }).success).to.equal(
        false,
      );
    });
  });

  describe('responses', () => {
    const chatResponse = () => WorkloadResponseSchema.parse(fixture('workload-response.chat.json'));

    it('maps a generic chat response to the OpenAI fixture and back', () => {
      const generic = chatResponse();
      const openai = workloadResponseToOpenAiChat(generic);
      expect(openai).to.deep.equal(OpenAiChatResponseSchema.parse(fixture('openai-chat-response.json')));
      expect(openai.id).to.equal(`chatcmpl-${generic.id}`);
      expect(
        openAiChatResponseToWorkload(openai, {
          id: generic.id,
          servedBy: generic.servedBy,
          correlation: generic.correlation,
        }),
      ).to.deep.equal(generic);
    });

    it('maps a generic completion response to the OpenAI fixture and back', () => {
      const generic = WorkloadResponseSchema.parse(fixture('workload-response.completion.json'));
      const openai = workloadResponseToOpenAiCompletion(generic);
      expect(openai).to.deep.equal(
        OpenAiCompletionResponseSchema.parse(fixture('openai-completion-response.json')),
      );
      expect(
        openAiCompletionResponseToWorkload(openai, {
          id: generic.id,
          servedBy: generic.servedBy,
          correlation: generic.correlation,
        }),
      ).to.deep.equal(generic);
    });

    it('treats unsupported upstream finish reasons and inconsistent usage as upstream failures', () => {
      const generic = chatResponse();
      const context = { id: generic.id, servedBy: generic.servedBy, correlation: generic.correlation };
      const openai = workloadResponseToOpenAiChat(generic);
      const toolCall = {
        ...openai,
        choices: [{ ...openai.choices[0], finish_reason: 'tool_calls' as const }],
      };
      expectErrorCode(() => openAiChatResponseToWorkload(toolCall, context), ErrorCode.UPSTREAM_FAILED);
      const unfinished = { ...openai, choices: [{ ...openai.choices[0], finish_reason: null }] };
      expectErrorCode(() => openAiChatResponseToWorkload(unfinished, context), ErrorCode.UPSTREAM_FAILED);
      const badUsage = { ...openai, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 3 } };
      expectErrorCode(() => openAiChatResponseToWorkload(badUsage, context), ErrorCode.UPSTREAM_FAILED);
    });
  });

  describe('stream chunks', () => {
    const first = (): WorkloadDeltaChunk =>
      WorkloadDeltaChunkSchema.parse(fixture('workload-stream-chunk.first.json'));
    const final = (): WorkloadDeltaChunk =>
      WorkloadDeltaChunkSchema.parse(fixture('workload-stream-chunk.final.json'));
    const created = unixSeconds('2025-11-20T09:15:00.000Z');

    it('maps the first chunk with the assistant role, as OpenAI streams do', () => {
      const chunks = workloadChunkToOpenAiChat(first(), { created, includeUsage: true });
      expect(chunks).to.deep.equal([OpenAiChatChunkSchema.parse(fixture('openai-chat-chunk.first.json'))]);
    });

    it('closes with a finish chunk and, when asked, a choice-less usage chunk', () => {
      const chunks = workloadChunkToOpenAiChat(final(), { created, includeUsage: true });
      expect(chunks).to.have.length(2);
      expect(chunks[0].choices).to.deep.equal([
        { index: 0, delta: {}, finish_reason: 'stop', logprobs: null },
      ]);
      expect(chunks[1]).to.deep.equal(OpenAiChatChunkSchema.parse(fixture('openai-chat-chunk.usage.json')));
    });

    it('omits usage entirely when the client did not ask for it', () => {
      const chunks = workloadChunkToOpenAiChat(final(), { created, includeUsage: false });
      expect(chunks).to.have.length(1);
      expect(chunks[0]).to.not.have.property('usage');
    });

    it('maps OpenAI chat chunks back to the generic chunk', () => {
      const generic = first();
      const [openai] = workloadChunkToOpenAiChat(generic, { created, includeUsage: false });
      const back = openAiChatChunkToWorkload(openai, {
        id: generic.id,
        sequence: generic.sequence,
        servedBy: generic.servedBy,
      });
      expect(back).to.deep.equal(generic);
      const closing = final();
      const [choices, usage] = workloadChunkToOpenAiChat(closing, { created, includeUsage: true });
      const context = { id: closing.id, sequence: closing.sequence, servedBy: closing.servedBy };
      expect(openAiChatChunkToWorkload(choices, context)).to.deep.equal({ ...closing, usage: null });
      expect(openAiChatChunkToWorkload(usage, context)).to.deep.equal({ ...closing, choices: [] });
    });

    it('maps completion chunks both ways', () => {
      const generic: WorkloadDeltaChunk = {
        ...first(),
        kind: 'completion',
        choices: [{ index: 0, delta: ' Paris', finishReason: null }],
      };
      const chunks = workloadChunkToOpenAiCompletion(generic, { created, includeUsage: false });
      expect(chunks).to.deep.equal([
        OpenAiCompletionChunkSchema.parse(fixture('openai-completion-chunk.json')),
      ]);
      expect(
        openAiCompletionChunkToWorkload(chunks[0], {
          id: generic.id,
          sequence: 0,
          servedBy: generic.servedBy,
        }),
      ).to.deep.equal(generic);
    });
  });

  describe('errors', () => {
    it('builds the OpenAI error member of the golden not-found problem', () => {
      const golden = ProblemDetailsSchema.parse(fixture('problem.openai-model-not-found.json'));
      const { error, ...problem } = golden;
      expect(openAiErrorFromProblem(problem)).to.deep.equal(error);
    });

    it('names the first violated field as param for validation errors', () => {
      const problem = new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'bad', [
        { path: 'temperature', message: 'too high' },
        { path: 'top_p', message: 'too low' },
      ]).toProblem();
      expect(openAiErrorFromProblem(problem)).to.deep.equal({
        message: 'bad',
        type: 'invalid_request_error',
        code: 'validation_failed',
        param: 'temperature',
      });
    });

    it('gives every error code a schema-valid OpenAI error', () => {
      for (const code of ERROR_CODES) {
        expect(OPENAI_ERROR_TYPE_BY_CODE[code], code).to.be.a('string');
        expect(
          OpenAiErrorSchema.safeParse(openAiErrorFromProblem(new LunaNexaError(code, 'x').toProblem()))
            .success,
          code,
        ).to.equal(true);
      }
    });
  });
});
