import { crc32 } from 'node:zlib';

/**
 * The container of an evidence bundle: a POSIX ustar archive inside gzip,
 * readable by `tar -xzf`, but written so that its bytes are a pure function
 * of the files it holds:
 *
 * - tar: one regular-file entry per file, in the order given; mode 0644,
 *   uid/gid 0, mtime 0, no user or group names (timestamps live in the
 *   manifest); data padded with zeros to 512 bytes; two zero blocks at the end
 *   and nothing after them.
 * - gzip: the fixed header `1f 8b 08 00 00000000 00 ff` (no name, mtime 0,
 *   OS unknown), the tar as stored (uncompressed) deflate blocks of at most
 *   65,535 bytes, then CRC-32 and size.
 *
 * Stored blocks rather than compression: compressed output depends on the
 * zlib build, stored output does not. A verifier therefore re-encodes what
 * it read and compares byte for byte, so a change to any byte — framing,
 * headers and padding included — is found, and, because a stored block keeps
 * tar offsets readable, the file it falls in can be named.
 */

export const TAR_BLOCK = 512;
const MAX_STORED_BLOCK = 65_535;
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);
/** Bundle file names: short, flat, no path tricks. */
export const ARCHIVE_NAME_PATTERN = /^[a-z0-9][a-z0-9.-]{0,99}$/;

export interface ArchiveFile {
  readonly name: string;
  readonly bytes: Buffer;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function tarHeader(name: string, size: number): Buffer {
  if (!ARCHIVE_NAME_PATTERN.test(name))
    throw new Error(`archive file name ${JSON.stringify(name)} is not allowed`);
  const header = Buffer.alloc(TAR_BLOCK);
  header.write(name, 0, 'ascii');
  header.write(octal(0o644, 8), 100, 'ascii');
  header.write(octal(0, 8), 108, 'ascii');
  header.write(octal(0, 8), 116, 'ascii');
  header.write(octal(size, 12), 124, 'ascii');
  header.write(octal(0, 12), 136, 'ascii');
  header.fill(0x20, 148, 156);
  header.write('0', 156, 'ascii');
  header.write('ustar\0', 257, 'ascii');
  header.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return header;
}

const padding = (size: number): number => (TAR_BLOCK - (size % TAR_BLOCK)) % TAR_BLOCK;

export function encodeTar(files: readonly ArchiveFile[]): Buffer {
  const parts: Buffer[] = [];
  for (const file of files) {
    parts.push(tarHeader(file.name, file.bytes.length), file.bytes, Buffer.alloc(padding(file.bytes.length)));
  }
  parts.push(Buffer.alloc(2 * TAR_BLOCK));
  return Buffer.concat(parts);
}

export function encodeStoredGzip(data: Buffer): Buffer {
  const parts: Buffer[] = [GZIP_HEADER];
  let offset = 0;
  do {
    const length = Math.min(MAX_STORED_BLOCK, data.length - offset);
    const final = offset + length >= data.length;
    const frame = Buffer.alloc(5);
    frame[0] = final ? 1 : 0;
    frame.writeUInt16LE(length, 1);
    frame.writeUInt16LE(~length & 0xffff, 3);
    parts.push(frame, data.subarray(offset, offset + length));
    offset += length;
  } while (offset < data.length);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(data) >>> 0, 0);
  trailer.writeUInt32LE(data.length % 2 ** 32, 4);
  parts.push(trailer);
  return Buffer.concat(parts);
}

/** The archive bytes of `files`, in the order given. */
export function encodeArchive(files: readonly ArchiveFile[]): Buffer {
  return encodeStoredGzip(encodeTar(files));
}

/** Something wrong with the archive itself; `file` names the entry it is in when one can be told. */
export interface ArchiveProblem {
  readonly file: string;
  readonly reason: string;
}

/** The archive's own name in problems that belong to no file in it. */
export const ARCHIVE_ITSELF = '(archive)';

export interface DecodedArchive {
  readonly files: readonly ArchiveFile[];
  /** Where each entry sits in the tar stream: [header offset, end of its padding). */
  readonly spans: readonly { readonly name: string; readonly start: number; readonly end: number }[];
  readonly tar: Buffer;
  readonly problems: readonly ArchiveProblem[];
}

/**
 * Reads the gzip stored-block framing; a framing fault ends the read (the
 * offsets after it cannot be trusted), a checksum mismatch is only noted so
 * the entries can still be read and the damaged one named.
 */
