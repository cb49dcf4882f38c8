import { canonicalJson, ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { FRAME_HEADER_BYTES, MAX_FRAME_BYTES } from './protocol';

/**
 * Framing over an SSH channel (a byte stream): each message is a 4-byte
 * big-endian payload length followed by that many bytes of UTF-8 JSON.
 * Senders write canonical JSON, so a frame's payload has the same bytes as
 * the golden fixture of the same message.
 */

/** Encodes one message; throws PAYLOAD_TOO_LARGE rather than produce a frame the peer must refuse. */
export function encodeFrame(message: unknown, maxFrameBytes: number = MAX_FRAME_BYTES): Buffer {
  const payload = Buffer.from(canonicalJson(message), 'utf8');
  if (payload.length > maxFrameBytes) {
    throw new LunaNexaError(
      ErrorCode.PAYLOAD_TOO_LARGE,
      `message is ${payload.length} bytes; a frame holds at most ${maxFrameBytes}`,
    );
  }
  const frame = Buffer.alloc(FRAME_HEADER_BYTES + payload.length);
  frame.writeUInt32BE(payload.length, 0);
  payload.copy(frame, FRAME_HEADER_BYTES);
  return frame;
}

export interface DecodedFrames {
  /** Complete frames in arrival order, each parsed as JSON (not yet validated). */
  readonly messages: unknown[];
  /**
   * Set when the stream broke the framing rules: MALFORMED_REQUEST (empty
   * payload, invalid UTF-8, not JSON) or PAYLOAD_TOO_LARGE (announced length
   * over the limit — reported as soon as the header arrives, without reading
   * the payload). Messages before the bad frame are still returned; nothing
   * after it is ever decoded.
   */
  readonly error: LunaNexaError | null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Incremental decoder for one channel. Chunks may split a frame anywhere
 * (even inside the length) or carry several frames; `push` returns whatever
 * completed. After an error the decoder is spent: the channel must close.
 */
export class FrameDecoder {
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  private failed: LunaNexaError | null = null;

  constructor(private readonly maxFrameBytes: number = MAX_FRAME_BYTES) {}

  /** Bytes received but not yet part of a complete frame. */
  get bufferedBytes(): number {
    return this.buffered;
  }

  push(chunk: Buffer): DecodedFrames {
    if (this.failed !== null) return { messages: [], error: this.failed };
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    const messages: unknown[] = [];
    while (this.buffered >= FRAME_HEADER_BYTES) {
      const length = this.peekHeader();
      if (length > this.maxFrameBytes) {
        return this.fail(
          messages,
          new LunaNexaError(
            ErrorCode.PAYLOAD_TOO_LARGE,
            `frame announces ${length} bytes; at most ${this.maxFrameBytes} are accepted`,
          ),
        );
      }
      if (this.buffered < FRAME_HEADER_BYTES + length) break;
      const frame = this.take(FRAME_HEADER_BYTES + length).subarray(FRAME_HEADER_BYTES);
      if (length === 0) {
        return this.fail(messages, new LunaNexaError(ErrorCode.MALFORMED_REQUEST, 'empty frame'));
      }
      let text: string;
      try {
        text = utf8.decode(frame);
      } catch {
        return this.fail(
          messages,
          new LunaNexaError(ErrorCode.MALFORMED_REQUEST, 'frame is not valid UTF-8'),
        );
      }
      try {
        messages.push(JSON.parse(text) as unknown);
      } catch {
        return this.fail(messages, new LunaNexaError(ErrorCode.MALFORMED_REQUEST, 'frame is not JSON'));
      }
    }
    return { messages, error: null };
  }

  private fail(messages: unknown[], error: LunaNexaError): DecodedFrames {
    this.failed = error;
    this.chunks.length = 0;
    this.buffered = 0;
    return { messages, error };
  }

  private peekHeader(): number {
    const first = this.chunks[0];
    if (first !== undefined && first.length >= FRAME_HEADER_BYTES) return first.readUInt32BE(0);
    return this.flatten().readUInt32BE(0);
  }

  /** Joins the buffered chunks into one (only when a header or frame straddles chunks). */
  private flatten(): Buffer {
    if (this.chunks.length > 1) {
      const joined = Buffer.concat(this.chunks, this.buffered);
      this.chunks.length = 0;
      this.chunks.push(joined);
    }
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  private take(bytes: number): Buffer {
    const joined = this.flatten();
    const taken = joined.subarray(0, bytes);
    const rest = joined.subarray(bytes);
    this.chunks.length = 0;
    if (rest.length > 0) this.chunks.push(rest);
    this.buffered = rest.length;
    return taken;
  }
}
