/**
 * The `data:` payloads of a server-sent event stream, until `[DONE]` or the
 * end of the body. Comments and other fields are skipped; multi-line data
 * is joined with newlines (the SSE rule).
 */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r?\n/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(buffer[newline] === '\r' ? newline + 2 : newline + 1);
        if (line === '') {
          if (data.length > 0) {
            const payload = data.join('\n');
            data = [];
            if (payload === '[DONE]') return;
            yield payload;
          }
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
        }
      }
      if (done) {
        if (data.length > 0 && data.join('\n') !== '[DONE]') yield data.join('\n');
        return;
      }
    }
  } finally {
    // Leaving early (break, an abort, an error) closes the body, so the HTTP request ends too.
    await reader.cancel().catch(() => undefined);
  }
}
