/**
 * Reads the `data` of server-sent events from text as it arrives (WHATWG
 * "event stream interpretation", data fields only): lines end in LF, CR or
 * CRLF, a blank line ends an event, multi-line data joins with LF, and
 * comments and other fields are skipped. A chunk may end anywhere, even
 * between the CR and LF of one line break.
 */
export class SseDataParser {
  private buffer = '';
  private data: string[] = [];

  /** Feeds decoded text; returns the data of every event it completed, in order. */
  push(text: string): string[] {
    this.buffer += text;
    const events: string[] = [];
    let lineStart = 0;
    for (let index = 0; index < this.buffer.length; index++) {
      const char = this.buffer[index];
      if (char !== '\n' && char !== '\r') {
        continue;
      }
      if (char === '\r' && index === this.buffer.length - 1) {
        // Maybe the first half of a CRLF: decide when the next chunk arrives.
        break;
      }
      const line = this.buffer.slice(lineStart, index);
      if (char === '\r' && this.buffer[index + 1] === '\n') {
        index++;
      }
      lineStart = index + 1;
      this.readLine(line, events);
    }
    this.buffer = this.buffer.slice(lineStart);
    return events;
  }

  private readLine(line: string, events: string[]): void {
    if (line === '') {
      if (this.data.length > 0) {
        events.push(this.data.join('\n'));
        this.data = [];
      }
      return;
    }
    if (line.startsWith(':')) {
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data') {
      return;
    }
    const value = colon === -1 ? '' : line.slice(colon + 1);
    this.data.push(value.startsWith(' ') ? value.slice(1) : value);
  }
}