export function decodeStoredGzip(bytes: Buffer): { data: Buffer | null; problems: ArchiveProblem[] } {
  const fault = (reason: string) => ({ data: null, problems: [{ file: ARCHIVE_ITSELF, reason }] });
  if (bytes.length < GZIP_HEADER.length + 5 + 8) return fault('too short to be an evidence bundle');
  if (!bytes.subarray(0, GZIP_HEADER.length).equals(GZIP_HEADER)) {
    return fault('not an evidence bundle: the gzip header is not the one bundles are written with');
  }
  const blocks: Buffer[] = [];
  let offset = GZIP_HEADER.length;
  for (;;) {
    if (offset + 5 > bytes.length - 8) return fault(`gzip block at byte ${offset} runs past the end`);
    const flags = bytes[offset];
    if (flags !== 0 && flags !== 1) {
      return fault(`gzip block at byte ${offset} is not a stored block as bundles are written`);
    }
    const length = bytes.readUInt16LE(offset + 1);
    if ((~length & 0xffff) !== bytes.readUInt16LE(offset + 3)) {
      return fault(`gzip block length at byte ${offset + 1} is damaged`);
    }
    const start = offset + 5;
    if (start + length > bytes.length - 8) return fault(`gzip block at byte ${offset} runs past the end`);
    blocks.push(bytes.subarray(start, start + length));
    offset = start + length;
    if (flags === 1) break;
  }
  if (offset + 8 !== bytes.length)
    return fault(`${bytes.length - offset - 8} unexpected bytes after the last block`);
  const data = Buffer.concat(blocks);
  const problems: ArchiveProblem[] = [];
  if (crc32(data) >>> 0 !== bytes.readUInt32LE(offset)) {
    problems.push({ file: ARCHIVE_ITSELF, reason: 'gzip CRC-32 does not match the content' });
  }
  if (data.length % 2 ** 32 !== bytes.readUInt32LE(offset + 4)) {
    problems.push({ file: ARCHIVE_ITSELF, reason: 'gzip size field does not match the content' });
  }
  return { data, problems };
}

function headerName(header: Buffer): string {
  const end = header.indexOf(0);
  return header.subarray(0, end < 0 || end > 100 ? 100 : end).toString('latin1');
}

/**
 * Reads the tar entries. Damage that leaves the layout readable (a changed
 * byte in a name, a checksum, padding) is reported against the entry and the
 * read goes on; damage that hides where the next entry starts (the size
 * field) stops it.
 */
export function decodeTar(tar: Buffer): Omit<DecodedArchive, 'tar'> {
  const files: ArchiveFile[] = [];
  const spans: { name: string; start: number; end: number }[] = [];
  const problems: ArchiveProblem[] = [];
  let offset = 0;
  for (;;) {
    if (offset + TAR_BLOCK > tar.length) {
      problems.push({
        file: ARCHIVE_ITSELF,
        reason: 'the tar stream ends without its end-of-archive blocks',
      });
      break;
    }
    const header = tar.subarray(offset, offset + TAR_BLOCK);
    if (header.every((byte) => byte === 0)) {
      const rest = tar.subarray(offset);
      if (rest.length !== 2 * TAR_BLOCK || rest.some((byte) => byte !== 0)) {
        problems.push({
          file: ARCHIVE_ITSELF,
          reason: 'the tar end-of-archive blocks are not two zero blocks at the very end',
        });
      }
      break;
    }
    const name = headerName(header);
    let sum = 0;
    for (let i = 0; i < TAR_BLOCK; i += 1) sum += i >= 148 && i < 156 ? 0x20 : header[i];
    const recorded = parseInt(header.subarray(148, 154).toString('latin1'), 8);
    if (recorded !== sum) problems.push({ file: name, reason: 'tar header checksum does not match' });
    const sizeText = header.subarray(124, 135).toString('latin1');
    if (!/^[0-7]{11}$/.test(sizeText)) {
      problems.push({
        file: name,
        reason: 'tar header size field is damaged; entries after it cannot be read',
      });
      break;
    }
    const size = parseInt(sizeText, 8);
    const dataStart = offset + TAR_BLOCK;
    const end = dataStart + size + padding(size);
    if (end > tar.length) {
      problems.push({ file: name, reason: 'the entry runs past the end of the archive' });
      break;
    }
    files.push({ name, bytes: tar.subarray(dataStart, dataStart + size) });
    spans.push({ name, start: offset, end });
    offset = end;
  }
  return { files, spans, problems };
}
