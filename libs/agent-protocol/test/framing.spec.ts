import { canonicalJson } from '@lunanexa/contracts';
import { expect } from 'chai';
import { FrameDecoder, encodeFrame } from '../src/framing';
import { FRAME_HEADER_BYTES, MAX_FRAME_BYTES } from '../src/protocol';
import { ErrorCode, expectErrorCode, fixture, fixtureText } from './support';

function header(length: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(length, 0);
  return buffer;
}

function rawFrame(payload: Buffer | string): Buffer {
  const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  return Buffer.concat([header(bytes.length), bytes]);
}

describe('length-prefixed framing', () => {
  const put = fixture('assignment-put.json');
  const status = fixture('status-get.json');

  it('encodes the canonical JSON behind a 4-byte big-endian length: the payload is the fixture', () => {
    const frame = encodeFrame(put);
    const payload = fixtureText('assignment-put.json');
    expect(frame.readUInt32BE(0)).to.equal(Buffer.byteLength(payload));
    expect(frame.subarray(FRAME_HEADER_BYTES).toString('utf8')).to.equal(payload);
  });

  it('decodes a frame split at every byte, including inside the length', () => {
    const frame = encodeFrame(put);
    const decoder = new FrameDecoder();
    const messages: unknown[] = [];
    for (let i = 0; i < frame.length; i += 1) {
      const batch = decoder.push(frame.subarray(i, i + 1));
      expect(batch.error).to.equal(null);
      messages.push(...batch.messages);
      if (i < frame.length - 1) expect(messages).to.have.length(0);
    }
    expect(messages).to.deep.equal([put]);
    expect(decoder.bufferedBytes).to.equal(0);
  });

  it('decodes two frames in one chunk, and a frame and a half followed by the rest', () => {
    const a = encodeFrame(put);
    const b = encodeFrame(status);
    expect(new FrameDecoder().push(Buffer.concat([a, b])).messages).to.deep.equal([put, status]);

    const decoder = new FrameDecoder();
    const both = Buffer.concat([a, b]);
    const cut = a.length + 10;
    const first = decoder.push(both.subarray(0, cut));
    expect(first.messages).to.deep.equal([put]);
    expect(decoder.bufferedBytes).to.equal(10);
    expect(decoder.push(both.subarray(cut)).messages).to.deep.equal([status]);
  });

  it('accepts a payload of exactly the limit and refuses one byte more as soon as the header arrives', () => {
    const limit = 64;
    const exact = `"${'x'.repeat(limit - 2)}"`;
    expect(new FrameDecoder(limit).push(rawFrame(exact)).messages).to.deep.equal(['x'.repeat(limit - 2)]);

    const decoder = new FrameDecoder(limit);
    const batch = decoder.push(header(limit + 1));
    expect(batch.messages).to.deep.equal([]);
    expect(batch.error?.code).to.equal(ErrorCode.PAYLOAD_TOO_LARGE);
  });

  it('refuses an announced 1 MiB + 1 frame without waiting for its payload', () => {
    const batch = new FrameDecoder().push(header(MAX_FRAME_BYTES + 1));
    expect(batch.error?.code).to.equal(ErrorCode.PAYLOAD_TOO_LARGE);
    expect(new FrameDecoder().push(header(0xffffffff)).error?.code).to.equal(ErrorCode.PAYLOAD_TOO_LARGE);
  });

  it('returns the good frames before a bad one, then stays failed', () => {
    const decoder = new FrameDecoder();
    const batch = decoder.push(Buffer.concat([encodeFrame(put), rawFrame('{not json'), encodeFrame(status)]));
    expect(batch.messages).to.deep.equal([put]);
    expect(batch.error?.code).to.equal(ErrorCode.MALFORMED_REQUEST);
    const after = decoder.push(encodeFrame(status));
    expect(after.messages).to.deep.equal([]);
    expect(after.error?.code).to.equal(ErrorCode.MALFORMED_REQUEST);
  });

  for (const [label, payload] of [
    ['an empty frame', Buffer.alloc(0)],
    ['invalid UTF-8', Buffer.from([0x22, 0xff, 0xfe, 0x22])],
    ['an overlong UTF-8 encoding', Buffer.from([0x22, 0xc0, 0xaf, 0x22])],
    ['text that is not JSON', Buffer.from('hello', 'utf8')],
    ['two JSON values in one frame', Buffer.from('{} {}', 'utf8')],
  ] as const) {
    it(`refuses ${label} as MALFORMED_REQUEST`, () => {
      expect(new FrameDecoder().push(rawFrame(payload)).error?.code).to.equal(ErrorCode.MALFORMED_REQUEST);
    });
  }

  it('encodeFrame refuses a message over the limit and a value canonical JSON cannot represent', () => {
    expectErrorCode(() => encodeFrame({ big: 'x'.repeat(MAX_FRAME_BYTES) }), ErrorCode.PAYLOAD_TOO_LARGE);
    expect(() => encodeFrame({ when: new Date(0) })).to.throw(/plain object/);
    expect(canonicalJson(status)).to.equal(fixtureText('status-get.json'));
  });
});
